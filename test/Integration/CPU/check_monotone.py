#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Plans a model with `remat-opt --remat-budget=B --remat-strategy=S` at
budgets evenly spread from the smallest S meets to the peak without
rematerialization, and counts the pairs of consecutive budgets met where
the larger budget's program is slower or peaks lower (the report's
time_after and peak_after: the rewritten program's own peak).

Prints one line: `<model> <strategy>: <n> budgets met, <k> not monotone`.
With --monotone, exits non-zero when k > 0 or a peak is above its budget.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def plan(remat_opt, model, budget, strategy, report):
    p = subprocess.run([remat_opt, model, "--remat-budget=" + budget,
                        "--remat-strategy=" + strategy,
                        "--remat-report=" + report, "-o", os.devnull],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return None
    with open(report) as f:
        return json.load(f)["functions"][0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model")
    ap.add_argument("--strategy", required=True)
    ap.add_argument("--budgets", type=int, default=24, help="how many")
    ap.add_argument("--remat-opt", default="remat-opt")
    ap.add_argument("--monotone", action="store_true",
                    help="fail unless every pair is monotone")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.json")
        least = plan(args.remat_opt, args.model, "min", args.strategy, report)
        if least is None:
            sys.exit("%s: %s meets no budget" % (args.model, args.strategy))
        lo, hi = least["budget"], least["peak_before"]
        met, pairs, prev = 0, 0, None
        for i in range(args.budgets):
            b = lo + (hi - lo) * i // (args.budgets - 1)
            f = plan(args.remat_opt, args.model, "%dB" % b, args.strategy, report)
            if f is None:
                if prev is not None:
                    pairs += 1  # Met below, missed here.
                continue
            met += 1
            if f["peak_after"] > b:
                sys.exit("%s at %d B: peak %d B above the budget"
                         % (args.model, b, f["peak_after"]))
            if prev and (f["time_after"] > prev["time_after"]
                         or f["peak_after"] < prev["peak_after"]):
                pairs += 1
                print("  %d B: peak %d B, time %d after %d B, time %d"
                      % (b, f["peak_after"], f["time_after"],
                         prev["peak_after"], prev["time_after"]))
            prev = f
    print("%s %s: %d budgets met, %d not monotone"
          % (os.path.basename(args.model), args.strategy, met, pairs))
    if args.monotone and pairs:
        sys.exit(1)


if __name__ == "__main__":
    main()
