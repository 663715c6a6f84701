#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Times `remat-opt --remat-budget` on a deep ResNet-like step of about
--ops top-level ops (gen_deep_resnet.py) and prints, per budget, the median
over --repeat runs of the wall time of the whole tool and of each phase of
-remat-rematerialize (from its --remat-report: analysis, solve, rewrite,
check), the strategy auto chose and the overhead.

  benchmarks/pass/time_pass.py --build build [--ops 10000] [--budgets 90,80,70]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(HERE, "..", "..", "build"))
    ap.add_argument("--ops", type=int, default=10000)
    ap.add_argument("--budgets", default="90,80,70,60")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    opt = os.path.join(args.build, "bin", "remat-opt")
    with tempfile.TemporaryDirectory() as tmp:
        step = os.path.join(tmp, "deep.mlir")
        with open(step, "w") as fh:
            subprocess.run([sys.executable, os.path.join(HERE, "gen_deep_resnet.py"),
                            "--ops", str(args.ops)], stdout=fh, check=True)
        with open(step) as fh:
            print(fh.readline().strip().lstrip("/ "))
        report = os.path.join(tmp, "report.json")
        print("budget | fitted | strategy | nodes | wall s | analysis | solve | rewrite | check | overhead")
        for b in args.budgets.split(","):
            walls, phases, f = [], {}, None
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                subprocess.run([opt, step, "--remat-budget=%s%%" % b,
                                "--remat-report=" + report, "-o", os.devnull],
                               stderr=subprocess.DEVNULL)
                walls.append(time.perf_counter() - t0)
                f = json.load(open(report))["functions"][0]
                for k, v in f["seconds"].items():
                    phases.setdefault(k, []).append(v)
            med = {k: statistics.median(v) for k, v in phases.items()}
            over = ("%.2f%%" % f["overhead_percent"]) if f["fitted"] else \
                "min budget %d B" % f["minimum_budget"]
            print("%s%% | %s | %s | %d | %.2f | %.3f | %.3f | %.3f | %.3f | %s" % (
                b, f["fitted"], f["strategy"], f["ops"], statistics.median(walls),
                med["analysis"], med["solve"], med["rewrite"], med["check"], over))
    return 0


if __name__ == "__main__":
    sys.exit(main())
