#!/usr/bin/env python3
"""Checks offload plans of a model against the emulation's device peaks.

Usage: check_offload_views.py BASE.json BASE.err (PLAN.json PLAN.err
       [PLAN.mlir])...

BASE is a plan without host copies of the same model: what its emulated
device peak exceeds its prediction by is what the GPU lowering adds for
the model whatever the plan. Each PLAN (with --remat-offload) must exceed
its prediction (peak_after) by exactly as much, within its budget, and
offload at least one value; with PLAN.mlir, at least one view
(tensor.collapse_shape / expand_shape) must read a remat.prefetch result.
"""
import json
import re
import sys


def measured(path):
    text = open(path).read()
    return int(re.search(r"device_window_peak_bytes=(\d+)", text).group(1))


def report(path):
    return json.load(open(path))["functions"][0]


def main():
    args = sys.argv[1:]
    base = report(args[0])
    extra = measured(args[1]) - base["peak_after"]
    assert extra >= 0, extra
    rest = args[2:]
    while rest:
        plan_json, plan_err = rest[0], rest[1]
        ir = rest[2] if len(rest) > 2 and rest[2].endswith(".mlir") else None
        rest = rest[3:] if ir else rest[2:]
        f = report(plan_json)
        values = f.get("offload", {}).get("values", [])
        got = measured(plan_err) - f["peak_after"]
        assert values, "nothing offloaded"
        assert got == extra, (plan_json, got, extra)
        assert f["peak_after"] <= f["budget"], f
        line = "%s: offloaded %d values, device peak measured == predicted + %d B" % (
            f["budget_requested"] if "budget_requested" in f else "%d B" % f["budget"],
            len(values), extra)
        if ir:
            text = open(ir).read()
            prefetched = set(re.findall(r"(%[\w.]+) = remat\.prefetch", text))
            views = re.findall(r"= tensor\.(?:collapse|expand)_shape (%[\w.]+)", text)
            n = sum(1 for v in views if v in prefetched)
            assert n >= 1, "no view reads a prefetched copy"
            line += ", 1 or more views of prefetched copies"
        print(line)


if __name__ == "__main__":
    main()
