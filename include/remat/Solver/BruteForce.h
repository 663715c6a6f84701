//===- BruteForce.h - Exhaustive optimum of tiny instances (test oracle) --===//
//
// Searches every schedule of a small TrainingGraph (every order of runs,
// recomputations, frees and, optionally, discarded outputs) for the minimum
// total time whose Simulator peak is <= budget. Exponential: a test oracle
// only, never used by the tools.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_BRUTEFORCE_H
#define REMAT_SOLVER_BRUTEFORCE_H

#include "remat/Solver/Schedule.h"

#include <cstdint>
#include <optional>

namespace remat {

struct BruteForceOptions {
  /// Let Run steps discard outputs (stage-level graphs, e.g. chains: rotor's
  /// F_ck / F_none). Off: every output is stored, as for op-level graphs.
  bool allowDiscard = true;
  /// Give up (return std::nullopt) after exploring this many states.
  int64_t maxStates = 20'000'000;
};

struct BruteForceResult {
  bool feasible = false; ///< False: no schedule fits the budget.
  double time = 0;       ///< Optimal total time, when feasible.
  Schedule schedule;     ///< An optimal schedule, when feasible.
};

/// std::nullopt when the search exceeded maxStates.
std::optional<BruteForceResult>
bruteForceOptimum(const TrainingGraph &g, int64_t budget,
                  const BruteForceOptions &opts = {});

} // namespace remat

#endif // REMAT_SOLVER_BRUTEFORCE_H
