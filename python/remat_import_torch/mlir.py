# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A small textual MLIR builder for one func.func on tensors.

Follows the conventions of test/Corpus (see its README): one op per tensor
value, explicit initial values (tensor.empty + linalg.fill / broadcast)
written into by destination-passing ops, op bodies that define their own
constants.  Every top-level op carries a NameLoc.

Standard library only: test/Corpus/gen_corpus.py (which must run without
PyTorch) imports it by path and shares the op text below (`*_op`).
"""

import math
import re
import struct

# Every PyTorch dtype a joint graph holds (autocast's bf16 and f16 copies,
# Inductor's int8 max-pool offsets, uint8 masks, float8 scales) and its
# MLIR element type; the byte size is PyTorch's element_size() (bool: one
# byte, as remat's memory model counts i1).  The importer's executable
# lowering computes in the first five (EXECUTABLE_ELTS); planning-only mode
# expresses them all.
ELT = {"float32": "f32", "int64": "i64", "int32": "i32", "bool": "i1",
       "float64": "f64", "float16": "f16", "bfloat16": "bf16", "int8": "i8",
       "uint8": "ui8", "int16": "i16", "uint16": "ui16", "uint32": "ui32",
       "uint64": "ui64", "float8_e4m3fn": "f8E4M3FN", "float8_e5m2": "f8E5M2",
       "float8_e4m3fnuz": "f8E4M3FNUZ", "float8_e5m2fnuz": "f8E5M2FNUZ",
       "float8_e8m0fnu": "f8E8M0FNU", "complex32": "complex<f16>",
       "complex64": "complex<f32>", "complex128": "complex<f64>"}
ELT_BYTES = {"f32": 4, "f64": 8, "i64": 8, "i32": 4, "i1": 1, "f16": 2, "bf16": 2,
             "i8": 1, "ui8": 1, "i16": 2, "ui16": 2, "ui32": 4, "ui64": 8,
             "f8E4M3FN": 1, "f8E5M2": 1, "f8E4M3FNUZ": 1, "f8E5M2FNUZ": 1,
             "f8E8M0FNU": 1, "complex<f16>": 4, "complex<f32>": 8, "complex<f64>": 16}
EXECUTABLE_ELTS = {"f32", "f64", "i64", "i32", "i1"}


class UnknownDtype(KeyError):
    """A dtype with no MLIR element type here (say which, in one line)."""

    def __str__(self):
        return "dtype %s has no MLIR element type in the importer" % self.args[0]


def elt_of_name(dtype_name):
    """The MLIR element type of a PyTorch dtype's name ("bfloat16")."""
    try:
        return ELT[dtype_name]
    except KeyError:
        raise UnknownDtype(dtype_name) from None


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def float_text(x):
    """A float literal MLIR parses back to f32(x) exactly."""
    if math.isinf(x):
        return "0xFF800000" if x < 0 else "0x7F800000"
    x = f32(x)
    for digits in range(1, 10):
        text = "%.*g" % (digits, x)
        if f32(float(text)) == x:
            break
    if "." not in text and "e" not in text and "inf" not in text:
        text += ".0"
    elif "." not in text and "e" in text:
        mant, _, exp = text.partition("e")
        text = mant + ".0e" + exp
    return text


def tensor_type(shape, elt="f32"):
    """A ranked tensor type; a dimension of None is dynamic (?)."""
    return "tensor<%s>" % "x".join(["?" if d is None else str(int(d)) for d in shape]
                                   + [elt])


def names(vs):
    return ", ".join(v.ssa for v in vs)


def types(vs):
    return ", ".join(v.ty for v in vs)


class V:
    """A tensor SSA value."""

    def __init__(self, ssa, shape, elt="f32"):
        self.ssa, self.elt = ssa, elt
        self.shape = [None if d is None else int(d) for d in shape]

    @property
    def ty(self):
        return tensor_type(self.shape, self.elt)

    @property
    def rank(self):
        return len(self.shape)

    @property
    def numel(self):
        return math.prod(self.shape)

    @property
    def nbytes(self):
        return self.numel * ELT_BYTES[self.elt]

    def __repr__(self):
        return "V(%s: %s)" % (self.ssa, self.ty)


def dims(rank, prefix="d"):
    return ["%s%d" % (prefix, i) for i in range(rank)]


def affine_map(dim_list, results):
    """affine_map<(dim_list) -> (results)>: both comma-separated text."""
    return "affine_map<(%s) -> (%s)>" % (dim_list, results)


def amap(ndims, results):
    """affine_map<(d0, ..) -> (results)>; results are strings."""
    return affine_map(", ".join(dims(ndims)), ", ".join(results))


def identity_map(rank):
    return amap(rank, dims(rank))


_SAN = re.compile(r"[^A-Za-z0-9_$.]")


def sanitize(name):
    name = _SAN.sub("_", name)
    if not name or not (name[0].isalpha() or name[0] in "_$."):
        name = "v" + name
    return name


# --------------------------------------------------------------------------
# Op text: everything after `%r =`.  Values are anything with .ssa and .ty
# (V here, gen_corpus.T); the importer and the corpus print ops alike.
# --------------------------------------------------------------------------
def _ints(xs):
    return ", ".join(map(str, xs))


def empty_op(ty):
    return "tensor.empty() : %s" % ty


def fill_op(scalar, elt, init, result):
    return "linalg.fill ins(%s : %s) outs(%s : %s) -> %s" % (
        scalar, elt, init.ssa, init.ty, result.ty)


def broadcast_op(x, init, dimensions):
    return "linalg.broadcast ins(%s : %s) outs(%s : %s) dimensions = [%s]" % (
        x.ssa, x.ty, init.ssa, init.ty, _ints(dimensions))


def transpose_op(x, init, perm):
    return "linalg.transpose ins(%s : %s) outs(%s : %s) permutation = [%s]" % (
        x.ssa, x.ty, init.ssa, init.ty, _ints(perm))


def matmul_op(name, a, b, init, result):
    """linalg.matmul / batch_matmul: init + a @ b."""
    return "%s ins(%s, %s : %s, %s) outs(%s : %s) -> %s" % (
        name, a.ssa, b.ssa, a.ty, b.ty, init.ssa, init.ty, result.ty)


def _dense(v):
    """One int (dense<2>) or one per dim (dense<[2, 1]>)."""
    return ("[%s]" % _ints(v)) if isinstance(v, (list, tuple)) else str(v)


def window_op(name, strides, x, w, init, result, dilations=1):
    """A 2-D convolution or pooling named op; `strides` and `dilations` one
    int (dense<2>) or one per dim (dense<[2, 1]>)."""
    return ("%s {dilations = dense<%s> : tensor<2xi64>, strides = dense<%s> : tensor<2xi64>}\n"
            "      ins(%s, %s : %s, %s) outs(%s : %s) -> %s" % (
                name, _dense(dilations), _dense(strides), x.ssa, w.ssa, x.ty, w.ty,
                init.ssa, init.ty, result.ty))


def insert_slice_op(src, dst, offsets, sizes, strides):
    return "tensor.insert_slice %s into %s[%s] [%s] [%s] : %s into %s" % (
        src.ssa, dst.ssa, _ints(offsets), _ints(sizes), _ints(strides), src.ty, dst.ty)


def extract_slice_op(src, offsets, sizes, strides, result):
    return "tensor.extract_slice %s[%s] [%s] [%s] : %s to %s" % (
        src.ssa, _ints(offsets), _ints(sizes), _ints(strides), src.ty, result.ty)


def _groups(reassociation):
    return ", ".join("[%s]" % _ints(g) for g in reassociation)


def collapse_op(src, reassociation, result):
    return "tensor.collapse_shape %s [%s] : %s into %s" % (
        src.ssa, _groups(reassociation), src.ty, result.ty)


def expand_op(src, reassociation, result):
    return "tensor.expand_shape %s [%s] output_shape [%s] : %s into %s" % (
        src.ssa, _groups(reassociation), _ints(result.shape), src.ty, result.ty)


def generic_op(maps, iters, ins, outs, block_args, body, results, attrs=None):
    """linalg.generic; `block_args` name the block arguments (ins, then
    outs), `body` is its lines, linalg.yield included."""
    text = ["linalg.generic {indexing_maps = [%s], iterator_types = [%s]%s}"
            % (", ".join(maps), ", ".join('"%s"' % i for i in iters),
               (", " + attrs) if attrs else "")]
    io = ("ins(%s : %s) " % (names(ins), types(ins))) if ins else ""
    text.append("      " + io + "outs(%s : %s) {" % (names(outs), types(outs)))
    text.append("  ^bb0(%s):" % ", ".join(
        "%s: %s" % (a, v.elt) for a, v in zip(block_args, list(ins) + list(outs))))
    text += ["    " + line for line in body]
    rt = types(results)
    text.append("  } -> %s" % (rt if len(results) == 1 else "(%s)" % rt))
    return "\n".join(text)


class Body:
    """The body of a linalg.generic: block arguments and arith/math ops."""

    def __init__(self, args):
        self.args = args          # [(name, elt)]
        self.lines = []
        self.n = 0

    def _fresh(self):
        self.n += 1
        return "%%_%d" % self.n

    def emit(self, text):
        r = self._fresh()
        self.lines.append("%s = %s" % (r, text))
        return r

    def cf(self, x, elt="f32"):
        return self.emit("arith.constant %s : %s" % (float_text(x), elt))

    def ci(self, x, elt="i32"):
        return self.emit("arith.constant %d : %s" % (x, elt))

    def index(self, d):
        return self.emit("linalg.index %d : index" % d)

    def apply(self, expr, operands):
        """affine.apply with dims d0.. bound to `operands` (index values)."""
        return self.emit("affine.apply %s(%s)" % (
            affine_map(", ".join(dims(len(operands))), expr), ", ".join(operands)))

    def cidx(self, x):
        return self.emit("arith.constant %d : index" % x)

    def bin(self, op, a, b, elt="f32"):
        return self.emit("%s %s, %s : %s" % (op, a, b, elt))

    def un(self, op, a, elt="f32"):
        return self.emit("%s %s : %s" % (op, a, elt))

    def add(self, a, b):
        return self.bin("arith.addf", a, b)

    def sub(self, a, b):
        return self.bin("arith.subf", a, b)

    def mul(self, a, b):
        return self.bin("arith.mulf", a, b)

    def div(self, a, b):
        return self.bin("arith.divf", a, b)

    def cmpf(self, pred, a, b, elt="f32"):
        return self.emit("arith.cmpf %s, %s, %s : %s" % (pred, a, b, elt))

    def cmpi(self, pred, a, b, elt="i32"):
        return self.emit("arith.cmpi %s, %s, %s : %s" % (pred, a, b, elt))

    def select(self, c, a, b, elt="f32"):
        return self.emit("arith.select %s, %s, %s : %s" % (c, a, b, elt))

    def andi(self, a, b):
        return self.bin("arith.andi", a, b, "i1")

    def cast_index(self, a, elt="i32"):
        return self.emit("arith.index_cast %s : index to %s" % (a, elt))


class Func:
    """Accumulates the text of one func.func."""

    def __init__(self, name):
        self.name = name
        self.lines = []
        self.used = set()
        self.consts = {}         # (text, elt) -> ssa of a function-level constant
        self.const_lines = []
        self.args = []           # V
        self.results = []        # (V, attrs)
        self.locs = {}           # NameLoc names used, in order of first use

    # -- names --------------------------------------------------------------
    def fresh(self, base):
        base = sanitize(base)
        name, k = base, 2
        while name in self.used:
            name, k = "%s_%d" % (base, k), k + 1
        self.used.add(name)
        return "%" + name

    def value(self, base, shape, elt="f32"):
        return V(self.fresh(base), shape, elt)

    def arg(self, base, shape, elt="f32"):
        v = self.value(base, shape, elt)
        self.args.append(v)
        return v

    # -- text ---------------------------------------------------------------
    def op(self, results, text, loc, attrs=None):
        """Appends one op; `text` is everything after `=`, `loc` its name."""
        lhs = ", ".join(r.ssa for r in results)
        if attrs:
            # Discardable attributes go into the op's attribute dictionary,
            # which the caller left as `{ATTRS}` or we append before `:`.
            text = text.replace("{ATTRS}", attrs)
        else:
            text = text.replace(" {ATTRS}", "").replace("{ATTRS}", "")
        line = ("%s = %s" % (lhs, text)) if lhs else text
        # One op per location name: a measured cost table entry applies to
        # every op with that name, so a repeated name gets a suffix.
        if loc in self.locs:
            k = 2
            while "%s.%d" % (loc, k) in self.locs:
                k += 1
            loc = "%s.%d" % (loc, k)
        self.locs.setdefault(loc, None)
        self.lines.append("  %s loc(\"%s\")" % (line, loc))
        return results[0] if len(results) == 1 else results

    def comment(self, text):
        self.lines.append("  // " + text)

    def const(self, value, elt="f32"):
        """A function-level scalar constant (for linalg.fill)."""
        text = float_text(value) if elt.startswith("f") else str(int(value))
        key = (text, elt)
        if key not in self.consts:
            base = "cst_" + sanitize(text.replace("-", "m").replace(".", "p"))
            ssa = self.fresh(base + ("" if elt == "f32" else "_" + elt))
            self.consts[key] = ssa
            self.const_lines.append("  %s = arith.constant %s : %s loc(\"const\")"
                                    % (ssa, text, elt))
        return self.consts[key]

    def text(self, header_lines=()):
        out = ["// " + l if l else "//" for l in header_lines]
        sig = ",\n    ".join("%s: %s" % (a.ssa, a.ty) for a in self.args)
        res = []
        for v, attrs in self.results:
            res.append(v.ty + (" {%s}" % attrs if attrs else ""))
        out.append("func.func @%s(\n    %s)" % (self.name, sig))
        out.append("    -> (%s) {" % ",\n        ".join(res))
        out += self.const_lines
        out += self.lines
        rv = [v for v, _ in self.results]
        out.append("  return %s\n      : %s loc(\"output\")"
                   % (", ".join(v.ssa for v in rv), ", ".join(v.ty for v in rv)))
        out.append("}")
        return "\n".join(out) + "\n"

    # -- building blocks ----------------------------------------------------
    def empty(self, base, shape, loc, elt="f32"):
        """tensor.empty, located at `loc`.init (initial values are part of
        the node of the op that writes into them)."""
        e = self.value(base + "_e", shape, elt)
        return self.op([e], empty_op(e.ty), loc + ".init")

    def filled(self, base, shape, loc, value=0.0, elt="f32"):
        e = self.empty(base, shape, loc, elt)
        z = self.value(base + "_z", shape, elt)
        return self.op([z], fill_op(self.const(value, elt), elt, e, z), loc + ".fill")

    def generic(self, base, loc, ins, outs, maps, iters, body_fn, attrs=None,
                out_names=None):
        """linalg.generic.  `ins`: V or (V, map) ...; `outs`: initial values;
        `maps`: indexing maps of ins then outs; `body_fn(b, in_args, out_args)`
        returns the yielded values.  Returns the result V (or a list)."""
        b = Body(None)
        in_args = ["%%_in%d" % i for i in range(len(ins))]
        out_args = ["%%_out%d" % i for i in range(len(outs))]
        yields = body_fn(b, in_args, out_args)
        if isinstance(yields, str):
            yields = [yields]
        results = []
        for i, o in enumerate(outs):
            nm = out_names[i] if out_names else (base if len(outs) == 1 else "%s_%d" % (base, i))
            results.append(self.value(nm, o.shape, o.elt))
        body = b.lines + ["linalg.yield %s : %s" % (", ".join(yields),
                                                      ", ".join(v.elt for v in outs))]
        self.op(results, generic_op(maps, iters, ins, outs, in_args + out_args, body,
                                    results, attrs), loc)
        return results[0] if len(results) == 1 else results
