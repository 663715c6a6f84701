//===- ScanSlotFrontier.cpp - Slot counts that trade bytes for steps ------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Loop/ScanSlotFrontier.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Support/CheckedArithmetic.h"

#include <algorithm>
#include <set>

namespace remat {

namespace {

int64_t slotBytes(const ScanSlotNode &scan, int64_t slots) {
  int64_t bytes = 0;
  for (const ScanSlotNode::Storage &s : scan.storage)
    bytes = saturatingAdd(bytes, scan.storageBytes(s, slots));
  return bytes;
}

/// The choice of `slots` as a point.
SlotChoicePoint pointOf(const TrainingGraph &graph,
                        const std::vector<ScanSlotNode> &scans,
                        const std::vector<int64_t> &slots) {
  SlotChoicePoint p;
  p.slots = slots;
  for (size_t i = 0; i < scans.size(); ++i) {
    p.bytes = saturatingAdd(p.bytes, slotBytes(scans[i], slots[i]));
    p.reversalTime +=
        scans[i].reversalTime(graph.node(scans[i].reversal).time, slots[i]);
  }
  return p;
}

/// The points of `points` faster than every point taking no more bytes,
/// by bytes ascending; evenly thinned to kMaxFrontier, the ends kept.
std::vector<SlotChoicePoint>
paretoByBytes(std::vector<SlotChoicePoint> points) {
  std::sort(points.begin(), points.end(),
            [](const SlotChoicePoint &a, const SlotChoicePoint &b) {
              return a.bytes != b.bytes ? a.bytes < b.bytes
                                        : a.reversalTime < b.reversalTime;
            });
  std::vector<SlotChoicePoint> kept;
  for (SlotChoicePoint &p : points)
    if (kept.empty() || p.reversalTime < kept.back().reversalTime)
      kept.push_back(std::move(p));
  if (kept.size() <= kMaxFrontier)
    return kept;
  std::vector<SlotChoicePoint> thinned;
  for (size_t i = 0; i < kMaxFrontier; ++i)
    thinned.push_back(
        std::move(kept[i * (kept.size() - 1) / (kMaxFrontier - 1)]));
  return thinned;
}

} // namespace

std::vector<SlotChoicePoint>
slotFrontier(const TrainingGraph &graph, const std::vector<ScanSlotNode> &scans,
             const std::vector<std::vector<int64_t>> &counts) {
  std::vector<SlotChoicePoint> frontier(1);
  for (size_t i = 0; i < scans.size() && i < counts.size(); ++i) {
    const double probeTime = graph.node(scans[i].reversal).time;
    std::vector<SlotChoicePoint> merged;
    for (const SlotChoicePoint &p : frontier)
      for (int64_t k : counts[i]) {
        SlotChoicePoint q = p;
        q.slots.push_back(k);
        q.bytes = saturatingAdd(q.bytes, slotBytes(scans[i], k));
        q.reversalTime += scans[i].reversalTime(probeTime, k);
        merged.push_back(std::move(q));
      }
    frontier = paretoByBytes(std::move(merged));
  }
  return frontier;
}

namespace {

/// chooseOnFrontier's search: the points tried, the plans spent and the
/// best choice so far (in `choice`).
struct FrontierSearch {
  const TrainingGraph &graph;
  const AsIsTimeline &asIs;
  int64_t budget;
  const std::vector<ScanSlotNode> &scans;
  const PlanGraph &plan;
  const std::vector<std::vector<int64_t>> &unfit;
  ScanSlotChoice &choice;
  int64_t bestBytes;
  /// Every node runs at least once: the program as it is, whose time less
  /// its reversals' is the same at every count, is the least any plan takes.
  double others;
  std::set<std::vector<int64_t>> tried;
  int plans = 0;

  double leastTime(const SlotChoicePoint &p) const {
    return others + p.reversalTime;
  }

  /// Whether the point fits the budget (its program as it is, or a plan);
  /// std::nullopt when the plans allowed are spent.
  std::optional<bool> evaluate(const SlotChoicePoint &p) {
    tried.insert(p.slots);
    // At least the slots of a choice no plan fits: none fits it either.
    for (const std::vector<int64_t> &u : unfit)
      if (std::equal(u.begin(), u.end(), p.slots.begin(),
                     [](int64_t a, int64_t b) { return a <= b; }))
        return false;
    ++choice.frontierPoints;
    double time = 0;
    if (SimulationResult run = asIs.at(p.slots);
        run.valid && run.peak <= budget) {
      time = run.time;
    } else {
      if (plans >= kFrontierPlans) {
        --choice.frontierPoints;
        return std::nullopt;
      }
      ++plans;
      ++choice.plansSolved;
      std::optional<GraphPlan> r = plan(withScanSlots(graph, scans, p.slots));
      if (!r)
        return false;
      time = r->time;
    }
    if (time < choice.time || (time == choice.time && p.bytes < bestBytes)) {
      choice.frontierChose |= time < choice.time;
      choice.slots = p.slots;
      choice.time = time;
      bestBytes = p.bytes;
    }
    return true;
  }

  /// The most bytes a plan fits, by bisection above the choice's (which
  /// fits): `fits` is the last point known to fit or taken to (no more bytes
  /// than the choice), `fails` the first that does not. Returns `fits`, or
  /// std::nullopt when the plans allowed are spent.
  std::optional<ptrdiff_t>
  bisect(const std::vector<SlotChoicePoint> &frontier) {
    const auto above = std::upper_bound(
        frontier.begin(), frontier.end(), bestBytes,
        [](int64_t bytes, const SlotChoicePoint &p) { return bytes < p.bytes; });
    ptrdiff_t fits = (above - frontier.begin()) - 1;
    ptrdiff_t fails = static_cast<ptrdiff_t>(frontier.size());
    while (fails - fits > 1) {
      const ptrdiff_t mid = fits + (fails - fits) / 2;
      std::optional<bool> ok = evaluate(frontier[mid]);
      if (!ok)
        return std::nullopt;
      (*ok ? fits : fails) = mid;
    }
    return fits;
  }

  /// Below `fits`, by the least time a plan can take (bytes descending),
  /// until no point left can be faster than the best; false when the plans
  /// allowed are spent.
  bool walkDown(const std::vector<SlotChoicePoint> &frontier, ptrdiff_t fits) {
    for (ptrdiff_t i = fits; i >= 0; --i) {
      const SlotChoicePoint &p = frontier[i];
      if (leastTime(p) >= choice.time)
        break;
      if (tried.count(p.slots))
        continue;
      if (!evaluate(p).has_value())
        return false;
    }
    return true;
  }

  /// The bytes are not all a plan sees (where each scan's slots live, which
  /// forward loop it may re-run to free them): around the best, each scan's
  /// next count up and down, the others kept, while one is faster.
  void stepAround(const std::vector<std::vector<int64_t>> &counts) {
    for (bool better = true; better;) {
      better = false;
      const std::vector<int64_t> best = choice.slots;
      for (size_t i = 0; i < scans.size(); ++i) {
        const std::vector<int64_t> &ks = counts[i];
        const ptrdiff_t at =
            std::lower_bound(ks.begin(), ks.end(), best[i]) - ks.begin();
        if (at == static_cast<ptrdiff_t>(ks.size()) || ks[at] != best[i])
          continue;
        for (ptrdiff_t next : {at + 1, at - 1}) {
          if (next < 0 || next >= static_cast<ptrdiff_t>(ks.size()))
            continue;
          std::vector<int64_t> slots = best;
          slots[i] = ks[next];
          const SlotChoicePoint p = pointOf(graph, scans, slots);
          if (tried.count(p.slots) || leastTime(p) >= choice.time)
            continue;
          const double before = choice.time;
          std::optional<bool> ok = evaluate(p);
          if (!ok)
            return; // The plans allowed are spent.
          better |= choice.time < before;
        }
      }
    }
  }
};

} // namespace

void chooseOnFrontier(const TrainingGraph &graph, const AsIsTimeline &asIs,
                      int64_t budget, const std::vector<ScanSlotNode> &scans,
                      const PlanGraph &plan,
                      const std::vector<std::vector<int64_t>> &unfit,
                      ScanSlotChoice &choice) {
  std::vector<std::vector<int64_t>> counts;
  for (size_t i = 0; i < scans.size(); ++i)
    counts.push_back(sizedCounts(scans[i], choice.slots[i]));
  const SlotChoicePoint chosen = pointOf(graph, scans, choice.slots);
  const std::vector<SlotChoicePoint> frontier =
      slotFrontier(graph, scans, counts);
  const double others = asIs.at(choice.slots).time - chosen.reversalTime;
  FrontierSearch search{graph,  asIs,         budget, scans,
                        plan,   unfit,        choice, chosen.bytes,
                        others, {choice.slots}};
  choice.frontierPoints = 0;
  std::optional<ptrdiff_t> fits = search.bisect(frontier);
  if (!fits || !search.walkDown(frontier, *fits))
    return;
  search.stepAround(counts);
}

} // namespace remat
