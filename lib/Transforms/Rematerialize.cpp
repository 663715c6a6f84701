//===- Rematerialize.cpp - Fit training steps into a memory budget --------===//
//
// A thin wrapper over rematerializeFunction (remat/Transforms/Rematerialize.h):
// reads the options, runs it on every function and writes the report.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/Remat.h"
#include "remat/Solver/Core/Strategy.h"
#include "remat/Support/Units.h"
#include "remat/Transforms/Passes.h"
#include "remat/Transforms/RematReport.h"
#include "remat/Transforms/Rematerialize.h"

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

std::optional<std::string> remat::checkRematSettings(llvm::StringRef budget,
                                                     llvm::StringRef strategy,
                                                     int slots,
                                                     double milpSeconds) {
  if (budget.empty())
    return std::string("needs a budget (budget=2GiB, budget=60%)");
  llvm::Expected<SizeSpec> size = parseSize(budget, Units{});
  if (!size)
    return "invalid budget '" + budget.str() +
           "': " + llvm::toString(size.takeError());
  if (!findStrategy(strategy.str())) {
    std::string names;
    for (const StrategyInfo &s : allStrategies())
      names += (names.empty() ? "" : ", ") + s.name;
    return "unknown strategy '" + strategy.str() + "'; available: " + names;
  }
  if (slots < 1)
    return "slots must be at least 1, got " + std::to_string(slots);
  if (!(milpSeconds > 0) || !std::isfinite(milpSeconds))
    return std::string("milp-seconds must be a positive number of seconds");
  return std::nullopt;
}

namespace {

struct RematerializePass
    : public remat::impl::RematerializePassBase<RematerializePass> {
  using RematerializePassBase::RematerializePassBase;

  void runOnOperation() override {
    if (std::optional<std::string> wrong =
            checkRematSettings(budget, strategy, slots, milpSeconds)) {
      getOperation().emitError() << "-remat-rematerialize: " << *wrong;
      return signalPassFailure();
    }
    SizeSpec size = cantFail(parseSize(budget, Units{}));
    FailureOr<std::optional<CostTable>> table =
        CostTable::loadOption(costTable, getOperation());
    if (failed(table))
      return signalPassFailure();
    CostModel costs(*table ? &**table : nullptr);

    RematOptions options;
    options.budget = size;
    options.strategy = strategy;
    options.slots = slots;
    options.milpSeconds = milpSeconds;
    RematReport report;
    bool failed = false;
    llvm::StringSet<> selected;
    for (const std::string &name : functions) {
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
        if (named) {
          func.emitError() << "@" << func.getSymName()
                           << " is selected by functions= but is not a "
                              "training step: "
                           << *why;
          failed = true;
        } else {
          func.emitRemark() << "remat: skipped @" << func.getSymName()
                            << ", not a training step: " << *why;
          report.addSkipped(func.getSymName(), *why);
        }
        continue;
      }
      RematResult result;
      if (mlir::failed(rematerializeFunction(func, options, costs, result)))
        failed = true;
      if (!result.report.name.empty()) // Analysed: reported, fitted or not.
        report.add(std::move(result.report));
    }
    if (!this->report.empty()) {
      std::string error;
      if (!report.write(this->report, error)) {
        getOperation().emitError() << error;
        failed = true;
      }
    }
    if (failed)
      signalPassFailure();
  }
};

} // namespace
