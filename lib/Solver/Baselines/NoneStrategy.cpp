//===- NoneStrategy.cpp - Keep every forward value ------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Baselines/BaselineStrategies.h"

namespace remat {

StrategyResult solveNone(const TrainingGraph &g, const SolveOptions &) {
  StrategyResult r;
  r.schedule = keepEverythingSchedule(g);
  r.feasible = true;
  return r;
}

} // namespace remat
