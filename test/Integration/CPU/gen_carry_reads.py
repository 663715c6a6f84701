#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Random loops that read a carried tensor before a write of it, at random
depths of scf.if, for check_remat.py --exact (the CPU runtime's peak == the
lifetime model's).

The lifetime model (lib/Analysis/OpGroups.cpp, noUseAfter) takes a write
into a loop's iteration argument as in place unless the old value is read
after it; One-Shot Bufferize writes in place exactly then. Each variant is
one scf.for over 4 iterations carrying `%a : tensor<256xf32>` (1 KiB: a copy
shows in the peak) and a scalar sum. Its body is a random tree: reads
(`tensor.extract`, added to the sum), inner `scf.for` loops of reads,
`scf.if` (on the iteration's parity or its index) whose branches hold more
of the same, and one write of `%a` (`tensor.insert` of the sum, or a
`linalg.fill` of it) somewhere in it; the branches not holding it yield the
version they were given. A read before the write reads the old `%a` (in the
same block, nested in an earlier `scf.if` or inner loop, or in the other
branch of one holding the write); a read after it reads the version
written (in the branch, or the branch's result): every write is in place,
and the model must say so (a read nested in an earlier scf.if taken for
a read after the write predicts a copy of 1 KiB that the run does not
make). With --reads-after, reads after the write read
the old value too: the write is then a copy (One-Shot Bufferize's and the
model's), which -remat-loop-carries-in-place copies back into the carry at
the end of the iteration, or, where the write is on one path of an scf.if
(no buffer every path made), makes in place by copying the old value before
the op holding the branch, on every path. With --dynamic, `%a` is a
`tensor<?xf32>` bounded at 256 (`remat.bounds`; the harness passes 256
elements): the copy is then of the sizes the value has at run time.

  loss = sum(final a); results: loss, final a, the sum of the reads

Usage: gen_carry_reads.py --seed N [--reads-after] [--dynamic] [--harness]
[-o FILE]
"""

import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path[:0] = [os.path.join(ROOT, "python"), os.path.join(ROOT, "test", "Support")]
sys.dont_write_bytecode = True  # keep the source tree clean
from mlir_text import seeded_variant_args, write_output  # noqa: E402
from remat_import_torch.argfill import Init, arg_seed, main_lines  # noqa: E402

N = 256
VEC = "tensor<%dxf32>" % N


class Body:
    """Lines of one loop body, with fresh names."""

    def __init__(self, rnd, reads_after=False):
        self.rnd, self.lines, self.count = rnd, [], 0
        self.reads_after = reads_after
        self.write_depth = None  # How many scf.if hold the write.

    def fresh(self, base):
        self.count += 1
        return "%%%s%d" % (base, self.count)

    def emit(self, indent, text):
        self.lines.append("  " * indent + text)

    def index(self, indent, value):
        name = self.fresh("n")
        self.emit(indent, "%s = arith.constant %d : index" % (name, value))
        return name

    def read(self, indent, acc, a="%a"):
        """acc + a[k], of the carry's version `a`."""
        k = self.index(indent, self.rnd.randrange(N))
        x, s = self.fresh("x"), self.fresh("s")
        self.emit(indent, "%s = tensor.extract %s[%s] : %s" % (x, a, k, VEC))
        self.emit(indent, "%s = arith.addf %s, %s : f32" % (s, acc, x))
        return s

    def write(self, indent, acc):
        """The carry with acc written into it: one element, or all."""
        out = self.fresh("w")
        if self.rnd.random() < 0.5:
            k = self.index(indent, self.rnd.randrange(N))
            self.emit(indent, "%s = tensor.insert %s into %%a[%s] : %s"
                      % (out, acc, k, VEC))
        else:
            self.emit(indent, "%s = linalg.fill ins(%s : f32) outs(%%a : %s) -> %s"
                      % (out, acc, VEC, VEC))
        return out

    def condition(self, indent):
        c = self.fresh("cond")
        if self.rnd.random() < 0.5:
            two, zero = self.index(indent, 2), self.index(indent, 0)
            r = self.fresh("r")
            self.emit(indent, "%s = arith.remui %%i, %s : index" % (r, two))
            self.emit(indent, "%s = arith.cmpi eq, %s, %s : index" % (c, r, zero))
        else:
            bound = self.index(indent, self.rnd.randint(1, 3))
            self.emit(indent, "%s = arith.cmpi slt, %%i, %s : index" % (c, bound))
        return c

    def version(self, a):
        """What a read reads: the version at hand, or (--reads-after) the
        old value, also after the write."""
        return "%a" if self.reads_after else a

    def block(self, indent, depth, a, acc, writes):
        """Items of a block from carry version `a` and sum `acc`; with
        `writes`, the write is in it (directly or in a nested scf.if).
        Returns (a, acc) at its end."""
        items = ["read"] * self.rnd.randint(0, 3)
        if depth < 3:
            items += ["if"] * self.rnd.randint(0, 2)
        if self.rnd.random() < 0.25:
            items.append("loop")
        if writes:
            items.append("write")
        self.rnd.shuffle(items)
        if writes:
            # The write itself, or the scf.if holding it.
            ifs = [i for i, it in enumerate(items) if it == "if"]
            at = (self.rnd.choice(ifs) if ifs and self.rnd.random() < 0.6
                  else items.index("write"))
            items[at] = "if-write" if items[at] == "if" else "write"
            if at != items.index("write") and "write" in items:
                items.remove("write")
        for item in items:
            if item == "read":
                acc = self.read(indent, acc, self.version(a))
            elif item == "write":
                a = self.write(indent, acc)
                self.write_depth = depth
                if self.reads_after:  # At least one: the write is a copy.
                    acc = self.read(indent, acc, "%a")
            elif item == "loop":
                acc = self.loop(indent, acc, self.version(a))
            else:
                a, acc = self.branch(indent, depth, a, acc, item == "if-write")
        return a, acc

    def loop(self, indent, acc, a):
        """Reads of the carry's version `a` in an inner scf.for of two
        iterations."""
        lo, hi, one = (self.index(indent, v) for v in (0, 2, 1))
        out, j, s = self.fresh("l"), self.fresh("j"), self.fresh("t")
        self.emit(indent, "%s = scf.for %s = %s to %s step %s iter_args(%s = %s) -> (f32) {"
                  % (out, j, lo, hi, one, s, acc))
        inner = s
        for _ in range(self.rnd.randint(1, 2)):
            inner = self.read(indent + 1, inner, a)
        self.emit(indent + 1, "scf.yield %s : f32" % inner)
        self.emit(indent, "}")
        return out

    def branch(self, indent, depth, a, acc, writes):
        c = self.condition(indent)
        out = self.fresh("b")
        self.emit(indent, "%s:2 = scf.if %s -> (%s, f32) {" % (out, c, VEC))
        write_then = writes and self.rnd.random() < 0.5
        for region, w in (("then", write_then), ("else", writes and not write_then)):
            if region == "else":
                self.emit(indent, "} else {")
            ra, racc = self.block(indent + 1, depth + 1, a, acc, w)
            self.emit(indent + 1, "scf.yield %s, %s : %s, f32" % (ra, racc, VEC))
        self.emit(indent, "}")
        return out + "#0", out + "#1"


class Arg:
    def __init__(self, ssa, shape):
        self.ssa, self.shape, self.elt = ssa, shape, "f32"
        self.ty = "tensor<%sxf32>" % "x".join(str(d) for d in shape)


def build(seed, reads_after=False):
    rnd = random.Random(seed)
    body = Body(rnd, reads_after)
    a, acc = body.block(2, 0, "%a", "%acc", writes=True)
    computed_init = rnd.random() < 0.5
    lines = [
        "// GENERATED by test/Integration/CPU/gen_carry_reads.py; do not edit.",
        "// Regenerate: python3 test/Integration/CPU/gen_carry_reads.py --seed %d%s"
        % (seed, " --reads-after" if reads_after else ""),
        "// The write: %s" % ("in the loop's body" if body.write_depth == 0
                              else "in a branch (%d scf.if deep)" % body.write_depth),
        "#id1 = affine_map<(d0) -> (d0)>",
        "#red1 = affine_map<(d0) -> ()>",
        "func.func @carry(%%x: %s) -> (tensor<f32> {remat.loss}, %s, tensor<1xf32>) {"
        % (VEC, VEC),
        "  %c0 = arith.constant 0 : index",
        "  %c1 = arith.constant 1 : index",
        "  %c4 = arith.constant 4 : index",
        "  %zero = arith.constant 0.0 : f32",
    ]
    init = "%x"
    if computed_init:  # A value of the function's own, not its argument.
        lines += ["  %a0_e = tensor.empty() : " + VEC,
                  "  %%a0 = linalg.generic {indexing_maps = [#id1, #id1], "
                  "iterator_types = [\"parallel\"]} ins(%%x : %s) outs(%%a0_e : %s) {" % (VEC, VEC),
                  "  ^bb0(%in: f32, %out: f32):",
                  "    %r = math.tanh %in : f32",
                  "    linalg.yield %r : f32",
                  "  } -> " + VEC]
        init = "%a0"
    lines.append("  %%f:2 = scf.for %%i = %%c0 to %%c4 step %%c1 iter_args(%%a = %s, "
                 "%%acc = %%zero) -> (%s, f32) {" % (init, VEC))
    lines += body.lines
    lines.append("    scf.yield %s, %s : %s, f32" % (a, acc, VEC))
    lines.append("  }")
    lines += [
        "  %l_e = tensor.empty() : tensor<f32>",
        "  %l_z = linalg.fill ins(%zero : f32) outs(%l_e : tensor<f32>) -> tensor<f32>",
        "  %%loss = linalg.generic {indexing_maps = [#id1, #red1], iterator_types = "
        "[\"reduction\"]} ins(%%f#0 : %s) outs(%%l_z : tensor<f32>) {" % VEC,
        "  ^bb0(%in: f32, %out: f32):",
        "    %r = arith.addf %out, %in : f32",
        "    linalg.yield %r : f32",
        "  } -> tensor<f32>",
        "  %sum = tensor.from_elements %f#1 : tensor<1xf32>",
        "  return %%loss, %%f#0, %%sum : tensor<f32>, %s, tensor<1xf32>" % VEC,
        "}",
    ]
    return lines


DYN = "tensor<?xf32>"


def dynamic_model(lines):
    """The model with %a of a size known at run time, bounded at N."""
    text = "\n".join(lines).replace(VEC, DYN)
    text = text.replace("func.func @carry(%%x: %s)" % DYN,
                        "func.func @carry(%%x: %s {remat.bounds = array<i64: %d>})"
                        % (DYN, N))
    text = text.replace("  %%a0_e = tensor.empty() : %s" % DYN,
                        "  %%n = tensor.dim %%x, %%c0 : %s\n"
                        "  %%a0_e = tensor.empty(%%n) : %s" % (DYN, DYN))
    lines = text.split("\n")
    return [l + " --dynamic" if l.startswith("// Regenerate:") else l
            for l in lines]


def dynamic_harness(lines):
    """The harness passing its N elements as a tensor<?xf32>."""
    call = next(i for i, l in enumerate(lines) if "func.call @carry(" in l)
    out = lines[:call] + ["  %%x_d = tensor.cast %%x : %s to %s" % (VEC, DYN)]
    out += [l.replace("@carry(%x)", "@carry(%x_d)").replace(VEC, DYN)
            for l in lines[call:]]
    return out


def main():
    def extra(ap):
        ap.add_argument("--reads-after", action="store_true",
                        help="reads after the write read the old value too")
        ap.add_argument("--dynamic", action="store_true",
                        help="the carry of a size known at run time")
    a = seeded_variant_args(__doc__, extra)
    if a.harness:
        lines = (["// Harness of gen_carry_reads.py --seed %d." % a.seed] +
                 main_lines("carry", [Arg("%x", [N])],
                            [Init("uniform", seed=arg_seed(0), scale=0.5)],
                            ["tensor<f32>", VEC, "tensor<1xf32>"]))
        if a.dynamic:
            lines = dynamic_harness(lines)
    else:
        lines = build(a.seed, a.reads_after)
        if a.dynamic:
            lines = dynamic_model(lines)
    text = "\n".join(lines) + "\n"
    write_output(a.output, text)


if __name__ == "__main__":
    main()
