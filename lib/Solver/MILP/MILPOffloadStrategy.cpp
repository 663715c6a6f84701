//===- MILPOffloadStrategy.cpp - checkmate-milp-offload -------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The Checkmate MILP with host copies as a third state (CheckmateMILP.h,
// CheckmateOptions::link), warm-started from the recompute-only MILP's plan
// in that plan's first-computation order. The model times copies per stage,
// coarser than the Simulator, so the answer is the fastest of three plans
// the Simulator puts within budget: the model's, the recompute-only MILP's
// (never worse than it) and offload-greedy's (whose finer copy positions the
// stage boundaries cannot always express).
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/MILP/CheckmateMILP.h"
#include "remat/Solver/MILP/MILPStrategies.h"

namespace remat {

namespace {

/// As checkmate-milp's: the model has about three times its binaries.
constexpr int kMaxOffloadNodes = 250;

} // namespace

StrategyResult solveCheckmateMILPOffload(const TrainingGraph &g,
                                         const SolveOptions &opts) {
  StrategyResult res;
  if (!opts.link.usable()) {
    res.reason = "checkmate-milp-offload needs a copy link with positive "
                 "bandwidths and a non-negative latency";
    return res;
  }
  if (g.numNodes() > kMaxOffloadNodes) {
    res.reason = "checkmate-milp-offload: the graph has " +
                 std::to_string(g.numNodes()) + " nodes, more than the " +
                 std::to_string(kMaxOffloadNodes) + " its model handles";
    return res;
  }
  SimulatorOptions so;
  so.link = opts.link;
  Schedule program = keepEverythingSchedule(g);
  if (SimulationResult sim = simulate(g, program, so);
      sim.valid && sim.peak <= opts.budget) {
    res.feasible = true; // Each node once, nothing to copy: optimal.
    res.schedule = std::move(program);
    res.bound = sim.time;
    res.gap = 0;
    return res;
  }
  SolveOptions quiet = opts;
  quiet.note = nullptr;
  StrategyResult recompute = solveCheckmateMILP(g, quiet);
  Solution greedy = solve(g, "offload-greedy", quiet);
  // With results leaving, greedy's plan with them staying is a candidate
  // too (its rule, not the space, makes the two differ).
  Solution greedyStaying;
  if (opts.offloadResults) {
    SolveOptions staying = quiet;
    staying.offloadResults = false;
    greedyStaying = solve(g, "offload-greedy", staying);
  }

  CheckmateOptions co;
  co.budget = opts.budget;
  co.seconds = opts.milpSeconds;
  co.maxNodes = opts.milpNodes;
  co.link = &opts.link;
  co.hostBudget = opts.hostBudget;
  co.resultsMayLeave = opts.offloadResults;
  // Below the recompute floor the model starts from greedy's order (its
  // plan has copies, so it is a candidate, not an incumbent).
  const Schedule *warm = recompute.feasible ? &recompute.schedule
                         : greedy.feasible  ? &greedy.schedule
                                            : nullptr;
  if (warm) {
    co.warmStart = warm;
    co.order = firstComputationOrder(g, *warm);
  }
  std::unique_ptr<milp::Backend> cbc = milp::createCbcBackend();
  CheckmateResult r = solveCheckmate(g, co, *cbc);

  // The fastest plan the Simulator puts within budget; r's is checked
  // already, the others are checked again here.
  const char *won = nullptr;
  double best = 0;
  auto consider = [&](const Schedule &s, const char *name) {
    SimulationResult sim = simulate(g, s, so);
    if (!sim.valid || sim.peak > opts.budget ||
        sim.hostPeak > opts.hostBudget || (won && sim.time >= best))
      return;
    won = name;
    best = sim.time;
    res.schedule = s;
  };
  // A model proven infeasible hands back its warm start (greedy's plan,
  // considered below under its own name).
  if (r.schedule && r.status != milp::Status::Infeasible)
    consider(*r.schedule, "the model's plan");
  if (recompute.feasible)
    consider(recompute.schedule, "the recompute-only MILP's plan");
  if (greedy.feasible)
    consider(greedy.schedule, "offload-greedy's plan");
  if (greedyStaying.feasible)
    consider(greedyStaying.schedule,
             "offload-greedy's plan with the results staying");
  if (!won) {
    res.reason = r.status == milp::Status::Infeasible
                     ? "checkmate-milp-offload: no schedule of its model fits "
                       "the budget (proven)"
                     : "checkmate-milp-offload: no schedule found within " +
                           std::to_string(opts.milpSeconds) + " s";
    return res;
  }
  res.feasible = true;
  if (opts.note)
    opts.note(std::string("checkmate-milp-offload: ") +
              (r.status == milp::Status::Optimal ? "model optimal"
               : r.status == milp::Status::Infeasible
                   ? "no plan of its model fits (proven)"
                   : "search limit reached") +
              " (" + std::to_string(r.columns) + " columns, " +
              std::to_string(r.rows) + " rows); returns " + won);
  return res;
}

} // namespace remat
