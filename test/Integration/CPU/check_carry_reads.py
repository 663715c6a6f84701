#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Runs gen_carry_reads.py's variants FIRST..LAST through check_remat.py
--exact at 100 % (the CPU runtime's peak == the lifetime model's, before
and after the pipeline; outputs identical).

  check_carry_reads.py FIRST LAST DIR

Prints each variant's line and `exact: N of N variants`; exits 1 with the
failing variants' lines otherwise.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    first, last, work = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    os.makedirs(work, exist_ok=True)
    failed = []
    for seed in range(first, last + 1):
        model = os.path.join(work, "carry%d.mlir" % seed)
        gen = [sys.executable, os.path.join(HERE, "gen_carry_reads.py"), "--seed", str(seed)]
        subprocess.run(gen + ["-o", model], check=True)
        subprocess.run(gen + ["--harness", "-o", model[:-len(".mlir")] + ".harness.mlir"],
                       check=True)
        p = subprocess.run([sys.executable, os.path.join(HERE, "check_remat.py"), model,
                            "--budgets", "100%", "--pipeline", "fit", "--exact"],
                           capture_output=True, text=True)
        line = (p.stdout + p.stderr).strip().splitlines()[-1:] or ["(no output)"]
        print("seed %d: %s" % (seed, line[0]))
        if p.returncode != 0:
            failed.append(seed)
    n = last - first + 1
    if failed:
        sys.exit("exact: %d of %d variants; failed: %s" % (n - len(failed), n, failed))
    print("exact: %d of %d variants" % (n, n))


if __name__ == "__main__":
    main()
