//===- ChainSolvers.h - Chain-level planners (rotor, revolve) -------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The planners behind the chain strategies, callable on a ChainSpec directly
// (tests, benchmarks, other chain strategies) and the glue that applies a
// planner to any TrainingGraph through its chain view. A chain-level budget is
// the Simulator peak allowed on buildChainGraph(chain).graph: a0 included.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_CHAIN_CHAINSOLVERS_H
#define REMAT_SOLVER_CHAIN_CHAINSOLVERS_H

#include "remat/Solver/Chain/ChainView.h"
#include "remat/Solver/Core/Strategy.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace remat {

struct ChainPlan {
  bool feasible = false;
  ChainOps ops;
  double time = 0;    ///< Makespan the planner predicts (sum of u_f, u_b).
  std::string reason; ///< Why infeasible / refused.
  std::string note;   ///< An approximation the planner made, if any.
};

/// A chain with its memory in slots (rotor, Sec. 5.2): the memory left after
/// a^0, avail = budget - a0, is cut into at most `slots` slots of q bytes and
/// every size is rounded UP to whole slots, so a plan that fits M slots fits
/// the real budget (the paper's "round down" could overshoot it). With
/// avail <= slots, q = 1 and the model is exact. Arrays are 1-based by stage,
/// stage n = L+1 is the loss: A[0..n], Abar/OF/OB/UF/UB[1..n], D[0..n] with
/// D[n] = 0 (there is no delta^{L+1}).
struct SlotChain {
  int n = 0;     ///< Stages including the loss (L+1).
  int64_t q = 1; ///< Bytes per slot.
  int M = -1;    ///< Slots available; -1 when the budget is below a0.
  std::vector<int> A, Abar, D, OF, OB; ///< OB may be negative (ChainStage).
  std::vector<double> UF, UB;
  std::vector<char> Tape; ///< ChainStage::tape; always 1 for the loss.
  /// Rounded up to whole slots (ceil, also for negative byte counts).
  int slotsOf(int64_t bytes) const;
};
SlotChain discretiseChain(const ChainSpec &chain, int64_t budget, int slots);

/// The sequences the rotor DPs search.
enum class RotorModel : uint8_t {
  /// Rotor's Table 1: F_all^l keeps its input a^{l-1} until B^l.
  Paper,
  /// Also lets F_all^l drop a^{l-1} and recompute it from an earlier
  /// checkpoint right before B^l, keeping abar^l meanwhile. The graph allows
  /// it (B^l reads a^{l-1} as a tensor of its own) and the exhaustive search
  /// finds it: it pays when a^{l-1} is large and F^l slow (rotor's Table 2
  /// chain at 90 MB: 42.78 ms instead of 47.42). The DPs get extra tables
  /// for "abar of the top stage already held" (4x the persistent DP's work).
  Graph,
};

/// Rotor's persistent DP (Beaumont et al. 2024, Alg. 3 / Theorem 4.8, with
/// abar subtracted in C_all and m_all) and its reconstruction (Alg. 4).
/// Strategy chain-rotor: the paper's model.
ChainPlan rotorPersistentPlan(const ChainSpec &chain, int64_t budget,
                              int slots = 500,
                              RotorModel model = RotorModel::Paper);
/// Rotor's weakly persistent DP with a floating activation (Alg. 1 /
/// Theorem 4.7) and its reconstruction (Alg. 2), O(M L^5) here, for small
/// chains only (refuses long ones with a reason). In the Graph model (the
/// default, strategy chain-rotor-weak) it equals the exhaustive search over
/// all schedules of the chain graph on every tested instance.
ChainPlan rotorWeakPlan(const ChainSpec &chain, int64_t budget, int slots = 500,
                        RotorModel model = RotorModel::Graph);

/// Griewank's minimal number of forward advances to reverse `steps` steps
/// with `snapshots` checkpoints (the first holds the initial state):
/// t = r*l - C(c+r, c+1) with r the least integer such that C(c+r, c) >= l
/// (Griewank & Walther 2000). -1 when impossible (no snapshot, l > 1).
int64_t revolveAdvances(int64_t steps, int snapshots);
/// The binomial (revolve) schedule of a chain of `steps` stages (the loss
/// included) with `snapshots` checkpoints of a: advances are F_ck / F_none,
/// every B^l is preceded by its own F_all^l (the AD model, rotor Sec. 3.3).
ChainOps revolveOps(int steps, int snapshots);

/// Applies a chain planner to any graph: extracts the chain view (not
/// applicable when there is none), plans, expands and simulates. The chain
/// model over-estimates op-level graphs, so with `raiseBudget` it searches
/// the chain budget (bisection, at most SolveOptions::chainProbes plans):
/// when no plan exists at the real budget, from the least chain budget with
/// a plan; then upwards while the real peak still fits; it keeps the fastest
/// schedule that fits. Should a plan exceed the budget (the model
/// under-estimating: never observed), it plans again with the chain budget
/// lowered by the excess and says so through opts.note. Planners that check
/// the real peak themselves (revolve) pass raiseBudget = false.
using ChainPlanner = std::function<ChainPlan(
    const TrainingGraph &g, const ChainView &view, int64_t budget)>;
StrategyResult solveViaChain(const TrainingGraph &g, const SolveOptions &opts,
                             const std::string &name,
                             const ChainPlanner &planner,
                             bool raiseBudget = true);
/// The same on an already extracted (or coarsened) view.
StrategyResult solveViaChain(const TrainingGraph &g, const ChainView &view,
                             const SolveOptions &opts, const std::string &name,
                             const ChainPlanner &planner,
                             bool raiseBudget = true);

/// No schedule solveViaChain(g, opts, ...) returns peaks below this, for any
/// planner and budget: the program itself where it fits, otherwise the
/// expansion of a plan on one of its two views, whose B steps it checks are
/// in chain order (backwardBlockFloor). The smallest-budget search skips the
/// solves below it.
int64_t viaChainFloor(const TrainingGraph &g, const SolveOptions &opts);

} // namespace remat

#endif // REMAT_SOLVER_CHAIN_CHAINSOLVERS_H
