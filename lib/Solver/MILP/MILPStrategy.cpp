//===- MILPStrategy.cpp - The checkmate-milp strategy ---------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Solves the Checkmate MILP (CheckmateMILP.h) with CBC, warm-started from
// the best lower-set plan, else evict-greedy's (or the caller's
// SolveOptions::warmStart), in that
// plan's first-computation order so that the plan is the solver's first
// incumbent: the answer is never worse than it. Reports the proven bound and
// the gap.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/MILP/MILPStrategies.h"
#include "remat/Solver/MILP/CheckmateMILP.h"

#include <cmath>
#include <cstdio>

namespace remat {
namespace {

/// Beyond this many nodes the model (about n^2 / 2 binaries and n^2 rows
/// of memory) is too large for CBC to make progress in minutes.
constexpr int kMaxNodes = 250;

std::string percent(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f %%", 100 * v);
  return buf;
}

/// The caller's warm start, or the first of kMILPWarmStarts' plans within
/// budget.
std::optional<Schedule> warmStart(const TrainingGraph &g,
                                  const SolveOptions &opts) {
  if (opts.warmStart)
    return *opts.warmStart;
  SolveOptions quiet = opts;
  quiet.note = nullptr;
  for (const std::string &strategy : kMILPWarmStarts)
    if (Solution s = solve(g, strategy, quiet); s.feasible)
      return s.schedule;
  return std::nullopt;
}

/// The program itself where it fits: every node runs at least once in any
/// schedule (the Simulator requires it) and no time is negative, so running
/// each once is optimal, over all schedules, not just the model's. CBC took
/// 4.4 s to prove that on the 90-node ResNet (its root LP).
std::optional<StrategyResult> wholeProgram(const TrainingGraph &g,
                                           const SolveOptions &opts) {
  Schedule all = keepEverythingSchedule(g);
  SimulationResult sim = simulate(g, all);
  if (!sim.valid || sim.peak > opts.budget)
    return std::nullopt;
  StrategyResult res;
  res.feasible = true;
  res.schedule = std::move(all);
  res.bound = sim.time;
  res.gap = 0;
  if (opts.note)
    opts.note("checkmate-milp: optimal (the budget holds the whole program, "
              "each node runs once)");
  return res;
}

} // namespace

namespace {

/// checkmate-milp, with sized parts or without (parts empty).
SizedStrategyResult solveMILP(const TrainingGraph &g,
                              const std::vector<SizedPart> &parts,
                              const SolveOptions &opts,
                              std::vector<int> warmPicks) {
  SizedStrategyResult out;
  StrategyResult &res = out.result;
  if (g.numNodes() > kMaxNodes) {
    res.reason = "checkmate-milp: the graph has " +
                 std::to_string(g.numNodes()) + " nodes, more than the " +
                 std::to_string(kMaxNodes) +
                 " its model handles; use auto or lowerset-approx";
    return out;
  }
  if (parts.empty()) {
    if (std::optional<StrategyResult> all = wholeProgram(g, opts)) {
      out.result = std::move(*all);
      return out;
    }
  } else if (warmPicks.size() != parts.size()) {
    warmPicks.assign(parts.size(), 0);
  }
  // The warm start is a schedule of the graph at the warm choices.
  const TrainingGraph warmGraph = withSizes(g, parts, warmPicks);
  std::optional<Schedule> warm = warmStart(warmGraph, opts);
  CheckmateOptions co;
  co.budget = opts.budget == kUnlimitedBudget
                  ? simulate(warmGraph, keepEverythingSchedule(warmGraph)).peak
                  : opts.budget;
  co.seconds = opts.milpSeconds;
  co.maxNodes = opts.milpNodes;
  if (warm) {
    co.warmStart = &*warm;
    co.order = firstComputationOrder(g, *warm);
  }
  if (!parts.empty()) {
    co.sized = &parts;
    co.warmPicks = warmPicks;
  }
  std::unique_ptr<milp::Backend> cbc = milp::createCbcBackend();
  CheckmateResult r = solveCheckmate(g, co, *cbc);
  if (!r.schedule) {
    res.reason = r.status == milp::Status::Infeasible
                     ? "checkmate-milp: no schedule of its model fits the "
                       "budget (proven)"
                     : "checkmate-milp: no schedule found within " +
                           std::to_string(opts.milpSeconds) + " s";
    return out;
  }
  res.feasible = true;
  res.schedule = std::move(*r.schedule);
  out.picks = std::move(r.picks);
  if (r.bound >= 0) {
    res.bound = std::min(r.bound, r.time);
    res.gap = r.time > 0 ? std::max(0.0, (r.time - r.bound) / r.time) : 0;
  }
  if (opts.note) {
    std::string what = r.status == milp::Status::Optimal
                           ? "optimal"
                           : "search limit reached, gap " +
                                 (res.gap >= 0 ? percent(res.gap)
                                               : std::string("unknown"));
    opts.note("checkmate-milp: " + what + " (" + std::to_string(r.columns) +
              " columns, " + std::to_string(r.rows) + " rows" +
              (r.warmStartUsed ? ", warm-started" : "") +
              (parts.empty() ? "" : ", sizes chosen in the model") + ")");
  }
  return out;
}

} // namespace

StrategyResult solveCheckmateMILP(const TrainingGraph &g,
                                  const SolveOptions &opts) {
  return solveMILP(g, {}, opts, {}).result;
}

SizedStrategyResult solveCheckmateMILPSized(const TrainingGraph &g,
                                            const std::vector<SizedPart> &parts,
                                            const SolveOptions &opts,
                                            const std::vector<int> &warmPicks) {
  return solveMILP(g, parts, opts, warmPicks);
}

} // namespace remat
