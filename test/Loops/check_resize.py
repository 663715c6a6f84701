#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Property test of resizeCheckpointedScan: a scan emitted with P slots and
resized to K in place is the scan emitted with K, byte for byte (the IR and
the remarks), for random P and K.

  check_resize.py --seeds FIRST LAST [--pairs N] [INPUT.mlir ...]

-remat-fit emits each scan once, at a probe count, and sets the count it
chose in that IR; `-remat-checkpoint-scans="slots=K resize-from=P"` does the
same with given counts. The oracle is the emitter itself at K
(`slots=K`). For each seed, gen_scan_variants.py writes a variant of a
random length (2 to 24 steps: canonicalize inlines a loop of one; the seed's own choices of model, layout,
loop forms, stacks kept for a loss over every step...); each INPUT is taken
as it is (the online forms: a while loop, a loop to a run-time bound).
With --budgets, `budget=B` (the probe resized to the count the model
chose, the path -remat-fit takes but for its plan) is compared with
`slots=K` for the K its remark names, where every scan took the same K.
A generated variant refused at its length (a kept stack beside dropped ones
lighter than two carries, at a few steps) is counted and skipped.
Prints `identical: N of N pairs` and exits 1 at the first difference.
"""
import argparse
import os
import random
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "gen_scan_variants.py")
SLOTS = re.compile(r"checkpointed (?:online )?with (\d+) slots")
STEPS = re.compile(r"(?:scan|loop|bound) of (?:at most )?(\d+) steps")


def rewrite(path, option):
    # Normalized first, as -remat-fit sees it (a tensor<i32> counter made
    # a scalar, the carries passed through unchanged dropped).
    p = subprocess.run(["remat-opt", path, "-remat-normalize-input", "-canonicalize",
                        "-remat-checkpoint-scans=" + option, "-o", "-"],
                       capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def steps_of(path):
    """T of the input's first scan, from the remark of a rewrite at 1 slot,
    or None with the remarks when none is checkpointed."""
    rc, _, err = rewrite(path, "slots=1")
    m = STEPS.search(err)
    if rc != 0 or not m:
        return None, err
    return int(m.group(1)), err


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs=2, default=[0, -1])
    ap.add_argument("--pairs", type=int, default=3,
                    help="(P, K) pairs per input")
    ap.add_argument("--budgets", nargs="*", default=[],
                    help="also `budget=B` (the count chosen on the probe, "
                         "resized) against slots=K with the K it names")
    ap.add_argument("inputs", nargs="*")
    a = ap.parse_args()
    rng = random.Random(1)
    checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        paths = list(a.inputs)
        refused = 0
        for seed in range(a.seeds[0], a.seeds[1] + 1):
            path = os.path.join(tmp, "v%d.mlir" % seed)
            subprocess.run([sys.executable, GEN, "--seed", str(seed),
                            "--steps", str(rng.randint(2, 24)), "-o", path],
                           check=True)
            paths.append(path)
        for path in paths:
            steps, err = steps_of(path)
            if steps is None and path in a.inputs:
                sys.exit("%s: no scan checkpointed at 1 slot:\n%s" % (path, err))
            if steps is None:  # A variant refused at its length (a remark).
                refused += 1
                continue
            for _ in range(a.pairs):
                p, k = rng.randint(1, steps), rng.randint(1, steps)
                direct = rewrite(path, "slots=%d" % k)
                resized = rewrite(path, "slots=%d resize-from=%d" % (k, p))
                if direct[0] != 0:
                    sys.exit("%s slots=%d failed:\n%s" % (path, k, direct[2]))
                if direct != resized:
                    sys.exit("%s: emitted with %d slots and resized to %d is "
                             "not the rewrite with %d (rc %d vs %d)\n%s" %
                             (os.path.basename(path), p, k, k, resized[0],
                              direct[0], resized[2]))
                checked += 1
            for budget in a.budgets:
                rc, ir, err = rewrite(path, "budget=" + budget)
                ks = [int(k) for k in SLOTS.findall(err)]
                if rc != 0 or not ks or len(set(ks)) != 1:
                    continue  # Fits as it is, or scans at several counts.
                direct = rewrite(path, "slots=%d" % ks[0])
                if direct[1] != ir:
                    sys.exit("%s: budget=%s (%d slots) is not the rewrite with "
                             "%d" % (os.path.basename(path), budget, ks[0],
                                     ks[0]))
                checked += 1
    print("identical: %d of %d pairs (%d generated variants refused at their "
          "length)" % (checked, checked, refused))


if __name__ == "__main__":
    main()
