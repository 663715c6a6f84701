//===- Strategies.h - Entry points of the individual strategies ----------===//
//
// One function per strategy, each implemented in its own file of lib/Solver.
// Callers normally go through solve() in Strategy.h, which checks the result
// with the Simulator.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_CORE_STRATEGIES_H
#define REMAT_SOLVER_CORE_STRATEGIES_H

#include "remat/Solver/Core/Strategy.h"

namespace remat {

/// Keep everything: the program without rematerialization.
StrategyResult solveNone(const TrainingGraph &g, const SolveOptions &opts);

/// Griewank-Walther binomial checkpointing on the chain view (stores only a;
/// F_all right before each B), with as many checkpoints as the budget allows.
StrategyResult solveRevolve(const TrainingGraph &g, const SolveOptions &opts);
/// Rotor's persistent chain DP (Alg. 3) with opts.slots memory slots.
StrategyResult solveChainRotor(const TrainingGraph &g, const SolveOptions &opts);
/// Rotor's weakly persistent DP (Alg. 1): optimal on chains, small ones only.
StrategyResult solveChainRotorWeak(const TrainingGraph &g,
                                   const SolveOptions &opts);

/// Butt 2019 (thesis Alg. 3.4): Gruslys's DP with per-layer costs and the
/// recompute-everything fallback; exact on the thesis's chain model (a
/// one-branch join), the thesis's PyTorch mapping on rotor chains.
StrategyResult solveChainPrecise(const TrainingGraph &g,
                                 const SolveOptions &opts);
/// Beaumont et al. 2019, Theorem 3: k chains meeting at the loss (Siamese,
/// cross-modal), heterogeneous costs, memory in slots.
StrategyResult solveJoin(const TrainingGraph &g, const SolveOptions &opts);

/// Chen et al. 2016: segments cut at articulation points, each recomputed
/// once before its backward; sqrt(n) segments, or budget-greedy thresholds.
StrategyResult solveChenSqrt(const TrainingGraph &g, const SolveOptions &opts);
StrategyResult solveChenGreedy(const TrainingGraph &g,
                               const SolveOptions &opts);

/// Kusumoto et al. 2019: canonical strategies of lower-set sequences. Exact
/// DP over all lower sets (capped by maxLowerSets) or approximate DP over
/// the sets L_v; time-centric, or memory-centric (-mc: the lowest peak).
StrategyResult solveLowerSetExact(const TrainingGraph &g,
                                  const SolveOptions &opts);
StrategyResult solveLowerSetApprox(const TrainingGraph &g,
                                   const SolveOptions &opts);
StrategyResult solveLowerSetExactMC(const TrainingGraph &g,
                                    const SolveOptions &opts);
StrategyResult solveLowerSetApproxMC(const TrainingGraph &g,
                                     const SolveOptions &opts);

/// Checkmate's MILP (Jain et al. 2020) over this project's memory model,
/// solved by COIN-OR CBC within SolveOptions::milpSeconds, warm-started from
/// a lower-set plan; StrategyResult::bound and gap say what it proved.
StrategyResult solveCheckmateMILP(const TrainingGraph &g,
                                  const SolveOptions &opts);

/// Replays the program within the budget, freeing the stored value that is
/// cheapest to recompute per byte and per step until its next read (DTR's
/// rule with the future known) and recomputing on demand: in the forward
/// pass too, as often as needed. Linear-ish time: for graphs of any size.
StrategyResult solveEvictGreedy(const TrainingGraph &g,
                                const SolveOptions &opts);

/// Runs every other strategy and returns the fastest schedule within budget
/// (StrategyResult::chosen names the winner).
StrategyResult solveAuto(const TrainingGraph &g, const SolveOptions &opts);

/// One strategy run of auto, with the options auto gives it on this graph.
struct PortfolioRun {
  std::string strategy;
  SolveOptions options;
};
/// What auto runs (before its MILP refinement) when no strategy meets the
/// budget; it depends on the graph, not on the budget. auto without the
/// MILP meets a budget exactly when one of these runs does: minimumBudget()
/// searches each run's smallest budget instead of auto's.
std::vector<PortfolioRun> autoPortfolio(const TrainingGraph &g,
                                        const SolveOptions &opts);
/// Whether auto refines with checkmate-milp on this graph (small ones), and
/// the options it gives it (a branch-and-bound node limit, a clock limit);
/// where no other strategy meets the budget it runs without a warm start.
bool autoRunsMILP(const TrainingGraph &g, const SolveOptions &opts);
SolveOptions autoMILPOptions(const SolveOptions &opts);

} // namespace remat

#endif // REMAT_SOLVER_CORE_STRATEGIES_H
