#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Runs gen_carry_reads.py's variants FIRST..LAST through check_remat.py
--exact at 100 % (the CPU runtime's peak == the lifetime model's, before
and after the pipeline; outputs identical).

  check_carry_reads.py FIRST LAST DIR [--reads-after] [--dynamic]

With --reads-after (reads of the old value after the write too), every
variant must still run exactly: whose write is in the loop's body, the
lowering copies the carry back at the end of the iteration; whose write is
in a branch, it copies the old value before the op holding the branch (the
generator says where it put the write).
Prints each variant's line and `exact: N of K variants (W with the write
in a branch)`; exits 1 with the failing seeds otherwise.

With --dynamic, each variant is also generated with a carry of a size
known at run time (gen_carry_reads.py --dynamic, bounded at 256): it must
run exactly through the same check (planned at its bound, run at it), and,
lowered as it is (run.sh), print what the static variant prints and peak
at the same bytes.
"""
import os
import subprocess
import sys

sys.dont_write_bytecode = True  # keep the source tree clean
from check_remat import run as run_model  # noqa: E402 (the same directory)

HERE = os.path.dirname(os.path.abspath(__file__))


def same_as_dynamic(gen, model, reads_after):
    """Whether the --dynamic twin of `model` runs as it does."""
    dyn = model[:-len(".mlir")] + ".dyn.mlir"
    subprocess.run(gen + (["--reads-after"] if reads_after else []) +
                   ["--dynamic", "-o", dyn], check=True)
    subprocess.run(gen + ["--harness", "--dynamic", "-o",
                          dyn[:-len(".mlir")] + ".harness.mlir"], check=True)
    p = subprocess.run([sys.executable, os.path.join(HERE, "check_remat.py"), dyn,
                        "--budgets", "100%", "--pipeline", "fit", "--exact"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        out = (p.stdout + p.stderr).strip().splitlines()
        return False, "dynamic twin: " + (out[-1] if out else "(no output)")
    # check_remat.run exits with run.sh's error when a run fails.
    static = run_model(model, model[:-len(".mlir")] + ".harness.mlir", "static", None)
    dynamic = run_model(dyn, dyn[:-len(".mlir")] + ".harness.mlir", "dynamic", None)
    return static == dynamic, "dynamic twin: exact; peak %d B (static %d B), outputs %s" % (
        dynamic[1], static[1], "identical" if static[0] == dynamic[0] else "DIFFER")


def main():
    flags = {"--reads-after", "--dynamic"}
    args = [a for a in sys.argv[1:] if a not in flags]
    reads_after = "--reads-after" in sys.argv[1:]
    dynamic = "--dynamic" in sys.argv[1:]
    first, last, work = int(args[0]), int(args[1]), args[2]
    os.makedirs(work, exist_ok=True)
    failed, exact, branches = [], 0, 0
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
        good = p.returncode == 0
        if good and dynamic:
            good, note = same_as_dynamic(gen, model, reads_after)
            line += "; " + note
        exact += good
        branches += in_branch
        print("seed %d (write %s): %s" % (seed, "in a branch" if in_branch else "in the body",
                                          line))
        if not good:
            failed.append(seed)
    n = last - first + 1
    summary = "exact: %d of %d variants (%d with the write in a branch)" % (exact, n, branches)
    if failed:
        sys.exit("%s; failed: %s" % (summary, failed))
    print(summary)


if __name__ == "__main__":
    main()
