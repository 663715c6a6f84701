#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Checks that a loop-form step and its unrolled twin meet the same
smallest budget.

Runs `remat-opt --remat-budget=min --remat-report=...` on both (in
parallel; remat-opt from PATH), takes as each one's smallest budget the
peak of its plan there (the report's peak_after: a budget it meets; the
budget it was given may be the search's bound, "found to within 1/256")
and requires

  |smallest(loop) - smallest(unrolled)| <= carry + 128 B

where carry is the bytes of one step's carried state, what one checkpoint
slot holds (h; h and c for the LSTM-like cell), each rounded up to 64: the
"// Carry: ..., N B (aligned to 64)" header line gen_scan_variants.py
writes; 128 B is the reversal's index bookkeeping (positions, slotOf;
test/Loops/twins.test).

With --at-most, only smallest(loop) - smallest(unrolled) <= carry + 128 B
(the loop form never needs more): a twin that keeps every row for a loss
reading the stack whole cannot recompute what the loop form's reversal does.

Usage: check_scan_twins.py [--at-most] LOOP.mlir UNROLLED.mlir
Prints one line ending in ": ok" or ": FAIL" (when remat-opt fails, with
its error and the smallest budget a refusal at 1 % names); exits 1 on
failure.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

BOOKKEEPING = 128


def carry_bytes(path):
    with open(path) as fh:
        for line in fh:
            m = re.match(r"// Carry: .*, (\d+) B \(aligned", line)
            if m:
                return int(m.group(1))
            if not line.startswith("//"):
                break
    sys.exit("check_scan_twins: no '// Carry: ... N B' header line in %s" % path)


def first_error(stderr):
    for line in stderr.splitlines():
        if "error:" in line:
            return line.split("error:", 1)[1].strip()
    return stderr.strip().splitlines()[-1] if stderr.strip() else "no message"


def named_smallest(path):
    """The smallest budget a refusal at 1 % names (for the message)."""
    p = subprocess.run(["remat-opt", path, "--remat-budget=1%", "-o", os.devnull],
                       capture_output=True, text=True)
    m = re.search(r"the smallest budget it can meet is (\d+ B)", p.stderr)
    return m.group(1) if m else "none"


def main():
    args = sys.argv[1:]
    at_most = args[:1] == ["--at-most"]
    if at_most:
        args = args[1:]
    if len(args) != 2:
        sys.exit(__doc__.split("\n\n")[-2])
    loop, unrolled = args
    carry = carry_bytes(loop)
    with tempfile.TemporaryDirectory() as tmp:
        procs = []
        for k, path in enumerate((loop, unrolled)):
            report = os.path.join(tmp, "report%d.json" % k)
            cmd = ["remat-opt", path, "--remat-budget=min", "--remat-report=" + report,
                   "-o", os.path.join(tmp, "out%d.mlir" % k)]
            procs.append((path, report, subprocess.Popen(
                cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)))
        smallest, failed = [], []
        for path, report, p in procs:
            _, err = p.communicate()
            if p.returncode != 0:
                failed.append("remat-opt --remat-budget=min failed on %s: %s; at "
                              "--remat-budget=1%% it names %s" % (
                                  os.path.basename(path), first_error(err),
                                  named_smallest(path)))
                smallest.append(None)
                continue
            smallest.append(json.load(open(report))["functions"][0]["peak_after"])
    name = os.path.basename(loop)
    allowed = carry + BOOKKEEPING
    if failed:
        print("%s twins: smallest budget %s (loop) vs %s (unrolled); %s: FAIL" % (
            name, *["%d B" % b if b is not None else "?" for b in smallest],
            "; ".join(failed)))
        return 1
    diff = smallest[0] - smallest[1]
    ok = (diff if at_most else abs(diff)) <= allowed
    print("%s twins: smallest budget %d B (loop) vs %d B (unrolled), difference %+d B, "
          "allowed %s%d B (carry %d B + %d B): %s"
          % (name, smallest[0], smallest[1], diff, "at most " if at_most else "",
             allowed, carry, BOOKKEEPING, "ok" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
