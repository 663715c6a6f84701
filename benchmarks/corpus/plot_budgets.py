#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The smallest budget and the recompute overhead against the budget, for
the corpus models: runs `remat-opt --remat-budget=B --remat-report=...` on
each model at B = 100 %, 95 %, ... down to the smallest budget it meets
(refused budgets are left out) and at `min`, and plots the report's
predicted peak (`peak_after`, in % of `peak_before`) and its
`overhead_percent` against B, one PNG. Prints the points as a table.

  $(scripts/python-env.sh --path) benchmarks/corpus/plot_budgets.py \\
      [--bin build/bin] [--step 5] [-o docs/img/corpus-budgets.png]

Run from the project root; matplotlib is in the project's environment."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

MODELS = [("mlp", "test/Corpus/Inputs/mlp.mlir"),
          ("cnn", "test/Corpus/Inputs/cnn.mlir"),
          ("resnet", "test/Corpus/Inputs/resnet.mlir"),
          ("unet", "test/Corpus/Inputs/unet.mlir"),
          ("siamese", "test/Corpus/Inputs/siamese.mlir"),
          ("example (resnet's copy)", "examples/resnet-train-step.mlir")]


def report(remat_opt, path, budget, tmp):
    """The report's entry of the step (the function with the largest peak)
    at BUDGET, or None where the budget is refused."""
    out = os.path.join(tmp, "report.json")
    p = subprocess.run([remat_opt, path, "--remat-budget=" + budget,
                        "--remat-report=" + out, "-o", os.devnull],
                       capture_output=True, text=True)
    if p.returncode != 0:
        if "cannot fit" in p.stderr:
            return None
        sys.exit("remat-opt %s --remat-budget=%s failed:\n%s"
                 % (path, budget, p.stderr[-2000:]))
    return max(json.load(open(out))["functions"], key=lambda f: f["peak_before"])


def sweep(remat_opt, path, step):
    """[(budget in %, peak_after in %, overhead %, label)], `min` last."""
    points = []
    with tempfile.TemporaryDirectory() as tmp:
        for pct in range(100, 0, -step):
            f = report(remat_opt, path, "%d%%" % pct, tmp)
            if f:
                points.append((pct, 100.0 * f["peak_after"] / f["peak_before"],
                               f["overhead_percent"], "%d%%" % pct))
        f = report(remat_opt, path, "min", tmp)
        points.append((100.0 * f["budget"] / f["peak_before"],
                       100.0 * f["peak_after"] / f["peak_before"],
                       f["overhead_percent"], "min"))
    return points


def plot(curves, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    for name, pts in curves:
        b = [p[0] for p in pts]
        # The example is the corpus ResNet under another name: dashed,
        # over its line.
        ls = "--" if name.startswith("example") else "-"
        line, = left.plot(b, [p[1] for p in pts], ls=ls, marker=".", label=name)
        right.plot(b, [p[2] for p in pts], ls=ls, marker=".",
                   color=line.get_color(), label=name)
        for ax, y in ((left, pts[-1][1]), (right, pts[-1][2])):
            ax.plot([pts[-1][0]], [y], marker="o", markersize=8, mfc="none",
                    color=line.get_color())
    left.plot([0, 100], [0, 100], ls=":", color="grey", label="peak = budget")
    left.set_ylabel("predicted peak (% of the peak without remat)")
    right.set_ylabel("recompute overhead (% of the step's time)")
    for ax in (left, right):
        ax.set_xlabel("budget (% of the peak without remat); circle: min")
        ax.set_xlim(0, 102)
        ax.invert_xaxis()
        ax.grid(alpha=0.3)
    left.set_ylim(0, 102)
    left.legend(fontsize=8)
    fig.suptitle("Corpus models: remat-opt --remat-budget=B, predicted peak "
                 "and overhead (--remat-report)")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default="build/bin")
    ap.add_argument("--step", type=int, default=5, help="budget step in %%")
    ap.add_argument("-o", "--out", default="docs/img/corpus-budgets.png")
    a = ap.parse_args()
    remat_opt = os.path.join(a.bin, "remat-opt")
    curves = []
    print("| model | smallest budget | overhead at min | overhead at 50 % | overhead at 80 % |")
    print("|---|---:|---:|---:|---:|")
    for name, path in MODELS:
        pts = sweep(remat_opt, path, a.step)
        curves.append((name, pts))
        at = {p[3]: p for p in pts}
        cell = lambda l: "%.1f %%" % at[l][2] if l in at else "-"
        print("| %s | %.1f %% | %s | %s | %s |"
              % (name, pts[-1][0], cell("min"), cell("50%"), cell("80%")))
    plot(curves, a.out)
    print("wrote " + a.out)


if __name__ == "__main__":
    main()
