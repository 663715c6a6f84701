//===- ReversalWalk.h - The interpreter of a loop reversal, and its visitors ===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Internal to lib/Solver/Loop: the offline (LoopReversal.cpp) and the online
// (OnlineCheckpointing.cpp) reversals differ only in how the forward loop
// fills the slots; the interpreter that reverses the steps from those slots,
// and what is counted or emitted of it, is this one.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_SOLVER_LOOP_REVERSALWALK_H
#define REMAT_LIB_SOLVER_LOOP_REVERSALWALK_H

#include "remat/Solver/Loop/LoopReversal.h"
#include "remat/Solver/Loop/ReversalRules.h"

#include <string>
#include <vector>

namespace remat::detail {

/// The interpreter's actions, handed to a visitor:
///   v.action(turn)          one iteration of the interpreter loop;
///   v.advance(from, count)  re-run `count` steps from the carry at `from`;
///   v.store(position)       keep the carry reached in the next slot;
///   v.reverse(step)         reverse step `step` (its input carry at hand).
/// `pos`: the slots' positions, bottom first (pos[0] = 0); `done`: the steps
/// still to reverse (0..done-1). Each decision is ReversalRules.h's, which
/// the emitted interpreter loop takes at run time.
template <typename Visitor>
void walkInterpreter(std::vector<int64_t> pos, int64_t done, int64_t slots,
                     Visitor &v) {
  reversal::IntDomain d;
  while (done > 0) {
    const int64_t lo = pos.back();
    const int64_t top = static_cast<int64_t>(pos.size()) - 1;
    const reversal::Action<reversal::IntDomain> a =
        reversal::nextAction(d, done, lo, top, slots);
    v.action(a.turn);
    if (a.turn) {
      const auto t = reversal::turn(d, a, done, lo, top);
      v.advance(lo, t.advance);
      v.reverse(t.step);
      done = t.step;
      pos.resize(static_cast<size_t>(t.top) + 1);
      continue;
    }
    const auto s = reversal::store(d, a, lo, top);
    v.advance(lo, s.advance);
    pos.push_back(s.position);
    v.store(s.position);
  }
}

/// Counts what a walk executes (LoopReversalCounts; forwardSteps is left to
/// the caller, which knows how many steps the forward loop ran).
struct ReversalCounter {
  LoopReversalCounts c;
  bool inForward = true, inTurn = false;
  void store(int64_t) {
    if (inForward)
      ++c.firstSweepShots;
  }
  void forwardLoopDone() { inForward = false; }
  void advance(int64_t, int64_t n) {
    c.advances += n;
    (inTurn ? c.turnAdvances : c.storeAdvances) += n;
  }
  void reverse(int64_t) {}
  void action(bool turn) {
    ++c.actions;
    ++(turn ? c.turns : c.stores);
    inTurn = turn;
  }
};

/// Builds the unrolled equivalent of a walk (UnrolledReversal): the chain
/// graph of `steps` steps and, as the walk goes, its run order.
class ChainEmitter {
public:
  ChainEmitter(int64_t steps, int64_t carryBytes) {
    std::vector<TensorId> carry{g.addInput("carry0", carryBytes)};
    for (int64_t i = 1; i <= steps; ++i) {
      fwd.push_back(g.addNode("F" + std::to_string(i), NodeKind::Forward, 1,
                              {carry.back()}, {carryBytes}));
      carry.push_back(g.node(fwd.back()).outputs[0]);
    }
    loss = g.addNode("loss", NodeKind::Forward, 0, {carry[steps]}, {4});
    g.markRequired(g.node(loss).outputs[0]);
    seed = g.addNode("dloss", NodeKind::Backward, 0,
                     {g.node(loss).outputs[0]}, {carryBytes});
    bwd.assign(steps + 1, kNone);
    TensorId d = g.node(seed).outputs[0];
    for (int64_t i = steps; i >= 1; --i) {
      bwd[i] = g.addNode("B" + std::to_string(i), NodeKind::Backward, 1,
                         {carry[i - 1], d}, {carryBytes});
      d = g.node(bwd[i]).outputs[0];
    }
    g.markRequired(d);
  }
  void store(int64_t) {}
  /// The forward loop runs every step; the loss and its seed follow.
  void forwardLoopDone() {
    for (NodeId n : fwd)
      runs.run(n);
    runs.run(loss);
    runs.run(seed);
  }
  void advance(int64_t from, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
      runs.run(fwd[from + i]);
  }
  void reverse(int64_t step) { runs.run(bwd[step + 1]); }
  void action(bool) {}
  UnrolledReversal finish() {
    UnrolledReversal u;
    u.schedule = runs.withEagerFrees(g);
    u.graph = std::move(g);
    return u;
  }

private:
  TrainingGraph g;
  Schedule runs;
  std::vector<NodeId> fwd, bwd;
  NodeId loss = kNone, seed = kNone;
};

/// The counts of a walk (`walk(visitor)`) of a loop of `steps` steps: the
/// forward loop's steps plus the advances.
template <typename Walk>
LoopReversalCounts countWalk(int64_t steps, Walk walk) {
  ReversalCounter counter;
  walk(counter);
  counter.c.forwardSteps = steps + counter.c.advances;
  return counter.c;
}

/// The unrolled equivalent of a walk, for the Simulator.
template <typename Walk>
UnrolledReversal unrolledWalk(int64_t steps, int64_t carryBytes, Walk walk) {
  ChainEmitter emitter(steps, carryBytes);
  walk(emitter);
  return emitter.finish();
}

} // namespace remat::detail

#endif // REMAT_LIB_SOLVER_LOOP_REVERSALWALK_H
