//===- OnlineCheckpointing.h - Checkpoints for loops of unknown length ----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A loop whose trip count is known only when it ends (`scf.while`): the
// forward loop must decide at each step, without knowing T, whether to keep
// the carry it has reached, and which older checkpoint to give up for it.
// The backward pass then reverses the T steps from whatever slots hold, with
// the interpreter of LoopReversal.h (done = T: carry_{T-1} is not at hand).
//
// The rule (reversal::onlineDrop in ReversalRules.h, written once for this
// counter and the emitted forward loop). The slots split the steps run so far
// into segments, the one above the top slot still growing. Reversed from
// the top, segment k (from the bottom) has K - k slots to itself (its own
// and those freed above it); with every step advanced at most r - 1 times
// while a segment of c slots is reversed, it may be beta(c, r - 1) steps
// long. Keep the carry of every step; once the K slots are full, drop the
// lowest checkpoint whose two neighbouring segments still fit that bound
// together, and when none fits, keep nothing until the top segment would
// outgrow its own bound, then allow one more repetition (r + 1).
//
// At r = 2 every segment of c slots costs its length minus one advances
// (the minimum: each segment needs that many), so the schedule is optimal
// while T <= beta(K, 2) - 1 = (K+1)(K+2)/2 - 1, the segments then being
// K+1, K, ..., 2 steps long: Stumm and Walther's bound for optimal online
// checkpointing (their count includes the final step). Beyond it the
// repetitions grow one at a time (as in Wang and Moin's dynamic scheme),
// never past the K slots. Plain C++17.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_LOOP_ONLINECHECKPOINTING_H
#define REMAT_SOLVER_LOOP_ONLINECHECKPOINTING_H

#include "remat/Solver/Loop/LoopReversal.h"

#include <cstdint>
#include <deque>
#include <vector>

namespace remat {

/// The forward loop's decisions, step by step.
class OnlineCheckpoints {
public:
  /// `slots` >= 1; slot 0 holds carry_0 from the start.
  explicit OnlineCheckpoints(int64_t slots);

  /// What happens to carry_i when the loop goes on from it (i >= 1, each i
  /// once, in order): nothing, stored into a free slot, or stored in place
  /// of the checkpoint at index `dropped` of positions() (the ones above it
  /// move down one index; the new one is on top).
  struct Decision {
    bool store = false;
    int64_t dropped = -1; ///< -1: a free slot was filled (or no store).
  };
  Decision offer(int64_t i);

  /// Positions of the slots in use, bottom first (positions()[0] = 0).
  std::vector<int64_t> positions() const { return {pos.begin(), pos.end()}; }
  /// The repetitions the segments are sized for (2 until T reaches
  /// beta(K, 2)).
  int64_t repetitions() const { return r; }

private:
  int64_t slots;
  int64_t r = 2;
  /// A deque: the drops are near the bottom, the stores on top, and erasing
  /// moves the shorter side (O(T K) with a vector at T = 100,000).
  std::deque<int64_t> pos{0};
};

/// The counts of a loop of T >= 1 steps run with the online rule and then
/// reversed (forwardSteps: the T steps of the forward loop plus the
/// advances; firstSweepShots: the carries the forward loop stored, slot 0
/// included).
LoopReversalCounts countOnlineReversal(int64_t steps, int64_t slots);

/// countOnlineReversal(steps, slots).forwardSteps, in closed form where the
/// rule is optimal (T <= beta(K, 2) - 1: the offline count, plus the step
/// to the last carry, which the forward loop does not keep, once a slot
/// was dropped, T > K), else by the walk. A planner asks it for many K.
int64_t onlineForwardSteps(int64_t steps, int64_t slots);

/// The unrolled equivalent, for the Simulator (as unrolledLoopReversal).
UnrolledReversal unrolledOnlineReversal(int64_t steps, int64_t slots,
                                        int64_t carryBytes);

} // namespace remat

#endif // REMAT_SOLVER_LOOP_ONLINECHECKPOINTING_H
