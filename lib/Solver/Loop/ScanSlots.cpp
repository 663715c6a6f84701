//===- ScanSlots.cpp - A checkpointed scan as a node of the graph planner -===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Loop/ScanSlots.h"
#include "remat/Solver/Loop/ScanSlotFrontier.h"
#include "remat/Solver/Loop/LoopReversal.h"
#include "remat/Solver/Loop/OnlineCheckpointing.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Support/CheckedArithmetic.h"

#include <algorithm>
#include <limits>

namespace remat {

int64_t ScanSlotNode::forwardSteps(int64_t slots) const {
  // In closed form where there is one (LoopReversalTest and
  // OnlineCheckpointingTest check them against the walks).
  return online ? onlineForwardSteps(steps, slots)
                : minimalAdvances(steps, std::max<int64_t>(slots, 1)) + 1;
}

int64_t ScanSlotNode::storageBytes(const Storage &s, int64_t slots) const {
  const int64_t rows = std::max<int64_t>(0, slots + s.rowsOffset);
  return roundUpToAlignment(
      checkedMul(rows, s.rowBytes).value_or(std::numeric_limits<int64_t>::max()),
      alignment);
}

double ScanSlotNode::reversalTime(double probeTime, int64_t slots) const {
  const int64_t extra = forwardSteps(slots) - forwardSteps(probeSlots);
  return std::max(0.0, probeTime + static_cast<double>(extra) * stepTime);
}

SizedPart ScanSlotNode::sizedPart(const TrainingGraph &graph,
                                  const std::vector<int64_t> &counts) const {
  SizedPart part;
  for (const Storage &s : storage)
    part.tensors.push_back(s.tensor);
  part.node = reversal;
  for (int64_t k : counts) {
    SizedPart::Choice c;
    c.value = k;
    for (const Storage &s : storage)
      c.bytes.push_back(storageBytes(s, k));
    c.time = reversalTime(graph.node(reversal).time, k);
    part.choices.push_back(std::move(c));
  }
  return part;
}

SimulationResult AsIsTimeline::at(const std::vector<int64_t> &slots) const {
  return simulate(withScanSlots(graph, scans, slots), order);
}

TrainingGraph withScanSlots(TrainingGraph graph,
                            const std::vector<ScanSlotNode> &scans,
                            const std::vector<int64_t> &slots) {
  std::vector<SizedPart> parts;
  std::vector<int> picks(scans.size(), 0);
  for (size_t i = 0; i < scans.size(); ++i)
    parts.push_back(scans[i].sizedPart(graph, {slots[i]}));
  return withSizes(std::move(graph), parts, picks);
}

namespace {
/// Whether `k` slots re-run fewer steps than k - 1: a count that re-runs as
/// many only takes memory.
bool reRunsFewer(const ScanSlotNode &scan, int64_t k) {
  return scan.forwardSteps(k) < scan.forwardSteps(k - 1);
}
} // namespace

std::vector<int64_t> sizedCounts(const ScanSlotNode &scan, int64_t chosen) {
  const int64_t steps = std::max<int64_t>(1, scan.steps);
  // Every count near the ladder's choice, a geometric ladder beyond: up to
  // T, and down by at most kSizedBelow counts (fewer slots only re-run more
  // steps; they may leave room for other scans, not for much more).
  chosen = std::clamp<int64_t>(chosen, 1, steps);
  std::vector<int64_t> candidates{steps, chosen};
  for (int64_t k = std::max<int64_t>(1, chosen - kSizedWindow);
       k <= std::min(steps, chosen + kSizedWindow); ++k)
    candidates.push_back(k);
  for (int64_t k = chosen + kSizedWindow + 1; k < steps;
       k += std::max<int64_t>(1, k / 4))
    candidates.push_back(k);
  int64_t below = chosen - kSizedWindow - 1;
  for (int i = 0; i < kSizedBelow && below >= 1; ++i, below -= below / 5 + 1)
    candidates.push_back(below);
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()),
                   candidates.end());
  // A count that re-runs as many steps as one less only takes memory.
  std::vector<int64_t> counts;
  for (int64_t k : candidates)
    if (k == chosen || k == 1 || reRunsFewer(scan, k))
      counts.push_back(k);
  return counts;
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

/// Every scan's count and the schedule in one model, warm-started from the
/// ladder's best plan (`warm`, at choice.slots); taken when the Simulator
/// finds it valid, within budget and faster.
void chooseTogether(const TrainingGraph &graph, int64_t budget,
                    const std::vector<ScanSlotNode> &scans,
                    const PlanSized &planSized, const Schedule &warm,
                    ScanSlotChoice &choice) {
  std::vector<SizedPart> parts;
  std::vector<int> warmPicks;
  for (size_t i = 0; i < scans.size(); ++i) {
    std::vector<int64_t> counts = sizedCounts(scans[i], choice.slots[i]);
    choice.sizedCounts.push_back(static_cast<int64_t>(counts.size()));
    warmPicks.push_back(static_cast<int>(
        std::find(counts.begin(), counts.end(), choice.slots[i]) -
        counts.begin()));
    parts.push_back(scans[i].sizedPart(graph, counts));
  }
  std::optional<SizedPlan> p = planSized.plan(graph, parts, warmPicks, warm);
  if (!p || p->picks.size() != parts.size())
    return;
  std::vector<int64_t> slots;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (p->picks[i] < 0 ||
        p->picks[i] >= static_cast<int>(parts[i].choices.size()))
      return;
    slots.push_back(parts[i].choices[p->picks[i]].value);
  }
  SimulationResult r = simulate(withScanSlots(graph, scans, slots), p->schedule);
  if (!r.valid || r.peak > budget || !(r.time < choice.time))
    return;
  choice.slots = std::move(slots);
  choice.time = r.time;
  choice.sizedChose = true;
}

/// The most slots for scan i with which the program fits as it is, the
/// others at `slots`: the peak grows with the slots, so by bisection over
/// [0, T] (0: not even one). Leaves slots[i] at the last count tried.
int64_t mostSlotsAsIs(const AsIsTimeline &timeline, int64_t budget, size_t i,
                      int64_t steps, std::vector<int64_t> &slots) {
  int64_t lo = 0, hi = steps;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo + 1) / 2;
    slots[i] = mid;
    SimulationResult r = timeline.at(slots);
    if (r.valid && r.peak <= budget)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/// Slots that re-run no fewer steps only take memory and bookkeeping: of at
/// most `most`, the fewest that re-run the fewest steps. T slots re-run what
/// T - 1 do, and the online rule re-runs more with some counts than with
/// fewer (64 steps: 208 with 5 slots, 207 with 4).
int64_t fewestReRunning(const ScanSlotNode &scan, int64_t most) {
  int64_t fewest = most;
  if (most > 1) {
    int64_t reRun = scan.forwardSteps(most);
    for (int64_t k = most - 1;
         k >= std::max<int64_t>(1, most - kSizedWindow); --k)
      if (const int64_t s = scan.forwardSteps(k); s <= reRun) {
        reRun = s;
        fewest = k;
      }
    while (fewest > 1 && scan.forwardSteps(fewest - 1) == reRun)
      --fewest;
  }
  return fewest;
}

} // namespace

ScanSlotChoice chooseScanSlots(const TrainingGraph &graph,
                               const Schedule &order, int64_t budget,
                               const std::vector<ScanSlotNode> &scans,
                               const PlanGraph &plan,
                               const PlanSized &planSized,
                               const AsIsTimeline *asIsTimeline) {
  ScanSlotChoice choice;
  const AsIsTimeline ownTimeline{graph, order, scans};
  const AsIsTimeline &timeline = asIsTimeline ? *asIsTimeline : ownTimeline;
  Schedule bestSchedule = order;
  // Whether a plan that recomputes something else fits more slots than the
  // program as it is, for some scan. Where none does, more slots fit no
  // plan (they only take more memory) and fewer only re-run more steps:
  // the joint model has nothing to find between the ladder's counts.
  bool planBuysSlots = false;
  choice.slots.assign(scans.size(), 1);
  choice.asIsSlots.assign(scans.size(), 0);
  // The choices the ladder found no plan for.
  std::vector<std::vector<int64_t>> unfit;
  auto asIs = [&](const std::vector<int64_t> &slots) {
    return timeline.at(slots);
  };
  if (budget < 0) {
    choice.time = asIs(choice.slots).time;
    return choice;
  }
  // One scan's count, the others at their choice so far. `again`: a second
  // pass, where the current count (and its plan) is the one to beat.
  auto chooseOne = [&](size_t i, bool again) {
    const int64_t steps = std::max<int64_t>(1, scans[i].steps);
    std::vector<int64_t> slots = choice.slots;
    const int64_t lo = mostSlotsAsIs(timeline, budget, i, steps, slots);
    const int64_t fewest = fewestReRunning(scans[i], lo);
    choice.asIsSlots[i] = fewest;
    std::optional<double> best;
    int64_t bestSlots = std::max<int64_t>(fewest, 1);
    if (again) {
      best = choice.time;
      bestSlots = choice.slots[i];
    }
    if (lo > 0) {
      slots[i] = fewest;
      const double t = asIs(slots).time;
      if (!best || t < *best) {
        best = t;
        bestSlots = fewest;
        bestSchedule = order;
      }
    }
    if (plan) {
      // Beyond what fits as it is, the plan recomputes something else to
      // make room; below it, nothing is gained (the scan re-runs more and
      // the program already fits).
      for (int64_t s : ladder(lo + 1, steps)) {
        slots[i] = s;
        std::optional<GraphPlan> p = plan(withScanSlots(graph, scans, slots));
        ++choice.plansSolved;
        if (!p) {
          unfit.push_back(slots);
          break; // More slots only take more memory.
        }
        planBuysSlots = true;
        if (!best || p->time < *best) {
          best = p->time;
          bestSlots = s;
          bestSchedule = std::move(p->schedule);
        }
      }
    }
    choice.slots[i] = bestSlots;
    if (best) {
      choice.feasible = true;
      choice.time = *best;
    }
  };
  for (size_t i = 0; i < scans.size(); ++i)
    chooseOne(i, false);
  // Several scans: each again with the others at their choice (the first
  // was chosen with the others at one slot); never slower.
  if (scans.size() > 1 && choice.feasible)
    for (size_t i = 0; i < scans.size(); ++i)
      chooseOne(i, true);
  if (choice.feasible && planBuysSlots && planSized.appliesTo(graph)) {
    chooseTogether(graph, budget, scans, planSized, bestSchedule, choice);
  } else if (choice.feasible && planBuysSlots) {
    // No model chooses the counts with the schedule: the choices that
    // re-run the fewest steps for their bytes, each planned whole.
    chooseOnFrontier(graph, timeline, budget, scans, plan, unfit, choice);
  }
  return choice;
}

} // namespace remat
