#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""compare_replicated.py SINGLE_OUT RANKS_OUT N: every one of the N ranks
printed (printMemrefF32) what the single-device step printed, to 1e-5
relative (partial sums are added in another order), with an absolute floor
of 1e-6 for values near 0 (printMemrefF32 prints 6 significant digits). RANKS_OUT is run.sh's
RANKS=N stdout: rank 0's output, then rank 1's, ..."""
import re
import sys

NUMBER = re.compile(r"-?(?:\d+\.?\d*(?:e[-+]?\d+)?|nan|inf)")


def numbers(text):
    # The values only: drop each header line (addresses, sizes, strides).
    return [float(x) for line in text.splitlines()
            if not line.startswith("Unranked Memref")
            for x in NUMBER.findall(line)]


def main():
    single = numbers(open(sys.argv[1]).read())
    ranks = numbers(open(sys.argv[2]).read())
    n = int(sys.argv[3])
    if not single or len(ranks) != n * len(single):
        sys.exit("FAIL: %d values from %d ranks, expected %d x %d"
                 % (len(ranks), n, n, len(single)))
    worst, ok = 0.0, True
    for r in range(n):
        for a, b in zip(single, ranks[r * len(single):(r + 1) * len(single)]):
            ok &= abs(a - b) <= 1e-5 * abs(a) + 1e-6
            if a != 0:
                worst = max(worst, abs(a - b) / abs(a))
    print("replicated: %d ranks x %d values, max rel err %.1e: %s"
          % (n, len(single), worst, "PASS" if ok else "FAIL"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
