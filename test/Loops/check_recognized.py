#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Recognition sweep: the scan of every variant of a range of seeds is
checkpointed by the documented command (`remat-opt --remat-budget=20%`,
default options).

  check_recognized.py FIRST LAST [--budget B] [--given=OPTION ...]

(--given: gen_scan_variants.py options overriding every seed's draws, e.g.
--given=--axis --given=flat.)

For each seed in FIRST..LAST, gen_scan_variants.py writes the variant and
remat-opt fits it at B (20 % by default; a variant whose loss reads the
stack of h whole, whole=loss, cannot go below that stack: at `min`); the
variant passes when the remarks say "scan of T steps checkpointed" and no
loop that stacks is "not checkpointed" (a loop stacking nothing, the loss
summed row by row of whole=loss by=loop, is named too: "it stacks no
per-iteration value"; that is no scan missed).
variants.test runs a dozen seeds through the CPU; this runs many more
through the recognizer and the planner only (about a quarter second each).
Prints one line per failure (the seed's choices and the first remark) and
`recognized: N of M variants`; exits 1 unless all were.
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "gen_scan_variants.py")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("first", type=int)
    ap.add_argument("last", type=int)
    ap.add_argument("--budget", default="20%")
    ap.add_argument("--given", action="append", default=[])
    a = ap.parse_args()
    failed = []
    seeds = range(a.first, a.last + 1)
    with tempfile.TemporaryDirectory() as tmp:
        for seed in seeds:
            path = os.path.join(tmp, "v%d.mlir" % seed)
            subprocess.run([sys.executable, GEN, "--seed", str(seed)] + a.given + ["-o", path], check=True)
            choices = subprocess.run([sys.executable, GEN, "--seed", str(seed)] + a.given + ["--choices"],
                                     capture_output=True, text=True).stdout.strip()
            budget = "min" if "whole=loss" in choices else a.budget
            p = subprocess.run(["remat-opt", path, "--remat-budget=" + budget,
                                "-o", os.devnull], capture_output=True, text=True)
            remarks = [l for l in p.stderr.splitlines()
                       if ("remark:" in l or "error:" in l)
                       and "it stacks no per-iteration value" not in l]
            ok = (p.returncode == 0
                  and any("steps checkpointed" in l for l in remarks)
                  and not any("not checkpointed" in l or "error:" in l for l in remarks))
            if not ok:
                why = next((l for l in remarks if "not checkpointed" in l or "error:" in l),
                           remarks[0] if remarks else "exit %d, no remark" % p.returncode)
                failed.append(seed)
                print("FAILED %s\n  %s" % (choices, why.split("remark: ")[-1]))
    print("recognized: %d of %d variants" % (len(seeds) - len(failed), len(seeds)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
