//===- StrategyDescriptor.h - What a strategy says about itself -----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Everything the rest of the project needs to know about a strategy, filled
// in by its own family (lib/Solver/<Family>/<Family>Strategies.cpp) and
// read by the portfolio (auto, the smallest-budget search) and the tools:
// so adding a strategy touches its folder and one registration call only.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_CORE_STRATEGYDESCRIPTOR_H
#define REMAT_SOLVER_CORE_STRATEGYDESCRIPTOR_H

#include "remat/Solver/Core/SizedParts.h"
#include "remat/Solver/Core/SolveOptions.h"
#include "remat/Solver/Core/TrainingGraph.h"

#include <cstdint>
#include <functional>
#include <string>
#include <variant>
#include <vector>

namespace remat {

/// What the portfolio measures on a graph once, for every estimate.
struct GraphMeasures {
  double n = 0, nf = 0;  ///< Nodes, forward nodes.
  int chain = -1;        ///< Chain length (stages), -1: no chain view.
  double lowerSets = -1; ///< -1: more than the cap (or not counted).
  bool join = false;     ///< The graph is a join (Join.h).
  /// Extraction, expansion and simulations: about n log n seconds.
  double linearCost() const;
};

/// Estimated seconds as notes print them ("0.12 s").
std::string formatSeconds(double s);

/// A user-settable option of a strategy, bound to its SolveOptions field.
/// The tools build their flags and checks from it (name, help, range); the
/// default is the field's initial value in SolveOptions.
struct StrategyOption {
  using Field = std::variant<int SolveOptions::*, int64_t SolveOptions::*,
                             double SolveOptions::*>;
  std::string name;      ///< Flag name: --<name>=.
  std::string valueName; ///< Shown as --<name>=<valueName>.
  std::string help;
  Field field;
  double min = 0;            ///< Smallest allowed value...
  bool minExclusive = false; ///< ...or bound excluded (reals only).
  std::string unit;          ///< Reals: what the number counts ("seconds").

  bool isInteger() const { return field.index() != 2; }
  /// The value SolveOptions starts with, as the tools print it.
  std::string defaultText() const;
  /// "at least 1", "a positive number of seconds", ...
  std::string rangeText() const;
  /// The help with the default and the range, as every tool prints it.
  std::string helpText() const;
  /// Why the value `o` holds is out of range ("slots must be at least 1,
  /// got 0"); "" when it is in range.
  std::string checkValue(const SolveOptions &o) const;
  /// Whether `v` is in range (reals must also be finite).
  bool inRange(int64_t v) const { return v >= min; }
  bool inRange(double v) const;
  /// Sets the bound field of `o` (an integer field from an integer only).
  void set(SolveOptions &o, int64_t v) const;
  void set(SolveOptions &o, double v) const;
};

struct StrategyDescriptor;

/// What a cheapening rule may read and change while auto fits a run into
/// its time allowance.
struct AutoRun {
  const StrategyDescriptor *strategy = nullptr;
  SolveOptions options;
  double cost = 0; ///< Estimated seconds.
};
struct AutoAllowance {
  const GraphMeasures &measures;
  double timeBudget; ///< SolveOptions::timeBudget.
  double spent;      ///< Estimated seconds of the runs already admitted.
  /// The strategy whose schedule auto holds so far ("": none yet).
  const std::string &winner;
  std::function<void(const std::string &)> say; ///< auto's notes.
};

/// How auto treats a strategy. A strategy auto does not run leaves
/// `priority` at -1.
struct AutoRole {
  /// Position among auto's candidates (lower first).
  int priority = -1;
  /// Tried before anything else, and taken when it meets the budget:
  /// nothing is faster (none, the program itself).
  bool tryFirst = false;
  /// Minimises the peak, not the time: runs only while nothing met the
  /// budget (and SolveOptions::memoryCentricFallback is on).
  bool memoryCentric = false;
  /// The options auto gives it on this graph; may append a note (the same
  /// note from several strategies is said once).
  std::function<void(const GraphMeasures &, SolveOptions &,
                     std::vector<std::string> &notes)>
      tune;
  /// Fits the run into the allowance by cheaper settings (cost, options).
  std::function<void(AutoRun &, const AutoAllowance &)> cheapen;
  /// An exact refinement auto runs last, warm-started from the best plan,
  /// on the graphs `refines` accepts, with `refineOptions`.
  std::function<bool(const TrainingGraph &, const SolveOptions &)> refines;
  std::function<SolveOptions(const SolveOptions &)> refineOptions;
};

/// How the smallest-budget search treats a strategy.
struct BudgetSearchRole {
  /// Meets every budget b' >= b once it meets b: one failed probe below the
  /// best budget so far proves it cannot improve it.
  bool monotone = false;
  /// A budget below which the strategy provably meets none (every plan it
  /// can return peaks at least this much); unset or <= 0: no claim. The
  /// search answers "no" below it without solving, so it finds what it would
  /// have found by solving, sooner.
  std::function<int64_t(const TrainingGraph &, const SolveOptions &)> floor;
  /// Search these strategies' smallest budgets instead, the lowest of them
  /// (it meets every budget each of them meets; solves of this one at
  /// infeasible budgets are slow).
  std::vector<std::string> searchVia;
  /// Then bisect with at most `probes` solves of this strategy with these
  /// options (short time limits).
  int probes = 0;
  std::function<SolveOptions(const SolveOptions &)> probeOptions;
  /// The graphs where such short solves can succeed (unset: all).
  std::function<bool(const TrainingGraph &)> probesHelp;
  /// A portfolio (auto): search each of its runs (Portfolio/Auto.h).
  bool portfolio = false;
};

/// What a strategy that chooses sized parts (SizedParts.h) returns: the
/// schedule and, per part, the choice (index) it is a schedule for.
struct SizedStrategyResult {
  StrategyResult result;
  std::vector<int> picks;
};
/// Plans `g` with its sized parts' choices as decisions of the same model;
/// SolveOptions::warmStart, when set, is a schedule of the graph at
/// `warmPicks` (the answer to beat).
using SizedStrategyFn = std::function<SizedStrategyResult(
    const TrainingGraph &, const std::vector<SizedPart> &,
    const SolveOptions &, const std::vector<int> &warmPicks)>;

struct StrategyDescriptor {
  std::string name;
  std::string description;
  StrategyFn run;
  /// Position in listings and auto's tie-break (lower first).
  int rank = 1000;
  /// Estimated CPU seconds of one run with these options (Release, the
  /// 2-core build machine); infinity: not applicable or beyond its limits.
  /// Unset: free.
  std::function<double(const GraphMeasures &, const SolveOptions &)> estimate;
  /// Why it does not apply to a graph, when it does not ("": it may).
  std::function<std::string(const GraphMeasures &)> notApplicable;
  std::vector<StrategyOption> options;
  /// Strategies whose model also chooses the sizes of sized parts (a
  /// scan's slot count); unset: the caller compares plans made at each.
  SizedStrategyFn runSized;
  AutoRole autoRole;
  BudgetSearchRole budgetSearch;
  /// Its plans may move tensors to the host (Offload/Prefetch steps). The
  /// MLIR passes do not lower copies yet (issue 51), so they refuse it and
  /// their help does not offer it; remat-plan --offload runs it.
  bool plansHostCopies = false;
};

/// The former name, kept for callers of allStrategies().
using StrategyInfo = StrategyDescriptor;

} // namespace remat

#endif // REMAT_SOLVER_CORE_STRATEGYDESCRIPTOR_H
