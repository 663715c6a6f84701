#!/usr/bin/env python3
"""Checks a plan that keeps a scan's stacks in host memory against the same
step planned without offload.

Usage: check_host_stacks.py RECOMPUTE.json HOST.json HOST.err REF.out HOST.out

RECOMPUTE.json: the report of the same `--remat-budget` without offload;
HOST.json, .err, .out: the plan with `--remat-offload`, its emulated run;
REF.out: the program as written, emulated. Prints one line ending in `ok`
when the report says the stacks are on the host, the device window peak
measured equals the plan's peak_after, within its budget, the host window
peak equals the host stacks' bytes, the outputs are the program's bit for
bit (base addresses aside), and the plan beats recomputation's: at `min` a
smaller budget, else a faster plan.
"""
import json
import re
import sys


def main():
    rec, host, err, ref, out = sys.argv[1:6]
    r = json.load(open(rec))["functions"][0]
    h = json.load(open(host))["functions"][0]
    text = open(err).read()
    device = int(re.search(r"device_window_peak_bytes=(\d+)", text).group(1))
    hosted = int(re.search(r"host_window_peak_bytes=(\d+)", text).group(1))
    strip = lambda p: re.sub(r"base@ = \S*", "", open(p).read())
    problems = []
    stacks = h.get("host_stacks", {}).get("bytes", 0)
    if not stacks:
        problems.append("no host stacks in the report")
    if not device == h["peak_after"] <= h["budget"]:
        problems.append("measured %d, peak_after %d, budget %d" %
                        (device, h["peak_after"], h["budget"]))
    if hosted != stacks:
        problems.append("host window %d, stacks %d" % (hosted, stacks))
    if strip(ref) != strip(out):
        problems.append("outputs differ")
    if h.get("budget_requested") == "min":
        if not h["budget"] < r["budget"]:
            problems.append("budget %d, recomputation's %d" %
                            (h["budget"], r["budget"]))
        what = "budget %d B < %d B" % (h["budget"], r["budget"])
    else:
        if not h["time_after"] < r["time_after"]:
            problems.append("time %g, recomputation's %g" %
                            (h["time_after"], r["time_after"]))
        what = "time %+.1f %% < %+.1f %%" % (
            100 * (h["time_after"] / h["time_before"] - 1),
            100 * (r["time_after"] / r["time_before"] - 1))
    print("host stacks %d B, device %d B: measured == predicted <= budget, "
          "outputs as written, %s: %s" %
          (stacks, device, what, "; ".join(problems) or "ok"))


if __name__ == "__main__":
    main()
