#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Compares a step's smallest budget with its twin's (the same math written
another way).

Usage: min_vs_twin.py STEP.json TWIN.json [--saving-at-least F]
Both are `remat-opt --remat-budget=min --remat-report`'s reports. Prints
`min X B, twin's Y B, S % below the peak as written` and exits 1 when the
step's smallest budget is above the twin's, or saves less than the fraction
F of its peak as written.
"""
import argparse
import json
import sys


def first_function(path):
    return json.load(open(path))["functions"][0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step")
    parser.add_argument("twin")
    parser.add_argument("--saving-at-least", type=float, default=0.0)
    args = parser.parse_args()
    step, twin = first_function(args.step), first_function(args.twin)
    saving = 1 - step["peak_after"] / step["peak_before"]
    print("min %d B, twin's %d B, %.1f %% below the peak as written"
          % (step["peak_after"], twin["peak_after"], 100 * saving))
    if step["peak_after"] > twin["peak_after"]:
        print("above the twin's smallest budget")
        return 1
    if saving < args.saving_at_least:
        print("saves less than %.0f %%" % (100 * args.saving_at_least))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
