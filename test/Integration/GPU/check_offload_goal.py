#!/usr/bin/env python3
"""Checks an offloading plan at `min` against issue 51's first goal.

Usage: check_offload_goal.py RECOMPUTE.json OFFLOAD.json OFFLOAD.err
       REF.out OFFLOAD.out [--within]

RECOMPUTE.json: the report of `--remat-budget=min` without offload;
OFFLOAD.json, .err, .out: the offloading plan's report and its emulated
run; REF.out: the program as written, emulated. Prints `ok` when the
device window peak measured equals the plan's peak_after and its budget,
the outputs equal the program's (base addresses aside), and the budget is
at least 30 % below recomputation's smallest. With --within the peak
measured equals peak_after and is at most the budget (copies that overlap
the compute: the plan's model holds a copy's device bytes until it ends,
the program frees them right after it, so it may hold less).
"""
import json
import re
import sys


def main():
    rec, off, err, ref, out = sys.argv[1:6]
    within = "--within" in sys.argv[6:]
    rb = json.load(open(rec))["functions"][0]["budget"]
    f = json.load(open(off))["functions"][0]
    m = int(re.search(r"device_window_peak_bytes=(\d+)", open(err).read()).group(1))
    strip = lambda p: re.sub(r"base@ = \S*", "", open(p).read())
    problems = []
    if not (m == f["peak_after"] <= f["budget"] if within else
            m == f["peak_after"] == f["budget"]):
        problems.append("measured %d, peak_after %d, budget %d" %
                        (m, f["peak_after"], f["budget"]))
    if strip(ref) != strip(out):
        problems.append("outputs differ")
    below = 100.0 * (1 - f["budget"] / rb)
    if below < 30:
        problems.append("%.1f %% below %d B" % (below, rb))
    print("%d B (%.1f %% below %d B): measured == predicted %s budget, "
          "outputs as written, at least 30 %% below recomputation's smallest "
          "budget: %s" % (f["budget"], below, rb, "<=" if within else "==",
                          "; ".join(problems) or "ok"))


if __name__ == "__main__":
    main()
