//===- AutoStrategy.cpp - Cheapest schedule over all strategies -----------===//
//
// Runs every other registered strategy through solve() (so each schedule is
// checked by the Simulator against the budget) and keeps the fastest one;
// ties go to the lower peak, then to the earlier strategy in the registry.
// Strategies that do not apply to the graph (chain ones on a DAG) simply come
// back infeasible. Only the winner's notes are passed on.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Strategies.h"

namespace remat {

StrategyResult solveAuto(const TrainingGraph &g, const SolveOptions &opts) {
  StrategyResult best;
  SimulationResult bestSim;
  std::vector<std::string> bestNotes;
  std::string reasons;
  for (const StrategyInfo &info : allStrategies()) {
    if (info.name == "auto")
      continue;
    std::vector<std::string> notes;
    SolveOptions o = opts;
    o.note = [&notes](const std::string &n) { notes.push_back(n); };
    Solution s = solve(g, info.name, o);
    if (!s.feasible) {
      reasons += (reasons.empty() ? "" : "; ") + info.name + ": " + s.reason;
      continue;
    }
    bool better = !best.feasible || s.sim.time < bestSim.time ||
                  (s.sim.time == bestSim.time && s.sim.peak < bestSim.peak);
    if (!better)
      continue;
    best.feasible = true;
    best.schedule = std::move(s.schedule);
    best.chosen = s.chosen;
    best.reason = s.reason;
    bestSim = s.sim;
    bestNotes = std::move(notes);
  }
  if (!best.feasible) {
    best.reason = "no strategy meets the budget (" + reasons + ")";
    return best;
  }
  if (opts.note)
    for (const std::string &n : bestNotes)
      opts.note(n);
  return best;
}

} // namespace remat
