#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Compares every rank's measured peak with the report's prediction for it.

Usage: rank_peaks.py REPORT.json RANKS.err [--at-most-budget]
REPORT.json: `remat-opt --remat-report`'s (its first function); RANKS.err:
the stderr of `RANKS=N run.sh`, one `rank=R window_peak_bytes=P` line per
rank. The prediction for rank R is the report's device_peaks[R] (a step
whose sizes depend on the device index), else its peak_after. Prints
`measured [...] predicted [...] equal` (or `DIFFER`); exits 1 when they
differ or a rank is missing. With --at-most-budget, checks the guarantee
only: every rank's measured peak <= the report's budget (prints `N ranks
within the budget`, or the ranks above it).
"""
import json
import re
import sys


def main():
    args = [a for a in sys.argv[1:] if a != "--at-most-budget"]
    if len(args) != 2:
        sys.exit(__doc__)
    f = json.load(open(args[0]))["functions"][0]
    lines = re.findall(r"rank=(\d+) window_peak_bytes=(\d+)", open(args[1]).read())
    measured = [int(p) for _, p in sorted((int(r), p) for r, p in lines)]
    if len(args) != len(sys.argv) - 1:
        above = [(r, p) for r, p in enumerate(measured) if p > f["budget"]]
        if not measured or above:
            print("budget %d B: ranks above it %s" % (f["budget"], above or "(none ran)"))
            return 1
        print("%d ranks within the budget" % len(measured))
        return 0
    predicted = f.get("device_peaks") or [f["peak_after"]] * len(measured)
    same = len(measured) == len(predicted) and measured == predicted
    print("measured %s predicted %s %s" % (measured, predicted, "equal" if same else "DIFFER"))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
