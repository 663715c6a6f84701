//===- LoopReversal.h - Binomial checkpointing of a loop of T steps ------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Reverses a loop of T identical steps (a scan: carry_{i+1} = f(carry_i))
// with K checkpoint slots, the way -remat-checkpoint-scans emits it as loops:
//
//  1. the forward loop runs steps 0..T-2 and copies carry_p into the next
//     slot at each position p of Revolve's first sweep (slot 0 holds
//     carry_0); step T-1 runs after it, from the loop's result carry_{T-1},
//     which the first backward step reads;
//  2. an interpreter loop runs one action per iteration: with the top slot
//     at position lo, `done` steps still to reverse and `free` slots above
//     the top, either it advances to done-1 and reverses that step (when
//     done - lo == 1 or free == 0; the top slot is dropped once its own step
//     is reversed), or it advances optimalSplit(done - lo, free + 1) steps
//     and stores the carry reached in the next slot.
//
// With the closed-form split below, the forward steps executed are
// Griewank-Walther's minimum t(T, K) plus one (the step from carry_{T-1} to
// carry_T, which the loss needs and Revolve's final turn would tape): the
// binomial bound with K checkpoints. Plain C++17.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_LOOP_LOOPREVERSAL_H
#define REMAT_SOLVER_LOOP_LOOPREVERSAL_H

#include "remat/Solver/Core/Schedule.h"

#include <cstdint>

namespace remat {

/// beta(c, r) = C(c + r, c), saturating at 2^62; 0 when c < 0 or r < 0.
int64_t binomialBeta(int64_t c, int64_t r);

/// The smallest r with beta(c, r) >= steps: how often each step is advanced
/// at most when `steps` steps are reversed with c checkpoints.
int64_t binomialRepetitions(int64_t steps, int64_t c);

/// The minimal number of advances to reverse `steps` steps from a
/// checkpoint with c checkpoints in all (that one included):
/// r * steps - beta(c + 1, r - 1), r = binomialRepetitions; -1 when c < 1 and
/// steps > 1.
int64_t minimalAdvances(int64_t steps, int64_t c);

/// Where to put the next checkpoint, as an offset in [1, steps - 1], when
/// `steps` (>= 2) steps are reversed with c (>= 1) checkpoints: a minimiser
/// of m + t(steps - m, c - 1) + t(m, c). Closed form: with r the
/// repetitions of (steps, c),
///   m = min(max(beta(c, r-2), steps - beta(c-1, r)), steps - beta(c-1, r-1))
/// clamped to [1, steps - 1] (the first m where the cost stops falling: t
/// is convex with slope r on (beta(c, r-1), beta(c, r)]).
int64_t optimalSplit(int64_t steps, int64_t c);

/// What the two loops of a reversal execute, counted without running them
/// step by step (O(actions)).
struct LoopReversalCounts {
  int64_t forwardSteps = 0;   ///< Forward loop, the peeled step, advances.
  int64_t advances = 0;       ///< Steps re-run by the interpreter.
  int64_t firstSweepShots = 0; ///< Slots the forward loop fills (slot 0 too).
  int64_t actions = 0;        ///< Trip count of the interpreter loop.
  /// Actions that reverse a step (advancing first) and actions that fill a
  /// slot, and the advances each kind makes in all.
  int64_t turns = 0, stores = 0, turnAdvances = 0, storeAdvances = 0;
};

/// The counts of the reversal of T >= 1 steps with K >= 1 slots.
LoopReversalCounts countLoopReversal(int64_t steps, int64_t slots);

/// Positions the forward loop stores, in order (position 0 first): the
/// first sweep of the interpreter. For tests and the IR emitter's mirror.
std::vector<int64_t> firstSweepPositions(int64_t steps, int64_t slots);

/// The unrolled equivalent, for the Simulator: a chain graph (carry_0 an
/// input of `carryBytes`, F_i: carry_{i-1} -> carry_i, a loss read from
/// carry_T, B_i: (carry_{i-1}, d_i) -> d_{i-1}, each d of `carryBytes`) and
/// the run order of the reversal, with eager frees. Each Run of an F node
/// after the first T is an advance.
struct UnrolledReversal {
  TrainingGraph graph;
  Schedule schedule;
};
UnrolledReversal unrolledLoopReversal(int64_t steps, int64_t slots,
                                      int64_t carryBytes);

} // namespace remat

#endif // REMAT_SOLVER_LOOP_LOOPREVERSAL_H
