//===- ModelGraphsTest.cpp - Generators shaped like real networks ---------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Testing/ModelGraphs.h"
#include "remat/Solver/Core/Simulator.h"

#include <gtest/gtest.h>

using namespace remat;

namespace {

int forwardCount(const TrainingGraph &g) {
  int n = 0;
  for (NodeId i = 0; i < g.numNodes(); ++i)
    n += g.isForward(i);
  return n;
}

TEST(ModelGraphs, SizesAndValidity) {
  for (int n : {100, 268, 500, 2000}) {
    for (const TrainingGraph &g : {googlenetLike(n), resnetLike(n), unetLike(n)}) {
      EXPECT_FALSE(g.verify().has_value());
      EXPECT_GE(g.numNodes(), n);
      EXPECT_LT(g.numNodes(), n + n / 5 + 60); // The next size up.
      SimulationResult r = simulate(g, keepEverythingSchedule(g));
      EXPECT_TRUE(r.valid) << r.error;
    }
  }
  // The lower-set paper's GoogLeNet has 134 forward functions.
  EXPECT_NEAR(forwardCount(googlenetLike(268)), 134, 2);
}

TEST(ModelGraphs, GoogLeNetShape) {
  TrainingGraph g = googlenetLike(268);
  int concats = 0, dropouts = 0, losses = 0, convTime = 0;
  for (NodeId n = 0; n < g.numNodes(); ++n) {
    const Node &node = g.node(n);
    if (!g.isForward(n))
      continue;
    concats += node.type == "concat";
    losses += node.type == "softmax_cross_entropy";
    if (node.type == "dropout") {
      ++dropouts;
      EXPECT_FALSE(node.recomputable);
    }
    if (node.type == "conv")
      convTime += node.time == 10;
  }
  EXPECT_EQ(concats, 9);  // Nine inception modules,
  EXPECT_EQ(losses, 3);   // two auxiliary heads and the main one.
  EXPECT_EQ(dropouts, 3);
  EXPECT_GT(convTime, 50);
}

TEST(ModelGraphs, RandomBranchyIsDeterministicAndBranchy) {
  int multiOutput = 0, branching = 0;
  for (uint64_t seed = 0; seed < 50; ++seed) {
    TrainingGraph a = randomBranchyDag(seed, 8), b = randomBranchyDag(seed, 8);
    ASSERT_FALSE(a.verify().has_value());
    ASSERT_EQ(keepEverythingSchedule(a).str(a), keepEverythingSchedule(b).str(b));
    EXPECT_EQ(forwardCount(a), 9); // Eight ops and the loss.
    for (NodeId n = 0; n < a.numNodes(); ++n) {
      multiOutput += a.isForward(n) && a.node(n).outputs.size() > 1;
      for (TensorId t : a.node(n).outputs) {
        int fwdReaders = 0;
        for (NodeId c : a.consumers(t))
          fwdReaders += a.isForward(c);
        branching += fwdReaders > 1;
      }
    }
  }
  EXPECT_GT(multiOutput, 20);
  EXPECT_GT(branching, 50);
}

} // namespace
