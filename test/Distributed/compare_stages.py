#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""compare_stages.py SINGLE_OUT RANKS_OUT P: a pipeline step of P stages
against its single-device twin (issue 50). The single twin prints the loss,
then gradients stacked over the stages ([P, ...] each); stage r prints the
loss and slice r of each. Every rank must print the single twin's loss and
its slices, to 1e-5 relative (compare_replicated.py's tolerance). RANKS_OUT
is run.sh's RANKS=P stdout: rank 0's output, then rank 1's, ...

compare_stages.py SINGLE_OUT RANKS_OUT P N: a grid [N, P] of N data-parallel
rows of P stages (gen_pipeline.py --data N): N P ranks, rank r = d P + s
prints the loss and the slices of stage s = r mod P.

--skip-last K: the twin prints K more tensors at the end, which the stages
do not (gen_pipeline_gpt.py's twin, gen_sharded.py's, prints dx last)."""
import re
import sys

from compare_replicated import numbers


def tensors(text):
    """The values of each printed tensor, in order."""
    parts = re.split(r"^Unranked Memref.*$", text, flags=re.M)
    return [numbers(p) for p in parts[1:]]


def main():
    argv = sys.argv[1:]
    skip = 0
    if "--skip-last" in argv:
        at = argv.index("--skip-last")
        skip = int(argv[at + 1])
        del argv[at:at + 2]
    single = tensors(open(argv[0]).read())
    single = single[:len(single) - skip]
    ranks = tensors(open(argv[1]).read())
    p = int(argv[2])
    data = int(argv[3]) if len(argv) > 3 else 1
    nranks = p * data
    if not single or len(ranks) != nranks * len(single):
        sys.exit("FAIL: %d tensors from %d ranks, expected %d x %d"
                 % (len(ranks), nranks, nranks, len(single)))
    worst, ok, count = 0.0, True, 0
    for r in range(nranks):
        mine = ranks[r * len(single):(r + 1) * len(single)]
        s = r % p
        for k, (full, part) in enumerate(zip(single, mine)):
            n = len(full) // p
            want = full if k == 0 else full[s * n:(s + 1) * n]
            if len(part) != len(want):
                sys.exit("FAIL: rank %d tensor %d has %d values, expected %d"
                         % (r, k, len(part), len(want)))
            for a, b in zip(want, part):
                ok &= abs(a - b) <= 1e-5 * abs(a) + 1e-6
                if a != 0:
                    worst = max(worst, abs(a - b) / abs(a))
            count += len(part)
    print("stages: %d ranks%s, %d values, max rel err %.1e: %s"
          % (nranks, "" if data == 1 else " (%d x %d)" % (data, p), count, worst,
             "PASS" if ok else "FAIL"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
