#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The property test of StashRings.h over gen_stash_rings.py's variants:
for each seed, the step planned at the smallest budget through the command
users run prints the original's results and measures its predicted peak
(check_remat.py --exact), every layer's ring is dropped (the report's
stash_rings_dropped == L) and the peak falls by at least their rows
(L x K x 128 B: the recomputation runs inside the body's own peak; by more
where each read recomputes its row alone, which frees the rows a shared
recomputation held from one read to the next).

Usage: check_stash_rings.py WORKDIR SEED...  (remat-opt on PATH)
Prints one line per seed and exits non-zero on the first failure.
"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def main():
    work, seeds = sys.argv[1], [int(s) for s in sys.argv[2:]]
    os.makedirs(work, exist_ok=True)
    for seed in seeds:
        model = os.path.join(work, "rings%d.mlir" % seed)
        gen = [sys.executable, os.path.join(HERE, "gen_stash_rings.py"), "--seed", str(seed)]
        subprocess.run(gen + ["-o", model], check=True)
        described = subprocess.run(gen + ["--describe"], check=True, capture_output=True,
                                   text=True).stdout
        v = dict(kv.split("=", 1) for kv in described.split() if "=" in kv)
        K, L = int(v["K"]), int(v["L"])
        check = subprocess.run(
            [sys.executable, os.path.join(ROOT, "test", "Integration", "CPU", "check_remat.py"),
             model, "--budgets", "min", "--pipeline", "fit", "--exact"],
            capture_output=True, text=True)
        if check.returncode != 0:
            sys.exit("seed %d (%s): check_remat failed:\n%s%s" % (seed, described.strip(),
                                                                  check.stdout, check.stderr))
        report = os.path.join(work, "rings%d.json" % seed)
        subprocess.run(["remat-opt", model, "--remat-budget=min", "--remat-report=" + report,
                        "-o", os.devnull], check=True, capture_output=True)
        f = json.load(open(report))["functions"][0]
        dropped = f.get("stash_rings_dropped", 0)
        saved = f["peak_before"] - f["peak_after"]
        expect = L * K * 4 * 8 * 4
        ok = dropped == L and saved >= expect and f["strategy"] == "stash-rings"
        print("seed %d: K=%d L=%d dropped %d, %d -> %d B (saved %d, rows %d): %s"
              % (seed, K, L, dropped, f["peak_before"], f["peak_after"], saved, expect,
                 "ok" if ok else "FAIL"))
        if not ok:
            sys.exit(1)


if __name__ == "__main__":
    main()
