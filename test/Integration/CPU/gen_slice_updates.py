#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Random steps that update slices of a tensor where they were cut.

`m[r0:r1, c0:c1][i, j] = v`, as PyTorch's functionalization writes an
assignment into a view (slice_scatter of a slice_scatter) and a frontend
lowers it: tensor.extract_slice of m, inserts into that slice, and the
slice inserted back where it was cut. One-Shot Bufferize writes all of it
into m's buffer; -remat-prepare writes such updates as inserts into m
(lib/Transforms/FlattenSliceUpdates.cpp). This generator writes masks built
that way, read in the forward and again in the backward, for
check_remat.py --exact (the CPU runtime's peak == the planner's):

  forward  m_k: a fill or x * c, then R regions, each updated by J pieces
           (a constant fill, or tanh of x's matching block); h_k = tanh(h_{k-1}) * m_k
  backward d_K = 1; d_{k-1} = d_k * m_k * (1 - tanh(h_{k-1})^2)
           results: loss = sum(h_K), d_0, the last mask

Per region the seed chooses its rows and columns, its pieces' places and
what they hold, and how it is written: cut and inserted back (nested), the
pieces inserted into m directly (flat), or nested with the mask before the
update also read elsewhere (shared: no rewrite applies, bufferization
copies). The loss's value is not what is checked (the outputs are compared
with the original program's).

Usage: gen_slice_updates.py --seed N [--harness] [-o FILE]
"""

import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path[:0] = [os.path.join(ROOT, "python"), os.path.join(ROOT, "test", "Support")]
sys.dont_write_bytecode = True  # keep the source tree clean
from mlir_text import FuncText, write_seeded_variant  # noqa: E402
from remat_import_torch.argfill import Init, arg_seed  # noqa: E402

ROWS, COLS = 16, 24


def region(rnd):
    """(offsets, sizes) of a random block of a ROWS x COLS tensor."""
    h, w = rnd.randint(1, ROWS), rnd.randint(1, COLS)
    return [rnd.randint(0, ROWS - h), rnd.randint(0, COLS - w)], [h, w]


def sub_region(rnd, sizes):
    """(offsets, sizes) of a random block inside a block of `sizes`."""
    h, w = rnd.randint(1, sizes[0]), rnd.randint(1, sizes[1])
    return [rnd.randint(0, sizes[0] - h), rnd.randint(0, sizes[1] - w)], [h, w]


class SliceText(FuncText):
    def cut(self, base, src, offsets, sizes):
        r = self.value(base, sizes)
        return self.op(r, "tensor.extract_slice %s[%s] [%s] [1, 1] : %s to %s" % (
            src.ssa, ", ".join(map(str, offsets)), ", ".join(map(str, sizes)),
            src.ty, r.ty))

    def put(self, base, v, dst, offsets):
        r = self.value(base, dst.shape)
        return self.op(r, "tensor.insert_slice %s into %s[%s] [%s] [1, 1] : %s into %s" % (
            v.ssa, dst.ssa, ", ".join(map(str, offsets)), ", ".join(map(str, v.shape)),
            v.ty, dst.ty))


def choices(seed):
    rnd = random.Random(seed)
    k = rnd.randint(2, 4)
    layers = []
    for _ in range(k):
        regions = []
        for _ in range(rnd.randint(1, 3)):
            offsets, sizes = region(rnd)
            pieces = [(sub_region(rnd, sizes), rnd.choice(["fill", "tanh"]),
                       round(rnd.uniform(-1, 1), 2)) for _ in range(rnd.randint(1, 3))]
            regions.append({"at": (offsets, sizes), "pieces": pieces,
                            "written": rnd.choice(["nested", "nested", "flat", "shared"])})
        # No factor of 1: canonicalization would fold x * 1 into x.
        layers.append({"base": rnd.choice(["fill", "scaled"]),
                       "value": rnd.choice([0.5, 0.75, 1.25, 1.5]), "regions": regions})
    return layers


def piece(g, x, at, sub, kind, value):
    """The value of one piece: a fill, or tanh of x's block where it lands."""
    (ro, co), (h, w) = at
    (so, sc), size = sub
    if kind == "fill":
        return g.filled("p", size, value)
    block = g.cut("xb", x, [ro + so, co + sc], size)
    return g.ew("p", [block], ["%r = math.tanh %in : f32"])


def mask(g, x, spec, reads):
    if spec["base"] == "fill":
        m = g.filled("m", [ROWS, COLS], spec["value"])
    else:
        c = g.const(spec["value"])
        m = g.ew("m", [x], ["%%r = arith.mulf %%in, %s : f32" % c])
    for r in spec["regions"]:
        offsets, sizes = r["at"]
        if r["written"] == "flat":
            for sub, kind, value in r["pieces"]:
                p = piece(g, x, r["at"], sub, kind, value)
                m = g.put("m", p, m, [offsets[0] + sub[0][0], offsets[1] + sub[0][1]])
            continue
        if r["written"] == "shared":
            reads.append(m)  # read again at the end: bufferization copies
        s = g.cut("s", m, offsets, sizes)
        for sub, kind, value in r["pieces"]:
            p = piece(g, x, r["at"], sub, kind, value)
            s = g.put("s", p, s, sub[0])
        m = g.put("m", s, m, offsets)
    return m


def build(seed):
    layers = choices(seed)
    g = SliceText("slices")
    x = g.value("x", [ROWS, COLS])
    g.args = [x]
    g.inits = [Init("uniform", seed=arg_seed(0), scale=0.5)]
    g.comment("forward: h_k = tanh(h_{k-1}) * m_k")
    hs, ts, ms, reads = [x], [], [], []
    for spec in layers:
        m = mask(g, x, spec, reads)
        t = g.ew("t", [hs[-1]], ["%r = math.tanh %in : f32"])
        hs.append(g.ew("h", [t, m], ["%r = arith.mulf %in, %in2 : f32"]))
        ts.append(t)
        ms.append(m)
    red = g.filled("loss", [])
    loss = g.generic("loss", [hs[-1]], ["id2", "red2"], ["reduction", "reduction"],
                     ["%r = arith.addf %out, %in : f32"], [], init=red)
    g.comment("backward")
    d = g.filled("d", [ROWS, COLS], 1.0)
    for t, m in reversed(list(zip(ts, ms))):
        d = g.ew("d", [d, m, t],
                 ["%tt = arith.mulf %in3, %in3 : f32",
                  "%one = arith.constant 1.0 : f32",
                  "%dt = arith.subf %one, %tt : f32",
                  "%dm = arith.mulf %in, %in2 : f32",
                  "%r = arith.mulf %dm, %dt : f32"])
    # The masks read before their shared regions' updates, summed into the
    # last one: every shared read stays a reader of the old mask.
    last = ms[-1]
    for old in reads:
        last = g.add("last", last, old)
    results = [loss, d, last]
    described = "; ".join(
        "m%d: %s, %s" % (i, l["base"], ", ".join(
            "%s at %s %s (%d pieces)" % (r["written"], r["at"][0], r["at"][1],
                                         len(r["pieces"])) for r in l["regions"]))
        for i, l in enumerate(layers))
    header = ["GENERATED by test/Integration/CPU/gen_slice_updates.py; do not edit.",
              "Regenerate: python3 test/Integration/CPU/gen_slice_updates.py --seed %d" % seed,
              "",
              "Variant: seed %d: K=%d; %s" % (seed, len(layers), described)]
    return g, header, results


def main():
    write_seeded_variant(__doc__, build, "gen_slice_updates.py")


if __name__ == "__main__":
    main()
