//===- AutoBench.cpp - auto on function-sized graphs ----------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Issue 4's target: -remat-rematerialize on a 10,000-op function in under
// 2 s, analysis and rewriting included, so `auto` must stay well below.
// `benchmarks/pass/gen_deep_resnet.py --ops 10000` exported with
// -remat-prepare gives 3,456 planner nodes (1,346 forward); resnetLike(3500)
// has the same size and shape (bottleneck blocks, parameters, gradient
// accumulation), resnetLike(10000) and the others are larger stress cases.
// Budgets are percentages of the no-rematerialization peak. The label names
// the strategy auto picked.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Testing/ModelGraphs.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/Strategy.h"

#include <benchmark/benchmark.h>

using namespace remat;

namespace {

TrainingGraph graphOf(int64_t shape, int n) {
  return modelGraph(static_cast<ModelShape>(shape), n);
}

const char *kindName(int64_t shape) {
  return modelShapeName(static_cast<ModelShape>(shape));
}

/// args: graph kind, size, budget in percent of the no-remat peak.
void BM_Auto(benchmark::State &state) {
  TrainingGraph g = graphOf(state.range(0), state.range(1));
  SimulationResult none = simulate(g, keepEverythingSchedule(g));
  SolveOptions o;
  o.budget = none.peak * state.range(2) / 100;
  Solution s;
  for (auto _ : state) {
    s = solve(g, "auto", o);
    benchmark::DoNotOptimize(s.feasible);
  }
  state.SetLabel(std::string(kindName(state.range(0))) + " " +
                 (s.feasible ? s.chosen : "infeasible"));
  state.counters["nodes"] = g.numNodes();
  state.counters["overhead%"] =
      s.feasible ? 100 * (s.sim.time / none.time - 1) : -1;
  state.counters["peak%"] = s.feasible ? 100.0 * s.sim.peak / none.peak : -1;
}

BENCHMARK(BM_Auto)
    ->ArgsProduct({{int64_t(ModelShape::ResNet)}, {3500}, {80, 70, 60}})
    ->ArgsProduct({{0, 1, 2}, {10000}, {70}})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime();

} // namespace

BENCHMARK_MAIN();
