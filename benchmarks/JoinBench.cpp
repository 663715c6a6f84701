//===- JoinBench.cpp - join DP and chain-precise timings ------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// join: the paper's Siamese (2L, 2L, 2L) and cross-modal (L, 5L) joins at
// L = 15 (its largest), unit sizes in the Simulator's model, at c_min + 2,
// half the no-remat peak and the no-remat peak; plus a heterogeneous
// Siamese join in bytes (500 slots). chain-precise: heterogeneous chains of
// a few hundred stages (rotor notation, bytes, 500 slots) at half the
// no-remat peak, and the thesis-model chain (a one-branch join).
//
// Run: remat-bench-JoinBench --benchmark_repetitions=5
//        --benchmark_report_aggregates_only=true
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Join/Join.h"
#include "remat/Solver/Chain/PreciseChain.h"
#include "remat/Solver/Testing/RandomGraphs.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/Strategy.h"

#include <benchmark/benchmark.h>

using namespace remat;

namespace {

int64_t noRematPeak(const TrainingGraph &g) {
  return simulate(g, keepEverythingSchedule(g)).peak;
}

/// Times solve() (strategy + Simulator check); reports the budget and the
/// schedule's time over the no-recomputation time.
void report(benchmark::State &state, const TrainingGraph &g,
            const std::string &strategy, const SolveOptions &o) {
  Solution s = solve(g, strategy, o);
  if (!s.feasible) {
    state.SkipWithError(s.reason.c_str());
    return;
  }
  for (auto _ : state)
    benchmark::DoNotOptimize(solve(g, strategy, o).sim.time);
  state.counters["budget"] = static_cast<double>(o.budget);
  state.counters["time/base"] = s.sim.time / g.baseTime();
}

/// Memory point 0: c_min + 2, 1: half the no-remat peak, 2: no-remat peak.
void runJoin(benchmark::State &state, const std::vector<int> &lengths) {
  JoinGraph jg = buildJoinGraph(JoinSpec::uniform(lengths));
  int64_t peak = noRematPeak(jg.graph);
  int64_t budgets[] = {joinMinimumBytesUnit(lengths) + 2, peak / 2, peak};
  SolveOptions o;
  o.budget = budgets[state.range(0)];
  report(state, jg.graph, "join", o);
}

void BM_JoinSiamese(benchmark::State &state) { runJoin(state, {30, 30, 30}); }
void BM_JoinCrossModal(benchmark::State &state) { runJoin(state, {15, 75}); }
BENCHMARK(BM_JoinSiamese)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_JoinCrossModal)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);

/// A heterogeneous Siamese join (3 x 20 stages, MB-sized tensors) in bytes.
void BM_JoinSiameseBytes(benchmark::State &state) {
  RandomCostOptions co;
  co.maxBytes = 1 << 20;
  co.maxTime = 20;
  co.maxWorkspace = 1 << 18;
  std::vector<ChainSpec> chains;
  for (int j = 0; j < 3; ++j)
    chains.push_back(randomChain(100 + j, 20, co));
  JoinGraph jg = buildJoinGraph(joinFromChains(chains, 5, 1 << 16));
  SolveOptions o;
  o.budget = noRematPeak(jg.graph) * state.range(0) / 100;
  o.slots = 500;
  report(state, jg.graph, "join", o);
}
BENCHMARK(BM_JoinSiameseBytes)->Arg(30)->Arg(60)->Unit(benchmark::kMillisecond);

/// chain-precise on a rotor chain of range(0) stages, 500 slots, half the
/// no-remat peak (the DP alone; expansion is the chain view's).
void BM_ChainPrecise(benchmark::State &state) {
  RandomCostOptions co;
  co.maxBytes = 1 << 20;
  co.maxTime = 20;
  co.maxExtra = 1 << 20;
  co.maxWorkspace = 1 << 19;
  ChainSpec spec = randomChain(7, static_cast<int>(state.range(0)), co);
  int64_t budget = noRematPeak(buildChainGraph(spec).graph) / 2;
  for (auto _ : state) {
    ChainPlan p = preciseChainPlan(spec, budget, 500);
    if (!p.feasible)
      state.SkipWithError(p.reason.c_str());
    benchmark::DoNotOptimize(p.time);
  }
}
BENCHMARK(BM_ChainPrecise)->Arg(100)->Arg(200)->Arg(339)
    ->Unit(benchmark::kMillisecond);

/// chain-precise through solve() on the thesis-model chain (a one-branch
/// join of range(0) steps), 500 slots, half the no-remat peak.
void BM_ChainPreciseThesisModel(benchmark::State &state) {
  RandomCostOptions co;
  co.maxBytes = 1 << 20;
  co.maxTime = 20;
  co.maxWorkspace = 1 << 19;
  JoinGraph jg = buildJoinGraph(joinFromChains(
      {randomChain(11, static_cast<int>(state.range(0)), co)}, 5));
  SolveOptions o;
  o.budget = noRematPeak(jg.graph) / 2;
  report(state, jg.graph, "chain-precise", o);
}
BENCHMARK(BM_ChainPreciseThesisModel)->Arg(200)->Arg(339)
    ->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
