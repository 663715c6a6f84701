//===- RandomGraphs.h - Seeded random small instances ----------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Deterministic generators of small training graphs with integer sizes and
// times, shared by the unit tests (strategy vs. brute-force oracle) and the
// benchmarks. The same seed gives the same instance on every platform (the
// generators use their own integer mapping, not <random>'s distributions).
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_TESTING_RANDOMGRAPHS_H
#define REMAT_SOLVER_TESTING_RANDOMGRAPHS_H

#include "remat/Solver/Chain/Chain.h"
#include "remat/Solver/Core/TrainingGraph.h"

#include <cstdint>
#include <vector>

namespace remat {

struct RandomCostOptions {
  int64_t maxBytes = 5;     ///< Tensor sizes are drawn from 1..maxBytes.
  int maxTime = 5;          ///< Node times are drawn from 1..maxTime.
  int64_t maxWorkspace = 0; ///< Workspace (o_f, o_b) drawn from 0..max.
  /// Chains: abar = a + 0..maxExtra (the rest of the autograd history).
  int64_t maxExtra = 3;
};

/// A chain of `length` stages (rotor notation). delta^l has the size of a^l
/// (as in real networks), delta^0 that of a^0.
ChainSpec randomChain(uint64_t seed, int length,
                      const RandomCostOptions &opts = {});

/// A join graph (Beaumont et al. 2019): `branches` independent chains whose
/// last activations all feed the loss. Branch lengths are drawn from
/// 1..maxLength. Each branch is returned as a chain: its a0 is a graph input,
/// its delta0 a required output; the loss (turn) is implicit with zero costs.
std::vector<ChainSpec> randomJoin(uint64_t seed, int branches, int maxLength,
                                  const RandomCostOptions &opts = {});

struct RandomDagOptions {
  RandomCostOptions costs;
  /// Probability (percent) that a forward node also reads an earlier value
  /// besides its predecessor (a skip connection).
  int skipPercent = 40;
  /// Probability (percent) that a backward node reads its forward node's
  /// output (as ReLU does) in addition to the forward node's inputs.
  int readsOutputPercent = 50;
  /// Probability (percent) that a forward node also reads a weight (an
  /// input of its own) whose gradient its backward node makes: a required
  /// output, as a parameter's gradient is. 0 draws nothing (the graphs of
  /// a seed stay those of before).
  int weightsPercent = 0;
};

/// A forward DAG and its backward graph, built like reverse-mode autodiff.
/// Forward: input x, then f0..f{n-1}; f_i reads f_{i-1}'s output (x for f0)
/// and, sometimes, one earlier value (skip connection). The last forward node
/// is the loss. Backward: for each f in reverse order, node "b<f>" reads the
/// gradient of f's output (except for the loss), f's inputs and possibly f's
/// output, and produces one gradient contribution per input of f. A value
/// with several consumers gets an accumulation node "acc<v>" that sums the
/// contributions. The gradient of x is a required output, and so is each
/// weight's (weightsPercent).
TrainingGraph randomTrainingDag(uint64_t seed, int numForward,
                                const RandomDagOptions &opts = {});

} // namespace remat

#endif // REMAT_SOLVER_TESTING_RANDOMGRAPHS_H
