//===- SolveOptions.h - What a strategy is given and what it returns -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The options every strategy reads (each field serves the strategies whose
// descriptors declare it, StrategyDescriptor.h) and the result a strategy
// returns; solve() (Strategy.h) checks the result with the Simulator.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_CORE_SOLVEOPTIONS_H
#define REMAT_SOLVER_CORE_SOLVEOPTIONS_H

#include "remat/Solver/Core/CopyLink.h"
#include "remat/Solver/Core/Schedule.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>

namespace remat {

constexpr int64_t kUnlimitedBudget = std::numeric_limits<int64_t>::max();
/// The weightings evict-greedy knows (SolveOptions::evictionReplays).
constexpr int kEvictionWeightings = 24;

/// Work a strategy may reuse between solves of one graph at other budgets
/// (minimumBudget() sets one up): results that do not depend on the budget,
/// keyed by the strategy and the options they do depend on.
struct SolveCache {
  std::map<std::string, std::shared_ptr<const void>> entries;
};

/// The entry `key` of `cache`, made by `make()` and kept there when absent;
/// made afresh without a cache.
template <typename T, typename Make>
std::shared_ptr<const T> cachedOrMade(const std::shared_ptr<SolveCache> &cache,
                                      const std::string &key, Make make) {
  if (cache) {
    auto it = cache->entries.find(key);
    if (it != cache->entries.end())
      return std::static_pointer_cast<const T>(it->second);
  }
  auto made = std::make_shared<const T>(make());
  if (cache)
    cache->entries[key] = made;
  return made;
}

struct SolveOptions {
  int64_t budget = kUnlimitedBudget; ///< Peak bytes allowed (Simulator's peak).
  int slots = 500;                   ///< Memory discretisation of chain DPs.
  /// lowerset-exact: give up (and fall back to lowerset-approx) when the graph
  /// has more lower sets than this.
  int64_t maxLowerSets = 200000;
  /// lowerset-exact: the work its DPs over all lower sets may do in all
  /// (transitions L < L' tried plus front entries scanned), ~15 s;
  /// beyond, it keeps the approximate DP's plans (with a note). Pairs of
  /// sets and front sizes, not the number of sets, decide its run time.
  int64_t maxLowerSetWork = 2000000000;
  /// lowerset-approx(-mc): the family L_v only for this many nodes, the
  /// slowest (0: every node). Its DP grows like the cube of the family.
  int maxApproxSets = 0;
  /// lowerset-approx(-mc): a step (segment) adds at most this many forward
  /// nodes, except the last one (0: no limit). The DP then tries about
  /// family x maxLowerSetStep transitions instead of family^2 / 2: on deep
  /// graphs the good segments are short and nothing is lost.
  int maxLowerSetStep = 0;
  /// lowerset-approx: how many times the DP is re-run with its budget raised
  /// by the slack the Simulator measured (the model is loose).
  int lowerSetProbes = 3;
  /// lowerset-approx(-mc): the work its DPs may do in all, counted as for
  /// maxLowerSetWork (0: no limit). Beyond, it keeps the best plan found so
  /// far (with a note). auto sets it from its time budget: the front sizes,
  /// which the estimates cannot see, decide the run time on densely
  /// connected graphs (DenseNet).
  int64_t maxApproxWork = 0;
  /// Chain strategies: how many chain budgets solveViaChain may plan with
  /// to make up for the chain model's over-estimate of op-level graphs.
  int chainProbes = 12;
  /// Chain strategies: coarsen chains longer than this (0: never).
  int maxChainStages = 0;
  /// checkmate-milp: the MILP solver's time limit (seconds).
  double milpSeconds = 60;
  /// checkmate-milp: branch-and-bound nodes it may explore (0: no limit);
  /// auto sets it so that its answers do not depend on the clock.
  int64_t milpNodes = 0;
  /// checkmate-milp: a schedule to start from (its runs become the solver's
  /// first incumbent); empty: it makes a lower-set plan itself.
  std::shared_ptr<const Schedule> warmStart;
  /// evict-greedy: how many weightings of size against distance it replays
  /// the program with (1 to kEvictionWeightings, the best on the model
  /// graphs first); auto takes all of them on small graphs.
  int evictionReplays = 4;
  /// auto: the strategies' estimated run times (seconds, see docs/solver.md)
  /// may add up to this; the others are skipped with a note.
  double timeBudget = 1.0;
  /// auto: refine with checkmate-milp on small graphs. minimumBudget()
  /// bisects without it, then spends a few short MILP probes below.
  bool autoMILP = true;
  /// auto: when no time-centric strategy meets the budget, also run the
  /// memory-centric variants (lowest peak). minimumBudget() runs them once
  /// and turns this off while it bisects.
  bool memoryCentricFallback = true;
  /// The device-host link offload copies use (offload-greedy plans with
  /// it, solve() simulates with it); in the graph's time unit (CopyLink.h).
  CopyLink link;
  /// offload-greedy: a result (a gradient) may be copied to the host once
  /// produced and returned from there, never brought back (ZeRO-Offload's
  /// gradients); the caller then receives it in host memory.
  bool offloadResults = false;
  /// Host bytes a plan may hold at once (the Simulator's hostPeak): plans
  /// with copies stay within it, and solve() refuses one that does not.
  int64_t hostBudget = kUnlimitedBudget;
  /// Shared by solves of the same graph only; empty: nothing is reused.
  std::shared_ptr<SolveCache> cache;
  /// Where strategies report notes (fallbacks, approximations). May be empty.
  std::function<void(const std::string &)> note;
};

struct StrategyResult {
  bool feasible = false;
  Schedule schedule;
  std::string reason; ///< Why not applicable / infeasible, when !feasible.
  /// Set by strategies that delegate (auto): the one whose schedule this is.
  std::string chosen;
  /// Delegating strategies, when infeasible: the lowest peak of the valid
  /// schedules they saw (-1: none).
  int64_t leastPeak = -1;
  /// Exact strategies (checkmate-milp): a proven lower bound on the total
  /// time of the schedules their model covers, and (time - bound) / time;
  /// -1 when unknown.
  double bound = -1;
  double gap = -1;
};

using StrategyFn =
    std::function<StrategyResult(const TrainingGraph &, const SolveOptions &)>;

} // namespace remat

#endif // REMAT_SOLVER_CORE_SOLVEOPTIONS_H
