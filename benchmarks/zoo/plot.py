#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Plots and tables of the zoo benchmark (results/<model>.json from zoo.py).

  benchmarks/zoo/plot.py [--results benchmarks/zoo/results]

writes into the results directory:
  overhead.png          recompute overhead versus budget, one panel per model,
                        one line per strategy, PyTorch's min-cut as a star
  memory-<model>.png    bytes held over one step (x: cumulative FLOPs),
                        no remat versus auto at the smallest budget it meets
  summary.md            the tables of docs/benchmarks.md
Needs matplotlib (in the Python environment of scripts/python-env.sh).
"""

import argparse
import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ORDER = ["resnet18", "resnet50", "resnet152", "vgg19", "densenet121", "inception_v3",
         "mobilenet_v2", "vit_b_16", "unet"]
STYLE = {"auto": ("k", "o"), "lowerset-approx": ("tab:blue", "s"),
         "lowerset-exact": ("tab:green", "^"), "chain-rotor": ("tab:red", "v"),
         "chen-sqrt": ("tab:purple", "D")}


def load(results):
    data = {}
    for path in glob.glob(os.path.join(results, "*.json")):
        with open(path) as fh:
            d = json.load(fh)
        if isinstance(d, dict) and "model" in d:
            data[d["model"]] = d
    return [data[m] for m in ORDER if m in data] + \
           [d for m, d in sorted(data.items()) if m not in ORDER]


def mib(b):
    return b / 2.0 ** 20


def plot_overhead(models, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    n = len(models)
    cols = 3
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.2 * rows), squeeze=False)
    for ax, d in zip(axes.flat, models):
        for s, (color, marker) in STYLE.items():
            pts = [(r["peak_percent"], r["overhead_percent"]) for r in d["runs"]
                   if r["strategy"] == s and r["status"] == "ok"]
            # Overhead against the budget asked (x: budget %).
            pts_b = [(r["budget_percent"], r["overhead_percent"]) for r in d["runs"]
                     if r["strategy"] == s and r["status"] == "ok"]
            if pts_b:
                xs, ys = zip(*sorted(pts_b))
                ax.plot(xs, ys, color=color, marker=marker, ms=4, lw=1, label=s)
        mc = d.get("min_cut", {})
        if mc.get("valid"):
            ax.plot([mc["peak_percent"]], [mc["overhead_percent"]], "*", color="tab:orange",
                    ms=11, label="PyTorch min-cut")
        ax.set_title("%s (batch %d, %.0f MiB)" % (d["model"], d["batch"], mib(d["none"]["peak"])),
                     fontsize=9)
        ax.set_xlabel("budget (% of no-remat peak)", fontsize=8)
        ax.set_ylabel("recompute overhead (% FLOPs)", fontsize=8)
        ax.set_xlim(25, 102)
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    for ax in axes.flat:
        h, l = ax.get_legend_handles_labels()
        for hh, ll in zip(h, l):
            if ll not in labels:
                handles.append(hh)
                labels.append(ll)
    fig.legend(handles, labels, loc="lower center", ncol=6, fontsize=8)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    fig.savefig(os.path.join(out, "overhead.png"), dpi=110)
    plt.close(fig)


def plot_memory(d, out):
    """Bytes held during each step against the step's end time (cumulative
    FLOPs of the steps run so far), or the step index without times."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 3.4))
    timed = False
    for key, color in (("none", "tab:gray"), ("auto", "tab:blue")):
        tl = d.get("timeline", {}).get(key)
        if not tl or not tl["usage"]:
            continue
        st = tl.get("step_times") or []
        xs, t = [], 0.0
        for i, _ in enumerate(tl["usage"]):
            if len(st) == len(tl["usage"]):
                t += st[i]
                xs.append(t / 1e9)
                timed = True
            else:
                xs.append(i)
        label = "no remat (peak %.0f MiB)" % mib(tl["peak"]) if key == "none" else \
            "auto at %d%% (peak %.0f MiB)" % (tl["budget_percent"], mib(tl["peak"]))
        ax.plot(xs, [mib(u) for u in tl["usage"]], color=color, lw=1, label=label)
    ax.set_xlabel("GFLOP executed" if timed else "schedule step")
    ax.set_ylabel("MiB held")
    ax.set_title("%s, batch %d: memory over one training step" % (d["model"], d["batch"]))
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "memory-%s.png" % d["model"]), dpi=110)
    plt.close(fig)


def fmt_pct(x):
    return "-" if x is None else "%.1f%%" % x


def summary(models):
    lines = ["| model | batch, input | ATen nodes | planner nodes (fwd) | params | no-remat peak "
             "| min budget: auto / lowerset-exact / chain-rotor / chen-sqrt |",
             "| --- | --- | ---: | ---: | ---: | ---: | --- |"]
    for d in models:
        p0 = d["none"]["peak"]
        mb = d["min_budget"]
        mins = " / ".join(fmt_pct(100.0 * mb[s]["bytes"] / p0) if mb.get(s, {}).get("bytes")
                          else "-" for s in ("auto", "lowerset-exact", "chain-rotor", "chen-sqrt"))
        lines.append("| %s | %d, %s | %d | %d (%d) | %.0f MiB | %.0f MiB | %s |" % (
            d["model"], d["batch"], "x".join(map(str, d["input"][1:])), d["aten_nodes"],
            d["graph_nodes"], d["forward_nodes"], mib(d["params_bytes"]), mib(p0), mins))
    lines.append("")
    budgets = sorted({r["budget_percent"] for d in models for r in d["runs"]})
    strategies = [s for s in STYLE if any(r["strategy"] == s for d in models for r in d["runs"])]
    lines.append("Recompute overhead (% of the step's FLOPs) at each budget (% of the no-remat "
                 "peak); `-`: infeasible, `t/o`: timed out. Solver time is the median over "
                 "budgets of the remat-plan run.")
    lines.append("")
    head = "| model | strategy | " + " | ".join("%d%%" % b for b in budgets) + " | solver |"
    lines += [head, "| --- | --- | " + " | ".join("---:" for _ in budgets) + " | ---: |"]
    for d in models:
        for s in strategies:
            cells = []
            secs = []
            for b in budgets:
                r = next((r for r in d["runs"] if r["strategy"] == s and r["budget_percent"] == b), None)
                if r is None:
                    cells.append("")
                    continue
                secs.append(r["solve_seconds"])
                if r["status"] == "ok":
                    c = "%.2f" % r["overhead_percent"]
                    if s == "auto" and r.get("chosen") and r["chosen"] != "auto":
                        c += " (%s)" % r["chosen"]
                    cells.append(c)
                else:
                    cells.append("t/o" if r["status"] == "timeout" else "-")
            secs.sort()
            med = secs[len(secs) // 2] if secs else 0
            lines.append("| %s | %s | %s | %.2f s |" % (d["model"], s, " | ".join(cells), med))
    lines.append("")
    lines.append("PyTorch's min-cut partition judged by the same Simulator; *ours at its peak*: "
                 "overhead of each strategy with the min-cut's peak as budget; *ours at its "
                 "overhead*: the lowest peak `auto` reaches without more overhead.")
    lines.append("")
    lines.append("| model | min-cut peak | min-cut overhead | recomputed | ours at its peak: auto / "
                 "lowerset-approx / chen-sqrt | ours at its overhead (auto) |")
    lines.append("| --- | ---: | ---: | ---: | --- | ---: |")
    for d in models:
        mc = d.get("min_cut", {})
        if not mc.get("valid"):
            lines.append("| %s | invalid: %s | | | | |" % (d["model"], mc.get("error", "")))
            continue
        ap = mc.get("ours_at_its_peak", {})
        cells = " / ".join(fmt_pct(ap[s]["overhead_percent"]) if ap.get(s) else "-"
                           for s in ("auto", "lowerset-approx", "chen-sqrt"))
        ao = mc.get("ours_at_its_overhead")
        lines.append("| %s | %.1f%% | %.2f%% | %d | %s | %s |" % (
            d["model"], mc["peak_percent"], mc["overhead_percent"], mc["recomputed_nodes"],
            cells, fmt_pct(ao["peak_percent"]) if ao else "-"))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default=os.path.join(HERE, "results"))
    ap.add_argument("--memory-model", default="resnet50",
                    help="model of the memory-over-time plot (default resnet50)")
    args = ap.parse_args()
    models = load(args.results)
    if not models:
        sys.exit("plot: no results in %s (run zoo.py)" % args.results)
    with open(os.path.join(args.results, "summary.md"), "w") as fh:
        fh.write(summary(models))
    try:
        plot_overhead(models, args.results)
        for d in models:
            if d["model"] == args.memory_model or args.memory_model == "all":
                plot_memory(d, args.results)
    except ImportError:
        sys.exit("plot: needs matplotlib (run it with the python of scripts/python-env.sh)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
