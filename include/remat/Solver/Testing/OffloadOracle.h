//===- OffloadOracle.h - Exhaustive keep/recompute/offload choices --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The optimum over a space of plans with host copies, by enumeration: a
// test oracle for tiny graphs only. The space: a run order (the program
// with any set of recomputable forward nodes re-run once, right before the
// backward node that first needs them again, or the runs of a given
// schedule), then for every stretch between two uses of a tensor (its
// production or a read, and the next read), either nothing or an Offload
// right after the first use and a Prefetch before any run up to the read;
// with resultsMayLeave, for every result also an Offload after its last
// use and none back (returned from the host); then (with `awaits`) no
// Await, or one: some
// offloaded tensor's, before any run after its offload up to its
// prefetch's (one: the space would grow by a factor per stay; a planner's
// plan with more is judged where it is given in `runOrders`). Each
// candidate gets eager frees and is judged by the Simulator.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_TESTING_OFFLOADORACLE_H
#define REMAT_SOLVER_TESTING_OFFLOADORACLE_H

#include "remat/Solver/Core/CopyLink.h"
#include "remat/Solver/Core/Schedule.h"

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace remat {

struct OffloadOracleResult {
  bool feasible = false; ///< Some plan of the space peaks within budget.
  double time = 0;       ///< The least time of those, when feasible.
  Schedule schedule;     ///< One that reaches it.
  long simulated = 0;    ///< Plans judged.
};

/// std::nullopt when the space holds more than `maxPlans` plans.
/// `runOrders` adds run orders to the space (their Free and copy steps are
/// ignored), e.g. the recompute plans a planner starts from, and the
/// schedules themselves, copies included.
std::optional<OffloadOracleResult>
offloadOracle(const TrainingGraph &g, int64_t budget, const CopyLink &link,
              const std::vector<Schedule> &runOrders = {},
              long maxPlans = 2'000'000, bool resultsMayLeave = false,
              bool awaits = true);

/// The same space judged once for every budget: the (peak, time) points of
/// its valid plans that no other plan beats on both, by rising peak and
/// falling time. The optimum at a budget is the last point within it.
std::optional<std::vector<std::pair<int64_t, double>>>
offloadOracleFrontier(const TrainingGraph &g, const CopyLink &link,
                      const std::vector<Schedule> &runOrders = {},
                      long maxPlans = 2'000'000, bool resultsMayLeave = false,
                      bool awaits = true);

} // namespace remat

#endif // REMAT_SOLVER_TESTING_OFFLOADORACLE_H
