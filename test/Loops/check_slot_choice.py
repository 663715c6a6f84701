#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Checks the slot count -remat-fit chooses for a scan against every count.

For each budget, `remat-opt MODEL --remat-budget=B` checkpoints the
function's one scan with the slots it chooses (CheckpointScansWithin.cpp:
a count that fits as it is and a ladder above it, each solved with the
rest of the graph). The oracle tries every count K = 1..T: the scan
rewritten with K slots and the rest planned around them at the same budget
in bytes (`--remat-budget=<bytes> --remat-scan-slots=K`); the fastest plan
that fits is the best count. The choice must be as fast as the best,
within --tolerance (the choice is timed as the oracle times its own K).

With --strategy S both the choice and the oracle's plans use strategy S
(checkmate-milp chooses the count inside its model: SizedParts.h).

Usage: check_slot_choice.py MODEL.mlir --budgets 50% 30% [--tolerance 0.002]
[--strategy S] (remat-opt from PATH). Prints one line per budget ending in ": ok" or
": FAIL"; exits 1 on a failure.
"""

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile


def run(args):
    return subprocess.run(["remat-opt"] + args, capture_output=True, text=True)


def report_of(path):
    with open(path) as fh:
        return json.load(fh)["functions"][0]


def chosen(model, budget, tmp, strategy):
    """(budget in bytes, slots chosen, steps) of the default pipeline."""
    report = os.path.join(tmp, "chosen.json")
    p = run([model, "--remat-budget=" + budget, "--remat-report=" + report,
             "-o", os.devnull] + strategy)
    m = re.search(r"scan of (\d+) steps checkpointed with (\d+) slots", p.stderr)
    if p.returncode != 0 or not m:
        sys.exit("check_slot_choice: remat-opt %s --remat-budget=%s did not "
                 "checkpoint a scan:\n%s" % (model, budget, p.stderr))
    return report_of(report)["budget"], int(m.group(2)), int(m.group(1))


def time_with(model, slots, budget_bytes, tmp, strategy):
    """The planned time with the scan at `slots`, None when nothing fits."""
    report = os.path.join(tmp, "k%d.json" % slots)
    p = run([model, "--remat-budget=%d" % budget_bytes,
             "--remat-scan-slots=%d" % slots,
             "--remat-report=" + report, "-o", os.devnull] + strategy)
    if p.returncode != 0:
        return None
    r = report_of(report)
    return r["time_after"] if r["peak_after"] <= budget_bytes else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model")
    ap.add_argument("--budgets", nargs="+", required=True)
    ap.add_argument("--tolerance", type=float, default=0.002)
    ap.add_argument("--strategy", help="the planner's strategy (default: "
                    "remat-opt's, auto)")
    a = ap.parse_args()
    strategy = ["--remat-strategy=" + a.strategy] if a.strategy else []
    name = os.path.basename(a.model)
    failed = False
    for budget in a.budgets:
        with tempfile.TemporaryDirectory() as tmp:
            bytes_, k, steps = chosen(a.model, budget, tmp, strategy)
            with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
                times = dict(zip(range(1, steps + 1), pool.map(
                    lambda s: time_with(a.model, s, bytes_, tmp, strategy),
                    range(1, steps + 1))))
        fits = {s: t for s, t in times.items() if t is not None}
        if not fits or times[k] is None:
            print("slot choice: %s budget=%s (%d B): chose %d slots, which %s: FAIL"
                  % (name, budget, bytes_, k, "fit nowhere" if not fits
                     else "do not fit in the oracle's run"))
            failed = True
            continue
        best = min(fits, key=lambda s: (fits[s], s))
        ok = times[k] <= fits[best] * (1 + a.tolerance)
        failed |= not ok
        print("slot choice: %s budget=%s (%d B): chose %d slots (time %.0f), "
              "best of %d counts that fit: %d slots (time %.0f): %s"
              % (name, budget, bytes_, k, times[k], len(fits), best, fits[best],
                 "ok" if ok else "FAIL"))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
