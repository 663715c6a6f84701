#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Checks that the time model counts the steps a checkpointed scan executes.

The emitted loops run their regions as often as the reversal's schedule
says, which the IR does not (RegionRuns, TrainingGraphBuilder.h): the pass
gives its analyses those runs. With a cost table in which the step's op
(--step-op, one per forward step) costs 1 and every other op of the
program and of its rewrite costs 0, the time `remat-opt --remat-budget=B
--remat-scan-slots=K` reports is the number of forward steps the model
counts. It must equal the steps the remark states and the steps the CPU
executes (count_forward_steps.sh; for a loop of run-time length, the
harness's last call, which runs all its steps: the model counts the most).

Usage: check_step_time.py MODEL HARNESS --slots K [--budget 80%]
[--step-op math.sin] (remat-opt, mlir-opt and the runner from PATH).
Prints one line ending in ": ok" or ": FAIL"; exits 1 on a failure.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

OP = re.compile(r'^\s*(?:%[^=]*=\s*)?"?([a-z_][a-z0-9_]*\.[a-z_][a-z0-9_.]*)')


def op_names(path):
    with open(path) as fh:
        return {m.group(1) for m in map(OP.match, fh) if m}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model")
    ap.add_argument("harness")
    ap.add_argument("--slots", type=int, required=True)
    ap.add_argument("--budget", default="80%")
    ap.add_argument("--step-op", default="math.sin")
    a = ap.parse_args()
    name = os.path.basename(a.model)
    with tempfile.TemporaryDirectory() as tmp:
        rewritten = os.path.join(tmp, "rewritten.mlir")
        subprocess.run(["remat-opt", a.model, "-remat-checkpoint-scans=slots=%d"
                        % a.slots, "-o", rewritten], check=True,
                       capture_output=True)
        names = op_names(a.model) | op_names(rewritten)
        if a.step_op not in names:
            sys.exit("check_step_time: %s has no %s" % (a.model, a.step_op))
        table = os.path.join(tmp, "table.json")
        with open(table, "w") as fh:
            json.dump({"units": {"time": "us", "memory": "B"},
                       "ops": {n: {"time": 1.0 if n == a.step_op else 0.0}
                               for n in sorted(names)}}, fh)
        report = os.path.join(tmp, "report.json")
        flags = ["--remat-budget=" + a.budget, "--remat-scan-slots=%d" % a.slots]
        p = subprocess.run(["remat-opt", a.model] + flags +
                           ["--remat-cost-table=" + table,
                            "--remat-report=" + report, "-o", os.devnull],
                           capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit("check_step_time: remat-opt failed:\n" + p.stderr)
        with open(report) as fh:
            predicted = json.load(fh)["functions"][0]["time_after"]
        m = re.search(r"(\d+) forward steps if it runs all|: (\d+) forward steps",
                      p.stderr)
        if not m:
            sys.exit("check_step_time: no scan checkpointed:\n" + p.stderr)
        stated = int(m.group(1) or m.group(2))
        count = subprocess.run(
            ["bash", os.path.join(os.path.dirname(__file__),
                                  "count_forward_steps.sh"), a.model, a.harness]
            + flags + ["-remat-inline-recompute", "-remat-strip-annotations"],
            capture_output=True, text=True)
        steps = re.findall(r"^steps=(\d+)$", count.stdout, re.M)
        if count.returncode != 0 or not steps:
            sys.exit("check_step_time: the counted run failed:\n" +
                     count.stderr)
        measured = int(steps[-1])
    ok = predicted == stated == measured
    print("step time: %s with %d slots: the model counts %g steps, the remark "
          "states %d, the CPU runs %d: %s"
          % (name, a.slots, predicted, stated, measured, "ok" if ok else "FAIL"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
