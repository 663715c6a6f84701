//===- ScanSlotFrontierTest.cpp - Slot counts that trade bytes for steps --===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Oracle: every combination of the scans' counts, enumerated. The frontier
// holds, for each, a point taking no more bytes and no more time, and no
// point of it is dominated by another.

#include "remat/Solver/Loop/ScanSlotFrontier.h"
#include "remat/Solver/Loop/LoopReversal.h"

#include <gtest/gtest.h>

#include <random>

using namespace remat;

namespace {

/// `n` scans over one input, each with a slot store and a reversal node.
struct Scans {
  TrainingGraph g;
  std::vector<ScanSlotNode> scans;
};

Scans randomScans(std::mt19937 &rng, int n) {
  Scans s;
  TensorId x = s.g.addInput("x", 64);
  for (int i = 0; i < n; ++i) {
    ScanSlotNode scan;
    scan.steps = 3 + rng() % 10;
    scan.probeSlots = 2;
    const int64_t row = 32 * (1 + rng() % 6); // Not always 64-aligned.
    NodeId f =
        s.g.addNode("F" + std::to_string(i), NodeKind::Forward, 1, {x}, {row});
    scan.storage = {{s.g.node(f).outputs[0], row, static_cast<int64_t>(-1)}};
    scan.stepTime = 1 + rng() % 9;
    scan.reversal = s.g.addNode("R" + std::to_string(i), NodeKind::Backward,
                                countLoopReversal(scan.steps, 2).forwardSteps *
                                    scan.stepTime,
                                {scan.storage[0].tensor}, {64});
    s.g.markRequired(s.g.node(scan.reversal).outputs[0]);
    s.scans.push_back(scan);
  }
  return s;
}

} // namespace

TEST(ScanSlotFrontier, HoldsTheBestOfEveryCombination) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 60; ++trial) {
    Scans s = randomScans(rng, 1 + trial % 3);
    std::vector<std::vector<int64_t>> counts;
    for (const ScanSlotNode &scan : s.scans) {
      counts.emplace_back();
      for (int64_t k = 1; k <= scan.steps; ++k)
        if (rng() % 4) // Some counts left out.
          counts.back().push_back(k);
      if (counts.back().empty())
        counts.back().push_back(1);
    }
    const std::vector<SlotChoicePoint> frontier =
        slotFrontier(s.g, s.scans, counts);
    ASSERT_FALSE(frontier.empty());
    // Ordered by bytes, each strictly faster than the one before.
    for (size_t i = 1; i < frontier.size(); ++i) {
      EXPECT_LT(frontier[i - 1].bytes, frontier[i].bytes) << "trial " << trial;
      EXPECT_GT(frontier[i - 1].reversalTime, frontier[i].reversalTime)
          << "trial " << trial;
    }
    // Every combination is matched or beaten by a point of it, and each
    // point is a combination with the bytes and time it says.
    std::vector<size_t> at(counts.size(), 0);
    while (true) {
      std::vector<int64_t> slots;
      int64_t bytes = 0;
      double time = 0;
      for (size_t i = 0; i < counts.size(); ++i) {
        const ScanSlotNode &scan = s.scans[i];
        slots.push_back(counts[i][at[i]]);
        bytes += scan.storageBytes(scan.storage[0], slots.back());
        time += scan.reversalTime(s.g.node(scan.reversal).time, slots.back());
      }
      bool beaten = false;
      for (const SlotChoicePoint &p : frontier) {
        beaten |= p.bytes <= bytes && p.reversalTime <= time + 1e-9;
        if (p.slots == slots) {
          EXPECT_EQ(p.bytes, bytes);
          EXPECT_NEAR(p.reversalTime, time, 1e-9);
        }
      }
      EXPECT_TRUE(beaten) << "trial " << trial << ": a combination of " << bytes
                          << " B off the frontier";
      size_t i = 0;
      while (i < at.size() && ++at[i] == counts[i].size())
        at[i++] = 0;
      if (i == at.size())
        break;
    }
  }
}
