//===- remat-plan.cpp - Plan rematerialization for a graph file -----------===//
//
// Reads a training graph (JSON or the lower-set paper's text format), runs a
// strategy under a memory budget and prints one JSON object. Exit codes:
// 0 feasible, 1 infeasible budget (JSON still printed, reason on stderr),
// 2 usage or input errors.
//
//===----------------------------------------------------------------------===//

#include "remat/GraphIO/GraphFile.h"
#include "remat/GraphIO/ResultWriter.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/Strategy.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace remat;
namespace cl = llvm::cl;

namespace {

cl::OptionCategory category("remat-plan options");

cl::opt<std::string> inputFile(cl::Positional, cl::desc("<graph file>"),
                               cl::init("-"), cl::cat(category));

cl::opt<std::string> strategyName(
    "strategy",
    cl::desc("Strategy to run (default: auto, the fastest schedule of all "
             "strategies that meets the budget). --strategy=list prints the "
             "available strategies with a description"),
    cl::value_desc("name"), cl::init("auto"), cl::cat(category));

cl::opt<std::string> budgetText(
    "budget",
    cl::desc("Peak memory allowed: a number with an optional unit (B, KB, "
             "KiB, MB, MiB, GB, GiB; KB = 1000 B, KiB = 1024 B) or a "
             "percentage of the peak without rematerialization (e.g. 60%). "
             "A bare number is in the graph file's memory unit. Default: no "
             "limit"),
    cl::value_desc("size"), cl::cat(category));

cl::opt<int> slots("slots",
                   cl::desc("Memory discretisation of the chain dynamic "
                            "programs (number of memory slots)"),
                   cl::value_desc("S"), cl::init(500), cl::cat(category));

cl::opt<bool> minBudget(
    "min-budget",
    cl::desc("Print the smallest budget the strategy can meet (binary "
             "search), as {\"strategy\":...,\"min_budget\":...}, instead of "
             "a schedule"),
    cl::cat(category));

cl::opt<int64_t> maxLowerSets(
    "max-lower-sets",
    cl::desc("lowerset-exact: give up and fall back to lowerset-approx when "
             "the graph has more lower sets than this"),
    cl::value_desc("N"), cl::init(200000), cl::cat(category));

cl::opt<int64_t> maxLowerSetWork(
    "max-lower-set-work",
    cl::desc("lowerset-exact: keep the approximate DP's plans once its DPs "
             "over all lower sets have done this much work (transitions "
             "L < L' tried plus front entries scanned)"),
    cl::value_desc("N"), cl::init(2000000000), cl::cat(category));

cl::opt<int> maxApproxSets(
    "max-approx-sets",
    cl::desc("lowerset-approx: use the lower sets L_v of this many nodes "
             "only, the slowest node of each of as many runs of the graph "
             "(0: every node; the DP grows like the cube of it)"),
    cl::value_desc("N"), cl::init(0), cl::cat(category));

cl::opt<int> maxLowerSetStep(
    "max-lower-set-step",
    cl::desc("lowerset-approx: a segment of the lower-set sequence adds at "
             "most this many forward nodes, except the last (0: no limit)"),
    cl::value_desc("N"), cl::init(0), cl::cat(category));

cl::opt<int> lowerSetProbes(
    "lower-set-probes",
    cl::desc("lowerset-approx: how many times the DP is re-run with its "
             "budget raised by the slack the Simulator measured"),
    cl::value_desc("N"), cl::init(3), cl::cat(category));

cl::opt<double> milpSeconds(
    "milp-seconds",
    cl::desc("checkmate-milp: the MILP solver's time limit in seconds (the "
             "best schedule found by then is returned, with its bound and "
             "gap)"),
    cl::value_desc("seconds"), cl::init(60), cl::cat(category));

cl::opt<double> timeBudget(
    "time-budget",
    cl::desc("auto: the seconds its strategies' estimated run times may add "
             "up to; the others are skipped with a note"),
    cl::value_desc("seconds"), cl::init(1.0), cl::cat(category));

int usageError(const llvm::Twine &msg) {
  llvm::errs() << "remat-plan: error: " << msg << "\n";
  return 2;
}

void listStrategies() {
  size_t width = 0;
  for (const StrategyInfo &s : allStrategies())
    width = std::max(width, s.name.size());
  for (const StrategyInfo &s : allStrategies())
    llvm::outs() << "  " << s.name << std::string(width + 2 - s.name.size(), ' ')
                 << s.description << "\n";
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "remat-plan: fit a training step into a memory budget by "
          "rematerialization.\n\n"
          "Reads a graph FILE ('-' for standard input) in the project's JSON "
          "format\n(docs/graph-format.md) or the lower-set paper's text "
          "format, and prints one\nJSON object: feasible, strategy, budget, "
          "peak, time, overhead (time minus the\nno-recomputation time) and "
          "the schedule, sizes in the file's memory unit.\nExit codes: 0 "
          "feasible, 1 budget infeasible, 2 usage or input error.\n",
          &llvm::errs()))
    return 2;

  if (strategyName == "list") {
    listStrategies();
    return 0;
  }
  if (!findStrategy(strategyName))
    return usageError("unknown strategy '" + strategyName +
                      "' (--strategy=list shows the available ones)");
  if (slots < 1)
    return usageError("--slots must be at least 1");
  if (maxLowerSets < 1)
    return usageError("--max-lower-sets must be at least 1");
  if (maxLowerSetWork < 1)
    return usageError("--max-lower-set-work must be at least 1");
  if (!(milpSeconds > 0) || !std::isfinite(milpSeconds))
    return usageError("--milp-seconds must be a positive number of seconds");
  if (lowerSetProbes < 0)
    return usageError("--lower-set-probes must be at least 0");
  if (maxLowerSetStep < 0)
    return usageError("--max-lower-set-step must be at least 0");
  if (maxApproxSets < 0)
    return usageError("--max-approx-sets must be at least 0");
  if (!(timeBudget >= 0) || !std::isfinite(timeBudget))
    return usageError("--time-budget must be a finite number of seconds >= 0");

  llvm::Expected<GraphFile> file = loadGraphFile(inputFile);
  if (!file)
    return usageError(llvm::toString(file.takeError()));
  const TrainingGraph &g = file->graph;

  SolveOptions opts;
  opts.slots = slots;
  opts.maxLowerSets = maxLowerSets;
  opts.maxLowerSetWork = maxLowerSetWork;
  opts.maxApproxSets = maxApproxSets;
  opts.maxLowerSetStep = maxLowerSetStep;
  opts.lowerSetProbes = lowerSetProbes;
  opts.milpSeconds = milpSeconds;
  opts.timeBudget = timeBudget;
  opts.note = [](const std::string &n) {
    llvm::errs() << "remat-plan: note: " << n << "\n";
  };

  std::optional<int64_t> budget;
  if (budgetText.getNumOccurrences()) {
    llvm::Expected<SizeSpec> size = parseSize(budgetText, file->units);
    if (!size)
      return usageError("--budget: " + llvm::toString(size.takeError()));
    llvm::Expected<int64_t> bytes = resolveBudget(
        *size, size->percent ? simulate(g, keepEverythingSchedule(g)).peak
                             : 0);
    if (!bytes)
      return usageError("--budget: " + llvm::toString(bytes.takeError()));
    budget = *bytes;
    opts.budget = *budget;
  }

  if (minBudget) {
    int64_t b = minimumBudget(g, strategyName, opts);
    writeMinBudgetJSON(llvm::outs(), *file, strategyName, b);
    if (b < 0) {
      llvm::errs() << "remat-plan: infeasible: strategy '" << strategyName
                   << "' fails even without a memory limit\n";
      return 1;
    }
    return 0;
  }

  Solution sol = solve(g, strategyName, opts);
  writeSolutionJSON(llvm::outs(), *file, sol, budget);
  if (!sol.feasible) {
    llvm::errs() << "remat-plan: infeasible: " << sol.reason << "\n";
    return 1;
  }
  return 0;
}
