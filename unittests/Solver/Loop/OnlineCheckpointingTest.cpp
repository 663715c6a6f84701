//===- OnlineCheckpointingTest.cpp - Online checkpoints against the offline optimum ===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Oracle: a dynamic program over every placement of the checkpoints when T
// is known in advance (the forward loop's own advances free, the steps
// reversed from the slots with no carry at hand), and the Simulator on the
// unrolled chain.

#include "UnrolledReversalCheck.h"
#include "remat/Solver/Loop/OnlineCheckpointing.h"

#include <gtest/gtest.h>

#include <vector>

using namespace remat;

namespace {

/// offline[l][c]: the fewest advances when a loop of l steps, known in
/// advance, starts with c slots (carry_0 in one) and ends with no carry at
/// hand. reverse[l][c]: reversing l steps from a checkpoint with c slots,
/// every advance counted. The forward loop may store at m (free: it runs
/// there anyway); the segment above is then the same problem with one slot
/// fewer, the one below is reversed later with c slots.
struct OfflineOptimum {
  std::vector<std::vector<int64_t>> offline, reverse;
  OfflineOptimum(int maxSteps, int maxC)
      : offline(maxSteps + 1, std::vector<int64_t>(maxC + 1, 0)),
        reverse(maxSteps + 1, std::vector<int64_t>(maxC + 1, 0)) {
    for (int l = 2; l <= maxSteps; ++l) {
      reverse[l][1] = offline[l][1] = int64_t(l) * (l - 1) / 2;
      for (int c = 2; c <= maxC; ++c) {
        int64_t rev = reverse[l][1], off = INT64_MAX;
        for (int m = 1; m < l; ++m) {
          rev = std::min(rev, m + reverse[l - m][c - 1] + reverse[m][c]);
          off = std::min(off, offline[l - m][c - 1] + reverse[m][c]);
        }
        reverse[l][c] = rev;
        offline[l][c] = std::min(off, rev);
      }
    }
  }
};

TEST(OnlineCheckpointing, OptimalUpToTheStummWaltherBound) {
  const int maxSteps = 80, maxC = 9;
  OfflineOptimum opt(maxSteps, maxC);
  for (int c = 1; c <= maxC; ++c) {
    const int64_t bound = binomialBeta(c, 2) - 1; // (c+1)(c+2)/2 - 1
    for (int T = 1; T <= std::min<int64_t>(maxSteps, bound); ++T) {
      LoopReversalCounts counts = countOnlineReversal(T, c);
      ASSERT_EQ(counts.advances, opt.offline[T][c]) << T << " steps, " << c
                                                    << " slots";
      // Each step past the slots costs exactly one advance.
      EXPECT_EQ(counts.advances, std::max(0, T - c)) << T << "/" << c;
    }
  }
}

TEST(OnlineCheckpointing, BeyondTheBoundItNeverBeatsTheOfflineOptimum) {
  // The online rule cannot know T: past beta(K, 2) - 1 it pays more than
  // the offline optimum, by a factor that grows slowly (reported in
  // docs/loops.md); never less, which would mean a miscount.
  const int maxSteps = 160, maxC = 6;
  OfflineOptimum opt(maxSteps, maxC);
  for (int c = 1; c <= maxC; ++c)
    for (int T = 1; T <= maxSteps; ++T) {
      LoopReversalCounts counts = countOnlineReversal(T, c);
      EXPECT_GE(counts.advances, opt.offline[T][c]) << T << "/" << c;
      // The repetitions grow one at a time as the offline optimum's do
      // (forward steps within 1.17x of it on this grid, docs/loops.md); a
      // rule that stopped storing would grow quadratically past 2x.
      if (c >= 2)
        EXPECT_LE(T + counts.advances, 2 * (T + opt.offline[T][c]))
            << T << "/" << c;
      EXPECT_EQ(counts.turns, T); // Every step is reversed by an action.
      EXPECT_EQ(counts.forwardSteps, T + counts.advances);
    }
}

TEST(OnlineCheckpointing, TheSegmentsEndAtTheirBoundsAtTheLastOptimalStep) {
  // At T = beta(K, 2) - 1 the segments are K+1, K, ..., 2 steps long.
  for (int64_t c : {1, 2, 3, 5, 8}) {
    OnlineCheckpoints online(c);
    const int64_t T = binomialBeta(c, 2) - 1;
    for (int64_t i = 1; i < T; ++i)
      online.offer(i);
    std::vector<int64_t> expected{0};
    for (int64_t k = 0; k + 1 < c; ++k)
      expected.push_back(expected.back() + c + 1 - k);
    EXPECT_EQ(online.positions(), expected) << c << " slots";
    EXPECT_EQ(T - online.positions().back(), 2);
    EXPECT_EQ(online.repetitions(), 2);
  }
}

TEST(OnlineCheckpointing, UnrolledScheduleIsValidAndHoldsAtMostTheSlots) {
  const int64_t carry = 1000;
  for (int64_t steps : {1, 2, 5, 13, 30, 70})
    for (int64_t slots : {1, 2, 3, 6}) {
      SCOPED_TRACE(std::to_string(steps) + " steps, " + std::to_string(slots) +
                   " slots");
      checkUnrolledReversal(unrolledOnlineReversal(steps, slots, carry), slots,
                            carry,
                            countOnlineReversal(steps, slots).forwardSteps);
    }
}

TEST(OnlineCheckpointing, DecisionsDescribeThePositions) {
  // What the IR emitter mirrors: a store without a drop appends; a drop at
  // j removes positions()[j] and appends i.
  OnlineCheckpoints online(4);
  std::vector<int64_t> mirror{0};
  for (int64_t i = 1; i < 200; ++i) {
    OnlineCheckpoints::Decision d = online.offer(i);
    if (d.store) {
      if (d.dropped >= 0) {
        ASSERT_GE(d.dropped, 1);
        mirror.erase(mirror.begin() + d.dropped);
      }
      mirror.push_back(i);
    }
    ASSERT_EQ(mirror, online.positions()) << "after step " << i;
    ASSERT_LE(mirror.size(), 4u);
  }
}

} // namespace

// The closed form the slot choice asks for many K is the walk's count,
// inside the bound (where it applies) and beyond (where it walks).
TEST(OnlineCheckpointing, ForwardStepsInClosedForm) {
  int closed = 0;
  for (int64_t steps = 1; steps <= 300; ++steps)
    for (int64_t slots = 1; slots <= 30; ++slots) {
      ASSERT_EQ(onlineForwardSteps(steps, slots),
                countOnlineReversal(steps, slots).forwardSteps)
          << steps << " steps, " << slots << " slots";
      closed += steps <= binomialBeta(slots, 2) - 1;
    }
  EXPECT_GT(closed, 4000); // About half the cases take the closed form.
}
