//===- ScanSlots.cpp - A checkpointed scan as a node of the graph planner -===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Loops/ScanSlots.h"
#include "remat/Loops/LoopReversal.h"
#include "remat/Loops/OnlineCheckpointing.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Support/CheckedArithmetic.h"

#include <algorithm>
#include <limits>

namespace remat {

int64_t ScanSlotNode::forwardSteps(int64_t slots) const {
  return online ? countOnlineReversal(steps, slots).forwardSteps
                : countLoopReversal(steps, slots).forwardSteps;
}

int64_t ScanSlotNode::storageBytes(const Storage &s, int64_t slots) const {
  const int64_t rows = std::max<int64_t>(0, slots + s.rowsOffset);
  return roundUpToAlignment(
      checkedMul(rows, s.rowBytes).value_or(std::numeric_limits<int64_t>::max()),
      alignment);
}

TrainingGraph withScanSlots(TrainingGraph graph,
                            const std::vector<ScanSlotNode> &scans,
                            const std::vector<int64_t> &slots) {
  for (size_t i = 0; i < scans.size(); ++i) {
    const ScanSlotNode &scan = scans[i];
    for (const ScanSlotNode::Storage &s : scan.storage)
      graph.tensor(s.tensor).bytes = scan.storageBytes(s, slots[i]);
    const int64_t extra =
        scan.forwardSteps(slots[i]) - scan.forwardSteps(scan.probeSlots);
    double &time = graph.node(scan.reversal).time;
    time = std::max(0.0, time + static_cast<double>(extra) * scan.stepTime);
  }
  return graph;
}

namespace {

/// The counts worth trying for one scan: from `from` (>= 1) up by x1.5, T
/// last (none when from > T).
std::vector<int64_t> ladder(int64_t from, int64_t steps) {
  std::vector<int64_t> counts;
  if (from > steps)
    return counts;
  for (int64_t s = from; s < steps;
       s = std::max(s + 1, s + s / 2))
    counts.push_back(s);
  counts.push_back(steps);
  return counts;
}

} // namespace

ScanSlotChoice chooseScanSlots(const TrainingGraph &graph,
                               const Schedule &order, int64_t budget,
                               const std::vector<ScanSlotNode> &scans,
                               const PlanTime &planTime) {
  ScanSlotChoice choice;
  choice.slots.assign(scans.size(), 1);
  choice.asIsSlots.assign(scans.size(), 0);
  auto asIs = [&](const std::vector<int64_t> &slots) {
    return simulate(withScanSlots(graph, scans, slots), order);
  };
  if (budget < 0) {
    choice.time = asIs(choice.slots).time;
    return choice;
  }
  for (size_t i = 0; i < scans.size(); ++i) {
    const int64_t steps = std::max<int64_t>(1, scans[i].steps);
    // The most slots whose program fits as it is: the peak grows with the
    // slots, so by bisection over [0, T] (0: not even one).
    std::vector<int64_t> slots = choice.slots;
    int64_t lo = 0, hi = steps;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo + 1) / 2;
      slots[i] = mid;
      SimulationResult r = asIs(slots);
      if (r.valid && r.peak <= budget)
        lo = mid;
      else
        hi = mid - 1;
    }
    // Slots that re-run no fewer steps only take memory and bookkeeping
    // (T slots re-run what T - 1 do): the fewest with the same steps.
    int64_t fewest = lo;
    if (lo > 1) {
      const int64_t reRun = scans[i].forwardSteps(lo);
      while (fewest > 1 && scans[i].forwardSteps(fewest - 1) == reRun)
        --fewest;
    }
    choice.asIsSlots[i] = fewest;
    std::optional<double> best;
    int64_t bestSlots = std::max<int64_t>(fewest, 1);
    if (lo > 0) {
      slots[i] = fewest;
      best = asIs(slots).time;
    }
    if (planTime) {
      // Beyond what fits as it is, the plan recomputes something else to
      // make room; below it, nothing is gained (the scan re-runs more and
      // the program already fits).
      for (int64_t s : ladder(lo + 1, steps)) {
        slots[i] = s;
        std::optional<double> t = planTime(withScanSlots(graph, scans, slots));
        ++choice.plansSolved;
        if (!t)
          break; // More slots only take more memory.
        if (!best || *t < *best) {
          best = t;
          bestSlots = s;
        }
      }
    }
    choice.slots[i] = bestSlots;
    if (best) {
      choice.feasible = true;
      choice.time = *best;
    }
  }
  return choice;
}

} // namespace remat
