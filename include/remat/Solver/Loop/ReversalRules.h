//===- ReversalRules.h - The decisions of a loop reversal, written once -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every number a binomial reversal decides (where the next checkpoint goes,
// whether an action reverses a step or fills a slot, how far it advances,
// which slot is dropped; for a loop of unknown length, which checkpoint the
// forward loop gives up) is written here once, over an integer domain D:
//
//   - IntDomain computes them now: the counter (LoopReversalCounts), the
//     unrolled equivalent the Simulator checks, and the constants the
//     emitter folds;
//   - the emitter's domain (lib/Loops/IndexDomain.h) emits the `arith` and
//     `scf` ops that compute them at run time, so the emitted loops take the
//     decisions the model counted.
//
// A domain D provides the types Int and Bool and:
//   Int lit(int64_t);  Int add(Int, Int), sub, mul, divExact, min, max;
//   Bool eq(Int, Int), less(Int, Int), greater(Int, Int);
//   Bool either(Bool, Bool), both(Bool, Bool), negate(Bool);
//   Int select(Bool, Int, Int);
//   std::array<Int, N> whileLoop(std::array<Int, N> init, Cond, Body):
//     while cond(d, state) holds, state = body(d, state); `d` is the domain
//     to compute with inside the loop (the emitter's: the loop's region).
// Plain C++17.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_LOOP_REVERSALRULES_H
#define REMAT_SOLVER_LOOP_REVERSALRULES_H

#include <algorithm>
#include <array>
#include <cstdint>

namespace remat::reversal {

/// Computes with int64_t. Divisions here are exact, and no product
/// overflows for lengths below 2^31: a binomial stops growing once it
/// reaches the length, and is multiplied by at most c + r <= 2 length.
struct IntDomain {
  using Int = int64_t;
  using Bool = bool;
  Int lit(int64_t v) const { return v; }
  Int add(Int a, Int b) const { return a + b; }
  Int sub(Int a, Int b) const { return a - b; }
  Int mul(Int a, Int b) const { return a * b; }
  Int divExact(Int a, Int b) const { return a / b; }
  Int min(Int a, Int b) const { return std::min(a, b); }
  Int max(Int a, Int b) const { return std::max(a, b); }
  Bool eq(Int a, Int b) const { return a == b; }
  Bool less(Int a, Int b) const { return a < b; }
  Bool greater(Int a, Int b) const { return a > b; }
  Bool either(Bool a, Bool b) const { return a || b; }
  Bool both(Bool a, Bool b) const { return a && b; }
  Bool negate(Bool a) const { return !a; }
  Int select(Bool c, Int a, Int b) const { return c ? a : b; }
  template <size_t N, typename Cond, typename Body>
  std::array<Int, N> whileLoop(std::array<Int, N> state, Cond cond,
                               Body body) {
    while (cond(*this, state))
      state = body(*this, state);
    return state;
  }
};

/// Where to put the next checkpoint, as an offset in [1, length - 1], when
/// `length` (>= 2) steps are reversed with c (>= 1) checkpoints: with r the
/// smallest repetition count with beta(c, r) >= length,
///   m = min(max(beta(c, r-2), length - beta(c-1, r)),
///           length - beta(c-1, r-1))
/// clamped to [1, length - 1] (a minimiser of m + t(length - m, c - 1) +
/// t(m, c); LoopReversal.h). beta(c, r) = C(c + r, r) by the recurrence
/// beta(c, r) = beta(c, r-1) (c + r) / r from beta(c, 0) = 1, and
/// beta(c-1, r) = beta(c, r) c / (c + r); every division is exact.
template <typename D>
typename D::Int split(D &d, typename D::Int length, typename D::Int c) {
  using Int = typename D::Int;
  // (r, beta(c, r), beta(c, r-1), beta(c, r-2)); beta(c, -1) = 0.
  std::array<Int, 4> s = d.whileLoop(
      std::array<Int, 4>{d.lit(0), d.lit(1), d.lit(0), d.lit(0)},
      [&](D &in, const std::array<Int, 4> &a) { return in.less(a[1], length); },
      [&](D &in, const std::array<Int, 4> &a) {
        Int r = in.add(a[0], in.lit(1));
        Int beta = in.divExact(in.mul(a[1], in.add(c, r)), r);
        return std::array<Int, 4>{r, beta, a[1], a[2]};
      });
  const Int r = s[0], beta = s[1], betaPrev = s[2], betaPrev2 = s[3];
  const Int cr = d.add(c, r);
  const Int lowerR = d.divExact(d.mul(beta, c), cr);
  const Int lowerRPrev =
      d.divExact(d.mul(betaPrev, c), d.sub(cr, d.lit(1)));
  const Int m = d.min(d.max(betaPrev2, d.sub(length, lowerR)),
                      d.sub(length, lowerRPrev));
  return d.max(d.lit(1), d.min(m, d.sub(length, d.lit(1))));
}

/// The first sweep: the forward loop, having filled slot `top` with the
/// carry at position `at`, fills the next slot at the position this
/// returns (the split of the steps left with the slots left, slot `top`'s
/// own included). Initially top = 0 and at = 0 (slot 0 holds carry_0).
template <typename D>
typename D::Int nextFirstSweepStore(D &d, typename D::Int at,
                                    typename D::Int top,
                                    typename D::Int steps,
                                    typename D::Int slots) {
  return d.add(at, split(d, d.sub(steps, at), d.sub(slots, top)));
}

/// One action of the interpreter, from `done` steps still to reverse, the
/// top slot `top` (0-based) holding the carry at position `lo`, and `slots`
/// slots in all.
template <typename D> struct Action {
  typename D::Int length; ///< Steps from the top slot to done.
  typename D::Int free;   ///< Slots above the top.
  /// Reverse step done-1 (after advancing to it) when it is the top slot's
  /// next step or no slot is free; else fill the next slot.
  typename D::Bool turn;
};
template <typename D>
Action<D> nextAction(D &d, typename D::Int done, typename D::Int lo,
                     typename D::Int top, typename D::Int slots) {
  Action<D> a;
  a.length = d.sub(done, lo);
  a.free = d.sub(d.sub(slots, d.lit(1)), top);
  a.turn = d.either(d.eq(a.length, d.lit(1)), d.eq(a.free, d.lit(0)));
  return a;
}

/// A turn: advance `advance` steps from lo, reverse `step`; the top slot is
/// dropped once its own step is reversed (slot 0 never: it holds the inits).
template <typename D> struct Turn {
  typename D::Int advance, step, top;
};
template <typename D>
Turn<D> turn(D &d, const Action<D> &a, typename D::Int done,
             typename D::Int lo, typename D::Int top) {
  Turn<D> t;
  t.advance = d.sub(a.length, d.lit(1));
  t.step = d.sub(done, d.lit(1));
  t.top = d.select(d.both(d.eq(t.step, lo), d.greater(top, d.lit(0))),
                   d.sub(top, d.lit(1)), top);
  return t;
}

/// A store: advance by the split of the steps left with the free slots and
/// the top one, and keep the carry reached (at `position`) in slot `top`.
template <typename D> struct Store {
  typename D::Int advance, position, top;
};
template <typename D>
Store<D> store(D &d, const Action<D> &a, typename D::Int lo,
               typename D::Int top) {
  Store<D> s;
  s.advance = split(d, a.length, d.add(a.free, d.lit(1)));
  s.position = d.add(lo, s.advance);
  s.top = d.add(top, d.lit(1));
  return s;
}

/// beta(c, m) = C(c + m, m) for c, m >= 0, as C(n + k, k) with k the
/// smaller of the two (min(c, m) steps: with few slots the repetitions run
/// into the hundreds), by C(n + q, q) = C(n + q - 1, q - 1) (n + q) / q,
/// saturated at 2^32: the online rule compares it only with lengths below
/// 2^31, and every product stays below 2^63.
template <typename D>
typename D::Int binomial(D &d, typename D::Int c, typename D::Int m) {
  using Int = typename D::Int;
  const Int k = d.min(c, m), n = d.max(c, m);
  const std::array<Int, 2> s = d.whileLoop(
      std::array<Int, 2>{d.lit(0), d.lit(1)}, // (q, C(n + q, q))
      [&](D &in, const std::array<Int, 2> &a) { return in.less(a[0], k); },
      [&](D &in, const std::array<Int, 2> &a) {
        Int q = in.add(a[0], in.lit(1));
        Int beta = in.divExact(in.mul(a[1], in.add(n, q)), q);
        return std::array<Int, 2>{q, in.min(beta, in.lit(int64_t(1) << 32))};
      });
  return s[1];
}

/// The online forward loop (OnlineCheckpointing.h), its `slots` slots all
/// in use, offered carry_i: the index (into the positions, bottom first) of
/// the checkpoint it drops for carry_i, -1 to keep nothing, and the
/// repetitions r the segments are sized for from now on.
template <typename D> struct OnlineDrop {
  typename D::Int repetitions, dropped;
};
/// `positionAt(d, k)`: the position of the checkpoint at index k (< slots),
/// read with the domain d. The lowest j >= 1 whose removal merges two
/// segments that fit beta(slots - (j - 1), r - 1) together; while none
/// does and the top segment, should the loop end after this step, would
/// outgrow beta(1, r - 1) = r, one more repetition.
template <typename D, typename PositionAt>
OnlineDrop<D> onlineDrop(D &d, PositionAt positionAt, typename D::Int i,
                         typename D::Int repetitions, typename D::Int slots) {
  using Int = typename D::Int;
  using Bool = typename D::Bool;
  // Steps from checkpoint k to the next; the top one's segment ends at i.
  auto segment = [&](D &in, Int k) {
    Int top = in.sub(slots, in.lit(1));
    Int above = positionAt(in, in.min(in.add(k, in.lit(1)), top));
    return in.sub(in.select(in.eq(k, top), i, above), positionAt(in, k));
  };
  auto lowestMergeable = [&](D &in, Int r) {
    std::array<Int, 1> j = in.whileLoop(
        std::array<Int, 1>{in.lit(1)},
        [&](D &w, const std::array<Int, 1> &a) {
          // Evaluated at j = slots too (the emitted condition computes
          // both operands), and with one slot: clamped, and ignored.
          Int at = w.min(a[0], w.sub(slots, w.lit(1)));
          Int below = w.max(w.sub(at, w.lit(1)), w.lit(0));
          Int merged = w.add(segment(w, below), segment(w, at));
          Bool fits = w.negate(w.greater(
              merged, binomial(w, w.sub(slots, below), w.sub(r, w.lit(1)))));
          return w.both(w.less(a[0], slots), w.negate(fits));
        },
        [&](D &w, const std::array<Int, 1> &a) {
          return std::array<Int, 1>{w.add(a[0], w.lit(1))};
        });
    return in.select(in.less(j[0], slots), j[0], in.lit(-1));
  };
  auto settled = [&](D &in, Int r, Int j) {
    Int topSegment =
        in.sub(in.add(i, in.lit(1)), positionAt(in, in.sub(slots, in.lit(1))));
    return in.either(in.greater(j, in.lit(-1)),
                     in.negate(in.greater(topSegment, r)));
  };
  // (r, j, searched): the first pass searches at the r given, each further
  // one at r + 1 (the search written once: it is emitted once).
  const std::array<Int, 3> s = d.whileLoop(
      std::array<Int, 3>{repetitions, d.lit(-1), d.lit(0)},
      [&](D &in, const std::array<Int, 3> &a) {
        return in.either(in.eq(a[2], in.lit(0)),
                         in.negate(settled(in, a[0], a[1])));
      },
      [&](D &in, const std::array<Int, 3> &a) {
        Int r = in.select(in.eq(a[2], in.lit(0)), a[0],
                          in.add(a[0], in.lit(1)));
        return std::array<Int, 3>{r, lowestMergeable(in, r), in.lit(1)};
      });
  return {s[0], s[1]};
}

} // namespace remat::reversal

#endif // REMAT_SOLVER_LOOP_REVERSALRULES_H
