#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""compare_stages.py SINGLE_OUT RANKS_OUT P: a pipeline step of P stages
against its single-device twin (issue 50). The single twin prints the loss,
then gradients stacked over the stages ([P, ...] each); stage r prints the
loss and slice r of each. Every rank must print the single twin's loss and
its slices, to 1e-5 relative (compare_replicated.py's tolerance). RANKS_OUT
is run.sh's RANKS=P stdout: rank 0's output, then rank 1's, ..."""
import re
import sys

from compare_replicated import numbers


def tensors(text):
    """The values of each printed tensor, in order."""
    parts = re.split(r"^Unranked Memref.*$", text, flags=re.M)
    return [numbers(p) for p in parts[1:]]


def main():
    single = tensors(open(sys.argv[1]).read())
    ranks = tensors(open(sys.argv[2]).read())
    p = int(sys.argv[3])
    if not single or len(ranks) != p * len(single):
        sys.exit("FAIL: %d tensors from %d ranks, expected %d x %d"
                 % (len(ranks), p, p, len(single)))
    worst, ok, count = 0.0, True, 0
    for r in range(p):
        mine = ranks[r * len(single):(r + 1) * len(single)]
        for k, (full, part) in enumerate(zip(single, mine)):
            n = len(full) // p
            want = full if k == 0 else full[r * n:(r + 1) * n]
            if len(part) != len(want):
                sys.exit("FAIL: rank %d tensor %d has %d values, expected %d"
                         % (r, k, len(part), len(want)))
            for a, b in zip(want, part):
                ok &= abs(a - b) <= 1e-5 * abs(a) + 1e-6
                if a != 0:
                    worst = max(worst, abs(a - b) / abs(a))
            count += len(part)
    print("stages: %d ranks, %d values, max rel err %.1e: %s"
          % (p, count, worst, "PASS" if ok else "FAIL"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
