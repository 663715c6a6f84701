#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Packed stacks sweep: a variant whose stacks of one shape are packed side
by side in one tensor (gen_scan_variants.py --pack parts: each stack a part
at a constant index of a part axis, written in parts each iteration) meets
the same smallest budget as the same variant with its stacks separate.

  check_packed_stacks.py FIRST LAST [--given=OPTION ...]

For each seed in FIRST..LAST, both forms go through the documented command
`remat-opt --remat-budget=min --remat-report=...` (default options); the
report's peak_after (the plan's peak, a budget it meets) must be equal.
The separate form is the oracle: its own smallest budget is checked
against its unrolled twin by check_scan_twins.py. A seed whose stacks all
differ in shape packs nothing (one stack: rnn with stacks=1; layout=next
with one carry and one value stack) and is counted apart.
Prints one line per failure and `same smallest budget: N of M packed
variants (K packed nothing)`; exits 1 unless all are the same.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "gen_scan_variants.py")


def smallest(path, report):
    p = subprocess.run(["remat-opt", path, "--remat-budget=min", "--remat-report=" + report,
                        "-o", os.devnull], capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr.strip().splitlines()[-1:]
    return json.load(open(report))["functions"][0]["peak_after"], []


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("first", type=int)
    ap.add_argument("last", type=int)
    ap.add_argument("--given", action="append", default=[])
    a = ap.parse_args()
    failed, packed, nothing = [], 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(a.first, a.last + 1):
            peaks, texts = {}, {}
            for pack in ("separate", "parts"):
                path = os.path.join(tmp, "%s%d.mlir" % (pack, seed))
                subprocess.run([sys.executable, GEN, "--seed", str(seed), "--pack", pack]
                               + a.given + ["-o", path], check=True)
                texts[pack] = open(path).read()
                peaks[pack], err = smallest(path, path + ".json")
                if err:
                    print("FAILED seed %d (%s): %s" % (seed, pack, err[0]))
            if texts["separate"].split("\n", 4)[-1] == texts["parts"].split("\n", 4)[-1]:
                nothing += 1
                continue
            packed += 1
            if peaks["parts"] is None or peaks["parts"] != peaks["separate"]:
                failed.append(seed)
                print("DIFFERENT seed %d: packed %s B, separate %s B" % (
                    seed, peaks["parts"], peaks["separate"]))
    print("same smallest budget: %d of %d packed variants (%d packed nothing)"
          % (packed - len(failed), packed, nothing))
    return 1 if failed or packed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
