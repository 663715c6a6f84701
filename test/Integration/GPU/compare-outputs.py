#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Compares two runs of a corpus harness (printMemrefF32 output) tensor by
tensor within a floating-point tolerance.

Usage: compare-outputs.py REFERENCE ACTUAL [--rtol 1e-4] [--atol 1e-6]

Each tensor must have the same shape, and every element must satisfy
|actual - reference| <= atol + rtol * max|reference of that tensor|
(the GPU sums in other orders and uses other exp/log approximations than the
CPU, so bit equality is not expected). Prints one line per tensor with its
largest error; exits 1 on the first mismatch of count, shape or value.
"""
import argparse
import math
import re
import sys

HEADER = re.compile(r"Unranked Memref base@ = \S+ rank = (\d+) offset = \d+ "
                    r"sizes = \[([^\]]*)\] strides = \[[^\]]*\] data =")
NUMBER = re.compile(r"[-+]?(?:nan|inf|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)")


def tensors(path):
    text = open(path).read()
    heads = list(HEADER.finditer(text))
    result = []
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        body = text[head.end():end]
        values = [float(v) for v in NUMBER.findall(body)]
        sizes = head.group(2).strip()
        result.append((sizes, values))
    return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("reference")
    parser.add_argument("actual")
    parser.add_argument("--rtol", type=float, default=1e-4)
    parser.add_argument("--atol", type=float, default=1e-6)
    args = parser.parse_args()
    ref, act = tensors(args.reference), tensors(args.actual)
    if not ref:
        print(f"no tensors in {args.reference}")
        return 1
    if len(ref) != len(act):
        print(f"{len(ref)} tensors in the reference, {len(act)} in the run")
        return 1
    worst = 0.0
    for i, ((rs, rv), (as_, av)) in enumerate(zip(ref, act)):
        if rs != as_ or len(rv) != len(av):
            print(f"tensor {i}: sizes [{rs}] vs [{as_}]")
            return 1
        scale = max((abs(v) for v in rv), default=0.0)
        bound = args.atol + args.rtol * scale
        err = 0.0
        for j, (r, a) in enumerate(zip(rv, av)):
            if math.isnan(r) or math.isnan(a):
                if not (math.isnan(r) and math.isnan(a)):
                    print(f"tensor {i} element {j}: {a} vs {r}")
                    return 1
                continue
            err = max(err, abs(a - r))
            if abs(a - r) > bound:
                print(f"tensor {i} [{rs}] element {j}: {a} vs {r} "
                      f"(error {abs(a - r):.3g} > {bound:.3g})")
                return 1
        worst = max(worst, err / scale if scale else err)
        print(f"tensor {i} [{rs}]: max error {err:.3g} (scale {scale:.3g})")
    print(f"OK: {len(ref)} tensors, largest relative error {worst:.3g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
