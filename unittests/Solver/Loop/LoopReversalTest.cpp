//===- LoopReversalTest.cpp - Loop reversal against the binomial optimum --===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Oracles: a dynamic program over every split (the recursion the closed form
// solves), Griewank's bound t(T, K), and the Simulator on the unrolled chain.

#include "UnrolledReversalCheck.h"
#include "remat/Solver/Loop/LoopReversal.h"

#include <gtest/gtest.h>

#include <vector>

using namespace remat;

namespace {

/// opt[l][c]: the fewest advances reversing l steps with c checkpoints, by
/// trying every split: m + opt[l-m][c-1] + opt[m][c]; no checkpoint left
/// means reversing from the working carry alone (l(l-1)/2 advances).
std::vector<std::vector<int64_t>> splitTable(int maxSteps, int maxC) {
  std::vector<std::vector<int64_t>> opt(maxSteps + 1,
                                        std::vector<int64_t>(maxC + 1, 0));
  for (int l = 2; l <= maxSteps; ++l) {
    opt[l][1] = int64_t(l) * (l - 1) / 2;
    for (int c = 2; c <= maxC; ++c) {
      int64_t best = opt[l][1];
      for (int m = 1; m < l; ++m)
        best = std::min(best, m + opt[l - m][c - 1] + opt[m][c]);
      opt[l][c] = best;
    }
  }
  return opt;
}

TEST(LoopReversal, ClosedFormEqualsTheDynamicProgram) {
  const int maxSteps = 160, maxC = 8;
  auto opt = splitTable(maxSteps, maxC);
  for (int l = 2; l <= maxSteps; ++l)
    for (int c = 1; c <= maxC; ++c) {
      ASSERT_EQ(minimalAdvances(l, c), opt[l][c]) << l << " " << c;
      const int64_t m = optimalSplit(l, c);
      ASSERT_GE(m, 1);
      ASSERT_LT(m, l);
      const int64_t right = c == 1 ? (l - m == 1 ? 0 : -1) : opt[l - m][c - 1];
      ASSERT_NE(right, -1) << l << " " << c;
      EXPECT_EQ(m + right + opt[m][c], opt[l][c]) << "split " << m << " of "
                                                  << l << " with " << c;
    }
}

TEST(LoopReversal, ForwardStepsAreTheBinomialOptimumPlusTheLossStep) {
  for (int64_t steps : {1, 2, 3, 7, 64, 100, 1024})
    for (int64_t slots : {1, 2, 3, 5, 10, 40}) {
      LoopReversalCounts c = countLoopReversal(steps, slots);
      EXPECT_EQ(c.forwardSteps, minimalAdvances(steps, slots) + 1)
          << steps << " steps, " << slots << " slots";
      EXPECT_LE(c.firstSweepShots, slots);
      // Every step but the peeled last one is reversed by an action; the
      // other actions fill a slot each.
      EXPECT_EQ(c.turns, steps - 1);
      EXPECT_EQ(c.turns + c.stores, c.actions);
      EXPECT_EQ(c.turnAdvances + c.storeAdvances, c.advances);
    }
  // T = 100,000 with 20 slots: beta(20, 5) = 53,130 < T <= beta(20, 6), so
  // r = 6 and t = 6 T - beta(21, 5) = 600,000 - 65,780.
  EXPECT_EQ(minimalAdvances(100000, 20), 600000 - 65780);
  EXPECT_EQ(countLoopReversal(100000, 20).forwardSteps, 534221);
}

TEST(LoopReversal, UnrolledScheduleIsValidAndHoldsAtMostTheSlots) {
  // The slots include carry_0, an input; each Run of an F node after the
  // first T is an advance.
  const int64_t carry = 1000;
  for (int64_t steps : {1, 2, 5, 13, 30})
    for (int64_t slots : {1, 2, 3, 6}) {
      SCOPED_TRACE(std::to_string(steps) + " steps, " + std::to_string(slots) +
                   " slots");
      checkUnrolledReversal(unrolledLoopReversal(steps, slots, carry), slots,
                            carry, countLoopReversal(steps, slots).forwardSteps);
    }
}

TEST(LoopReversal, FirstSweepStoresAtIncreasingPositionsBelowTheLastStep) {
  for (int64_t steps : {2, 10, 64, 1000})
    for (int64_t slots : {1, 3, 8}) {
      std::vector<int64_t> pos = firstSweepPositions(steps, slots);
      ASSERT_FALSE(pos.empty());
      EXPECT_EQ(pos.front(), 0);
      EXPECT_LE(static_cast<int64_t>(pos.size()), slots);
      for (size_t i = 1; i < pos.size(); ++i) {
        EXPECT_LT(pos[i - 1], pos[i]);
        EXPECT_LT(pos[i], steps - 1);
      }
    }
}

} // namespace
