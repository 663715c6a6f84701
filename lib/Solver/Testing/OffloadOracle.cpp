//===- OffloadOracle.cpp --------------------------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Testing/OffloadOracle.h"

#include "remat/Solver/Core/Simulator.h"

#include <algorithm>
#include <functional>

namespace remat {

namespace {

/// The program's runs with the forward nodes in `again` re-run once, each
/// right before the first backward node that reads one of their outputs
/// (after what they need re-run themselves).
std::vector<NodeId> recomputeOrder(const TrainingGraph &g,
                                   const std::vector<char> &again) {
  std::vector<NodeId> runs, order = g.defaultOrder();
  std::vector<char> redone(g.numNodes(), 0);
  std::function<void(NodeId)> redo = [&](NodeId n) {
    if (redone[n])
      return;
    redone[n] = 1;
    for (TensorId t : g.node(n).inputs) {
      NodeId p = g.tensor(t).producer;
      if (p != kNone && again[p])
        redo(p);
    }
    runs.push_back(n);
  };
  for (NodeId n : order) {
    if (!g.isForward(n))
      for (TensorId t : g.node(n).inputs) {
        NodeId p = g.tensor(t).producer;
        if (p != kNone && again[p])
          redo(p);
      }
    runs.push_back(n);
  }
  return runs;
}

/// A stretch where a tensor may stay on the host: offloaded after run
/// `from`, read again by run `to`; `prefetchAt` in (from, to] or -1. A
/// result leaving for good: `to` is kLeaves, its one choice an offload.
constexpr long kLeaves = -2;
struct Stay {
  TensorId tensor;
  long from, to;
};

std::vector<Stay> staysOf(const TrainingGraph &g,
                          const std::vector<NodeId> &runs,
                          bool resultsMayLeave) {
  std::vector<Stay> stays;
  for (TensorId t = 0; t < g.numTensors(); ++t) {
    if (g.isInput(t))
      continue;
    if (g.isRequired(t)) {
      if (!resultsMayLeave)
        continue;
      long last = -1; // After its last use, a result may leave.
      for (long i = 0; i < static_cast<long>(runs.size()); ++i) {
        const Node &n = g.node(runs[i]);
        if (std::count(n.inputs.begin(), n.inputs.end(), t) ||
            std::count(n.outputs.begin(), n.outputs.end(), t))
          last = i;
      }
      if (last >= 0)
        stays.push_back({t, last, kLeaves});
      continue;
    }
    long last = -1; // The last run that produced or read t.
    for (long i = 0; i < static_cast<long>(runs.size()); ++i) {
      const Node &n = g.node(runs[i]);
      bool reads = std::count(n.inputs.begin(), n.inputs.end(), t) > 0;
      bool writes = std::count(n.outputs.begin(), n.outputs.end(), t) > 0;
      if (reads && !writes && last >= 0)
        stays.push_back({t, last, i});
      if (reads || writes)
        last = i;
    }
  }
  return stays;
}

} // namespace

namespace {

using Judge = std::function<void(Schedule &, const SimulationResult &)>;

/// The distinct run orders to enumerate copies for: each subset of the
/// recomputable forward nodes run again, and the given schedules' runs;
/// none when there are too many subsets.
std::optional<std::vector<std::vector<NodeId>>>
runOrdersOf(const TrainingGraph &g, const std::vector<Schedule> &runOrders) {
  std::vector<std::vector<NodeId>> orders;
  std::vector<NodeId> candidates;
  for (NodeId n = 0; n < g.numNodes(); ++n)
    if (g.isForward(n) && g.node(n).recomputable)
      candidates.push_back(n);
  if (candidates.size() > 12)
    return std::nullopt;
  for (unsigned mask = 0; mask < (1u << candidates.size()); ++mask) {
    std::vector<char> again(g.numNodes(), 0);
    for (size_t k = 0; k < candidates.size(); ++k)
      again[candidates[k]] = (mask >> k) & 1;
    orders.push_back(recomputeOrder(g, again));
  }
  for (const Schedule &s : runOrders) {
    std::vector<NodeId> runs;
    for (const Step &st : s.steps())
      if (st.isRun())
        runs.push_back(st.id);
    orders.push_back(std::move(runs));
  }
  std::sort(orders.begin(), orders.end());
  orders.erase(std::unique(orders.begin(), orders.end()), orders.end());
  return orders;
}

/// Each order's stays, into `staysPerOrder`; false when the space holds more
/// than `maxPlans` plans. Counted first: the space is the product of (1 +
/// prefetch positions), times at most (1 + the await positions of every
/// stay).
bool staysWithin(const TrainingGraph &g,
                 const std::vector<std::vector<NodeId>> &orders,
                 long maxPlans, bool resultsMayLeave, bool awaits,
                 std::vector<std::vector<Stay>> &staysPerOrder) {
  long total = 0;
  for (const std::vector<NodeId> &runs : orders) {
    staysPerOrder.push_back(staysOf(g, runs, resultsMayLeave));
    long plans = 1, awaitChoices = 1;
    for (const Stay &s : staysPerOrder.back()) {
      const long span =
          (s.to == kLeaves ? static_cast<long>(runs.size()) - 1 : s.to) -
          s.from;
      plans *= s.to == kLeaves ? 2 : 1 + (s.to - s.from);
      awaitChoices += awaits ? span : 0;
      if (plans > maxPlans || plans * awaitChoices > maxPlans)
        return false;
    }
    plans *= awaitChoices;
    total += plans;
    if (total > maxPlans)
      return false;
  }
  return true;
}

/// Judges every plan of these copies with no Await, or one: before any run
/// after an offload, up to its prefetch's.
void judgeAwaits(const TrainingGraph &g, const SimulatorOptions &so,
                 const std::vector<NodeId> &runs,
                 const std::vector<Stay> &stays,
                 const std::vector<long> &prefetchAt, bool awaits,
                 const Judge &judge) {
  const long numRuns = static_cast<long>(runs.size());
  const long awaitable = awaits ? static_cast<long>(stays.size()) : 0;
  for (long awaited = -1; awaited < awaitable; ++awaited) {
    if (awaited >= 0 && prefetchAt[awaited] < 0)
      continue;
    const long from = awaited < 0 ? numRuns : stays[awaited].from + 1;
    const long last =
        awaited < 0 ? numRuns : std::min(prefetchAt[awaited], numRuns - 1);
    for (long at = awaited < 0 ? -1 : from; at <= last; ++at) {
      Schedule s;
      for (long i = 0; i < numRuns; ++i) {
        if (i == at)
          s.steps().push_back(Step::await(stays[awaited].tensor));
        for (size_t k = 0; k < stays.size(); ++k)
          if (prefetchAt[k] == i)
            s.prefetch(stays[k].tensor);
        s.run(runs[i]);
        for (size_t k = 0; k < stays.size(); ++k)
          if (prefetchAt[k] >= 0 && stays[k].from == i)
            s.offload(stays[k].tensor);
      }
      Schedule plan = s.withEagerFrees(g);
      judge(plan, simulate(g, plan, so));
      if (awaited < 0)
        break;
    }
  }
}

/// Steps to the next combination of copies: each stay off, or prefetched
/// before from+1..to (a result leaving: off, or offloaded with no
/// prefetch); false after the last.
bool nextCopies(const std::vector<Stay> &stays, size_t numRuns,
                std::vector<long> &prefetchAt) {
  size_t k = 0;
  for (; k < stays.size(); ++k) {
    long &p = prefetchAt[k];
    if (stays[k].to == kLeaves) {
      if (p < 0) {
        p = numRuns; // Offloaded; no run is that late.
        break;
      }
      p = -1;
      continue;
    }
    p = p < 0 ? stays[k].from + 1 : p + 1;
    if (p <= stays[k].to)
      break;
    p = -1;
  }
  return k != stays.size();
}

/// Calls `judge` with every plan of the space and its simulation; false
/// when the space holds more than `maxPlans` plans (nothing is judged).
bool enumeratePlans(const TrainingGraph &g, const CopyLink &link,
                    const std::vector<Schedule> &runOrders, long maxPlans,
                    bool resultsMayLeave, bool awaits, const Judge &judge) {
  std::optional<std::vector<std::vector<NodeId>>> orders =
      runOrdersOf(g, runOrders);
  if (!orders)
    return false;
  std::vector<std::vector<Stay>> staysPerOrder;
  if (!staysWithin(g, *orders, maxPlans, resultsMayLeave, awaits,
                   staysPerOrder))
    return false;

  SimulatorOptions so;
  so.link = link;
  // The given schedules themselves: their copies may be issued in an order
  // the enumeration below does not make (by tensor, after one run).
  for (const Schedule &s : runOrders) {
    Schedule plan = s.withEagerFrees(g);
    judge(plan, simulate(g, plan, so));
  }
  for (size_t o = 0; o < orders->size(); ++o) {
    const std::vector<NodeId> &runs = (*orders)[o];
    const std::vector<Stay> &stays = staysPerOrder[o];
    std::vector<long> prefetchAt(stays.size(), -1); // -1: stays on device.
    do
      judgeAwaits(g, so, runs, stays, prefetchAt, awaits, judge);
    while (nextCopies(stays, runs.size(), prefetchAt));
  }
  return true;
}

} // namespace

std::optional<OffloadOracleResult>
offloadOracle(const TrainingGraph &g, int64_t budget, const CopyLink &link,
              const std::vector<Schedule> &runOrders, long maxPlans,
              bool resultsMayLeave, bool awaits) {
  OffloadOracleResult best;
  auto judge = [&](Schedule &plan, const SimulationResult &r) {
    ++best.simulated;
    if (r.valid && r.peak <= budget && (!best.feasible || r.time < best.time)) {
      best.feasible = true;
      best.time = r.time;
      best.schedule = std::move(plan);
    }
  };
  if (!enumeratePlans(g, link, runOrders, maxPlans, resultsMayLeave, awaits,
                      judge))
    return std::nullopt;
  return best;
}

std::optional<std::vector<std::pair<int64_t, double>>>
offloadOracleFrontier(const TrainingGraph &g, const CopyLink &link,
                      const std::vector<Schedule> &runOrders, long maxPlans,
                      bool resultsMayLeave, bool awaits) {
  std::vector<std::pair<int64_t, double>> points;
  auto judge = [&](Schedule &, const SimulationResult &r) {
    if (r.valid)
      points.emplace_back(r.peak, r.time);
  };
  if (!enumeratePlans(g, link, runOrders, maxPlans, resultsMayLeave, awaits,
                      judge))
    return std::nullopt;
  // Keep the points no other beats on both peak and time.
  std::sort(points.begin(), points.end());
  std::vector<std::pair<int64_t, double>> front;
  for (const auto &p : points)
    if (front.empty() || p.second < front.back().second)
      front.push_back(p);
  return front;
}

} // namespace remat
