//===- BruteForce.h - Exhaustive optimum of tiny instances (test oracle) --===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Searches every schedule of a small TrainingGraph (every order of runs,
// recomputations, frees and, optionally, discarded outputs) for the minimum
// total time whose Simulator peak is <= budget. Exponential: a test oracle
// only, never used by the tools.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_TESTING_BRUTEFORCE_H
#define REMAT_SOLVER_TESTING_BRUTEFORCE_H

#include "remat/Solver/Core/Schedule.h"

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace remat {

struct ChainGraph;

struct BruteForceOptions {
  /// Let Run steps discard outputs (stage-level graphs, e.g. chains: rotor's
  /// F_ck / F_none). Off: every output is stored, as for op-level graphs.
  bool allowDiscard = true;
  /// Give up (return std::nullopt) after exploring this many states.
  int64_t maxStates = 20'000'000;
  /// Pairs (t, host): t may be stored only while host is stored. Rotor's
  /// chain model (Beaumont et al. 2024, Table 1) has no free step: abar^l is
  /// one value containing a^l, and F_all^l keeps its input a^{l-1} until B^l
  /// consumes both. So r^l (the rest of abar^l) needs a^l and a^{l-1}. The
  /// Simulator alone is laxer: on rotor's toy chain at 90 MB it allows
  /// 42.78 ms where rotor's optimum is 47.4 ms. Pass chainStoredWith(cg) to
  /// search rotor's model.
  std::vector<std::pair<TensorId, TensorId>> storedWith;
};

struct BruteForceResult {
  bool feasible = false; ///< False: no schedule fits the budget.
  double time = 0;       ///< Optimal total time, when feasible.
  Schedule schedule;     ///< An optimal schedule, when feasible.
};

/// Rotor's coupling on a chain graph: (r^l, a^l) and (r^l, a^{l-1}) for
/// every stage, for BruteForceOptions::storedWith.
std::vector<std::pair<TensorId, TensorId>>
chainStoredWith(const ChainGraph &cg);

/// std::nullopt when the search exceeded maxStates (or the graph has more
/// than 64 nodes or 64 non-input tensors, or does not verify).
std::optional<BruteForceResult>
bruteForceOptimum(const TrainingGraph &g, int64_t budget,
                  const BruteForceOptions &opts = {});

} // namespace remat

#endif // REMAT_SOLVER_TESTING_BRUTEFORCE_H
