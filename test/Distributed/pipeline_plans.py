#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Prints what a pipelined step's report says of its critical path and its
plan per stage, and checks the bounds any critical path obeys.

Usage: pipeline_plans.py REPORT.json
REPORT.json: `remat-opt --remat-report`'s (its first function). Prints one
line per device, `device D: recomputes [layers] keeps [layers]` (layers by
source line), then `critical path: ok` when the path after is at least each
device's busy time and at most their sum (some device is always busy: a wait
is for another device, and devices that wait on each other in a cycle never
finish), the path before is positive, and where the rings are dropped on the
leading stages only, the path is at most the one with every stage dropping
them (fewer stages recomputing adds no op anywhere); else what fails, exit 1.
"""
import json
import sys


def line_of(key):
    return int(key.rsplit(":", 2)[1])


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    f = json.load(open(sys.argv[1]))["functions"][0]
    for plan in f.get("device_plans", []):
        print("device %d: recomputes %s keeps %s" % (
            plan["device"], sorted(map(line_of, plan["recomputed"])),
            sorted(map(line_of, plan["kept"]))))
    wrong = []
    before, after = f.get("pipeline_time_before"), f.get("pipeline_time_after")
    busy = f.get("device_busy_after", [])
    if before is None or after is None or not busy:
        wrong.append("no pipeline time reported")
    else:
        if before <= 0:
            wrong.append("path before %g" % before)
        if after < max(busy) or after > sum(busy) * (1 + 1e-12):
            wrong.append("path %g outside [%g, %g]" % (after, max(busy), sum(busy)))
        # A step kept as written runs what it ran: the same path.
        if f.get("strategy") == "none" and after != before:
            wrong.append("kept as written, yet path %g -> %g" % (before, after))
        every = f.get("pipeline_time_every_stage")
        if every is not None and after > every * (1 + 1e-12):
            wrong.append("path %g above every stage's %g" % (after, every))
    print("critical path: " + ("; ".join(wrong) if wrong else "ok"))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
