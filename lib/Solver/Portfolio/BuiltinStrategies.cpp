//===- BuiltinStrategies.cpp - Every family's strategies, and auto --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The one place that lists the families. Their ranks, not this order, fix
// the order of listings and auto's tie-break.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Baselines/BaselineStrategies.h"
#include "remat/Solver/Chain/ChainStrategies.h"
#include "remat/Solver/Evict/EvictStrategies.h"
#include "remat/Solver/Join/JoinStrategies.h"
#include "remat/Solver/LowerSet/LowerSetStrategies.h"
#include "remat/Solver/MILP/MILPStrategies.h"
#include "remat/Solver/Offload/OffloadStrategies.h"
#include "remat/Solver/Portfolio/Auto.h"
#include "remat/Solver/Portfolio/Monotone.h"

namespace remat {

namespace {

StrategyOption timeBudgetOption() {
  StrategyOption o;
  o.name = "time-budget";
  o.valueName = "seconds";
  o.help = "auto: the seconds its strategies' estimated run times may add "
           "up to; the others are skipped with a note";
  o.field = &SolveOptions::timeBudget;
  o.min = 0;
  o.unit = "seconds";
  return o;
}

} // namespace

void registerPortfolioStrategies(StrategyRegistry &registry) {
  StrategyDescriptor d;
  d.name = "auto";
  d.description = "run every applicable strategy, keep the fastest schedule "
                  "within budget";
  d.run = solveAuto;
  d.rank = 150;
  d.options = {timeBudgetOption()};
  d.budgetSearch.portfolio = true;
  registry.add(std::move(d));

  StrategyDescriptor m;
  m.name = "auto-monotone";
  m.description = "the fastest fitting plan of a family fixed per graph "
                  "(evict-ladder's plans, auto's plan at its smallest "
                  "budget): a larger budget never gives a slower plan or a "
                  "lower peak";
  m.run = solveAutoMonotone;
  m.rank = 155;
  m.budgetSearch.monotone = true;
  m.budgetSearch.floor = autoMonotoneFloor;
  registry.add(std::move(m));
}

void registerBuiltinStrategies(StrategyRegistry &registry) {
  registerBaselineStrategies(registry);
  registerChainStrategies(registry);
  registerJoinStrategies(registry);
  registerLowerSetStrategies(registry);
  registerMILPStrategies(registry);
  registerEvictStrategies(registry);
  registerOffloadStrategies(registry);
  registerPortfolioStrategies(registry);
}

} // namespace remat
