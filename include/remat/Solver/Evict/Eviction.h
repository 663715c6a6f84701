//===- Eviction.h - Plans made by replaying the program under a budget ----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The scalable planner that recomputes anywhere: it replays a sequence of
// target nodes (the program's own order), running each with the inputs it
// needs and, whenever the next run would take memory above the budget,
// freeing stored values first. A freed value that is read again is
// recomputed just before, from whatever is stored, recursively: in the
// forward pass as well as in the backward pass, and as often as needed.
//
// Which value to free is DTR's question (Kirisame et al., ICLR 2021), here
// answered offline, with the future known: the one with the smallest
//   recompute cost / (bytes^sizeWeight * steps until its next read^distanceWeight).
// Each free and run is O(values stored), so a plan for thousands of nodes
// takes milliseconds. It is a heuristic: docs/solver.md compares it with
// the MILP optimum.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_EVICT_EVICTION_H
#define REMAT_SOLVER_EVICT_EVICTION_H

#include "remat/Solver/Core/Schedule.h"
#include "remat/Solver/Core/Simulator.h"

#include <optional>
#include <string>
#include <vector>

namespace remat {

struct EvictionHeuristic {
  double sizeWeight = 1;     ///< Exponent of the freed bytes.
  double distanceWeight = 1; ///< Exponent of the steps to the next read.
};

struct EvictionPlan {
  std::optional<Schedule> schedule; ///< Empty when the budget is too small.
  std::string reason;               ///< Why, when empty.
};

/// Replays `targets` (every node at least once, in an order valid for the
/// graph: each node after the producers of its inputs) within `budget`
/// bytes. The schedule is valid for the Simulator and its peak is at most
/// the budget; nodes that must run once (backward, non-recomputable, those
/// producing required outputs) run once. With `scratch`, the schedule is
/// built in its storage, which a failed replay hands back: replays that
/// give up after millions of steps then reuse one buffer instead of each
/// growing (and faulting in) their own.
EvictionPlan planByEviction(const TrainingGraph &g,
                            const std::vector<NodeId> &targets, int64_t budget,
                            const EvictionHeuristic &heuristic = {},
                            Schedule *scratch = nullptr);

/// `plan`'s runs with eager frees (Schedule::withEagerFrees), less the
/// recomputations that the budget does not need: each, the most time per
/// byte first, is dropped (with the recomputations that fed only it, the
/// earlier result kept until the reads it served) when the Simulator's peak
/// of the result stays within `budget` and its time falls. A
/// replay frees values that only recomputations would read while memory
/// allows, so with eager frees its plan often peaks well under the budget.
/// Tries are bounded (64 simulations, 10^6 simulated steps). Returns `plan`
/// unchanged when it has copies or discarded outputs, or when its runs
/// with eager frees are invalid or above the budget.
Schedule giveBackRecomputations(const TrainingGraph &g, const Schedule &plan,
                                int64_t budget,
                                const SimulatorOptions &simOptions = {});

} // namespace remat

#endif // REMAT_SOLVER_EVICT_EVICTION_H
