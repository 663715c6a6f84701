#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Runs gen_carry_reads.py's variants FIRST..LAST through check_remat.py
--exact at 100 % (the CPU runtime's peak == the lifetime model's, before
and after the pipeline; outputs identical).

  check_carry_reads.py FIRST LAST DIR [--reads-after]

With --reads-after (reads of the old value after the write too), a variant
whose write is in the loop's body must still run exactly (the lowering
copies the carry back at the end of the iteration), and one whose write is
in a branch must be refused by -remat-loop-carries-in-place with its
error; the generator says where it put the write.
Prints each variant's line and `exact: N, refused as expected: M, of K
variants`; exits 1 with the failing seeds otherwise.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REFUSAL = "is written in a branch (scf.if) while its old value is still read"


def main():
    args = [a for a in sys.argv[1:] if a != "--reads-after"]
    reads_after = len(args) != len(sys.argv) - 1
    first, last, work = int(args[0]), int(args[1]), args[2]
    os.makedirs(work, exist_ok=True)
    failed, exact, refused = [], 0, 0
    for seed in range(first, last + 1):
        model = os.path.join(work, "carry%d.mlir" % seed)
        gen = [sys.executable, os.path.join(HERE, "gen_carry_reads.py"), "--seed", str(seed)]
        subprocess.run(gen + (["--reads-after"] if reads_after else []) + ["-o", model],
                       check=True)
        subprocess.run(gen + ["--harness", "-o", model[:-len(".mlir")] + ".harness.mlir"],
                       check=True)
        in_branch = "// The write: in a branch" in open(model).read()
        p = subprocess.run([sys.executable, os.path.join(HERE, "check_remat.py"), model,
                            "--budgets", "100%", "--pipeline", "fit", "--exact"],
                           capture_output=True, text=True)
        out = (p.stdout + p.stderr).strip()
        line = out.splitlines()[-1] if out else "(no output)"
        if reads_after and in_branch:
            good = p.returncode != 0 and REFUSAL in out
            refused += good
            line = "refused: " + REFUSAL if good else line
        else:
            good = p.returncode == 0
            exact += good
        print("seed %d (write %s): %s" % (seed, "in a branch" if in_branch else "in the body",
                                          line))
        if not good:
            failed.append(seed)
    n = last - first + 1
    summary = "exact: %d, refused as expected: %d, of %d variants" % (exact, refused, n)
    if failed:
        sys.exit("%s; failed: %s" % (summary, failed))
    print(summary)


if __name__ == "__main__":
    main()
