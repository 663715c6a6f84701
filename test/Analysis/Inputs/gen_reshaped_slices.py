#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Writes random steps that slice a value and reshape the slice, with a
harness each, for the measured oracle of test/Analysis/reshape-copy.test.

Each step: a = exp(x) (x of rank 3 or 4, sizes 2-5; every op writes a
buffer of its own), a slice of a (each
dim kept whole or cut to a random offset and size; size-1 dims sometimes
dropped: a rank-reducing slice), then one to three reshapes of it (a
collapse of random adjacent groups, an expand back, another collapse),
v the last; h = exp(v), loss = sum(h), g = v * h (outputs: loss and g).
Whether bufferization copies a collapse depends on the slice's strides:
a cut along an inner dim leaves dims that do not merge.

Usage: gen_reshaped_slices.py --seed S --count N -o DIR
Writes DIR/step<k>.mlir and DIR/step<k>.harness.mlir.
"""
import argparse
import os
import random


def tensor(shape):
    return "tensor<%sxf32>" % "x".join(str(d) for d in shape) if shape else "tensor<f32>"


def groups_of(rank, rng):
    """Random partition of 0..rank-1 into adjacent groups (at least one
    group of two or more when rank > 1)."""
    while True:
        cuts = sorted(rng.sample(range(1, rank), rng.randint(0, rank - 1))) if rank > 1 else []
        bounds = [0] + cuts + [rank]
        groups = [list(range(bounds[i], bounds[i + 1])) for i in range(len(bounds) - 1)]
        if rank == 1 or any(len(g) > 1 for g in groups):
            return groups


def reassoc(groups):
    return "[" + ", ".join("[" + ", ".join(str(d) for d in g) + "]" for g in groups) + "]"


def step(rng):
    rank = rng.choice([3, 4])
    shape = [rng.randint(2, 5) for _ in range(rank)]
    offsets, sizes, kept = [], [], []
    for d in shape:
        if rng.random() < 0.5:
            offsets.append(0)
            sizes.append(d)
        else:
            size = rng.randint(1, d - 1)
            offsets.append(rng.randint(0, d - size))
            sizes.append(size)
    # Drop some size-1 dims (a rank-reducing slice), never all of them.
    ones = [i for i, s in enumerate(sizes) if s == 1]
    dropped = set(i for i in ones if rng.random() < 0.5)
    if len(dropped) == rank:
        dropped.pop()
    sliced = [s for i, s in enumerate(sizes) if i not in dropped]
    lines = []
    # Every op writes a buffer of its own (tensor.empty): an elementwise op
    # on tensors writes into its operand where bufferization may, the
    # step's own argument included, which is not what this test is about.
    lines.append("  %ae = tensor.empty() : " + tensor(shape))
    lines.append("  %%a = linalg.map { math.exp } ins(%%x : %s) outs(%%ae : %s)" % (
        tensor(shape), tensor(shape)))
    lines.append("  %%s = tensor.extract_slice %%a[%s] [%s] [%s] : %s to %s" % (
        ", ".join(map(str, offsets)), ", ".join(map(str, sizes)),
        ", ".join("1" for _ in shape), tensor(shape), tensor(sliced)))
    cur, cur_shape = "%s", sliced
    for k in range(rng.randint(1, 3)):
        if k % 2 == 0 or len(cur_shape) == 1:
            if len(cur_shape) == 1:
                break
            groups = groups_of(len(cur_shape), rng)
            new_shape = []
            for g in groups:
                n = 1
                for d in g:
                    n *= cur_shape[d]
                new_shape.append(n)
            lines.append("  %%r%d = tensor.collapse_shape %s %s : %s into %s" % (
                k, cur, reassoc(groups), tensor(cur_shape), tensor(new_shape)))
        else:
            # Expand one dim back into two factors where one exists.
            cands = [i for i, d in enumerate(cur_shape)
                     if any(d % f == 0 for f in range(2, d))]
            if not cands:
                break
            i = rng.choice(cands)
            f = rng.choice([f for f in range(2, cur_shape[i]) if cur_shape[i] % f == 0])
            new_shape = cur_shape[:i] + [f, cur_shape[i] // f] + cur_shape[i + 1:]
            groups, j = [], 0
            for idx in range(len(cur_shape)):
                if idx == i:
                    groups.append([j, j + 1])
                    j += 2
                else:
                    groups.append([j])
                    j += 1
            lines.append("  %%r%d = tensor.expand_shape %s %s output_shape [%s] : %s into %s" % (
                k, cur, reassoc(groups), ", ".join(map(str, new_shape)),
                tensor(cur_shape), tensor(new_shape)))
        cur, cur_shape = "%%r%d" % k, new_shape
    vt = tensor(cur_shape)
    dims = ", ".join(str(i) for i in range(len(cur_shape)))
    lines += [
        "  %he = tensor.empty() : " + vt,
        "  %%h = linalg.map { math.exp } ins(%s : %s) outs(%%he : %s)" % (cur, vt, vt),
        "  %c0 = arith.constant 0.0 : f32",
        "  %le = tensor.empty() : tensor<f32>",
        "  %lz = linalg.fill ins(%c0 : f32) outs(%le : tensor<f32>) -> tensor<f32>",
        "  %%l = linalg.reduce ins(%%h : %s) outs(%%lz : tensor<f32>) dimensions = [%s]" % (vt, dims),
        "    (%p: f32, %q: f32) {",
        "      %u = arith.addf %p, %q : f32",
        "      linalg.yield %u : f32",
        "    }",
        "  %ge = tensor.empty() : " + vt,
        "  %%g = linalg.map { arith.mulf } ins(%s, %%h : %s, %s) outs(%%ge : %s)" % (cur, vt, vt, vt),
        "  return %%l, %%g : tensor<f32>, %s" % vt,
    ]
    body = ("func.func @step(%%x: %s) -> (tensor<f32> {remat.loss}, %s) {\n" % (tensor(shape), vt)
            + "\n".join(lines) + "\n}\n")
    harness = "\n".join([
        "func.func private @printMemrefF32(tensor<*xf32>)",
        "",
        "func.func @main() {",
        "  %e = tensor.empty() : " + tensor(shape),
        "  %%x = linalg.generic {indexing_maps = [affine_map<(%s) -> (%s)>], iterator_types = [%s]} outs(%%e : %s) {" % (
            ", ".join("d%d" % i for i in range(rank)), ", ".join("d%d" % i for i in range(rank)),
            ", ".join('"parallel"' for _ in range(rank)), tensor(shape)),
        "  ^bb0(%out: f32):",
        "    %%i = linalg.index %d : index" % (rank - 1),
        "    %j = arith.index_cast %i : index to i32",
        "    %f = arith.sitofp %j : i32 to f32",
        "    %c = arith.constant 0.125 : f32",
        "    %v = arith.mulf %f, %c : f32",
        "    linalg.yield %v : f32",
        "  } -> " + tensor(shape),
        "  %%l, %%g = func.call @step(%%x) : (%s) -> (tensor<f32>, %s)" % (tensor(shape), vt),
        "  %lu = tensor.cast %l : tensor<f32> to tensor<*xf32>",
        "  call @printMemrefF32(%lu) : (tensor<*xf32>) -> ()",
        "  %%gu = tensor.cast %%g : %s to tensor<*xf32>" % vt,
        "  call @printMemrefF32(%gu) : (tensor<*xf32>) -> ()",
        "  return",
        "}",
        "",
    ])
    return body, harness


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=8)
    ap.add_argument("-o", "--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = random.Random(args.seed)
    for k in range(args.count):
        body, harness = step(rng)
        with open(os.path.join(args.out, "step%d.mlir" % k), "w") as f:
            f.write(body)
        with open(os.path.join(args.out, "step%d.harness.mlir" % k), "w") as f:
            f.write(harness)


if __name__ == "__main__":
    main()
