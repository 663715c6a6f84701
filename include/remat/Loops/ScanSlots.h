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
#ifndef REMAT_LOOPS_SCANSLOTS_H
#define REMAT_LOOPS_SCANSLOTS_H

#include "remat/Solver/Core/Schedule.h"
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
};

/// `graph` (read off the rewrite at each scan's probeSlots) with scan i at
/// slots[i]: its storage resized, its reversal's time moved by the forward
/// steps gained or saved.
TrainingGraph withScanSlots(TrainingGraph graph,
                            const std::vector<ScanSlotNode> &scans,
                            const std::vector<int64_t> &slots);

/// The time of the best plan of a graph within the caller's budget (its
/// strategy), or std::nullopt when none fits.
using PlanTime = std::function<std::optional<double>(const TrainingGraph &)>;

struct ScanSlotChoice {
  std::vector<int64_t> slots; ///< Per scan.
  /// Per scan, the slots with which the program fits as it is, all else
  /// kept, re-running the fewest steps (the fewest such slots; 0: none).
  std::vector<int64_t> asIsSlots;
  /// The plan's time at those slots (planTime, or the program's own time
  /// when it fits as it is), and whether any choice fits at all.
  double time = 0;
  bool feasible = false;
  int plansSolved = 0; ///< Calls of planTime.
};

/// Chooses each scan's slots. `order` is the program order of `graph` (its
/// peak as it runs, nothing recomputed). Without `planTime`: the most slots
/// whose program fits `budget` as it is, or fewer when they re-run as few
/// steps (T slots re-run what T - 1 do; 1 when none fits). With it, also
/// more slots than that, the rest of the graph then recomputed by the plan:
/// the counts tried are the one that fits as it is and a geometric ladder
/// above it (x1.5) up to T, stopping at the first whose plan fits nowhere;
/// scans are chosen one after the other, the others at their choice so far
/// (fewest slots first). Ties go to fewer slots. `budget` < 0: fewest slots.
ScanSlotChoice chooseScanSlots(const TrainingGraph &graph,
                               const Schedule &order, int64_t budget,
                               const std::vector<ScanSlotNode> &scans,
                               const PlanTime &planTime);

} // namespace remat

#endif // REMAT_LOOPS_SCANSLOTS_H
