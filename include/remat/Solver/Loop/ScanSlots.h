//===- ScanSlots.h - A checkpointed scan as a node of the graph planner -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A scan rewritten with K slots (CheckpointScans.h) differs from the same
// scan rewritten with any other K in two things only: the buffers that hold
// the slots (K - 1 rows of each carry, K positions) and how many forward
// steps its reversal re-runs (LoopReversalCounts). So the graph of a
// function whose scans were rewritten once, at a probe count, is the graph
// at every K once those tensors and that node are resized: the slot count
// becomes a parameter of the graph the planner solves, and the count chosen
// is the one whose plan (of the whole graph, by the caller's strategy) is
// fastest within the budget. Plain C++17.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_LOOP_SCANSLOTS_H
#define REMAT_SOLVER_LOOP_SCANSLOTS_H

#include "remat/Solver/Core/Schedule.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/SizedParts.h"
#include "remat/Support/AllocAlignment.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace remat {

/// One checkpointed scan in a graph read off its rewrite at `probeSlots`.
struct ScanSlotNode {
  int64_t steps = 0;   ///< T (online: the most steps, its nominal T).
  bool online = false; ///< Checkpointed online (OnlineCheckpointing.h).
  int64_t probeSlots = 0;
  /// A tensor holding slots: `slots + rowsOffset` rows of `rowBytes`,
  /// rounded up to `alignment` as every buffer is.
  struct Storage {
    TensorId tensor = kNone;
    int64_t rowBytes = 0;
    int64_t rowsOffset = 0;
  };
  std::vector<Storage> storage;
  int64_t alignment = kDefaultAllocAlignment;
  /// The node running the reversal (the interpreter loop), and the time of
  /// one forward step it re-runs.
  NodeId reversal = kNone;
  double stepTime = 0;

  /// The forward steps executed with `slots` slots (LoopReversalCounts).
  int64_t forwardSteps(int64_t slots) const;
  /// The bytes tensor `s` of `storage` takes with `slots` slots.
  int64_t storageBytes(const Storage &s, int64_t slots) const;
  /// The reversal's time with `slots` slots, from its time at probeSlots:
  /// the forward steps gained or saved, at stepTime each.
  double reversalTime(double probeTime, int64_t slots) const;
  /// The scan in `graph` (read off the probe) as a part sized by its slot
  /// count, one choice per entry of `counts`: what withScanSlots gives.
  SizedPart sizedPart(const TrainingGraph &graph,
                      const std::vector<int64_t> &counts) const;
};

/// `graph` (read off the rewrite at each scan's probeSlots) with scan i at
/// slots[i]: its storage resized, its reversal's time moved by the forward
/// steps gained or saved.
TrainingGraph withScanSlots(TrainingGraph graph,
                            const std::vector<ScanSlotNode> &scans,
                            const std::vector<int64_t> &slots);

/// The best plan of a graph within the caller's budget (by its strategy):
/// its time and schedule, or std::nullopt when none fits.
struct GraphPlan {
  double time = 0;
  Schedule schedule;
};
using PlanGraph = std::function<std::optional<GraphPlan>(const TrainingGraph &)>;

/// A plan that chooses the sized parts' choices with the schedule, in one
/// model (solveSized, SizedSolve.h), on the graphs `applies` accepts (the
/// caller's strategy has such a model there): `plan`, warm-started from
/// `warm` (a schedule of the graph at `warmPicks`), gives the choices and
/// the schedule, or std::nullopt when it finds none within the budget.
struct SizedPlan {
  std::vector<int> picks;
  Schedule schedule;
};
struct PlanSized {
  std::function<bool(const TrainingGraph &)> applies;
  std::function<std::optional<SizedPlan>(
      const TrainingGraph &, const std::vector<SizedPart> &,
      const std::vector<int> &warmPicks, const Schedule &warm)>
      plan;
  bool appliesTo(const TrainingGraph &g) const {
    return applies && plan && applies(g);
  }
};

/// The program as it runs, for what "fits as it is" means: the timeline of
/// the rewrite in its own order, whose in-place writes are those that order
/// allows (RecomputeRegions::Flatten; the planner's graph assumes only what
/// holds in any order it may choose, so it may count a buffer more), with
/// its scans as nodes of that graph.
struct AsIsTimeline {
  const TrainingGraph &graph;
  const Schedule &order;
  const std::vector<ScanSlotNode> &scans;
  /// The program with scan i at slots[i], simulated in its order.
  SimulationResult at(const std::vector<int64_t> &slots) const;
};

struct ScanSlotChoice {
  std::vector<int64_t> slots; ///< Per scan.
  /// Per scan, the slots with which the program fits as it is, all else
  /// kept, re-running the fewest steps (the fewest such slots; 0: none).
  std::vector<int64_t> asIsSlots;
  /// The plan's time at those slots (plan, or the program's own time
  /// when it fits as it is), and whether any choice fits at all.
  double time = 0;
  bool feasible = false;
  int plansSolved = 0; ///< Calls of plan.
  /// The counts planSized was offered, per scan (empty: not called), and
  /// whether its choice was faster than the ladder's (then `slots` are its).
  std::vector<int64_t> sizedCounts;
  bool sizedChose = false;
  /// Without such a model: how many choices chooseOnFrontier compared
  /// (ScanSlotFrontier.h; planned, or simulated where the program fits as
  /// it is), and whether one was faster (then `slots` are it; one as fast
  /// with fewer bytes is taken too, and does not set it).
  int frontierPoints = 0;
  bool frontierChose = false;
};

/// Chooses each scan's slots. `order` is the program order of `graph` (its
/// peak as it runs, nothing recomputed). Without `plan`: the most slots
/// whose program fits `budget` as it is, or fewer when they re-run as few
/// steps (T slots re-run what T - 1 do; the online rule re-runs fewer with
/// some counts than with one more: the fewest re-running the fewest steps
/// among the kSizedWindow below; 1 when none fits). With it, also
/// more slots than that, the rest of the graph then recomputed by the plan:
/// the counts tried are the one that fits as it is and a geometric ladder
/// above it (x1.5) up to T, stopping at the first whose plan fits nowhere;
/// scans are chosen one after the other, the others at their choice so far
/// (fewest slots first), then (several scans) each once more, its current
/// count the one to beat. Ties go to fewer slots. Then, with `planSized`,
/// where a plan fitted more slots than the program as it is for some scan,
/// every scan's count and the schedule are chosen together in one model
/// (the counts of sizedCounts), warm-started from the ladder's best plan:
/// its choice is taken when the Simulator finds it faster. Where no such
/// model applies, the choices of every scan's count that re-run the fewest
/// steps for the bytes their slots take together are planned whole, around
/// the ladder's (chooseOnFrontier, ScanSlotFrontier.h): the fastest is kept.
/// `budget` < 0: fewest slots. Whether the program fits as it is, and its
/// time then, is `asIs`'s (default: `graph` simulated in `order`).
ScanSlotChoice chooseScanSlots(const TrainingGraph &graph,
                               const Schedule &order, int64_t budget,
                               const std::vector<ScanSlotNode> &scans,
                               const PlanGraph &plan,
                               const PlanSized &planSized = {},
                               const AsIsTimeline *asIs = nullptr);

/// planSized is offered every count within kSizedWindow of the ladder's
/// choice, a geometric ladder (x1.25) above it up to T, and kSizedBelow
/// counts below it (each 4/5 of the one before).
constexpr int64_t kSizedWindow = 12;
constexpr int kSizedBelow = 8;

/// The counts of `scan` offered to planSized when the ladder chose
/// `chosen` (kSizedWindow), without those that re-run as many steps as one
/// slot less (they only take memory); `chosen` always.
std::vector<int64_t> sizedCounts(const ScanSlotNode &scan, int64_t chosen);

} // namespace remat

#endif // REMAT_SOLVER_LOOP_SCANSLOTS_H
