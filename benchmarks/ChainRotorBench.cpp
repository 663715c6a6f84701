//===- ChainRotorBench.cpp - Rotor's DPs on a ResNet-1001-like chain -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The rotor paper's worst case: ResNet-1001 as a chain of 339 stages, for
// which its C solver (Alg. 3, S = 500 slots) needed up to 20 s. The chain
// here has ResNet-1001's shape (He et al. 2016, CIFAR: a stem, 3 groups of
// 111 bottleneck blocks at 32x32x64, 16x16x128, 8x8x256 outputs, a head),
// batch 8, float32, with sizes and times drawn around those values from a
// fixed seed. Budgets are fractions of the no-remat peak.
//
//   remat-bench-ChainRotorBench --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Chain/ChainSolvers.h"
#include "remat/Solver/Core/Simulator.h"

#include <benchmark/benchmark.h>

#include <random>

using namespace remat;

namespace {

ChainSpec resnet1001Like(uint64_t seed = 1001) {
  std::mt19937_64 rng(seed);
  auto jitter = [&](double x, double pct) {
    double u = static_cast<double>(rng() % 2001) / 1000.0 - 1.0; // [-1, 1]
    return x * (1.0 + pct / 100.0 * u);
  };
  const int64_t batch = 8, fp = 4;
  ChainSpec c;
  c.a0 = c.delta0 = batch * fp * 3 * 32 * 32;
  auto stage = [&](int64_t elems, double ms, double abarFactor) {
    ChainStage s;
    s.a = s.delta =
        static_cast<int64_t>(jitter(double(batch * fp * elems), 10));
    s.abar = static_cast<int64_t>(jitter(s.a * abarFactor, 20));
    s.of = static_cast<int64_t>(jitter(s.a * 0.5, 50));
    s.ob = static_cast<int64_t>(jitter(s.a * 2.0, 30));
    s.uf = jitter(ms, 20);
    s.ub = jitter(2 * ms, 20);
    c.stages.push_back(s);
  };
  // Stem, 3 groups of 111 bottleneck blocks (3 conv/bn/relu, about 4.5 a
  // saved each) with a downsampling stage between groups, then bn-relu,
  // pooling and the classifier: 1 + 333 + 2 + 3 = 339 stages.
  stage(16 * 32 * 32, 0.2, 2);
  const int64_t elems[] = {64 * 32 * 32, 128 * 16 * 16, 256 * 8 * 8};
  for (int g = 0; g < 3; ++g) {
    if (g > 0)
      stage(elems[g], 0.3, 2);
    for (int b = 0; b < 111; ++b)
      stage(elems[g], 1.0, 4.5);
  }
  stage(256 * 8 * 8, 0.05, 1);
  stage(256, 0.02, 1);
  stage(10, 0.02, 1);
  return c;
}

int64_t noRematPeak(const ChainSpec &c) {
  ChainGraph cg = buildChainGraph(c);
  return simulate(cg.graph, keepEverythingSchedule(cg.graph)).peak;
}

void BM_ChainRotor(benchmark::State &state) {
  static const ChainSpec chain = resnet1001Like();
  static const int64_t peak = noRematPeak(chain);
  const int64_t budget = peak * state.range(0) / 100;
  const int slots = static_cast<int>(state.range(1));
  const RotorModel model =
      state.range(2) ? RotorModel::Graph : RotorModel::Paper;
  ChainPlan plan;
  for (auto _ : state) {
    plan = rotorPersistentPlan(chain, budget, slots, model);
    benchmark::DoNotOptimize(plan); // Not plan.time: GCC's "+m,r" on
                                    // a double clobbers it.
  }
  if (!plan.feasible)
    state.SkipWithError(plan.reason.c_str());
  state.counters["stages"] = chain.length();
  state.counters["overhead%"] =
      100.0 * (plan.time / buildChainGraph(chain).graph.baseTime() - 1.0);
}

void BM_ChainRotorWeak(benchmark::State &state) {
  ChainSpec chain = resnet1001Like();
  chain.stages.resize(state.range(0));
  const int64_t budget = noRematPeak(chain) * 4 / 10;
  ChainPlan plan;
  for (auto _ : state) {
    plan = rotorWeakPlan(chain, budget, 500);
    benchmark::DoNotOptimize(plan);
  }
  if (!plan.feasible)
    state.SkipWithError(plan.reason.c_str());
}

void BM_Revolve(benchmark::State &state) {
  for (auto _ : state) {
    ChainOps ops = revolveOps(340, static_cast<int>(state.range(0)));
    benchmark::DoNotOptimize(ops.data());
  }
}

} // namespace

// Args: budget (% of the no-remat peak), slots, model (0 paper, 1 graph).
BENCHMARK(BM_ChainRotor)
    ->Args({20, 500, 0})
    ->Args({40, 500, 0})
    ->Args({70, 500, 0})
    ->Args({40, 2000, 0})
    ->Args({40, 500, 1})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ChainRotorWeak)->Arg(8)->Arg(16)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Revolve)->Arg(4)->Arg(30)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
