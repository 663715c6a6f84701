# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The MLIR text of one func.func in linalg on tensors, for test generators.

test/Loops/gen_loops.py (scans and their unrolled twins; gen_scan_variants.py
builds on it) and test/Distributed/gen_sharded.py (sharded steps) subclass
FuncText: fresh SSA names, constants at the top of the function, the linalg
ops both write, and the scf.for of a scan that stacks per-iteration values.
A helper they import by path, with <repo>/python on the path too (V and
float_text are the importer's); not a lit test (lit reads .mlir, .test and
.json files only).

Every op hands op() run(fn, inputs), fn being the op's result as a
function of its inputs' values (generic and ew take it as an argument):
here run and op ignore it (text only); gen_sharded.py overrides them to
simulate the program in numpy.
"""

import argparse
import sys

from remat_import_torch.mlir import V, float_text


def seeded_variant_args(doc, more=None):
    """The options of a generator of seeded variants: --seed N, --harness
    (its @main instead), -o FILE, and what `more(parser)` adds; parsed."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    if more:
        more(ap)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--harness", action="store_true",
                    help="write the harness @main instead")
    ap.add_argument("-o", "--output", default="-")
    return ap.parse_args()


def write_seeded_variant(doc, build, script):
    """The main of a generator of seeded variants (seeded_variant_args):
    `build(seed)` gives (FuncText, header lines, result values); writes the
    function, or with --harness the @main that fills its arguments, calls
    it and prints every result."""
    from remat_import_torch.argfill import main_lines
    a = seeded_variant_args(doc)
    g, header, results = build(a.seed)
    if a.harness:
        text = "\n".join(["// Harness of %s --seed %d." % (script, a.seed)] +
                         main_lines(g.name, g.args, g.inits,
                                    [r.ty for r in results])) + "\n"
    else:
        text = g.text(header, results)
    write_output(a.output, text)


def write_output(path, text):
    """`text` into file `path`, or to standard output for "-"."""
    if path == "-":
        sys.stdout.write(text)
    else:
        with open(path, "w") as fh:
            fh.write(text)

# The indexing maps of the ops below; a generator adds its own (its MAPS).
MAPS = {
    "id1": "affine_map<(i) -> (i)>",
    "red1": "affine_map<(i) -> ()>",
    "id2": "affine_map<(i, j) -> (i, j)>",
    "red2": "affine_map<(i, j) -> ()>",
    # out[i, j] = sum_n a[n, i] * b[n, j]   (a^T b: weight gradients)
    "tn_a": "affine_map<(i, j, n) -> (n, i)>",
    "tn_b": "affine_map<(i, j, n) -> (n, j)>",
    "tn_o": "affine_map<(i, j, n) -> (i, j)>",
    # out[n, i] = sum_j a[n, j] * b[i, j]   (a b^T: input gradients)
    "nt_a": "affine_map<(n, i, j) -> (n, j)>",
    "nt_b": "affine_map<(n, i, j) -> (i, j)>",
    "nt_o": "affine_map<(n, i, j) -> (n, i)>",
}
# The body of a contraction: %out + %in * %in2.
MAC = ["%m = arith.mulf %in, %in2 : f32", "%r = arith.addf %out, %m : f32"]

# Names argfill's fill bodies define: @main's values must not shadow them.
FILL_BODY_NAMES = {"lin", "l", "ca", "cb", "cc", "mask", "s8", "s13", "s15", "u0", "u1",
                   "u2", "ulp", "one", "scale", "v", "v0", "offset", "cls", "hot", "zero"}
FILL_BODY_NAMES |= {"q%d" % k for k in range(10)} | {"i%d" % k for k in range(8)}


class FuncText:
    """Text of one func.func whose ops may sit in scf bodies (`depth`)."""

    MAPS = MAPS
    MAC = MAC

    def __init__(self, name):
        self.name = name
        self.lines = []
        self.depth = 1
        self.used = set()
        self.consts = []        # (ssa, text) at the top of the function
        self.const_ssa = {}
        self.maps = set()
        self.args = []
        self.suffix = ""        # appended to names in unrolled copies
        self.body_names = set() # names defined in linalg bodies

    # -- names and text -----------------------------------------------------
    def fresh(self, base):
        base = base + self.suffix
        name, k = base, 2
        while name in self.used:
            name, k = "%s_%d" % (base, k), k + 1
        self.used.add(name)
        return "%" + name

    def fresh_top(self, base):
        """A name for the top of the function (no unrolled copy's suffix)."""
        saved, self.suffix = self.suffix, ""
        try:
            return self.fresh(base)
        finally:
            self.suffix = saved

    def value(self, base, shape):
        return V(self.fresh(base), shape)

    def emit(self, text):
        pad = "  " * self.depth
        self.lines.append(pad + text.replace("\n", "\n" + pad))

    def op(self, result, text, data=None):
        """result = text; `data` is run()'s value of it (unused here)."""
        self.emit("%s = %s" % (result.ssa, text))
        return result

    def run(self, fn, ins):
        """fn applied to the inputs' values: None, no values (text only)."""
        return None

    def comment(self, text):
        self.emit("// " + text)

    def const(self, value, ty="f32"):
        """An arith.constant at the top of the function, one per value."""
        key = (value, ty)
        if key not in self.const_ssa:
            ssa = self.fresh_top(self.const_name(value, ty))
            self.consts.append((ssa, "arith.constant %s : %s" % (
                float_text(value) if ty == "f32" else "%d" % value, ty)))
            self.const_ssa[key] = ssa
        return self.const_ssa[key]

    def const_name(self, value, ty):
        return "c%d" % value if ty == "index" else "cst"

    def bounds(self, T):
        """%c0, %c1, %cT, made in this order (the order at the top)."""
        return self.const(0, "index"), self.const(1, "index"), self.const(T, "index")

    def m(self, alias):
        self.maps.add(alias)
        return "#" + alias

    # -- ops ----------------------------------------------------------------
    def empty(self, base, shape):
        e = self.value(base + "_e", shape)
        return self.op(e, "tensor.empty() : %s" % e.ty)

    def filled(self, base, shape, value=0.0):
        e = self.empty(base, shape)
        z = self.value(base + "_z", shape)
        return self.op(z, "linalg.fill ins(%s : f32) outs(%s : %s) -> %s"
                       % (self.const(value, "f32"), e.ssa, e.ty, z.ty))

    def generic(self, base, ins, maps, iters, body, shape, fn=None, init=None):
        """linalg.generic with one result; `maps` name the aliases of ins then
        out; `body` lines use %in, %in2, ... and %out and define %r.  The
        destination is a fresh tensor.empty unless `init` (a filled value)."""
        out = init if init is not None else self.empty(base, shape)
        r = self.value(base, shape)
        argn = ["%in", "%in2", "%in3", "%in4", "%in5"][:len(ins)] + ["%out"]
        text = ["linalg.generic {indexing_maps = [%s], iterator_types = [%s]}"
                % (", ".join(self.m(a) for a in maps), ", ".join('"%s"' % i for i in iters))]
        io = ("ins(%s : %s) " % (", ".join(v.ssa for v in ins),
                                 ", ".join(v.ty for v in ins))) if ins else ""
        text.append("    %souts(%s : %s) {" % (io, out.ssa, out.ty))
        text.append("^bb0(%s):" % ", ".join("%s: f32" % a for a in argn))
        for line in body:
            self.body_names.add(line.split(" = ", 1)[0][1:])
        text += ["  " + l for l in body] + ["  linalg.yield %r : f32", "} -> " + r.ty]
        return self.op(r, "\n".join(text), self.run(fn, ins))

    def ew(self, base, ins, body, fn=None):
        """Elementwise op over tensors of the first input's shape."""
        shape = ins[0].shape
        ident = "id%d" % len(shape)
        return self.generic(base, ins, [ident] * (len(ins) + 1),
                            ["parallel"] * len(shape), body, shape, fn)

    def add(self, base, a, b):
        return self.ew(base, [a, b], ["%r = arith.addf %in, %in2 : f32"], lambda x, y: x + y)

    def matmul(self, base, a, b):
        """a @ b (linalg.matmul into a zero-filled destination)."""
        shape = [a.shape[0], b.shape[1]]
        z = self.filled(base, shape)
        r = self.value(base, shape)
        return self.op(r, "linalg.matmul ins(%s, %s : %s, %s) outs(%s : %s) -> %s"
                       % (a.ssa, b.ssa, a.ty, b.ty, z.ssa, z.ty, r.ty),
                       self.run(lambda x, y: x @ y, [a, b]))

    def matmul_tn(self, base, a, b):
        """a^T @ b (weight gradient)."""
        shape = [a.shape[1], b.shape[1]]
        return self.generic(base, [a, b], ["tn_a", "tn_b", "tn_o"],
                            ["parallel", "parallel", "reduction"], self.MAC, shape,
                            lambda x, y: x.T @ y, init=self.filled(base, shape))

    def matmul_nt(self, base, a, b):
        """a @ b^T (input gradient)."""
        shape = [a.shape[0], b.shape[0]]
        return self.generic(base, [a, b], ["nt_a", "nt_b", "nt_o"],
                            ["parallel", "parallel", "reduction"], self.MAC, shape,
                            lambda x, y: x @ y.T, init=self.filled(base, shape))

    def slice_at(self, base, src, idx, axis=0):
        """src[idx] along `axis` (rank-reduced); idx an index SSA name or an
        int (an unrolled copy, a simulated iteration)."""
        shape = list(src.shape)
        r = self.value(base, shape[:axis] + shape[axis + 1:])
        offsets = ["0"] * len(shape)
        offsets[axis] = str(idx)
        sizes = [str(d) for d in shape]
        sizes[axis] = "1"
        at = (slice(None),) * axis
        return self.op(r, "tensor.extract_slice %s[%s] [%s] [%s] : %s to %s" % (
            src.ssa, ", ".join(offsets), ", ".join(sizes), ", ".join(["1"] * len(shape)),
            src.ty, r.ty), self.run(lambda a: a[at + (idx,)], [src]))

    def insert_at(self, base, v, dst, idx, axis=0):
        """dst with row idx along `axis` replaced by v."""
        r = self.value(base, dst.shape)
        shape = list(dst.shape)
        offsets = ["0"] * len(shape)
        offsets[axis] = str(idx)
        sizes = [str(d) for d in shape]
        sizes[axis] = "1"
        at = (slice(None),) * axis

        def put(a, b):
            a = a.copy()
            a[at + (idx,)] = b
            return a
        return self.op(r, "tensor.insert_slice %s into %s[%s] [%s] [%s] : %s into %s" % (
            v.ssa, dst.ssa, ", ".join(offsets), ", ".join(sizes), ", ".join(["1"] * len(shape)),
            v.ty, dst.ty), self.run(put, [dst, v]))

    def block_at(self, base, src, off, rows):
        """src[off : off + rows] along axis 0 (not rank-reduced): a block of
        a flat stack; off an index SSA name or an int."""
        shape = list(src.shape)
        r = self.value(base, [rows] + shape[1:])
        offsets = [str(off)] + ["0"] * (len(shape) - 1)
        sizes = [str(rows)] + [str(d) for d in shape[1:]]
        return self.op(r, "tensor.extract_slice %s[%s] [%s] [%s] : %s to %s" % (
            src.ssa, ", ".join(offsets), ", ".join(sizes), ", ".join(["1"] * len(shape)),
            src.ty, r.ty), self.run(lambda a: a[off:off + rows], [src]))

    def insert_block(self, base, v, dst, off):
        """dst with rows [off, off + len(v)) along axis 0 replaced by v."""
        r = self.value(base, dst.shape)
        offsets = [str(off)] + ["0"] * (len(dst.shape) - 1)
        sizes = [str(d) for d in v.shape]

        def put(a, b):
            a = a.copy()
            a[off:off + len(b)] = b
            return a
        return self.op(r, "tensor.insert_slice %s into %s[%s] [%s] [%s] : %s into %s" % (
            v.ssa, dst.ssa, ", ".join(offsets), ", ".join(sizes),
            ", ".join(["1"] * len(dst.shape)), v.ty, dst.ty), self.run(put, [dst, v]))

    # -- the scf.for of a scan ----------------------------------------------
    def empty_stacks(self, T, stacks):
        """[(base, tensor.empty of T rows)] of `stacks` [(base, row shape)]."""
        return [(b, self.empty(b + "_stack", [T] + list(shape))) for b, shape in stacks]

    def scan_for(self, name, T, carries, stacks, body, reverse=False, reads=None,
                 upper=None, last=None):
        """An scf.for of T iterations over `carries` [(base, V)] and `stacks`
        [(base, V)] (empty_stacks), both iteration arguments.

        body(idx, cur, stack, load) -> new carries, where idx is the row of
        the iteration (%i, or T-1-j for a reverse loop), cur the current
        carries, stack(base, v) writes v into row idx of stack `base`,
        load(base) reads row idx of reads[base] (what the forward loop
        returned).  upper and last: SSA names of the trip count and trip-1
        when they are known at run time only (default T and T-1).  Returns
        (new carries, {base: stacked result})."""
        c0, c1, cT = self.bounds(T)
        res = self.fresh(name)
        ivar = self.fresh("j" if reverse else "i")
        blk = [(self.value(b, v.shape), v) for b, v in carries]
        blk += [(self.value("st_" + b, s.shape), s) for b, s in stacks]
        types = ", ".join(a.ty for a, _ in blk)
        self.emit("%s:%d = scf.for %s = %s to %s step %s iter_args(%s) -> (%s) {" % (
            res, len(blk), ivar, c0, upper or cT, c1,
            ", ".join("%s = %s" % (a.ssa, v.ssa) for a, v in blk), types))
        self.depth += 1
        idx = ivar
        if reverse:
            idx = self.fresh("i")
            self.emit("%s = arith.subi %s, %s : index"
                      % (idx, last or self.const(T - 1, "index"), ivar))
        cur_st = {b: a for (b, _), (a, _) in zip(stacks, blk[len(carries):])}

        def stack(base, v):
            cur_st[base] = self.insert_at("st_" + base + "_next", v, cur_st[base], idx)

        def load(base):
            return self.slice_at(base + "_i", reads[base], idx)
        new = body(idx, [a for a, _ in blk[:len(carries)]], stack, load)
        outs = list(new) + [cur_st[b] for b, _ in stacks]
        self.emit("scf.yield %s : %s" % (", ".join(v.ssa for v in outs), types))
        self.depth -= 1
        self.emit("}")
        results = [V("%s#%d" % (res, k), a.shape) for k, (a, _) in enumerate(blk)]
        return results[:len(carries)], {b: r for (b, _), r in zip(stacks, results[len(carries):])}

    # -- the function -------------------------------------------------------
    def preamble(self):
        """Lines between the maps and the function."""
        return []

    def params(self):
        return ["%s: %s" % (a.ssa, a.ty) for a in self.args]

    def text(self, header, results):
        clash = self.body_names & self.used
        assert not clash, "values shadow body names: %s" % sorted(clash)
        out = ["// " + l if l else "//" for l in header]
        out += ["#%s = %s" % (a, self.MAPS[a]) for a in sorted(self.maps)]
        out.append("")
        out += self.preamble()
        out.append("func.func @%s(%s)" % (self.name, ", ".join(self.params())))
        out.append("    -> (%s) {" % ", ".join(
            [results[0].ty + " {remat.loss}"] + [r.ty for r in results[1:]]))
        out += ["  %s = %s" % c for c in self.consts]
        out += self.lines
        out.append("  return %s : %s" % (", ".join(r.ssa for r in results),
                                         ", ".join(r.ty for r in results)))
        out.append("}")
        return "\n".join(out) + "\n"
