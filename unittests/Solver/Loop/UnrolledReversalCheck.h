//===- UnrolledReversalCheck.h - The Simulator on an unrolled loop reversal ===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Shared by the offline (LoopReversalTest) and online
// (OnlineCheckpointingTest) reversals: the unrolled equivalent of a
// reversal is a valid schedule, runs as many forward steps as counted, and
// holds at most the slots, the working carry and its successor (or a
// backward step's two gradients), and the loss.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_UNITTESTS_SOLVER_UNROLLEDREVERSALCHECK_H
#define REMAT_UNITTESTS_SOLVER_UNROLLEDREVERSALCHECK_H

#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Loop/LoopReversal.h"

#include <gtest/gtest.h>

#include <vector>

namespace remat {

inline void checkUnrolledReversal(const UnrolledReversal &u, int64_t slots,
                                  int64_t carry, int64_t forwardSteps) {
  SimulationResult sim = simulate(u.graph, u.schedule);
  ASSERT_TRUE(sim.valid) << sim.error;
  int64_t forwardRuns = 0;
  std::vector<int> runs = u.schedule.runCounts(u.graph);
  for (NodeId n = 0; n < u.graph.numNodes(); ++n)
    if (u.graph.node(n).name[0] == 'F')
      forwardRuns += runs[n];
  EXPECT_EQ(forwardRuns, forwardSteps);
  EXPECT_LE(sim.peak, (slots + 2) * carry + 4 + carry);
}

} // namespace remat

#endif // REMAT_UNITTESTS_SOLVER_UNROLLEDREVERSALCHECK_H
