//===- GiveBack.cpp - Undo the recomputations a budget does not need ------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// giveBackRecomputations(): see Eviction.h. The replay keeps values that
// only recomputations read "while memory allows", so near the program's
// peak it frees live values the eager program would not have needed to
// free: on GPT-2's step, 1/64 under the peak, its schedule peaks just under
// the budget but the same runs with eager frees peak 16 % lower, having
// recomputed 43 values for nothing. Here each recomputation is taken back in
// turn (the most time per byte first): the earlier result stays stored
// until the reads that the recomputation served, and recomputations that
// only fed it go too; the Simulator keeps the change when the eager peak
// stays within the budget.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Evict/Eviction.h"
#include "remat/Solver/Core/Simulator.h"

#include <algorithm>

namespace remat {

namespace {

/// Each try simulates the whole schedule: at most this many tries, and at
/// most this many simulated steps in all (a 30,000-step plan: 33 tries).
constexpr int kMaxTries = 64;
constexpr int64_t kSimulatedStepsAllowance = 1000000;

/// Clears `alive` for runs whose outputs nothing reads before their node
/// runs again (or at the end, for required outputs), where the node runs
/// elsewhere too. One backward walk: a run dropped reads nothing, so the
/// runs before it that fed only it are dropped as well.
void dropUnreadRuns(const TrainingGraph &g, const std::vector<NodeId> &runs,
                    std::vector<char> &alive) {
  std::vector<int> count(g.numNodes(), 0);
  for (size_t i = 0; i < runs.size(); ++i)
    count[runs[i]] += alive[i];
  std::vector<char> needed(g.numTensors(), 0);
  for (TensorId t = 0; t < g.numTensors(); ++t)
    needed[t] = g.isRequired(t);
  for (size_t i = runs.size(); i-- > 0;) {
    if (!alive[i])
      continue;
    const Node &node = g.node(runs[i]);
    bool read = false;
    for (TensorId o : node.outputs)
      read = read || needed[o];
    if (!read && count[runs[i]] > 1) {
      alive[i] = 0;
      --count[runs[i]];
      continue;
    }
    for (TensorId o : node.outputs)
      needed[o] = 0;
    for (TensorId t : node.inputs)
      needed[t] = 1;
  }
}

Schedule eagerSchedule(const TrainingGraph &g, const std::vector<NodeId> &runs,
                       const std::vector<char> &alive) {
  Schedule s;
  for (size_t i = 0; i < runs.size(); ++i)
    if (alive[i])
      s.run(runs[i]);
  return s.withEagerFrees(g);
}

} // namespace

Schedule giveBackRecomputations(const TrainingGraph &g, const Schedule &plan,
                                int64_t budget,
                                const SimulatorOptions &simOptions) {
  std::vector<NodeId> runs;
  for (const Step &s : plan.steps()) {
    if (s.isCopy() || s.isAwait() || (s.isRun() && !s.discard.empty()))
      return plan; // Not a plan of runs and frees alone.
    if (s.isRun())
      runs.push_back(s.id);
  }
  std::vector<char> alive(runs.size(), 1);
  dropUnreadRuns(g, runs, alive);
  Schedule best = eagerSchedule(g, runs, alive);
  SimulationResult bestSim = simulate(g, best, simOptions);
  if (!bestSim.valid || bestSim.peak > budget)
    return plan;

  // The recomputations, the most time per byte first; views (zero bytes)
  // are not taken back: one kept while its source is recomputed would keep
  // the old buffer alive in the IR. Nor are runs that take no time.
  std::vector<char> seen(g.numNodes(), 0);
  std::vector<size_t> reruns;
  std::vector<int64_t> bytes(runs.size(), 0);
  for (size_t i = 0; i < runs.size(); ++i) {
    for (TensorId o : g.node(runs[i]).outputs)
      bytes[i] += g.tensor(o).bytes;
    if (seen[runs[i]] && bytes[i] > 0 && g.node(runs[i]).time > 0)
      reruns.push_back(i);
    seen[runs[i]] = 1;
  }
  auto perByte = [&](size_t i) {
    return g.node(runs[i]).time / static_cast<double>(bytes[i]);
  };
  std::stable_sort(reruns.begin(), reruns.end(), [&](size_t a, size_t b) {
    return perByte(a) > perByte(b);
  });

  // A run is a recomputation while an earlier run of its node is kept.
  std::vector<size_t> firstRun(g.numNodes(), runs.size());
  auto findFirstRuns = [&] {
    std::fill(firstRun.begin(), firstRun.end(), runs.size());
    for (size_t i = runs.size(); i-- > 0;)
      if (alive[i])
        firstRun[runs[i]] = i;
  };
  findFirstRuns();
  int tries = 0;
  int64_t simulated = 0;
  for (size_t i : reruns) {
    if (!alive[i] || firstRun[runs[i]] >= i)
      continue;
    if (++tries > kMaxTries || simulated > kSimulatedStepsAllowance)
      break;
    std::vector<char> trial = alive;
    trial[i] = 0;
    dropUnreadRuns(g, runs, trial);
    Schedule s = eagerSchedule(g, runs, trial);
    SimulationResult sim = simulate(g, s, simOptions);
    simulated += static_cast<int64_t>(s.size());
    if (!sim.valid || sim.peak > budget || sim.time >= bestSim.time)
      continue; // Memory taken for nothing gained is not given.
    alive = std::move(trial);
    best = std::move(s);
    bestSim = std::move(sim);
    findFirstRuns();
  }
  return best;
}

} // namespace remat
