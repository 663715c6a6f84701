//===- Rematerialize.cpp - Fit training steps into a memory budget --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A thin wrapper over rematerializeFunction (remat/Transforms/Rematerialize.h):
// reads the options, runs it on every function and writes the report.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/Remat.h"
#include "remat/Solver/Core/Strategy.h"
#include "remat/Support/Units.h"
#include "remat/Transforms/Passes.h"
#include "remat/Transforms/RematOptionDecls.h"
#include "remat/Transforms/RematReport.h"
#include "remat/Transforms/Rematerialize.h"
#include "remat/Analysis/DevicePeaks.h"
#include "remat/Analysis/PipelineTime.h"
#include "remat/Transforms/Prepare.h"

#include "remat/Analysis/ShapeBounds.h"
#include "remat/Analysis/TrainingGraphBuilder.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSet.h"

#include <cmath>

namespace remat {
#define GEN_PASS_DEF_REMATERIALIZEPASS
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

std::optional<std::string>
remat::checkRematSettings(const RematSettings &settings) {
  if (settings.budget.empty())
    return std::string("needs a budget (budget=2GiB, budget=60%, budget=min)");
  llvm::Expected<SizeSpec> size = parseBudget(settings.budget, Units{});
  if (!size)
    return "invalid budget '" + settings.budget +
           "': " + llvm::toString(size.takeError());
  const StrategyInfo *strategy = findStrategy(settings.strategy);
  if (!strategy || (strategy->plansHostCopies && !settings.offload)) {
    std::string names;
    for (const StrategyInfo &s : allStrategies())
      if (!s.plansHostCopies || settings.offload)
        names += (names.empty() ? "" : ", ") + s.name;
    if (strategy)
      return "strategy '" + settings.strategy +
             "' plans host copies: give offload=true (--remat-offload); "
             "available: " + names;
    return "unknown strategy '" + settings.strategy + "'; available: " + names;
  }
  if (!settings.hostBudget.empty()) {
    if (!settings.offload)
      return std::string("host-budget needs offload (--remat-offload): "
                         "without it nothing goes to the host");
    llvm::Expected<int64_t> host =
        parseBytes(settings.hostBudget, Units{}, "host-budget");
    if (!host)
      return llvm::toString(host.takeError());
  }
  if (settings.offloadBlocking && !settings.offload)
    return std::string("offload-blocking needs offload (--remat-offload): "
                       "it says how copies to the host run");
  if (settings.offloadResults && !settings.offload)
    return std::string("offload-results needs offload (--remat-offload): "
                       "results reach the host by the same copies");
  if (const char *wrong = CopyLinkOptionText::check(settings.linkBandwidth,
                                                    settings.linkLatency);
      *wrong)
    return std::string(wrong);
  if (std::string wrong = checkStrategyOptions(settings.solve); !wrong.empty())
    return wrong;
  if (!isValidAllocAlignment(settings.alignment))
    return "alignment must be a power of two, got " +
           std::to_string(settings.alignment);
  if (settings.scanSlots < 0)
    return "scan-slots must be at least 0 (0: chosen with the plan), got " +
           std::to_string(settings.scanSlots);
  for (const std::string &bound : settings.dimBounds)
    if (std::optional<std::string> wrong = checkDimBound(bound))
      return wrong;
  return std::nullopt;
}

namespace {

/// Reports each device's peak (DevicePeaks.h) beside the plan's: the plan is
/// made at the sizes' bounds, which combine every device's choices, so the
/// largest device's peak is what the planned step holds. It is at most the
/// peak the plan was checked against, except where later stages keep rings
/// the plan at the bounds drops (StashRingStages.h: each device checked
/// against the budget instead). The list is kept where devices differ.
void reportDevicePeaks(FunctionReport &report, std::vector<int64_t> after) {
  if (after.empty())
    return;
  report.peakAfter = *llvm::max_element(after);
  if (!llvm::all_equal(after))
    report.devicePeaks = std::move(after);
}

/// The critical path of `func` as the lowering runs it: prepared, each op
/// with its own initial value (Prepare.h), as the peak before is measured.
/// A step returned as written is returned prepared, so the time before and
/// after count the same fills.
std::optional<PipelineTime> preparedPipelineTime(func::FuncOp func,
                                                 const CostModel &costs,
                                                 std::string &whyNot,
                                                 bool &hangs) {
  // Most functions are no pipeline: the walk that says so is cheaper than
  // the copy.
  std::optional<PipelineTime> asWritten =
      pipelineTime(func, costs, nullptr, &whyNot, &hangs);
  if (!asWritten && whyNot.empty())
    return std::nullopt;
  OwningOpRef<func::FuncOp> prepared = func.clone();
  prepareForRemat(*prepared);
  return pipelineTime(*prepared, costs, func->getParentOp(), &whyNot, &hangs);
}

/// A pipelined step's critical path as written and as planned
/// (PipelineTime.h): where ranks wait for each other, the sum of a rank's
/// ops (time_before/after) is not its step time.
void reportPipelineTime(FunctionReport &report,
                        const std::optional<PipelineTime> &before,
                        const std::optional<PipelineTime> &after) {
  if (!before)
    return;
  report.pipelineTimeBefore = before->criticalPath;
  if (after) {
    report.pipelineTimeAfter = after->criticalPath;
    report.deviceBusy = after->busy;
  }
}

struct RematerializePass
    : public remat::impl::RematerializePassBase<RematerializePass> {
  RematerializePass() = default;
  explicit RematerializePass(const RematSettings &settings) {
    options.assign(settings);
  }
  // A clone declares its own options; the pass manager copies the values.
  RematerializePass(const RematerializePass &other)
      : RematerializePassBase(other) {}

  void runOnOperation() override {
    const RematSettings settings = options.settings();
    if (std::optional<std::string> wrong = checkRematSettings(settings)) {
      getOperation().emitError() << "-remat-rematerialize: " << *wrong;
      return signalPassFailure();
    }
    SizeSpec size = cantFail(parseBudget(settings.budget, Units{}));
    FailureOr<std::optional<CostTable>> table =
        CostTable::loadOption(settings.costTable, getOperation());
    if (failed(table))
      return signalPassFailure();
    CostModel costs(*table ? &**table : nullptr, settings.alignment);

    RematOptions fit = fitOptions(settings, size);
    RematReport report;
    bool failed = false;
    int analysed = 0; // Training steps planned, fitted or not.
    llvm::StringSet<> selected;
    for (const std::string &name : settings.functions) {
      selected.insert(name);
      if (!SymbolTable::lookupSymbolIn(getOperation(), name)) {
        getOperation().emitError()
            << "-remat-rematerialize: functions= names @" << name
            << ", which this module does not define";
        failed = true;
      }
    }
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      bool named = selected.contains(func.getSymName());
      if (!selected.empty() && !named)
        continue; // Not selected: left alone, as asked.
      if (std::optional<std::string> why = whyNotATrainingStep(func)) {
        failed |= skip(func, named, *why, report);
        continue;
      }
      failed |= fitFunction(func, settings, fit, costs, report, analysed);
    }
    // A budget no function was held to is not a budget met.
    if (!failed && analysed == 0) {
      getOperation().emitError()
          << "-remat-rematerialize: no training step to fit into the budget: "
             "every function was skipped (the remarks say why; a step "
             "returns its loss, marked {remat.loss}, and gradients computed "
             "from it)";
      failed = true;
    }
    if (!settings.report.empty()) {
      std::string error;
      if (!report.write(settings.report, error)) {
        getOperation().emitError() << error;
        failed = true;
      }
    }
    if (failed)
      signalPassFailure();
  }

  /// What rematerializeFunction is asked for, from the pass's settings.
  static RematOptions fitOptions(const RematSettings &settings,
                                 const SizeSpec &size) {
    RematOptions fit;
    fit.budget = size;
    fit.strategy = settings.strategy;
    fit.scanSlots = settings.scanSlots;
    fit.solve = settings.solve;
    fit.offload = settings.offload;
    fit.solve.offloadResults = settings.offloadResults;
    if (!settings.hostBudget.empty())
      fit.solve.hostBudget =
          cantFail(parseBytes(settings.hostBudget, Units{}, "host-budget"));
    // The IR's node times are nanoseconds (CopyLink.h).
    fit.solve.link = CopyLink::fromRates(settings.linkBandwidth,
                                         settings.linkLatency, 1e-9);
    fit.solve.link.offloadsBlock = settings.offloadBlocking;
    return fit;
  }

  /// A function that is not a training step: an error where functions=
  /// names it (returns true), else a remark and a skip in the report.
  static bool skip(func::FuncOp func, bool named, const std::string &why,
                   RematReport &report) {
    if (named) {
      func.emitError() << "@" << func.getSymName()
                       << " is selected by functions= but is not a "
                          "training step: "
                       << why;
      return true;
    }
    func.emitRemark() << "remat: skipped @" << func.getSymName()
                      << ", not a training step: " << why;
    report.addSkipped(func.getSymName(), why);
    return false;
  }

  /// Fits one training step into the budget and reports it, with its
  /// pipeline time before and after; true where that failed.
  static bool fitFunction(func::FuncOp func, const RematSettings &settings,
                          const RematOptions &fit, const CostModel &costs,
                          RematReport &report, int &analysed) {
    if (mlir::failed(applyDimBounds(func, settings.dimBounds)))
      return true;
    bool failed = false;
    RematResult result;
    std::string whyNoPipelineTime;
    bool hangs = false;
    std::optional<PipelineTime> pipelineBefore =
        preparedPipelineTime(func, costs, whyNoPipelineTime, hangs);
    if (hangs)
      func.emitWarning() << "this step hangs when run: " << whyNoPipelineTime;
    if (mlir::failed(rematerializeFunction(func, fit, costs, result))) {
      failed = true;
    } else if (result.report.fitted) {
      reportDevicePeaks(result.report, devicePeaks(func, costs));
      // Where the per-stage choice replayed the plan already, its path.
      std::optional<PipelineTime> after;
      if (result.report.pipelineTimeAfter < 0)
        after = pipelineTime(func, costs);
      reportPipelineTime(result.report, pipelineBefore, after);
    }
    if (!result.report.name.empty()) { // Analysed: reported, fitted or not.
      report.add(std::move(result.report));
      ++analysed;
    }
    return failed;
  }

  RematOptionDecls<mlir::Pass> options{*this};
};

} // namespace

std::unique_ptr<Pass> remat::createRematerializePass() {
  return std::make_unique<RematerializePass>();
}

std::unique_ptr<Pass>
remat::createRematerializePass(const RematSettings &settings) {
  return std::make_unique<RematerializePass>(settings);
}
