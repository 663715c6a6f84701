//===- MILPStrategies.cpp - The descriptor of checkmate-milp --------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/MILP/MILPStrategies.h"

#include <algorithm>

namespace remat {

namespace {

/// auto runs checkmate-milp on graphs of at most this many nodes, exploring
/// at most kAutoMILPSearchNodes branch-and-bound nodes, and for at most
/// kAutoMILPSeconds: on 30-node steps the clock limit is what usually stops
/// it (the root's cuts dominate), so only there may its answer depend on the
/// machine's speed.
constexpr int kAutoMILPMaxNodes = 40;
constexpr int64_t kAutoMILPSearchNodes = 1000;
constexpr double kAutoMILPSeconds = 2;

StrategyOption secondsOption() {
  StrategyOption o;
  o.name = "milp-seconds";
  o.valueName = "seconds";
  o.help = "checkmate-milp: the MILP solver's time limit in seconds (the "
           "best schedule found by then is returned, with its bound and gap)";
  o.field = &SolveOptions::milpSeconds;
  o.min = 0;
  o.minExclusive = true;
  o.unit = "seconds";
  return o;
}

} // namespace

bool autoRunsMILP(const TrainingGraph &g, const SolveOptions &opts) {
  return opts.autoMILP && g.numNodes() <= kAutoMILPMaxNodes;
}

SolveOptions autoMILPOptions(const SolveOptions &opts) {
  SolveOptions o = opts;
  o.milpNodes = kAutoMILPSearchNodes;
  o.milpSeconds = std::min(opts.milpSeconds, kAutoMILPSeconds);
  return o;
}

void registerMILPStrategies(StrategyRegistry &registry) {
  StrategyDescriptor d;
  d.name = "checkmate-milp";
  d.description = "Checkmate's MILP solved by CBC (exact for its order; "
                  "recomputes anywhere, reports a bound)";
  d.run = solveCheckmateMILP;
  d.runSized = solveCheckmateMILPSized;
  d.rank = 130;
  d.options = {secondsOption()};
  // Small graphs: the exact MILP, warm-started from auto's best plan (so
  // never worse than it), also finds schedules that recompute during the
  // forward pass or more than once, and budgets no structured strategy
  // meets. A node limit, not the clock, bounds its search there.
  d.autoRole.refines = autoRunsMILP;
  d.autoRole.refineOptions = autoMILPOptions;
  // A solve at an infeasible budget runs to its time limit (a fuzzed
  // refusal took 2 minutes): its warm starts meet every budget their own
  // searches find, and a few short probes go lower.
  d.budgetSearch.searchVia = kMILPWarmStarts;
  d.budgetSearch.probes = kMinimumBudgetMILPProbes;
  d.budgetSearch.probeOptions = [](const SolveOptions &o) {
    SolveOptions m = o;
    m.milpSeconds = std::min(m.milpSeconds, kMinimumBudgetMILPSeconds);
    return m;
  };
  // Only where auto runs it: on larger graphs a 0.2 s probe spends its time
  // in CLP's root LP, which the limit does not interrupt (1.2-1.5 s on the
  // 90-node ResNet), and finds nothing.
  d.budgetSearch.probesHelp = [](const TrainingGraph &g) {
    return g.numNodes() <= kAutoMILPMaxNodes;
  };
  const BudgetSearchRole milpSearch = d.budgetSearch;
  registry.add(std::move(d));

  StrategyDescriptor o;
  o.name = "checkmate-milp-offload";
  o.description = "checkmate-milp with host memory as a third state (copies "
                  "timed per stage on the link); not run by auto";
  o.run = solveCheckmateMILPOffload;
  o.rank = 146;
  o.options = {secondsOption()};
  o.plansHostCopies = true;
  // Its plan is never slower than either of these, so it meets every
  // budget their searches find; checkmate-milp's short probes go lower.
  o.budgetSearch = milpSearch;
  o.budgetSearch.searchVia = {"checkmate-milp", "offload-greedy"};
  registry.add(std::move(o));
}

} // namespace remat
