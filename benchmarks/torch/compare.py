# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""remat against PyTorch's methods, from peers.py's results: for every model,
remat's plan at each peer configuration's measured peak against that peer
(step time, measured peak) and remat's `min` against the lowest peak any
peer reached; for chains, rotor's comparison too: throughput against
measured peak, and each remat point against the fastest
checkpoint_sequential whose measured peak is no higher.

    python benchmarks/torch/compare.py RESULTS.json [--model resnet101]

Prints markdown tables per model and checks what the budget promises:
remat's measured peak is at most its budget, and it does not grow when the
budget shrinks.  Exit status 1 when a check fails.
"""

import argparse
import json
import sys


def _mib(b):
    return b / 2**20


def compare(rows, model):
    mine = [r for r in rows if r["model"] == model]
    batch = int(mine[0]["size"].split()[1].rstrip(","))
    ok = [r for r in mine if not r["error"] and r["step_s"]]
    seq = [r for r in ok if r["method"] == "checkpoint_sequential"]
    lines = [f"**{model}** ({mine[0]['size']}; peaks include the gradients, "
             f"{_mib(mine[0]['grad_bytes']):.1f} MiB)", "",
             "| method | setting | budget (MiB) | measured peak (MiB) | step (ms) | images/s "
             "| checkpoint_sequential at <= that peak | its images/s | remat's gain |",
             "|---|---|---:|---:|---:|---:|---|---:|---:|"]
    for r in mine:
        budget = "" if r.get("budget") is None else f"{_mib(r['budget']):.1f}"
        head = f"| {r['method']} | {'' if r['param'] is None else r['param']} | {budget} "
        if r["error"] or not r["step_s"]:
            lines.append(head + f"| {r['error']} ||||||")
            continue
        line = head + (f"| {_mib(r['peak_bytes']):.1f} | {r['step_s'] * 1e3:.0f} "
                       f"| {batch / r['step_s']:.2f} ")
        if r["method"] == "remat":
            peers = [s for s in seq if s["peak_bytes"] <= r["peak_bytes"]]
            best = min(peers, key=lambda s: s["step_s"], default=None)
            if best:
                line += (f"| {best['param']} segments ({_mib(best['peak_bytes']):.1f} MiB) "
                         f"| {batch / best['step_s']:.2f} "
                         f"| {best['step_s'] / r['step_s'] - 1:+.1%} |")
            else:
                line += "| none as low || |"
        else:
            line += "| | | |"
        lines.append(line)
    return lines


def against_peers(rows, model):
    """remat at each peer's measured peak (peers.py's "at X MiB") against
    that peer; remat's `min` against the lowest peak of any peer."""
    mine = [r for r in rows if r["model"] == model and not r["error"] and r["step_s"]]
    peers = [r for r in mine if r["method"] not in ("none", "remat")]
    remat = {r["param"]: r for r in mine if r["method"] == "remat"}
    if not peers or not remat:
        return []
    lines = [f"**{model}**: remat at each peer's measured peak", "",
             "| peer | setting | its peak (MiB) | its step (ms) | remat's peak (MiB) "
             "| remat's step (ms) | remat / peer |", "|---|---|---:|---:|---:|---:|---:|"]
    for p in sorted(peers, key=lambda r: r["peak_bytes"]):
        r = remat.get(f"at {_mib(p['peak_bytes']):.1f} MiB")
        cells = (f"| {_mib(r['peak_bytes']):.1f} | {r['step_s'] * 1e3:.0f} "
                 f"| {r['step_s'] / p['step_s']:.2f} |") if r else "| not run | | |"
        lines.append(f"| {p['method']} | {'' if p['param'] is None else p['param']} "
                     f"| {_mib(p['peak_bytes']):.1f} | {p['step_s'] * 1e3:.0f} " + cells)
    low = min(peers, key=lambda r: r["peak_bytes"])
    if "min" in remat:
        lines += ["", f"remat's `min`: {_mib(remat['min']['peak_bytes']):.1f} MiB; the lowest "
                  f"peer: {_mib(low['peak_bytes']):.1f} MiB ({low['method']}"
                  f"{'' if low['param'] is None else ' ' + str(low['param'])})"]
    return lines


def checks(rows, model):
    """remat's measured peak <= its budget; peaks monotone in the budget."""
    remat = sorted((r for r in rows if r["model"] == model and r["method"] == "remat"
                    and not r["error"] and r.get("budget") is not None),
                   key=lambda r: r["budget"])
    bad = [f"{r['param']}: measured {_mib(r['peak_bytes']):.1f} MiB over its budget "
           f"{_mib(r['budget']):.1f} MiB" for r in remat if r["peak_bytes"] > r["budget"]]
    bad += [f"{b['param']}: measured {_mib(b['peak_bytes']):.1f} MiB above "
            f"{a['param']}'s {_mib(a['peak_bytes']):.1f} MiB at a larger budget"
            for a, b in zip(remat[1:], remat) if b["peak_bytes"] > a["peak_bytes"]]
    return remat, bad


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("results")
    p.add_argument("--model", help="one model (default: every chain)")
    a = p.parse_args()
    with open(a.results) as f:
        rows = json.load(f)["rows"]
    models = [a.model] if a.model else list(dict.fromkeys(r["model"] for r in rows))
    failed = False
    for model in models:
        print("\n".join(against_peers(rows, model)) + "\n")
        if any(r["model"] == model and r["method"] == "checkpoint_sequential" for r in rows):
            print("\n".join(compare(rows, model)) + "\n")
        remat, bad = checks(rows, model)
        for line in bad:
            print("check:", model, line)
        failed |= bool(bad)
        if not bad:
            print(f"check: {model}: at each of {len(remat)} budgets remat's measured peak is "
                  "within its budget, and monotone in it\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
