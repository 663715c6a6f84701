#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Writes a small per-rank training step around one collective, and its
harness, for the property test of the collectives' memory terms
(check_collectives.py):

  h = tanh(x * w)                 x, w: [R, C], this rank's
  c = KIND(h)                     the collective under test
  loss = all_reduce(sum(tanh(c)))
  dw = KIND^T(1 - tanh(c)^2) * (1 - h^2) * x

KIND^T is the collective the gradient takes back (all_gather <->
reduce_scatter, all_slice -> all_gather, all_reduce and all_to_all with its
axes swapped, a shift by the opposite offset). send_recv passes h from
rank r to r + 1 with shard.send / shard.recv under branches on the rank
(rank 0 keeps its own), and the gradient back from r + 1 to r, every rank
receiving before it sends. With --view the collective
reads columns 1 .. C of a [R, C + 1] tensor (a strided view where R > 1:
the terms for non-contiguous blocks). Sizes are f32 elements; R C 4 bytes
need not be a multiple of 64.

  gen_collective_step.py --kind all_gather --ranks 3 --rows 3 --cols 5 \\
      --axis 1 -o step.mlir     # writes step.mlir and step.harness.mlir
"""
import argparse
import sys

KINDS = ["all_reduce", "all_gather", "reduce_scatter", "all_to_all",
         "all_slice", "shift", "send_recv"]
ID2 = "affine_map<(d0, d1) -> (d0, d1)>"


def ttype(shape):
    return "tensor<%dx%dxf32>" % tuple(shape)


def scaled(shape, axis, factor=None, divisor=None):
    s = list(shape)
    if factor:
        s[axis] *= factor
    if divisor:
        assert s[axis] % divisor == 0, "axis %d of %s not divisible by %d" % (
            axis, shape, divisor)
        s[axis] //= divisor
    return s


def collective(kind, n, shape, args, backward=False):
    """(the op's text from its name to its attributes, `{src}` for the
    operand; its result shape). backward: the transposed collective, from
    the forward's result shape."""
    a = args.axis
    head = "shard.%s {src} on @grid grid_axes = [0]"
    if kind == "all_reduce":
        return head % "all_reduce", shape
    if kind == "all_gather" and not backward or \
            kind in ("reduce_scatter", "all_slice") and backward:
        return head % "all_gather" + " gather_axis = %d" % a, \
            scaled(shape, a, factor=n)
    if kind == "reduce_scatter" or kind == "all_gather" and backward:
        return head % "reduce_scatter" + " scatter_axis = %d" % a, \
            scaled(shape, a, divisor=n)
    if kind == "all_slice":
        return head % "all_slice" + " slice_axis = %d" % a, \
            scaled(shape, a, divisor=n)
    if kind == "all_to_all":
        split, concat = (1 - a, a) if backward else (a, 1 - a)
        return (head % "all_to_all" + " split_axis = %d concat_axis = %d"
                % (split, concat),
                scaled(scaled(shape, split, divisor=n), concat, factor=n))
    if kind == "send_recv":
        return None, shape
    if kind == "shift":
        off = -args.offset if backward else args.offset
        return (head % "shift" + " shift_axis = 0 offset = %d%s"
                % (off, " rotate" if args.rotate else "")), shape
    raise ValueError(kind)


def point_to_point(src, dst, shape, back, n):
    """`dst` = what rank r receives from r - 1 (back: r + 1) where there is
    such a rank, else its own `src`; then `src` sent to r + 1 (back: r - 1)."""
    t = ttype(shape)
    has_src, has_dst = ("%has_next", "%has_prev") if back else ("%has_prev", "%has_next")
    frm, to = ("%next", "%prev") if back else ("%prev", "%next")
    return [
        "  %s = scf.if %s -> (%s) {" % (dst, has_src, t),
        "    %%e = tensor.empty() : %s" % t,
        "    %%r = shard.recv %%e on @grid grid_axes = [0] source = [%s] : (%s, index) -> %s"
        % (frm, t, t),
        "    scf.yield %r : " + t,
        "  } else {",
        "    scf.yield %s : %s" % (src, t),
        "  }",
        "  scf.if %s {" % has_dst,
        "    %%s = shard.send %s on @grid grid_axes = [0] destination = [%s] : (%s, index) -> %s"
        % (src, to, t, t),
        "  }"]


def emit(op, src, dst, shape_in, shape_out):
    return "  %s = %s : %s -> %s" % (dst, op.format(src=src), ttype(shape_in),
                                     ttype(shape_out))


def elementwise(dst, ins, shape, body, indent="  "):
    """A linalg.generic over `shape` with inputs `ins` (names) whose block
    arguments are %a0, %a1, ...; body: lines computing %r."""
    t = ttype(shape)
    lines = ["%s%s_e = tensor.empty() : %s" % (indent, dst, t),
             "%s%s = linalg.generic {indexing_maps = [%s], iterator_types = "
             "[\"parallel\", \"parallel\"]} ins(%s : %s) outs(%s_e : %s) {"
             % (indent, dst, ", ".join([ID2] * (len(ins) + 1)), ", ".join(ins),
                ", ".join([t] * len(ins)), dst, t),
             "%s^bb0(%s, %%o: f32):" % (indent, ", ".join(
                 "%%a%d: f32" % i for i in range(len(ins))))]
    lines += [indent + "  " + b for b in body]
    lines += ["%s  linalg.yield %%r : f32" % indent, "%s} -> %s" % (indent, t)]
    return lines


def step(args):
    n = args.ranks
    shape = [args.rows, args.cols]
    fwd, out = collective(args.kind, n, shape, args)
    bwd, back = collective(args.kind, n, out, args, backward=True)
    assert back == shape, (back, shape)
    arg = [args.rows, args.cols + 1] if args.view else shape
    L = ["// GENERATED by test/Distributed/gen_collective_step.py " + args.cmdline,
         "shard.grid @grid(shape = %d)" % n,
         "func.func @step(%%x: %s, %%w: %s) -> (tensor<f32>, %s) {"
         % (ttype(arg), ttype(arg), ttype(shape)),
         "  %zero = arith.constant 0.000000e+00 : f32",
         "  %one = arith.constant 1.000000e+00 : f32"]
    if args.kind == "send_recv":
        L += ["  %rank = shard.process_linear_index on @grid : index",
              "  %i0 = arith.constant 0 : index",
              "  %i1 = arith.constant 1 : index",
              "  %%last = arith.constant %d : index" % (n - 1),
              "  %prev = arith.subi %rank, %i1 : index",
              "  %next = arith.addi %rank, %i1 : index",
              "  %has_prev = arith.cmpi sgt, %rank, %i0 : index",
              "  %has_next = arith.cmpi slt, %rank, %last : index"]
    L += elementwise("%hw" if args.view else "%h", ["%x", "%w"], arg,
                     ["%p = arith.mulf %a0, %a1 : f32", "%r = math.tanh %p : f32"])
    if args.view:
        for src, dst in (("%hw", "%h"), ("%x", "%xs")):
            L.append("  %s = tensor.extract_slice %s[0, 1] [%d, %d] [1, 1] : %s to %s"
                     % (dst, src, args.rows, args.cols, ttype(arg), ttype(shape)))
    if fwd:
        L.append(emit(fwd, "%h", "%c", shape, out))
    else:
        L += point_to_point("%h", "%c", shape, False, n)
    L += elementwise("%g", ["%c"], out, ["%r = math.tanh %a0 : f32"])
    L += ["  %le = tensor.empty() : tensor<f32>",
          "  %lz = linalg.fill ins(%zero : f32) outs(%le : tensor<f32>) -> tensor<f32>",
          "  %%l = linalg.reduce ins(%%g : %s) outs(%%lz : tensor<f32>) dimensions = [0, 1]"
          % ttype(out),
          "    (%a: f32, %b: f32) {",
          "      %s = arith.addf %a, %b : f32",
          "      linalg.yield %s : f32",
          "    }",
          "  %loss = shard.all_reduce %l on @grid grid_axes = [0] : tensor<f32> -> tensor<f32>"]
    L += elementwise("%dc", ["%g"], out, ["%q = arith.mulf %a0, %a0 : f32",
                                          "%r = arith.subf %one, %q : f32"])
    if bwd:
        L.append(emit(bwd, "%dc", "%dh", out, shape))
    else:
        L += point_to_point("%dc", "%dh", shape, True, n)
    L += elementwise("%dw", ["%dh", "%h", "%xs" if args.view else "%x"], shape,
                     ["%q = arith.mulf %a1, %a1 : f32",
                      "%d = arith.subf %one, %q : f32",
                      "%p = arith.mulf %a0, %d : f32",
                      "%r = arith.mulf %p, %a2 : f32"])
    L += ["  return %%loss, %%dw : tensor<f32>, %s" % ttype(shape), "}", ""]
    return "\n".join(L)


def harness(args):
    """x and w of values depending on the element and the rank; prints the
    loss and dw."""
    t = ttype([args.rows, args.cols + (1 if args.view else 0)])
    r = ttype([args.rows, args.cols])
    L = ["// GENERATED by test/Distributed/gen_collective_step.py " + args.cmdline,
         "func.func private @printMemrefF32(tensor<*xf32>)",
         "func.func @main() {",
         "  %rank = shard.process_linear_index on @grid : index"]
    for name, mod, scale in (("x", 7, "0.1"), ("w", 5, "0.15")):
        L += ["  %%%s_e = tensor.empty() : %s" % (name, t),
              "  %%%s = linalg.generic {indexing_maps = [%s], iterator_types = "
              "[\"parallel\", \"parallel\"]} outs(%%%s_e : %s) {" % (name, ID2, name, t),
              "  ^bb0(%o: f32):",
              "    %i = linalg.index 0 : index",
              "    %j = linalg.index 1 : index",
              "    %%cc = arith.constant %d : index" % (args.cols + 1),
              "    %%cm = arith.constant %d : index" % mod,
              "    %c3 = arith.constant 3 : index",
              "    %r0 = arith.muli %i, %cc : index",
              "    %r1 = arith.addi %r0, %j : index",
              "    %r2 = arith.muli %rank, %c3 : index",
              "    %r3 = arith.addi %r1, %r2 : index",
              "    %m = arith.remui %r3, %cm : index",
              "    %mi = arith.index_cast %m : index to i32",
              "    %mf = arith.sitofp %mi : i32 to f32",
              "    %%s = arith.constant %s : f32" % scale,
              "    %off = arith.constant -0.3 : f32",
              "    %v0 = arith.mulf %mf, %s : f32",
              "    %v = arith.addf %v0, %off : f32",
              "    linalg.yield %v : f32",
              "  } -> %s" % t]
    L += ["  %%l, %%dw = func.call @step(%%x, %%w) : (%s, %s) -> (tensor<f32>, %s)"
          % (t, t, r),
          "  %lu = tensor.cast %l : tensor<f32> to tensor<*xf32>",
          "  func.call @printMemrefF32(%lu) : (tensor<*xf32>) -> ()",
          "  %%du = tensor.cast %%dw : %s to tensor<*xf32>" % r,
          "  func.call @printMemrefF32(%du) : (tensor<*xf32>) -> ()",
          "  return", "}", ""]
    return "\n".join(L)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kind", choices=KINDS, required=True)
    ap.add_argument("--ranks", type=int, required=True)
    ap.add_argument("--rows", type=int, required=True)
    ap.add_argument("--cols", type=int, required=True)
    ap.add_argument("--axis", type=int, choices=[0, 1], default=0,
                    help="gather, scatter, slice or split axis")
    ap.add_argument("--offset", type=int, default=1, help="shift offset")
    ap.add_argument("--rotate", action="store_true", help="shift rotating")
    ap.add_argument("--view", action="store_true",
                    help="the collective reads a strided view")
    ap.add_argument("-o", "--output", required=True,
                    help="the step; the harness goes next to it")
    args = ap.parse_args()
    argv, skip = [], False
    for a in sys.argv[1:]:  # the command without its output path
        if skip or a in ("-o", "--output"):
            skip = not skip
            continue
        argv.append(a)
    args.cmdline = " ".join(argv)
    with open(args.output, "w") as fh:
        fh.write(step(args))
    with open(args.output[:-len(".mlir")] + ".harness.mlir", "w") as fh:
        fh.write(harness(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
