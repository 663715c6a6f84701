# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Deterministic argument values in MLIR: the hash, how each argument is
filled (`Init`) and the @main that fills the arguments, calls a function
and prints its results.

Element i (row-major linear index) of an argument is offset + scale * u(i),
u in [-1, 1) from a 32-bit integer hash of i and a per-argument seed.
Integer arithmetic and exact f32 steps make the values bit-identical in
MLIR, plain Python (`hash_values`) and PyTorch (harness.py), so a lowered
step and its reference see the same numbers.  A model's registered buffer
(a causal mask) keeps its own values instead (Init 'values').  Shared by
the importer's harness and test/Corpus/gen_corpus.py, hence standard
library only.
"""

import math

from .mlir import affine_map, f32, float_text, names, types

HASH_MASK = 0xFFFFFFFF
HASH_A = 0x2545F491          # < 2^31, so 32-bit x A fits in a signed i64
HASH_C = 0x6C8E9CF5 & 0x7FFFFFFF


def arg_seed(k):
    """Seed of the k-th function argument (and of the importer's k-th
    dropout mask)."""
    return (k * 0x9E3779B1 + 0x7F4A7C15) & HASH_MASK


def hash_values(numel, seed, scale):
    """The first values of an argument, in plain Python (check_gradients.py
    compares them with its PyTorch version of the hash)."""
    vals = []
    for i in range(numel):
        h = (i * HASH_A + seed) & HASH_MASK
        h ^= h >> 15
        h = (h * HASH_C) & HASH_MASK
        h ^= h >> 13
        vals.append(f32(f32((h >> 8) * 2.0 ** -23 - 1.0) * scale))
    return vals


class Init:
    """How one argument is filled: 'uniform' (offset + scale * u(i)),
    'labels' (class indices t[n] = (3n + 1) mod classes), 'onehot'
    (rows t[n, (3n + 1) mod K] = 1, K the second dim) or 'values' (given
    values, row-major: a model's registered buffer, or what `note` says)."""

    def __init__(self, kind, seed=0, scale=1.0, offset=0.0, classes=0, values=None,
                 note=None):
        self.kind, self.seed = kind, seed
        self.scale, self.offset, self.classes = f32(scale), f32(offset), classes
        self.values, self.note = values, note

    def describe(self, shape):
        if self.kind == "values":
            return self.note or "the model's values (a registered buffer)"
        if self.kind == "labels":
            return "labels t[n] = (3n + 1) mod %d" % self.classes
        if self.kind == "onehot":
            return "one-hot rows: t[n, (3n + 1) mod %d] = 1" % shape[1]
        text = "%s * u(i), seed %d" % (float_text(self.scale), self.seed)
        return (float_text(self.offset) + " + " + text) if self.offset else text


def _uniform_body(v, init):
    """Body lines computing %v = offset + scale * u(linear index)."""
    rank = len(v.shape)
    d = ", ".join("d%d" % i for i in range(rank))
    strides = [math.prod(v.shape[i + 1:]) for i in range(rank)]
    expr = " + ".join("d%d * %d" % (i, s) for i, s in enumerate(strides)) or "0"
    args = ", ".join("%%i%d" % i for i in range(rank))
    body = ["%%lin = affine.apply %s(%s)" % (affine_map(d, expr), args)
            if rank else "%lin = arith.constant 0 : index",
            "%l = arith.index_cast %lin : index to i64",
            "%%ca = arith.constant %d : i64" % HASH_A,
            "%%cb = arith.constant %d : i64" % init.seed,
            "%%cc = arith.constant %d : i64" % HASH_C,
            "%%mask = arith.constant %d : i64" % HASH_MASK,
            "%s8 = arith.constant 8 : i64", "%s13 = arith.constant 13 : i64",
            "%s15 = arith.constant 15 : i64",
            "%q0 = arith.muli %l, %ca : i64", "%q1 = arith.addi %q0, %cb : i64",
            "%q2 = arith.andi %q1, %mask : i64", "%q3 = arith.shrui %q2, %s15 : i64",
            "%q4 = arith.xori %q2, %q3 : i64", "%q5 = arith.muli %q4, %cc : i64",
            "%q6 = arith.andi %q5, %mask : i64", "%q7 = arith.shrui %q6, %s13 : i64",
            "%q8 = arith.xori %q6, %q7 : i64", "%q9 = arith.shrui %q8, %s8 : i64",
            "%u0 = arith.uitofp %q9 : i64 to f32",
            "%ulp = arith.constant 1.1920928955078125e-07 : f32",
            "%one = arith.constant 1.0 : f32",
            "%%scale = arith.constant %s : f32" % float_text(init.scale),
            "%u1 = arith.mulf %u0, %ulp : f32", "%u2 = arith.subf %u1, %one : f32"]
    if not init.offset:
        return body + ["%v = arith.mulf %u2, %scale : f32"]
    return body + ["%v0 = arith.mulf %u2, %scale : f32",
                   "%%offset = arith.constant %s : f32" % float_text(init.offset),
                   "%v = arith.addf %v0, %offset : f32"]


def _class_body(v, init):
    """Body lines of 'labels' (the class index) and 'onehot' (its row)."""
    k = init.classes if init.kind == "labels" else v.shape[1]
    body = ["%%cls = affine.apply affine_map<(n) -> ((n * 3 + 1) mod %d)>(%%i0)" % k]
    if init.kind == "labels":
        return body + ["%%v = arith.index_cast %%cls : index to %s" % v.elt]
    return body + ["%hot = arith.cmpi eq, %cls, %i1 : index",
                   "%one = arith.constant 1.0 : f32", "%zero = arith.constant 0.0 : f32",
                   "%v = arith.select %hot, %one, %zero : f32"]


def element_text(x, elt):
    """One element of a dense<...> literal."""
    if elt == "i1":
        return "true" if x else "false"
    if elt.startswith("i"):
        return str(int(x))
    return float_text(x) if elt == "f32" else repr(float(x))


def dense_text(values, shape, elt):
    """dense<...> of row-major `values`, nested by dimension."""
    text = [element_text(x, elt) for x in values]
    for d in reversed(shape):
        text = ["[%s]" % ", ".join(text[i:i + d]) for i in range(0, len(text), d)]
    return "dense<%s>" % text[0]


def _values_body(v, init):
    """Body lines reading element (i0, i1, ...) of the constant %<v>_c."""
    index = ", ".join("%%i%d" % i for i in range(len(v.shape)))
    return ["%%v = tensor.extract %s_c[%s] : %s" % (v.ssa, index, v.ty)]


def fill_arg(v, init):
    """MLIR lines computing argument `v` (.ssa, .ty, .shape, .elt) from its
    linear index (or, for 'values', copying them from a constant into a
    fresh tensor, as every other argument is one)."""
    rank = len(v.shape)
    d = ", ".join("d%d" % i for i in range(rank))
    out = ["  // %s: %s" % (v.ssa, init.describe(v.shape))]
    if init.kind == "values":
        out.append("  %s_c = arith.constant %s : %s"
                   % (v.ssa, dense_text(init.values, v.shape, v.elt), v.ty))
    out += ["  %s_e = tensor.empty() : %s" % (v.ssa, v.ty),
            "  %s = linalg.generic {indexing_maps = [%s], iterator_types = [%s]}"
            % (v.ssa, affine_map(d, d), ", ".join(['"parallel"'] * rank)),
            "      outs(%s_e : %s) {" % (v.ssa, v.ty), "  ^bb0(%%out: %s):" % v.elt]
    body = ["%%i%d = linalg.index %d : index" % (i, i) for i in range(rank)]
    body += {"uniform": _uniform_body, "values": _values_body}.get(
        init.kind, _class_body)(v, init)
    body.append("linalg.yield %%v : %s" % v.elt)
    out += ["    " + line for line in body]
    out.append("  } -> %s" % v.ty)
    return out


def main_lines(callee, args, inits, result_types, writer="printMemrefF32"):
    """func.func @main: fills `args`, calls @callee with them and hands every
    result to @writer (printMemrefF32 prints it; libRematRuntime's
    remat_write_f32 writes it to $REMAT_RESULTS_FILE in binary)."""
    lines = ["func.func private @%s(tensor<*xf32>)" % writer, "", "func.func @main() {"]
    for v, init in zip(args, inits):
        lines += fill_arg(v, init)
    res = ["%%res%d" % i for i in range(len(result_types))]
    lines.append("  %s = func.call @%s(%s)" % (", ".join(res), callee, names(args)))
    lines.append("      : (%s) -> (%s)" % (types(args), ", ".join(result_types)))
    for r, ty in zip(res, result_types):
        lines.append("  %s_u = tensor.cast %s : %s to tensor<*xf32>" % (r, r, ty))
        lines.append("  func.call @%s(%s_u) : (tensor<*xf32>) -> ()" % (writer, r))
    lines.append("  return")
    lines.append("}")
    return lines
