# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Plots of peers.py's results.

    python benchmarks/torch/plot.py RESULTS.json... [--out docs/img] [--tag cpu]
        [--table merged.md]

torch-peers-TAG.png: step time against measured peak, a panel per model,
a marker per method.  torch-peers-rotor-TAG.png: rotor's figure, throughput
(samples per second) against measured peak for no recomputation,
checkpoint_sequential and remat's ten budgets, on the chains.
"""

import argparse
import json
import math
import os

import sys

import matplotlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STYLE = {  # family -> marker, colour
    "none": ("s", "tab:red"), "compile": ("D", "tab:pink"),
    "checkpoint per block": ("^", "tab:green"), "checkpoint_sequential": ("x", "tab:purple"),
    "selective (save mm/conv)": ("v", "tab:olive"), "memory budget dp": ("o", "tab:orange"),
    "memory budget ilp": ("+", "tab:brown"), "remat": ("*", "tab:blue"),
    "remat at": ("o", "tab:blue"),
    "rockmate": ("P", "tab:cyan")}


def _ok(rows):
    return [r for r in rows if not r["error"] and r["step_s"]]


def _models(rows):
    return list(dict.fromkeys(r["model"] for r in rows))


def _grid(n):
    cols = min(n, 3)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 4 * rows), squeeze=False)
    for ax in axes.flat[n:]:
        ax.axis("off")
    return fig, list(axes.flat)


def peers(rows, meta, path):
    models = _models(rows)
    fig, axes = _grid(len(models))
    for ax, model in zip(axes, models):
        mine = [r for r in _ok(rows) if r["model"] == model]
        for method in dict.fromkeys(r["method"] for r in mine):
            pts = sorted((r["peak_bytes"] / 2**20, r["step_s"]) for r in mine
                         if r["method"] == method)
            marker, colour = STYLE.get(method, (".", "black"))
            ax.plot(*zip(*pts), marker=marker, color=colour, linestyle="none", label=method)
        ax.set_title(f"{model} ({mine[0]['size']})" if mine else model, fontsize=9)
        ax.set_xlabel("measured peak (MiB)")
        ax.set_ylabel("step time (s)")
        ax.grid(alpha=0.3)
    handles = {}
    for ax in axes:
        for h, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, h)
    fig.legend(handles.values(), handles.keys(), loc="lower center", ncol=5, fontsize=8)
    fig.suptitle(f"Step time against measured peak, {meta['machine']}, {meta['date']}"
                 f" (compiled methods: {meta['compiler']})", fontsize=10)
    fig.tight_layout(rect=(0, 0.08, 1, 0.96))
    fig.savefig(path, dpi=90)
    print("wrote", path)


def rotor(rows, meta, path):
    """Throughput against peak on the chains, as rotor's section 5 plots it."""
    chains = [m for m in _models(rows)
              if any(r["method"] == "checkpoint_sequential" for r in rows if r["model"] == m)]
    if not chains:
        return
    fig, axes = _grid(len(chains))
    for ax, model in zip(axes, chains):
        mine = [r for r in _ok(rows) if r["model"] == model]
        batch = int(mine[0]["size"].split()[1].rstrip(","))

        def curve(keep, label, style, line="none"):
            pts = sorted((r["peak_bytes"] / 2**20, batch / r["step_s"]) for r in mine if keep(r))
            if pts:
                marker, colour = STYLE[style]
                ax.plot(*zip(*pts), marker=marker, color=colour, linestyle=line, label=label)

        curve(lambda r: r["method"] == "none", "PyTorch", "none")
        curve(lambda r: r["method"] == "checkpoint_sequential", "checkpoint_sequential",
              "checkpoint_sequential")
        curve(lambda r: r["method"] == "remat" and (str(r["param"]).startswith("rotor")
                                                     or r["param"] == "min"),
              "remat, 10 budgets and min", "remat", "-")
        curve(lambda r: r["method"] == "remat" and str(r["param"]).startswith("at "),
              "remat at checkpoint_sequential's peaks", "remat at")
        ax.set_title(f"{model} ({mine[0]['size']})", fontsize=9)
        ax.set_xlabel("measured peak (MiB)")
        ax.set_ylabel("throughput (samples/s)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"rotor's experiment: {meta['machine']}, {meta['date']}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    print("wrote", path)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("results", nargs="+", help="results.json of one run or more")
    p.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                 "docs", "img"))
    p.add_argument("--tag", help="file name tag (default: the results' device)")
    p.add_argument("--table", help="also write the runs' tables, merged, to this markdown file")
    a = p.parse_args()
    rows, meta = [], None
    for path in a.results:
        with open(path) as f:
            data = json.load(f)
        rows += data["rows"]
        meta = meta or data["meta"]
    tag = a.tag or meta["device"]
    os.makedirs(a.out, exist_ok=True)
    if a.table:
        from peers import table

        with open(a.table, "w") as f:
            f.write(table(rows))
    peers(rows, meta, os.path.join(a.out, f"torch-peers-{tag}.png"))
    rotor(rows, meta, os.path.join(a.out, f"torch-peers-rotor-{tag}.png"))


if __name__ == "__main__":
    main()
