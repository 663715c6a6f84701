//===- remat-plan.cpp - Plan rematerialization for a graph file -----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
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
#include "remat/Solver/Portfolio/MinimumBudget.h"
#include "remat/Support/AllocAlignment.h"

#include "OffloadFlags.h"
#include "StrategyFlags.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <optional>
#include <string>

using namespace remat;
namespace cl = llvm::cl;

namespace {

cl::OptionCategory category("remat-plan options");

cl::opt<std::string> inputFile(cl::Positional, cl::desc("<graph file>"),
                               cl::init("-"), cl::cat(category));

// Their help comes from the one declaration the pass shares (main sets it).
cl::opt<std::string> strategyName("strategy", cl::value_desc("name"),
                                  cl::init("auto"), cl::cat(category));

cl::opt<std::string> budgetText("budget", cl::value_desc("size"),
                                cl::cat(category));

cl::opt<bool> minBudget(
    "min-budget",
    cl::desc("Print the smallest budget the strategy can meet (binary "
             "search), as {\"strategy\":...,\"min_budget\":...,"
             "\"floor\":...}, instead of a schedule; floor: the peak no plan "
             "goes below (the inputs and the biggest single step; without "
             "the results with --offload-results)"),
    cl::cat(category));

cl::opt<int64_t> alignment(
    "alignment", cl::value_desc("bytes"), cl::init(1),
    cl::desc("How the target rounds allocations: every buffer counts its "
             "size rounded up to this power of two, as "
             "-remat-lower-to-cpu/-gpu allocate it with the same `alignment` "
             "(default here 1, not the pass's 64: a graph file states sizes "
             "as its producer counted them, and -remat-export-graph writes "
             "them rounded already; sizes in a larger unit than the byte "
             "are rounded in that unit)"),
    cl::cat(category));

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

/// Checks --strategy against the offload flags (picking offload-greedy
/// where --offload comes alone); the message of a usage error otherwise.
std::optional<std::string> chooseStrategy(const OffloadFlags &offloadFlags) {
  const StrategyInfo *strategy = findStrategy(strategyName);
  if (!strategy)
    return "unknown strategy '" + strategyName +
           "' (--strategy=list shows the available ones)";
  // Offload is a choice of its own until auto weighs it.
  if (offloadFlags.enabled() && strategyName.getNumOccurrences() &&
      !strategy->plansHostCopies)
    return "--offload plans with offload-greedy (or "
           "--strategy=checkmate-milp-offload); --strategy=" +
           strategyName + " does not offload";
  if (offloadFlags.resultsMayLeave() && !offloadFlags.enabled())
    return std::string("--offload-results needs --offload: results reach "
                       "the host by the same copies");
  if (offloadFlags.blocks() && !offloadFlags.enabled())
    return std::string("--offload-blocking needs --offload: it says how "
                       "copies to the host run");
  if (offloadFlags.enabled()) {
    if (!strategyName.getNumOccurrences())
      strategyName = "offload-greedy";
  } else if (strategy->plansHostCopies) {
    return "--strategy=" + strategyName + " plans host copies: give --offload";
  }
  return std::nullopt;
}

/// Rounds every tensor of `file` up to --alignment, in the file's unit.
std::optional<std::string> alignSizes(GraphFile &file) {
  if (alignment <= 1)
    return std::nullopt;
  double perUnit = file.units.bytesPerUnit;
  double units = static_cast<double>(alignment) / perUnit;
  if (perUnit > static_cast<double>(alignment))
    units = 1; // A unit already spans an aligned block.
  else if (units != std::floor(units))
    return "--alignment=" + std::to_string(static_cast<int64_t>(alignment)) +
           " is not a whole number of the file's memory unit";
  for (int t = 0; t < file.graph.numTensors(); ++t)
    file.graph.tensor(t).bytes = roundUpToAlignment(
        file.graph.tensor(t).bytes, static_cast<int64_t>(units));
  return std::nullopt;
}

/// The copy link, --offload-results and the host budget, into `opts`.
std::optional<std::string> applyOffloadFlags(const OffloadFlags &offloadFlags,
                                             const GraphFile &file,
                                             SolveOptions &opts) {
  if (offloadFlags.enabled()) {
    llvm::Expected<CopyLink> link = offloadFlags.link(file.units.time);
    if (!link)
      return llvm::toString(link.takeError());
    opts.link = *link;
    opts.offloadResults = offloadFlags.resultsMayLeave();
  }
  llvm::Expected<std::optional<int64_t>> host =
      offloadFlags.hostBudget(file.units);
  if (!host)
    return llvm::toString(host.takeError());
  if (*host)
    opts.hostBudget = **host;
  return std::nullopt;
}

int infeasibleWithoutLimit() {
  llvm::errs() << "remat-plan: infeasible: strategy '" << strategyName
               << "' fails even without a memory limit\n";
  return 1;
}

/// --budget in the file's unit (`min`: the smallest the strategy meets,
/// `%`: of the peak without recomputation), into `opts.budget`. Returns
/// the exit code to stop with, if any.
std::optional<int> applyBudgetFlag(const GraphFile &file, SolveOptions &opts,
                                   std::optional<int64_t> &budget) {
  if (!budgetText.getNumOccurrences())
    return std::nullopt;
  const TrainingGraph &g = file.graph;
  llvm::Expected<SizeSpec> size = parseBudget(budgetText, file.units);
  if (!size)
    return usageError("--budget: " + llvm::toString(size.takeError()));
  if (size->minimum) {
    if (minBudget)
      return usageError("--budget=min and --min-budget: give one");
    int64_t b = minimumBudget(g, strategyName, opts);
    if (b < 0)
      return infeasibleWithoutLimit();
    size->minimum = false;
    size->value = static_cast<double>(b);
  }
  llvm::Expected<int64_t> bytes = resolveBudget(
      *size, size->percent ? simulate(g, keepEverythingSchedule(g)).peak : 0);
  if (!bytes)
    return usageError("--budget: " + llvm::toString(bytes.takeError()));
  budget = *bytes;
  opts.budget = *budget;
  return std::nullopt;
}

/// Parses the command line; false on a usage error (cl printed it).
bool parseCommandLine(int argc, char **argv) {
  static const std::string strategyDesc =
      strategyHelp() + ". --strategy=list prints them with a description";
  static const std::string budgetDesc =
      budgetHelp() + ". A bare number is in the graph file's memory unit. "
                     "Default: no limit";
  strategyName.setDescription(strategyDesc);
  budgetText.setDescription(budgetDesc);
  return cl::ParseCommandLineOptions(
      argc, argv,
      "remat-plan: fit a training step into a memory budget by "
      "rematerialization.\n\n"
      "Reads a graph FILE ('-' for standard input) in the project's JSON "
      "format\n(docs/graph-format.md) or the lower-set paper's text "
      "format, and prints one\nJSON object: feasible, strategy, budget, "
      "peak, time, overhead (time minus the\nno-recomputation time) and "
      "the schedule, sizes in the file's memory unit.\nExit codes: 0 "
      "feasible, 1 budget infeasible, 2 usage or input error.\n",
      &llvm::errs());
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  // Static like the flags above: cl keeps pointers to them until exit.
  static const StrategyFlags strategyFlags(category);
  static const OffloadFlags offloadFlags(category);
  if (!parseCommandLine(argc, argv))
    return 2;
  if (strategyName == "list") {
    listStrategies();
    return 0;
  }
  if (std::optional<std::string> bad = chooseStrategy(offloadFlags))
    return usageError(*bad);
  SolveOptions opts;
  strategyFlags.apply(opts);
  if (std::string bad = checkStrategyOptions(opts); !bad.empty())
    return usageError("--" + bad);
  if (!isValidAllocAlignment(alignment))
    return usageError("--alignment must be a power of two, got " +
                      llvm::Twine(static_cast<int64_t>(alignment)));

  llvm::Expected<GraphFile> file = loadGraphFile(inputFile);
  if (!file)
    return usageError(llvm::toString(file.takeError()));
  if (std::optional<std::string> bad = alignSizes(*file))
    return usageError(*bad);
  if (std::optional<std::string> bad =
          applyOffloadFlags(offloadFlags, *file, opts))
    return usageError(*bad);
  opts.note = [](const std::string &n) {
    llvm::errs() << "remat-plan: note: " << n << "\n";
  };
  std::optional<int64_t> budget;
  if (std::optional<int> exitCode = applyBudgetFlag(*file, opts, budget))
    return *exitCode;

  const TrainingGraph &g = file->graph;
  if (minBudget) {
    int64_t b = minimumBudget(g, strategyName, opts);
    writeMinBudgetJSON(llvm::outs(), *file, strategyName, b,
                       peakLowerBound(g, opts.offloadResults));
    return b < 0 ? infeasibleWithoutLimit() : 0;
  }
  Solution sol = solve(g, strategyName, opts);
  writeSolutionJSON(llvm::outs(), *file, sol, budget);
  if (!sol.feasible) {
    llvm::errs() << "remat-plan: infeasible: " << sol.reason << "\n";
    return 1;
  }
  return 0;
}
