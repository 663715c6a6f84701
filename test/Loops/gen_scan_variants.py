#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Generates random spellings of one scan (a property test of the scan
recognizer, lib/Analysis/ScanLoops.cpp).

A scan is recognised by what its loops read and write, not by how they are
spelled (ScanLoops.h).  This generator writes the same training step -- a
forward loop over T steps that stacks per-step values and a backward loop
that reads them back in reverse -- in the many ways frontends spell it, each
variant drawn from a seed (or given explicitly):

  model      rnn:    h' = tanh(h W_k),  loss = sum(h_T)
             lstm:   f = sigmoid(h Wf_k), a = tanh(h Wa_k), c' = f c + a,
                     h' = tanh(c'),     loss = sum(h_T) + sum(c_T)
                     (two carries, each stacked)
             layers: h' = h + relu(h W_k), loss = sum(h_T^2) (a scan over
                     layers: always stacked parameters)
  params     rnn, lstm: W_k = ws[k] (stacked parameters tensor<T x W x W>,
             read by the forward loop at the row of its step, the backward
             writing the per-step weight gradient into a stacked gradient it
             carries, at the row of the step it reverses) or one W shared by
             all steps (its gradient summed with an explicit add)
  stacks     rnn, layers: h, or h and the pre-activation p = h W_k (the
             backward recomputes what it does not read: p from h, tanh(p);
             with layout next the rnn's backward takes y = h_{k+1} from the
             stack and scales by 1 - y tanh(p), which is 1 - y^2 bit for bit)
             lstm: h and c, or h, c and the gate f
  layout     row:     h_k at row k (stored before the update)
             next:    h_0 inserted at row 0 before the loop, T+1 rows, the
                      updated carry h_{k+1} (the value yielded) at row k+1;
                      the backward reads h_k at its step's row and (rnn,
                      lstm) h_{k+1} one row up instead of recomputing it
             reverse: h_k at row T-1-k, the backward reading row j
             (stacked values other than carries: row k, or T-1-k for
             reverse)
  forward    scf.for %i = 0 to T, or %i = lb to lb+T (step k = i - lb);
             with a loop step S > 1, %i = lb to lb+S*T step S, its rows
             computed from q = i/S (= k + floor(lb/S)), the quotient spelled
             as `divide` says
  loop       for:    the forward loop is that scf.for
             while:  an scf.while counting %i the same way (how a
                     fori_loop or a scan of static length lowers): the
                     counter first, stepped by `arith.addi %i, S`, its
                     condition (`fcond`) `cmpi slt, %i, lb+S*T`, `sle, %i,
                     lb+S*(T-1)`, `ne, %i, lb+S*T` or `ugt, lb+S*T, %i`
             fori:   an scf.for %t = 0 to T step 1 (on i32 unless the
                     counter is index) carrying its own counter %i from lb
                     by S beside it, the rows computed from the counter (how
                     IREE's input conversion writes JAX's fori_loop: the
                     while became a for, its counter stayed); drawn for half
                     of the loop=for seeds
  counter    the scf.while loops' counters (loop=while, backward=while-down)
             and the fori loop's carried one:
             index, or i32 (as a frontend's scan counts), the body reading
             `arith.index_cast` of it, or tensor (a tensor<i32>, as
             StableHLO's while carries it to SCF: compared and stepped by
             rank-0 linalg.generic ops, the condition and the counter read
             with tensor.extract)
  backward   for:        scf.for %j = 0 to T, step k = T-1-j
             for-shift:  scf.for %j = 1 to T+1, step k = T-j
             (with S > 1: the bounds times S, step S, rows from j/S; the
             while counts from S*(T-1) down by S)
             while-down: scf.while counting %j from T-1 down to 0, step
                         k = j; condition `cmpi sge, %j, %c0`, `sgt %j,
                         %cm1` or `sle %c0, %j` (cond); the counter stepped
                         by `subi %j, %c1` or `addi %j, %cm1` (decrement);
                         the counter's result unused
  spelling   how every row index c +- v that is not v itself is written:
             subi:   arith.subi %cC, %j / arith.addi %j, %cC
             affine: affine.apply affine_map<(d0) -> (C - d0)>(%j)
             index:  index.sub %cC, %j / index.add %j, %cC
             cast:   through arith.index_cast to i64 and back
             mulneg: arith.addi (arith.muli %j, %cm1), %cC / arith.addi %j,
                     %cC with C negative
             (the rows of the forward loop with lb > 0 or layout next or
             reverse, of the backward loop whenever its row is not j)
  clamp      none, or every row index clamped into the stacks' rows
             [0, rows - 1]: maxmin (arith.maxsi with 0, then minsi, as the
             lowering of StableHLO's dynamic_slice and dynamic_update_slice
             writes start indices) or minmax (the other order)
  axis       the stacks' time axis: time-major (a stack of [T, B, W], a row
             [k, 0, 0] of [1, B, W]) or batch-first ([B, T, W], a row
             [0, k, 0] of [B, 1, W], as PyTorch's batch_first outputs and a
             loop filling `out[:, t, :]` lay it out); given only, never
             drawn: flat (time and batch one axis, [T * B, W], row k the
             block [k * B, 0] of [B, W], its offset k * B spelled as the
             variant's spelling says: how a frontend that flattens time and
             batch writes it; remat/Loops/BlockStacks.h)
  state      layout next: carried (each carry an iteration argument too) or
             stack (the carries only in their stacks, as `hs[k + 1] =
             f(hs[k])` keeps them: each step reads h_k back from row k; the
             loss reads the last row)
  whole      none, or loss: the loss also sums the whole stack of h after the
             loop (a loss over every step's output; the stack is then read
             whole besides row by row, and each backward step adds 1 to
             dloss/dh_k, h_T's too where it is stacked); with 2 stacks or
             more only (with h's alone nothing would be dropped)
  wholeby    whole=loss: op (one linalg.generic over the stack) or loop (a
             loop of its own after the forward loop sums it row by row, in
             order: the stack is read by two loops, the backward one and
             this; the matcher takes the one that reverses the forward loop
             for the backward loop and keeps the stacks the other reads)
  metric     none, or f32: the forward loop also sums every step's h into
             an f32 it carries (a running metric, as a hand-written step
             keeps one: tensor.extract of the step's sum, arith.addf),
             returned last as a tensor<f32>, not part of the loss
  step       the scf.for loops' step S: 1, 2, 3 or 4
  divide     how i/S is written (S > 1): affine (affine_map floordiv),
             floordivsi, divsi, divui (arith), shr (arith.shrui by log2 S;
             divui where S is not a power of 2), index (index.divu)

Every variant of a model computes its loss and the gradients of the step
(the backward is the adjoint of the forward: check_variant_gradients.py
compares them with PyTorch).  `--form unrolled` writes a variant's
straight-line twin: T copies of the forward body, then T copies of the
backward body reading the forward values directly (no stacks, no index
arithmetic), the same ops in the same order, so both forms print the same
results bit for bit (`--harness --bits`).  The file's header lists the
choices and the rows each loop writes and reads.

Usage:
  gen_scan_variants.py --seed N [--model M --spelling S --backward B
      --cond C --decrement D --lb L --layout Y --stacks K --params|--no-params
      --loop F --fcond C --counter I --clamp K
      --step S --divide V --steps T --batch B --width W] [--form loop|unrolled]
      [--harness [--bits]] [-o FILE]
  gen_scan_variants.py --seed N --choices     print the variant's choices
  gen_scan_variants.py --cover N...           print the seeds' choices; fail
                                              unless they make every choice
Sizes default per model so that activations dominate parameters (at 20 % of
the peak the stacks are what must go): rnn 32x32, lstm 32x16, with
stacked parameters (and layers) batch 128 width 8; T = 64.

Python 3 standard library only; reuses gen_loops.py's Gen (the ops) and the
importer's argfill (argument values, the harness).
"""

import argparse
import math
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # keep the source tree clean
import gen_loops as gl  # noqa: E402  (puts <repo>/python on sys.path)
from remat_import_torch.argfill import main_lines  # noqa: E402
from remat_import_torch.mlir import V  # noqa: E402

MODELS = ["rnn", "lstm", "layers"]
SPELLINGS = ["subi", "affine", "index", "cast", "mulneg"]
BACKWARDS = ["for", "for-shift", "while-down"]
CONDS = ["sge", "sgt", "sle-swapped"]
LOOPS = ["for", "while"]
FCONDS = ["slt", "sle", "ne", "ugt-swapped"]
COUNTERS = ["index", "i32", "tensor"]
CLAMPS = ["none", "none", "maxmin", "minmax"]
AXES = ["time-major", "time-major", "batch-first"]
STATES = ["carried", "stack"]
WHOLES = ["none", "none", "loss"]
METRICS = ["none", "none", "f32"]
WHOLEBYS = ["op", "loop"]
DECREMENTS = ["subi", "addi"]
LAYOUTS = ["row", "next", "reverse"]
STEPS = [1, 2, 3, 4]
DIVIDES = ["affine", "floordivsi", "divsi", "divui", "shr", "index"]
STACKS = {"rnn": (1, 2), "layers": (1, 2), "lstm": (2, 3)}
# pack=parts: where the part axis goes in a stack's shape: first, right
# after the time axis, or last.
PART_AXES = ["outer", "inner", "last"]


class Choices:
    """One variant: the seed's random draws, overridden by explicit ones."""

    def __init__(self, seed, **given):
        rng = random.Random(seed)
        self.seed = seed
        # Draw everything first (a given choice does not shift the others).
        draw = {
            "model": rng.choice(MODELS),
            "params": rng.random() < 0.5,
            "stacks_hi": rng.random() < 0.5,
            "layout": rng.choice(LAYOUTS),
            "lb": rng.choice([0, 0, rng.randint(1, 9)]),
            "backward": rng.choice(BACKWARDS),
            "cond": rng.choice(CONDS),
            "decrement": rng.choice(DECREMENTS),
            "spelling": rng.choice(SPELLINGS),
            # Drawn last: the seeds drawn before it keep their other choices.
            "step": rng.choice([1, 1] + STEPS[1:]),
            "divide": rng.choice(DIVIDES),
            # Drawn after the step: earlier seeds keep their other choices.
            "loop": rng.choice(LOOPS),
            "fcond": rng.choice(FCONDS),
            "counter": rng.choice(COUNTERS[:2]),
            # Drawn last, each: the seeds keep their earlier choices.
            "held": rng.choice(["scalar", "tensor"]),
            "clamp": rng.choice(CLAMPS),
            "axis": rng.choice(AXES),
            "state": rng.choice(STATES),
            "whole": rng.choice(WHOLES),
            "metric": rng.choice(METRICS),
            "wholeby": rng.choice(WHOLEBYS),
            "fori": rng.random() < 0.5,
        }
        if draw["loop"] == "for" and draw["fori"]:
            draw["loop"] = "fori"
        if draw["counter"] == "i32" and draw["held"] == "tensor":
            draw["counter"] = "tensor"
        g = {k: v for k, v in given.items() if v is not None}
        self.model = g.get("model", draw["model"])
        self.params = True if self.model == "layers" else g.get("params", draw["params"])
        if self.model == "layers" and g.get("params") is False:
            raise SystemExit("gen_scan_variants: layers always has stacked parameters")
        lo, hi = STACKS[self.model]
        self.stacks = g.get("stacks", hi if draw["stacks_hi"] else lo)
        if self.stacks not in (lo, hi):
            raise SystemExit("gen_scan_variants: %s takes --stacks %d or %d"
                             % (self.model, lo, hi))
        for k in ("layout", "lb", "backward", "cond", "decrement", "spelling", "step",
                  "divide", "loop", "fcond", "counter", "clamp", "axis", "state",
                  "whole", "metric", "wholeby"):
            setattr(self, k, g.get(k, draw[k]))
        if self.step not in STEPS:
            raise SystemExit("gen_scan_variants: --step takes one of %s" % STEPS)
        if self.step == 1:
            self.divide = None
        elif self.divide == "shr" and self.step & (self.step - 1):
            self.divide = "divui"  # No shift divides by 3.
        if self.backward != "while-down":
            self.cond = self.decrement = None
        if self.loop != "while":
            self.fcond = None
        if self.layout != "next":
            self.state = None  # Only rows k + 1 hold what step k yields.
        if self.stacks < 2:
            # The stack of h kept for the loss, no other stack to drop: the
            # scan is refused (checkpointing would only add memory).
            self.whole = "none"
        if self.whole == "none":
            self.wholeby = None
        if self.loop not in ("while", "fori") and self.backward != "while-down":
            self.counter = None
        self.steps = g.get("steps", 64)
        if self.params:
            b, w = 128, 8
        elif self.model == "lstm":
            b, w = 32, 16
        else:
            b, w = 32, 32
        self.batch, self.width = g.get("batch", b), g.get("width", w)
        # Given only (a seed alone keeps its stacks separate): the stacks
        # of one shape packed side by side, each a part; the part axis and
        # the parts' order drawn from a generator of their own.
        self.pack = g.get("pack", "separate")
        pack_rng = random.Random(seed * 7919 + 17)
        self.part_axis = self.part_order = None
        if self.pack == "parts":
            self.part_axis = g.get("part_axis", pack_rng.choice(PART_AXES))
            self.part_order = pack_rng.random()

    def line(self):
        parts = ["model=%s" % self.model, "params=%s" % ("yes" if self.params else "no"),
                 "stacks=%d" % self.stacks, "layout=%s" % self.layout,
                 "forward=%d..%d" % (self.lb, self.lb + self.step * self.steps)
                 + (" step %d divide=%s" % (self.step, self.divide) if self.step > 1 else ""),
                 "loop=%s" % self.loop + (" fcond=%s" % self.fcond if self.fcond else "")
                 + (" counter=%s" % self.counter if self.counter else ""),
                 "backward=%s" % self.backward]
        if self.clamp != "none":
            parts.append("clamp=%s" % self.clamp)
        if self.axis != "time-major":
            parts.append("axis=%s" % self.axis)
        if self.state:
            parts.append("state=%s" % self.state)
        if self.whole != "none":
            parts.append("whole=%s" % self.whole + (" by=loop" if self.wholeby == "loop" else ""))
        if self.metric != "none":
            parts.append("metric=%s" % self.metric)
        if self.pack != "separate":
            parts.append("pack=%s part-axis=%s" % (self.pack, self.part_axis))
        if self.backward == "while-down":
            parts += ["cond=%s" % self.cond, "decrement=%s" % self.decrement]
        parts += ["spelling=%s" % self.spelling, "T=%d" % self.steps,
                  "batch=%d" % self.batch, "width=%d" % self.width]
        return " ".join(parts)

    def cmdline(self):
        text = "--seed %d --model %s --%sparams --stacks %d --layout %s --lb %d --backward %s" % (
            self.seed, self.model, "" if self.params else "no-", self.stacks, self.layout,
            self.lb, self.backward)
        if self.backward == "while-down":
            text += " --cond %s --decrement %s" % (self.cond, self.decrement)
        text += " --spelling %s --step %d" % (self.spelling, self.step)
        if self.divide:
            text += " --divide %s" % self.divide
        text += " --loop %s" % self.loop
        if self.fcond:
            text += " --fcond %s" % self.fcond
        if self.counter:
            text += " --counter %s" % self.counter
        if self.clamp != "none":
            text += " --clamp %s" % self.clamp
        if self.axis != "time-major":
            text += " --axis %s" % self.axis
        if self.state:
            text += " --state %s" % self.state
        if self.whole != "none":
            text += " --whole %s --wholeby %s" % (self.whole, self.wholeby)
        if self.metric != "none":
            text += " --metric %s" % self.metric
        if self.pack != "separate":
            text += " --pack %s --part-axis %s" % (self.pack, self.part_axis)
        text += " --steps %d --batch %d --width %d" % (self.steps, self.batch, self.width)
        return text


class Scalar:
    """An f32 SSA value (metric=f32's carry)."""

    ty = "f32"

    def __init__(self, ssa):
        self.ssa = ssa


class VGen(gl.Gen):
    """gen_loops' Gen with the loops of a variant."""

    # A stack of h read whole (whole=loss): rank 3.
    MAPS = dict(gl.MAPS, id3="affine_map<(i, j, k) -> (i, j, k)>",
                red3="affine_map<(i, j, k) -> ()>")

    def __init__(self, name, form, ch):
        super().__init__(name, form)
        self.ch = ch
        self.T = ch.steps
        self.rows = []  # (what, row expression) for the header
        # pack=parts: each packed stack's (part axis, index) and tensor.
        self.parts, self.key = {}, {}

    # -- index constants and row expressions ----------------------------------
    def iconst(self, value, ty="index"):
        return self.const(value, ty)

    def const_name(self, value, ty):
        """gen_loops' names, and %cm1 for index -1, %c3_i64 for an i64 3."""
        if ty == "f32" or (ty == "index" and value >= 0):
            return super().const_name(value, ty)
        name = "cm%d" % -value if value < 0 else "c%d" % value
        return name if ty == "index" else name + "_" + ty

    def tconst(self, value):
        """A 0-d tensor<i32> constant at the top (StableHLO's scalars)."""
        key = (value, "tensor<i32>")
        if key not in self.const_ssa:
            ssa = self.fresh_top("t%d" % value if value >= 0 else "tm%d" % -value)
            self.consts.append((ssa, "arith.constant dense<%d> : tensor<i32>" % value))
            self.const_ssa[key] = ssa
        return self.const_ssa[key]

    def counter_type(self):
        return {"tensor": "tensor<i32>"}.get(self.ch.counter, self.ch.counter)

    def counter_const(self, value):
        it = self.ch.counter
        return self.tconst(value) if it == "tensor" else self.iconst(value, it)

    def counter_op(self, base, op, a, b, result="i32"):
        """`op` (arith.addi, arith.subi, or arith.cmpi <pred>) applied to two
        counters: that arith op, or for counter=tensor a rank-0
        linalg.generic as stablehlo-legalize-to-linalg writes StableHLO's add
        and compare of a while's counter."""
        r = self.fresh(base)
        it = self.ch.counter
        sep = ", " if " " in op else " "  # arith.cmpi slt, %a, %b
        if it != "tensor":
            self.emit("%s = %s%s%s, %s : %s" % (r, op, sep, a, b, it))
            return r
        e = self.fresh(base + "_e")
        self.emit("%s = tensor.empty() : tensor<%s>" % (e, result))
        sc = self.m("scalar")
        self.emit("%s = linalg.generic {indexing_maps = [%s, %s, %s], iterator_types = []}"
                  % (r, sc, sc, sc))
        self.emit("    ins(%s, %s : tensor<i32>, tensor<i32>) outs(%s : tensor<%s>) {"
                  % (a, b, e, result))
        self.emit("^bb0(%%in: i32, %%in2: i32, %%out: %s):" % result)
        self.emit("  %%r = %s%s%%in, %%in2 : i32" % (op, sep))
        self.emit("  linalg.yield %%r : %s" % result)
        self.emit("} -> tensor<%s>" % result)
        self.body_names.add("r")
        return r

    def counter_condition(self, base, pred, a, b):
        """An i1: cmpi `pred` of two counters (through tensor.extract of a
        rank-0 tensor<i1> for counter=tensor)."""
        tensor = self.ch.counter == "tensor"
        c = self.counter_op(base + "_t" if tensor else base, "arith.cmpi " + pred, a, b, "i1")
        if not tensor:
            return c
        more = self.fresh(base)
        self.emit("%s = tensor.extract %s[] : tensor<i1>" % (more, c))
        return more

    def counter_index(self, counter, ivar):
        """%ivar (index) from the counter block argument."""
        it = self.ch.counter
        if it == "tensor":
            s = self.fresh(ivar[1:] + "_i32")
            self.emit("%s = tensor.extract %s[] : tensor<i32>" % (s, counter))
            self.emit("%s = arith.index_cast %s : i32 to index" % (ivar, s))
        elif it != "index":
            self.emit("%s = arith.index_cast %s : %s to index" % (ivar, counter, it))

    def clamped(self, r, cache):
        """Row r clamped into the stacks' rows (clamp=maxmin: maxsi with 0,
        then minsi with rows - 1, as the lowering of StableHLO's dynamic
        slices writes every start index; minmax: the other order)."""
        if self.ch.clamp == "none":
            return r
        key = ("clamp", r)
        if key in cache:
            return cache[key]
        rows = self.T + 1 if self.ch.layout == "next" else self.T
        lo, hi = self.iconst(0), self.iconst(rows - 1)
        first, c = self.fresh("row_lo"), self.fresh("row_in")
        if self.ch.clamp == "maxmin":
            self.emit("%s = arith.maxsi %s, %s : index" % (first, r, lo))
            self.emit("%s = arith.minsi %s, %s : index" % (c, first, hi))
        else:
            self.emit("%s = arith.minsi %s, %s : index" % (first, r, hi))
            self.emit("%s = arith.maxsi %s, %s : index" % (c, first, lo))
        cache[key] = c
        return c

    def row(self, var, e, c, cache):
        """SSA of e * var + c (e = +-1), spelled as the variant says; var
        itself when e = 1 and c = 0.  `cache` holds the loop body's."""
        key = (var, e, c)
        if key in cache:
            return cache[key]
        sp = self.ch.spelling
        if e == 1 and c == 0:
            r = var
        elif sp == "affine":
            r = self.fresh("row")
            expr = ("%d - d0" % c) if e == -1 else (
                "d0 + %d" % c if c > 0 else "d0 - %d" % -c)
            self.emit("%s = affine.apply affine_map<(d0) -> (%s)>(%s)" % (r, expr, var))
        elif sp == "cast":
            v64, r64, r = self.fresh("v64"), self.fresh("row64"), self.fresh("row")
            self.emit("%s = arith.index_cast %s : index to i64" % (v64, var))
            if e == -1:
                self.emit("%s = arith.subi %s, %s : i64" % (r64, self.iconst(c, "i64"), v64))
            elif c > 0:
                self.emit("%s = arith.addi %s, %s : i64" % (r64, v64, self.iconst(c, "i64")))
            else:
                self.emit("%s = arith.subi %s, %s : i64" % (r64, v64, self.iconst(-c, "i64")))
            self.emit("%s = arith.index_cast %s : i64 to index" % (r, r64))
        elif sp == "mulneg":
            r = self.fresh("row")
            if e == -1:
                nv = self.fresh("minus_v")
                self.emit("%s = arith.muli %s, %s : index" % (nv, var, self.iconst(-1)))
                self.emit("%s = arith.addi %s, %s : index" % (r, nv, self.iconst(c)))
            else:
                self.emit("%s = arith.addi %s, %s : index" % (r, var, self.iconst(c)))
        else:  # subi, index
            r = self.fresh("row")
            sub, add, ty = (("arith.subi", "arith.addi", " : index") if sp == "subi"
                            else ("index.sub", "index.add", ""))
            if e == -1:
                self.emit("%s = %s %s, %s%s" % (r, sub, self.iconst(c), var, ty))
            elif c > 0:
                self.emit("%s = %s %s, %s%s" % (r, add, var, self.iconst(c), ty))
            else:
                self.emit("%s = %s %s, %s%s" % (r, sub, var, self.iconst(-c), ty))
        cache[key] = r
        return r

    def quotient(self, var, cache):
        """SSA of var / S (the loop's step), spelled as the variant says;
        var itself when S = 1."""
        S, dv = self.ch.step, self.ch.divide
        if S == 1:
            return var
        key = ("quotient", var)
        if key in cache:
            return cache[key]
        q = self.fresh("q")
        if dv == "affine":
            self.emit("%s = affine.apply affine_map<(d0) -> (d0 floordiv %d)>(%s)" % (q, S, var))
        elif dv == "index":
            self.emit("%s = index.divu %s, %s" % (q, var, self.iconst(S)))
        elif dv == "shr":
            self.emit("%s = arith.shrui %s, %s : index" % (q, var, self.iconst(S.bit_length() - 1)))
        else:
            self.emit("%s = arith.%s %s, %s : index" % (q, dv, var, self.iconst(S)))
        cache[key] = q
        return q

    # -- the scan -------------------------------------------------------------
    @property
    def axis(self):
        """The stacks' time axis (ch.axis)."""
        return 1 if self.ch.axis == "batch-first" else 0

    @property
    def flat(self):
        """axis=flat: each row a block of B rows of one [rows * B, W] stack."""
        return self.ch.axis == "flat"

    def stack_shape(self, rows, shape):
        """A stack of `rows` rows of `shape` along the time axis."""
        shape = list(shape)
        if self.flat:
            return [rows * shape[0]] + shape[1:]
        return shape[:self.axis] + [rows] + shape[self.axis:]

    def block_offset(self, idx):
        """axis=flat: the first flat row of row idx, idx * B, spelled as the
        variant spells its rows (an int when idx is one)."""
        B = self.ch.batch
        if isinstance(idx, int):
            return idx * B
        off, sp = self.fresh("block"), self.ch.spelling
        if sp == "affine":
            self.emit("%s = affine.apply affine_map<(d0) -> (d0 * %d)>(%s)" % (off, B, idx))
        elif sp == "index":
            self.emit("%s = index.mul %s, %s" % (off, idx, self.iconst(B)))
        elif sp == "mulneg":
            self.emit("%s = arith.muli %s, %s : index" % (off, self.iconst(B), idx))
        else:
            self.emit("%s = arith.muli %s, %s : index" % (off, idx, self.iconst(B)))
        return off

    def stack_row(self, base, src, idx, stack=None):
        """Row idx of a stack (a block of B rows when flat); of the part of
        `stack` when it is packed (src the packed tensor)."""
        if stack in self.parts:
            return self.part_row(base, src, idx, self.parts[stack])
        if self.flat:
            return self.block_at(base, src, self.block_offset(idx), self.ch.batch)
        return self.slice_at(base, src, idx, self.axis)

    def stack_put(self, base, v, dst, idx, stack=None):
        """dst with row idx replaced by v (a block of B rows when flat); of
        the part of `stack` when it is packed (dst the packed tensor)."""
        if stack in self.parts:
            return self.part_row(base, dst, idx, self.parts[stack], v)
        if self.flat:
            return self.insert_block(base, v, dst, self.block_offset(idx))
        return self.insert_at(base, v, dst, idx, self.axis)

    # -- pack=parts: stacks side by side in one tensor ---------------------------
    def time_axis(self):
        return 0 if self.flat else self.axis

    def part_position(self, rank):
        """Where the part axis goes in a stack of `rank` dimensions."""
        return {"outer": 0, "inner": self.time_axis() + 1, "last": rank}[self.ch.part_axis]

    def pack_stacks(self, stacks):
        """stacks: [(base, stack shape)]. Packs those of one shape (two or
        more) into one tensor; returns [(key, packed shape)], one per
        tensor (key: the base, or the packed bases joined), and records
        each packed base's (part axis, part index) in self.parts."""
        groups = {}
        for b, shape in stacks:
            groups.setdefault(tuple(shape), []).append(b)
        out = []
        for shape, members in groups.items():
            if self.ch.pack != "parts" or len(members) < 2:
                out += [(b, list(shape)) for b in members]
                continue
            pos = self.part_position(len(shape))
            order = list(range(len(members)))
            random.Random(self.ch.part_order).shuffle(order)
            key = "_".join(members)
            for b, j in zip(members, order):
                self.parts[b] = (pos, j)
                self.key[b] = key
            out.append((key, list(shape[:pos]) + [len(members)] + list(shape[pos:])))
        return out

    def part_row(self, base, packed, idx, part, v=None):
        """Row idx of the part `part` (axis, index) of `packed`, or, given
        v, packed with that row replaced by v."""
        pos, j = part
        shape = list(packed.shape)
        t = self.time_axis() + (1 if pos <= self.time_axis() else 0)
        B = self.ch.batch
        offsets, sizes = ["0"] * len(shape), [str(d) for d in shape]
        offsets[pos], sizes[pos] = str(j), "1"
        if self.flat:
            off = self.block_offset(idx)
            offsets[t], sizes[t] = str(off), str(B)
            keep = [k for k in range(len(shape)) if k != pos]
        else:
            off = idx
            offsets[t], sizes[t] = str(idx), "1"
            keep = [k for k in range(len(shape)) if k not in (pos, t)]
        row_shape = [int(sizes[k]) for k in keep]

        def at():
            return tuple(j if k == pos else (slice(off, off + B) if self.flat else off)
                         if k == t else slice(None) for k in range(len(shape)))
        strides = ", ".join(["1"] * len(shape))
        if v is None:
            r = self.value(base, row_shape)
            return self.op(r, "tensor.extract_slice %s[%s] [%s] [%s] : %s to %s" % (
                packed.ssa, ", ".join(offsets), ", ".join(sizes), strides, packed.ty, r.ty),
                self.run(lambda a: a[at()], [packed]))
        r = self.value(base, shape)

        def put(a, b):
            a = a.copy()
            a[at()] = b
            return a
        return self.op(r, "tensor.insert_slice %s into %s[%s] [%s] [%s] : %s into %s" % (
            v.ssa, packed.ssa, ", ".join(offsets), ", ".join(sizes), strides, v.ty, packed.ty),
            self.run(put, [packed, v]))

    def whole_part(self, base, packed, stack):
        """The whole stack `stack`, a part of `packed` (rank-reduced)."""
        pos, j = self.parts[stack]
        shape = list(packed.shape)
        offsets, sizes = ["0"] * len(shape), [str(d) for d in shape]
        offsets[pos], sizes[pos] = str(j), "1"
        r = self.value(base, shape[:pos] + shape[pos + 1:])
        return self.op(r, "tensor.extract_slice %s[%s] [%s] [%s] : %s to %s" % (
            packed.ssa, ", ".join(offsets), ", ".join(sizes), ", ".join(["1"] * len(shape)),
            packed.ty, r.ty), self.run(lambda a: a[(slice(None),) * pos + (j,)], [packed]))

    # Rows as s * k + r0 of the step k, per kind of stack.
    def carry_row(self, nxt=False):
        ch = self.ch
        if ch.layout == "reverse":
            return -1, ch.steps - 1
        return 1, (1 if nxt else 0)

    def value_row(self):
        return (-1, self.ch.steps - 1) if self.ch.layout == "reverse" else (1, 0)

    @staticmethod
    def describe(var, e, c):
        if e == 1:
            return var if c == 0 else ("%s + %d" % (var, c) if c > 0 else "%s - %d" % (var, -c))
        return "%d - %s" % (c, var)

    def forward(self, carries, values, body):
        """The forward loop over T steps.  carries: [(base, V init)], each
        stacked as the layout says; values: [(base, shape)] stacked by the
        body with stack(base, v).  body(at_k, cur, stack) -> new carries,
        where at_k() is the step's index k (SSA name, or an int unrolled).
        Returns (final carries, saved) for backward()."""
        T, ch = self.T, self.ch
        if self.form == "unrolled":
            cur = [v for _, v in carries]
            saved = {"rows": {}, "next": {}}
            for b, _ in carries + values:
                saved["rows"][b] = [None] * T
            for b, _ in carries:
                saved["next"][b] = [None] * T
            metric = self.const(0.0) if ch.metric != "none" else None
            for k in range(T):
                self.suffix = "_%d" % k
                self.comment("forward: step %d" % k)
                for (b, _), v in zip(carries, cur):
                    saved["rows"][b][k] = v

                def stack(base, v, k=k):
                    saved["rows"][base][k] = v
                new = body(lambda k=k: k, cur, stack)
                for (b, _), v in zip(carries, new):
                    saved["next"][b][k] = v
                if metric:
                    metric = self.metric_step(metric, new[0])
                cur = new
                self.suffix = ""
            if metric:
                self.wrap_metric(metric)
            return cur, saved
        lb = ch.lb
        rows = T + 1 if ch.layout == "next" else T
        tensors = self.pack_stacks(
            [(b, self.stack_shape(rows, v.shape)) for b, v in carries]
            + [(b, self.stack_shape(T, shape)) for b, shape in values])
        st0 = {k: self.empty(k + "_stack", shape) for k, shape in tensors}
        if ch.layout == "next":
            for b, v in carries:
                k = self.key.get(b, b)
                st0[k] = self.stack_put(b + "_stack0", v, st0[k], 0, stack=b)
        keys = [k for k, _ in tensors]
        res, ivar = self.fresh("fwd"), self.fresh("i")
        # state=stack: no iteration argument holds the carries; each step
        # reads them back from the rows the step before wrote.
        in_stack = ch.state == "stack"
        held = 0 if in_stack else len(carries)
        blk = [] if in_stack else [(self.value(b, v.shape), v) for b, v in carries]
        blk += [(self.value("st_" + k, st0[k].shape), st0[k]) for k in keys]
        # metric=f32: an f32 carried last.
        metric = ch.metric != "none"
        if metric:
            blk.append((Scalar(self.fresh("metric_acc")), Scalar(self.const(0.0))))
        types = ", ".join(a.ty for a, _ in blk)
        S = ch.step
        if ch.loop == "for":
            self.emit("%s:%d = scf.for %s = %s to %s step %s iter_args(%s) -> (%s) {" % (
                res, len(blk), ivar, self.iconst(lb), self.iconst(lb + S * T), self.iconst(S),
                ", ".join("%s = %s" % (a.ssa, v.ssa) for a, v in blk), types))
        elif ch.loop == "fori":
            # The loop counts t; the rows come from the counter it carries.
            it = self.counter_type()
            tty = "index" if it == "index" else "i32"
            counter = ivar if it == "index" else self.fresh("i_" + ch.counter)
            self.emit("%s:%d = scf.for %s = %s to %s step %s iter_args(%s) -> (%s)%s {" % (
                res, len(blk) + 1, self.fresh("t"), self.iconst(0, tty), self.iconst(T, tty),
                self.iconst(1, tty), ", ".join(["%s = %s" % (counter, self.counter_const(lb))] + [
                    "%s = %s" % (a.ssa, v.ssa) for a, v in blk]),
                it + ", " + types, "" if tty == "index" else " : i32"))
            types = it + ", " + types
            self.depth += 1
            self.counter_index(counter, ivar)
            self.depth -= 1
        else:
            # A counted scf.while: the counter first, from lb by S.
            it = self.counter_type()
            wtypes = it + ", " + types
            before = [self.fresh("i_w")] + [self.fresh(a.ssa[1:] + "_w") for a, _ in blk]
            self.emit("%s:%d = scf.while (%s) : (%s) -> (%s) {" % (
                res, len(blk) + 1, ", ".join("%s = %s" % (w, v) for w, v in zip(
                    before, [self.counter_const(lb)] + [v.ssa for _, v in blk])), wtypes, wtypes))
            self.depth += 1
            end = lb + S * T
            pred, a, b = {"slt": ("slt", before[0], self.counter_const(end)),
                          "sle": ("sle", before[0], self.counter_const(end - S)),
                          "ne": ("ne", before[0], self.counter_const(end)),
                          "ugt-swapped": ("ugt", self.counter_const(end), before[0])}[ch.fcond]
            more = self.counter_condition("more", pred, a, b)
            self.emit("scf.condition(%s) %s : %s" % (more, ", ".join(before), wtypes))
            self.depth -= 1
            self.emit("} do {")
            counter = ivar if it == "index" else self.fresh("i_" + ch.counter)
            self.emit("^bb0(%s):" % ", ".join(["%s: %s" % (counter, it)] + [
                "%s: %s" % (a.ssa, a.ty) for a, _ in blk]))
            self.depth += 1
            self.counter_index(counter, ivar)
            self.depth -= 1
        self.depth += 1
        cache = {}
        nc = len(carries)
        cur_st = {k: a for k, (a, _) in zip(keys, blk[held:])}

        # q = i / S = k + floor(lb / S): k = i - lb when S = 1
        q0 = lb // S

        def at(s, r0):
            # row s * k + r0 = s * q + r0 - s * q0
            return self.clamped(self.row(self.quotient(ivar, cache), s, r0 - s * q0, cache),
                                cache)

        def note(what, s, r0):
            self.rows.append((what, self.describe("%i" if S == 1 else "%%i/%d" % S, s,
                                                  r0 - s * q0)))

        def store(base, v, s, r0):
            k = self.key.get(base, base)
            cur_st[k] = self.stack_put("st_" + base + "_next", v, cur_st[k], at(s, r0),
                                       stack=base)

        if ch.layout != "next":
            for (b, _), (a, _) in zip(carries, blk):
                s, r0 = self.carry_row()
                note("forward stores %s_k at" % b, s, r0)
                store(b, a, s, r0)

        def stack(base, v):
            s, r0 = self.value_row()
            note("forward stores %s_k at" % base, s, r0)
            store(base, v, s, r0)
        if in_stack:
            s, r0 = self.carry_row()
            for b, _ in carries:
                note("forward reads %s_k at" % b, s, r0)
            cur = [self.stack_row(b + "_k", cur_st[self.key.get(b, b)], at(s, r0), stack=b)
                   for b, _ in carries]
        else:
            cur = [a for a, _ in blk[:nc]]
        new = body(lambda: at(1, 0), cur, stack)
        if ch.layout == "next":
            for (b, _), v in zip(carries, new):
                s, r0 = self.carry_row(nxt=True)
                note("forward stores %s_{k+1} at" % b, s, r0)
                store(b, v, s, r0)
        outs = ([] if in_stack else [v.ssa for v in new]) + [cur_st[k].ssa for k in keys]
        if metric:
            outs.append(self.metric_step(blk[-1][0].ssa, new[0]))
        first = 0
        if ch.loop == "while":
            inext = self.counter_op("i_next", "arith.addi", counter,
                                    self.counter_const(S))
            outs, types, first = [inext] + outs, it + ", " + types, 1
        elif ch.loop == "fori":  # types already name the counter
            inext = self.counter_op("i_next", "arith.addi", counter,
                                    self.counter_const(S))
            outs, first = [inext] + outs, 1
        self.emit("scf.yield %s : %s" % (", ".join(outs), types))
        self.depth -= 1
        self.emit("}")
        results = [V("%s#%d" % (res, k + first), a.shape)
                   for k, (a, _) in enumerate(blk[:len(blk) - metric])]
        if metric:
            self.wrap_metric("%s#%d" % (res, len(blk) - 1 + first))
        by_key = dict(zip(keys, results[held:]))
        saved = {b: by_key[self.key.get(b, b)] for b, _ in carries + values}
        if in_stack:  # The final carries: the stacks' last rows, hs[-1].
            final = [self.stack_row(b + "_last", saved[b], T, stack=b) for b, _ in carries]
            return final, saved
        return results[:nc], saved

    def metric_step(self, acc, h):
        """acc + sum(h) in f32 (metric=f32): the step's sum extracted."""
        e = self.fresh("metric_e")
        self.emit("%s = tensor.extract %s[] : tensor<f32>" % (
            e, self.reduce("metric_sum", [h], []).ssa))
        n = self.fresh("metric_next")
        self.emit("%s = arith.addf %s, %s : f32" % (n, acc, e))
        return n

    def wrap_metric(self, acc):
        """The metric returned, as a tensor<f32>."""
        self.metric_out = self.value("metric", [])
        self.emit("%s = tensor.from_elements %s : tensor<f32>" % (self.metric_out.ssa, acc))

    def backward(self, carries, body, saved):
        """The backward loop reversing the T steps.  body(at_k, cur, load) ->
        new carries; load(base, nxt=False) is the value the forward step k
        stacked (nxt: the carry it yielded)."""
        T, ch = self.T, self.ch
        if self.form == "unrolled":
            cur = [v for _, v in carries]
            for t in range(T):
                k = T - 1 - t
                self.suffix = "_%d" % k
                self.comment("backward: step %d" % k)

                def load(base, nxt=False, k=k):
                    return saved["next" if nxt else "rows"][base][k]
                cur = body(lambda k=k: k, cur, load)
                self.suffix = ""
            return cur
        # k = alpha * j + beta
        alpha, beta = {"for": (-1, T - 1), "for-shift": (-1, T), "while-down": (1, 0)}[ch.backward]
        res = self.fresh("bwd")
        cache = {}
        seen = set()

        def at(s, r0):
            return self.clamped(self.row(self.quotient(jvar, cache), s * alpha,
                                         s * beta + r0, cache), cache)

        def load(base, nxt=False):
            if base in carry_bases:
                s, r0 = self.carry_row(nxt)
            else:
                s, r0 = self.value_row()
            what = "backward reads %s_%s at" % (base, "{k+1}" if nxt else "k")
            if what not in seen:
                seen.add(what)
                jname = "%j" if ch.step == 1 else "%%j/%d" % ch.step
                self.rows.append((what, self.describe(jname, s * alpha, s * beta + r0)))
            return self.stack_row(base + ("_n" if nxt else "_k"), saved[base], at(s, r0),
                                  stack=base)
        carry_bases = set(self.carry_bases)
        if ch.backward in ("for", "for-shift"):
            jvar = self.fresh("j")
            blk = [(self.value(b, v.shape), v) for b, v in carries]
            types = ", ".join(a.ty for a, _ in blk)
            lo, hi = (0, T) if ch.backward == "for" else (1, T + 1)
            S = ch.step
            self.emit("%s:%d = scf.for %s = %s to %s step %s iter_args(%s) -> (%s) {" % (
                res, len(blk), jvar, self.iconst(lo * S), self.iconst(hi * S), self.iconst(S),
                ", ".join("%s = %s" % (a.ssa, v.ssa) for a, v in blk), types))
            self.depth += 1
            new = body(lambda: at(1, 0), [a for a, _ in blk], load)
            self.emit("scf.yield %s : %s" % (", ".join(v.ssa for v in new), types))
            self.depth -= 1
            self.emit("}")
            return [V("%s#%d" % (res, k), a.shape) for k, (a, _) in enumerate(blk)]
        # A downward scf.while: the counter first, from S*(T-1) by -S while >= 0.
        S = ch.step
        it = self.counter_type()
        types = ", ".join([it] + [v.ty for _, v in carries])
        before = [self.fresh("j_w")] + [self.fresh(b + "_w") for b, _ in carries]
        self.emit("%s:%d = scf.while (%s) : (%s) -> (%s) {" % (
            res, len(carries) + 1, ", ".join("%s = %s" % (a, v) for a, v in zip(
                before, [self.counter_const(S * (T - 1))] + [v.ssa for _, v in carries])),
            types, types))
        self.depth += 1
        pred, a, b = {"sge": ("sge", before[0], self.counter_const(0)),
                      "sgt": ("sgt", before[0], self.counter_const(-1)),
                      "sle-swapped": ("sle", self.counter_const(0), before[0])}[ch.cond]
        more = self.counter_condition("more", pred, a, b)
        self.emit("scf.condition(%s) %s : %s" % (more, ", ".join(before), types))
        self.depth -= 1
        jvar = self.fresh("j")
        counter = jvar if it == "index" else self.fresh("j_" + ch.counter)
        blk = [self.value(b, v.shape) for b, v in carries]
        self.emit("} do {")
        self.emit("^bb0(%s):" % ", ".join(["%s: %s" % (counter, it)] + [
            "%s: %s" % (x.ssa, x.ty) for x in blk]))
        self.depth += 1
        self.counter_index(counter, jvar)
        new = body(lambda: at(1, 0), blk, load)
        if ch.decrement == "subi":
            jn = self.counter_op("j_next", "arith.subi", counter,
                                 self.counter_const(S))
        else:
            jn = self.counter_op("j_next", "arith.addi", counter,
                                 self.counter_const(-S))
        self.emit("scf.yield %s : %s" % (", ".join([jn] + [v.ssa for v in new]), types))
        self.depth -= 1
        self.emit("}")
        return [V("%s#%d" % (res, k + 1), x.shape) for k, x in enumerate(blk)]

    # -- a loss over every step ----------------------------------------------
    def whole_loss(self, loss, saved, h0):
        """loss + the sum of the whole stack of h (whole=loss): the loop
        form's stack; the unrolled twin builds the same tensor from its
        rows (same positions, same summation order: the same bits)."""
        if self.ch.whole != "loss":
            return loss
        if self.form == "unrolled":
            T, ch = self.T, self.ch
            rows = T + 1 if ch.layout == "next" else T
            st = self.empty("h_stack", self.stack_shape(rows, h0.shape))
            if ch.layout == "next":
                st = self.stack_put("h_all0", h0, st, 0)
                for k in range(T):
                    st = self.stack_put("h_all", saved["next"]["h"][k], st, k + 1)
            else:
                for k in range(T):
                    r = T - 1 - k if ch.layout == "reverse" else k
                    st = self.stack_put("h_all", saved["rows"]["h"][k], st, r)
            stack = st
        elif "h" in self.parts:
            stack = self.whole_part("h_all", saved["h"], "h")
        else:
            stack = saved["h"]
        if self.ch.wholeby == "loop":
            return self.row_loop_loss(loss, stack)
        self.comment("loss over every step: + sum of the stack of h")
        rank = len(stack.shape)
        return self.generic("loss_all", [stack], ["id%d" % rank, "red%d" % rank],
                            ["reduction"] * rank, ["%r = arith.addf %out, %in : f32"], [],
                            init=loss)

    def row_loop_loss(self, loss, stack):
        """loss + the sum of the stack of h row by row (wholeby=loop): a loop
        of its own reading the rows in order (the loop form), or its copies
        (the unrolled twin): the same sums in the same order, the same bits."""
        self.comment("loss over every step: + sum of each row of the stack of h, "
                     "in a loop of its own")
        rank = len(stack.shape) - (0 if self.flat else 1)

        def add_row(acc, row):
            return self.generic("loss_acc", [self.stack_row("loss_row", stack, row)],
                                ["id%d" % rank, "red%d" % rank], ["reduction"] * rank,
                                ["%r = arith.addf %out, %in : f32"], [], init=acc)
        rows = (stack.shape[0] // self.ch.batch if self.flat
                else stack.shape[self.axis])
        if self.form == "unrolled":
            for r in range(rows):
                loss = add_row(loss, r)
            return loss
        res, r, acc = self.fresh("loss_rows"), self.fresh("row_i"), self.value("loss_in", [])
        self.emit("%s = scf.for %s = %s to %s step %s iter_args(%s = %s) -> (tensor<f32>) {" % (
            res, r, self.iconst(0), self.iconst(rows), self.iconst(1), acc.ssa, loss.ssa))
        self.depth += 1
        self.emit("scf.yield %s : tensor<f32>" % add_row(acc, r).ssa)
        self.depth -= 1
        self.emit("}")
        return V(res, [])

    def plus_one(self, base, d):
        """d + 1 (whole=loss: h_k's own term of the loss); d otherwise."""
        if self.ch.whole != "loss":
            return d
        return self.ew(base, [d], ["%one = arith.constant 1.0 : f32",
                                   "%r = arith.addf %in, %one : f32"])

    def dh_last(self, base, d):
        """dloss/dh_T: plus one where h_T is stacked too (layout next)."""
        return self.plus_one(base, d) if self.ch.layout == "next" else d

    # -- parameters -------------------------------------------------------------
    def weight(self, ws, at_k, base):
        """ws[k] (stacked parameters) or ws itself (shared)."""
        if len(ws.shape) == 2:
            return ws
        return self.slice_at(base, ws, at_k())

    def weight_grad(self, gw, contribution, at_k, base):
        """gw + contribution (shared), or contribution written at row k."""
        if len(gw.shape) == 2:
            return self.add(base, gw, contribution)
        return self.insert_at(base, contribution, gw, at_k())


TANH, SIGMOID, RELU = gl.TANH, gl.SIGMOID, gl.RELU


def one_minus_sq(g, base, d, y, t=None):
    """d (1 - y t) (t = y: the tanh derivative from its result)."""
    if t is None:
        return g.ew(base, [d, y], gl.tanh_grad())
    return g.ew(base, [d, y, t], ["%one = arith.constant 1.0 : f32",
                                  "%y2 = arith.mulf %in2, %in3 : f32",
                                  "%s = arith.subf %one, %y2 : f32",
                                  "%r = arith.mulf %in, %s : f32"])


def rnn(g, ch):
    T, B, W = ch.steps, ch.batch, ch.width
    h0 = g.arg("h0", [B, W], 1.0)
    w = g.arg("ws" if ch.params else "w", [T, W, W] if ch.params else [W, W],
              math.sqrt(3.0 / W))
    keep_p = ch.stacks == 2
    nxt = ch.layout == "next"
    g.carry_bases = ["h"]

    def fwd(at_k, cur, stack):
        h, = cur
        wk = g.weight(w, at_k, "w_k")
        p = g.matmul("p", h, wk)
        if keep_p:
            stack("p", p)
        return [g.ew("y", [p], TANH)]
    g.comment("forward: h_{k+1} = tanh(h_k %s)" % ("ws[k]" if ch.params else "w"))
    (hT,), saved = g.forward([("h", h0)], [("p", [B, W])] if keep_p else [], fwd)
    loss = g.whole_loss(g.reduce("loss", [hT], []), saved, h0)
    g.comment("backward: dloss/dh_T = 1")
    dT = g.dh_last("dT_all", g.filled("dT", [B, W], 1.0))
    gw0 = g.filled("gw0", w.shape)

    def bwd(at_k, cur, load):
        d, gw = cur
        h = load("h")
        wk = g.weight(w, at_k, "w_r")
        t = None
        if nxt:
            y = load("h", nxt=True)
            if keep_p:
                t = g.ew("t_r", [load("p")], TANH)
        else:
            p = load("p") if keep_p else g.matmul("p_r", h, wk)
            y = g.ew("y_r", [p], TANH)
        da = one_minus_sq(g, "da", d, y, t)
        gwn = g.weight_grad(gw, g.matmul_tn("gwc", h, da), at_k, "gw_next")
        dn = g.plus_one("d_next_all", g.matmul_nt("d_next", da, wk))
        return [dn, gwn]
    dh0, gw = g.backward([("d", dT), ("gw", gw0)], bwd, saved)
    return ["tanh RNN: h_{k+1} = tanh(h_k %s), loss = sum(h_T)." % (
        "ws[k]" if ch.params else "w"),
        "Results: loss, dloss/d%s, dloss/dh0." % ("ws" if ch.params else "w")], [loss, gw, dh0]


def lstm(g, ch):
    T, B, W = ch.steps, ch.batch, ch.width
    h0 = g.arg("h0", [B, W], 1.0)
    c0 = g.arg("c_init", [B, W], 1.0)
    shape = [T, W, W] if ch.params else [W, W]
    wf = g.arg("wfs" if ch.params else "wf", shape, math.sqrt(3.0 / W))
    wa = g.arg("was" if ch.params else "wa", shape, math.sqrt(3.0 / W))
    keep_f = ch.stacks == 3
    nxt = ch.layout == "next"
    g.carry_bases = ["h", "c"]

    def fwd(at_k, cur, stack):
        h, c = cur
        wfk, wak = g.weight(wf, at_k, "wf_k"), g.weight(wa, at_k, "wa_k")
        f = g.ew("f", [g.matmul("pf", h, wfk)], SIGMOID)
        if keep_f:
            stack("f", f)
        a = g.ew("a", [g.matmul("pa", h, wak)], TANH)
        cn = g.ew("cn", [f, c, a], ["%m = arith.mulf %in, %in2 : f32",
                                    "%r = arith.addf %m, %in3 : f32"])
        hn = g.ew("hn", [cn], TANH)
        return [hn, cn]
    g.comment("forward: f = sigmoid(h wf%s), a = tanh(h wa%s), c' = f c + a, h' = tanh(c')"
              % (("s[k]",) * 2 if ch.params else ("",) * 2))
    (hT, cT), saved = g.forward([("h", h0), ("c", c0)], [("f", [B, W])] if keep_f else [], fwd)
    loss = g.whole_loss(g.reduce("loss", [hT, cT], ["%v = arith.addf %in, %in2 : f32"]),
                        saved, h0)
    g.comment("backward: dloss/dh_T = dloss/dc_T = 1")
    dhT = g.dh_last("dhT_all", g.filled("dhT", [B, W], 1.0))
    dcT = g.filled("dcT", [B, W], 1.0)
    gf0 = g.filled("gwf0", shape)
    ga0 = g.filled("gwa0", shape)

    def bwd(at_k, cur, load):
        dh, dc, gf, ga = cur
        h, c = load("h"), load("c")
        wfk, wak = g.weight(wf, at_k, "wf_r"), g.weight(wa, at_k, "wa_r")
        f = load("f") if keep_f else g.ew("f_r", [g.matmul("pf_r", h, wfk)], SIGMOID)
        a = g.ew("a_r", [g.matmul("pa_r", h, wak)], TANH)
        if nxt:
            hn = load("h", nxt=True)
        else:
            cn = g.ew("cn_r", [f, c, a], ["%m = arith.mulf %in, %in2 : f32",
                                          "%r = arith.addf %m, %in3 : f32"])
            hn = g.ew("hn_r", [cn], TANH)
        # dct = dc + dh (1 - h'^2): the cotangent of c'
        dct = g.ew("dct", [dc, dh, hn], ["%one = arith.constant 1.0 : f32",
                                         "%y2 = arith.mulf %in3, %in3 : f32",
                                         "%s = arith.subf %one, %y2 : f32",
                                         "%m = arith.mulf %in2, %s : f32",
                                         "%r = arith.addf %in, %m : f32"])
        dcp = g.ew("dc_next", [dct, f], ["%r = arith.mulf %in, %in2 : f32"])
        # dpf = dct c f (1 - f); dpa = dct (1 - a^2)
        dpf = g.ew("dpf", [dct, c, f], ["%one = arith.constant 1.0 : f32",
                                        "%m = arith.mulf %in, %in2 : f32",
                                        "%k = arith.subf %one, %in3 : f32",
                                        "%fk = arith.mulf %in3, %k : f32",
                                        "%r = arith.mulf %m, %fk : f32"])
        dpa = one_minus_sq(g, "dpa", dct, a)
        gfn = g.weight_grad(gf, g.matmul_tn("gwfc", h, dpf), at_k, "gwf_next")
        gan = g.weight_grad(ga, g.matmul_tn("gwac", h, dpa), at_k, "gwa_next")
        dhf = g.matmul_nt("dhf", dpf, wfk)
        dha = g.matmul_nt("dha", dpa, wak)
        dhp = g.plus_one("dh_next_all", g.add("dh_next", dhf, dha))
        return [dhp, dcp, gfn, gan]
    dh0, dc0, gf, ga = g.backward([("dh", dhT), ("dc", dcT), ("gwf", gf0), ("gwa", ga0)],
                                  bwd, saved)
    k = "s[k]" if ch.params else ""
    return ["LSTM-like cell: f = sigmoid(h wf%s), a = tanh(h wa%s), c' = f c + a, h' = tanh(c'),"
            % (k, k), "loss = sum(h_T) + sum(c_T).",
            "Results: loss, dloss/dwf%s, dloss/dwa%s, dloss/dh0, dloss/dc_init."
            % (k[:1], k[:1])], [
        loss, gf, ga, dh0, dc0]


def layers(g, ch):
    T, B, W = ch.steps, ch.batch, ch.width
    h0 = g.arg("h0", [B, W], 1.0)
    ws = g.arg("ws", [T, W, W], 0.25 * math.sqrt(1.0 / W))
    keep_p = ch.stacks == 2
    g.carry_bases = ["h"]

    def fwd(at_k, cur, stack):
        h, = cur
        wk = g.weight(ws, at_k, "w_k")
        p = g.matmul("p", h, wk)
        if keep_p:
            stack("p", p)
        return [g.add("hn", h, g.ew("a", [p], RELU))]
    g.comment("forward: h_{k+1} = h_k + relu(h_k ws[k])")
    (hT,), saved = g.forward([("h", h0)], [("p", [B, W])] if keep_p else [], fwd)
    loss = g.whole_loss(g.reduce("loss", [hT], gl.SQUARE), saved, h0)
    g.comment("backward: dloss/dh_T = 2 h_T")
    dT = g.dh_last("dT_all", g.ew("dT", [hT], ["%two = arith.constant 2.0 : f32",
                                               "%r = arith.mulf %in, %two : f32"]))
    gws0 = g.filled("gws0", [T, W, W])

    def bwd(at_k, cur, load):
        d, gws = cur
        h = load("h")
        wk = g.weight(ws, at_k, "w_r")
        p = load("p") if keep_p else g.matmul("p_r", h, wk)
        dp = g.ew("dp", [d, p], ["%zero = arith.constant 0.0 : f32",
                                 "%pos = arith.cmpf ogt, %in2, %zero : f32",
                                 "%r = arith.select %pos, %in, %zero : f32"])
        gwsn = g.weight_grad(gws, g.matmul_tn("gw_k", h, dp), at_k, "gws_next")
        dn = g.plus_one("d_next_all", g.add("d_next", d, g.matmul_nt("dh", dp, wk)))
        return [dn, gwsn]
    dh0, gws = g.backward([("d", dT), ("gws", gws0)], bwd, saved)
    return ["Scan over T residual layers with stacked parameters ws[T]:",
            "h_{k+1} = h_k + relu(h_k ws[k]), loss = sum(h_T^2).",
            "Results: loss, dloss/dws, dloss/dh0."], [loss, gws, dh0]


BUILDERS = {"rnn": rnn, "lstm": lstm, "layers": layers}


def build(ch, form):
    g = VGen(ch.model, form, ch)
    header, results = BUILDERS[ch.model](g, ch)
    if ch.metric != "none":
        header = header + ["Last result: the metric, sum over the steps of sum(h_{k+1}), "
                           "summed in an f32 the forward loop carries."]
        results = results + [g.metric_out]
    return g, header, results


def carry_bytes(ch):
    """Bytes of one step's carried state (h; lstm: h and c; metric=f32: and
    the metric, a tensor<f32> once carried as one), each rounded up to the
    planner's alignment (64): what one checkpoint slot holds."""
    return ((2 if ch.model == "lstm" else 1) * (-(-ch.batch * ch.width * 4 // 64) * 64)
            + (64 if ch.metric != "none" else 0))


def model_text(ch, form):
    g, header, results = build(ch, form)
    hdr = ["GENERATED by test/Loops/gen_scan_variants.py; do not edit.",
           "Regenerate: python3 test/Loops/gen_scan_variants.py %s%s"
           % (ch.cmdline(), " --form unrolled" if form == "unrolled" else ""),
           "", "Variant: seed %d: %s" % (ch.seed, ch.line())]
    hdr += header
    if form == "unrolled":
        hdr.append("Form: unrolled (straight-line twin: T copies of each body, no stacks).")
    else:
        for what, expr in g.rows:
            hdr.append("Rows: %s %s" % (what, expr))
    hdr.append("Carry: %s%s, %d B (aligned to 64)" % (
        "h and c, 2 x tensor<%dx%dxf32>" if ch.model == "lstm" else "h tensor<%dx%dxf32>",
        " and the metric, f32" if ch.metric != "none" else "",
        carry_bytes(ch)) % (ch.batch, ch.width))
    hdr.append("Arguments: " + ", ".join("%s %s" % (a.ssa, a.ty) for a in g.args))
    return g.text(hdr, results)


def harness_text(ch, bits=False):
    g, _, results = build(ch, "loop")
    clash = {a.ssa[1:] for a in g.args} & gl.FILL_BODY_NAMES
    assert not clash, "arguments shadow the harness's body names: %s" % sorted(clash)
    lines = ["// GENERATED by test/Loops/gen_scan_variants.py; do not edit.",
             "// Harness of @%s (%s): concatenate with the model and run (run_loop.sh)."
             % (g.name, ch.cmdline()),
             "// Prints the loss, then every gradient (the model's result order)%s."
             % (", as the int32 bit patterns of the f32 values" if bits else ""),
             "// Argument values: u(i) = hash(i, seed) in [-1, 1) of the row-major",
             "// linear index i (integer hash, exact), times a scale (see argfill.py)."]
    main = main_lines(g.name, g.args, g.inits, [r.ty for r in results])
    if bits:
        main = gl.bits_main(main, results)
    return "\n".join(lines + main) + "\n"


def coverage(seeds):
    """The choices `seeds` make between them, and the ones they miss: every
    value of every choice, rnn and lstm with and without stacked parameters,
    every number of stacks of every model, every backward loop with every
    layout, every spelling in a backward row C - j (a row the backward
    computes from its index), every loop step, every spelling of i/step and
    every backward loop with a step > 1, both forward loops, every
    condition of the forward while and a forward while by a step > 1."""
    want = {("model", m) for m in MODELS}
    want |= {("params", m, p) for m in ("rnn", "lstm") for p in ("yes", "no")}
    want |= {("stacks", m, k) for m in MODELS for k in STACKS[m]}
    want |= {("layout", y) for y in LAYOUTS} | {("backward", b) for b in BACKWARDS}
    want |= {("forward", f) for f in ("from 0", "from lb > 0")}
    want |= {("cond", c) for c in CONDS} | {("decrement", d) for d in DECREMENTS}
    want |= {("layout x backward", y, b) for y in LAYOUTS for b in BACKWARDS}
    want |= {("spelling of C - j", sp) for sp in SPELLINGS}
    want |= {("step", st) for st in STEPS} | {("divide", d) for d in DIVIDES}
    want |= {("step > 1 backward", b) for b in BACKWARDS}
    want |= {("loop", lp) for lp in LOOPS + ["fori"]} | {("fcond", c) for c in FCONDS}
    want |= {("counter", c) for c in COUNTERS}
    want |= {("clamp", c) for c in CLAMPS} | {("axis", x) for x in AXES}
    want |= {("state", x) for x in STATES} | {("whole", x) for x in WHOLES}
    want |= {("metric", x) for x in METRICS}
    want |= {("whole=loss by", x) for x in WHOLEBYS}
    want |= {("metric f32", lp) for lp in LOOPS}
    want.add(("while with step > 1",))
    lines, have = [], set()
    for seed in seeds:
        ch = Choices(seed)
        lines.append("seed %d: %s" % (seed, ch.line()))
        have |= {("model", ch.model), ("stacks", ch.model, ch.stacks), ("layout", ch.layout),
                 ("backward", ch.backward), ("layout x backward", ch.layout, ch.backward),
                 ("forward", "from lb > 0" if ch.lb else "from 0")}
        if ch.model != "layers":
            have.add(("params", ch.model, "yes" if ch.params else "no"))
        if ch.cond:
            have |= {("cond", ch.cond), ("decrement", ch.decrement)}
        have.add(("step", ch.step))
        have.add(("loop", ch.loop))
        if ch.counter:
            have.add(("counter", ch.counter))
        have.add(("clamp", ch.clamp))
        have.add(("axis", ch.axis))
        if ch.state:
            have.add(("state", ch.state))
        have.add(("whole", ch.whole))
        have.add(("metric", ch.metric))
        if ch.wholeby:
            have.add(("whole=loss by", ch.wholeby))
        if ch.metric != "none":
            have.add(("metric f32", ch.loop))
        if ch.fcond:
            have.add(("fcond", ch.fcond))
            if ch.step > 1:
                have.add(("while with step > 1",))
        if ch.step > 1:
            have |= {("divide", ch.divide), ("step > 1 backward", ch.backward)}
        g, _, _ = build(ch, "loop")
        if any(w.startswith("backward") and " - %j" in expr for w, expr in g.rows):
            have.add(("spelling of C - j", ch.spelling))
    return lines, want, want - have


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cover", type=int, nargs="+", metavar="SEED",
                    help="print the choices of these seeds and fail unless they make "
                         "every choice between them")
    ap.add_argument("--seed", type=int)
    ap.add_argument("--model", choices=MODELS)
    ap.add_argument("--params", action="store_true", default=None,
                    help="rnn, lstm: stacked parameters ws[k] (layers: always)")
    ap.add_argument("--no-params", dest="params", action="store_false")
    ap.add_argument("--stacks", type=int, help="rnn, layers: 1 (h) or 2 (h, p); "
                    "lstm: 2 (h, c) or 3 (h, c, f)")
    ap.add_argument("--layout", choices=LAYOUTS)
    ap.add_argument("--lb", type=int, help="the forward loop's lower bound (runs lb to lb+T)")
    ap.add_argument("--backward", choices=BACKWARDS)
    ap.add_argument("--cond", choices=CONDS, help="while-down: its condition")
    ap.add_argument("--loop", choices=LOOPS + ["fori"],
                    help="the forward loop: scf.for, a counted scf.while, or an scf.for "
                         "carrying its own counter")
    ap.add_argument("--fcond", choices=FCONDS, help="loop=while: its condition")
    ap.add_argument("--counter", choices=COUNTERS,
                    help="the scf.while loops' counter type (loop=while, backward=while-down)")
    ap.add_argument("--decrement", choices=DECREMENTS, help="while-down: its counter's step")
    ap.add_argument("--clamp", choices=CLAMPS[1:] + ["none"],
                    help="clamp every row into the stacks' rows (maxsi/minsi)")
    ap.add_argument("--axis", choices=AXES[1:] + ["time-major", "flat"],
                    help="the stacks' time axis: time-major [T, B, W], batch-first [B, T, W] "
                         "or flat (time and batch one axis: [T * B, W], row k the block of "
                         "rows [k B, k B + B), never drawn by a seed)")
    ap.add_argument("--state", choices=STATES,
                    help="layout next: the carries held in iteration arguments (carried) or "
                         "only in the stacks, each step reading them back (stack)")
    ap.add_argument("--whole", choices=WHOLES[1:] + ["none"],
                    help="loss: the loss also sums the whole stack of h after the loop")
    ap.add_argument("--wholeby", choices=WHOLEBYS,
                    help="whole=loss: sum the stack in one op (op) or row by row in a loop "
                         "of its own after the forward loop (loop)")
    ap.add_argument("--metric", choices=METRICS[2:] + ["none"],
                    help="f32: the forward loop also sums every step's h into an f32 it "
                         "carries, returned last (not part of the loss)")
    ap.add_argument("--pack", choices=["separate", "parts"],
                    help="parts: the forward loop's stacks of one shape in one tensor, "
                         "each at a constant index of a part axis, written in parts each "
                         "iteration (never drawn by a seed)")
    ap.add_argument("--part-axis", choices=PART_AXES,
                    help="pack=parts: the part axis first, right after the time axis, or last")
    ap.add_argument("--spelling", choices=SPELLINGS)
    ap.add_argument("--step", type=int, choices=STEPS, help="the scf.for loops' step")
    ap.add_argument("--divide", choices=DIVIDES, help="how i/step is written (step > 1)")
    ap.add_argument("--steps", "-T", type=int)
    ap.add_argument("--batch", "-B", type=int)
    ap.add_argument("--width", "-W", type=int)
    ap.add_argument("--form", choices=["loop", "unrolled"], default="loop")
    ap.add_argument("--harness", action="store_true", help="write the harness @main instead")
    ap.add_argument("--bits", action="store_true",
                    help="with --harness: print the results' f32 bit patterns")
    ap.add_argument("--choices", action="store_true", help="print the variant's choices")
    ap.add_argument("-o", "--output", help="output file (default stdout)")
    a = ap.parse_args()
    if a.cover:
        lines, want, missing = coverage(a.cover)
        print("\n".join(lines))
        if missing:
            print("missing: " + "; ".join(" ".join(map(str, m)) for m in sorted(missing)))
            return 1
        print("covered: all %d choices" % len(want))
        return 0
    if a.seed is None:
        ap.error("--seed or --cover is required")
    ch = Choices(a.seed, model=a.model, params=a.params, stacks=a.stacks, layout=a.layout,
                 lb=a.lb, backward=a.backward, cond=a.cond, decrement=a.decrement,
                 spelling=a.spelling, step=a.step, divide=a.divide, loop=a.loop, fcond=a.fcond,
                 counter=a.counter, clamp=a.clamp, axis=a.axis, state=a.state,
                 whole=a.whole, wholeby=a.wholeby, metric=a.metric,
                 pack=a.pack, part_axis=a.part_axis,
                 steps=a.steps, batch=a.batch,
                 width=a.width)
    if min(ch.steps, ch.batch, ch.width) < 1 or ch.lb < 0:
        ap.error("sizes must be positive and lb not negative")
    if a.choices:
        text = "seed %d: %s\n" % (ch.seed, ch.line())
    elif a.harness:
        text = harness_text(ch, a.bits)
    else:
        text = model_text(ch, a.form)
    if a.output:
        with open(a.output, "w") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
