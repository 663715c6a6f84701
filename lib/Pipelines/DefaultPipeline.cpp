//===- DefaultPipeline.cpp - What `remat-opt --remat-budget` runs ---------===//

#include "remat/Support/Units.h"
#include "remat/Pipelines/Pipelines.h"
#include "remat/Solver/Core/Strategy.h"
#include "remat/Transforms/Passes.h"

#include "mlir/Transforms/Passes.h"

#include <cmath>

using namespace mlir;

LogicalResult
remat::buildDefaultRematPipeline(OpPassManager &pm,
                                 const RematPipelineSettings &settings,
                                 std::string &error) {
  // Reject bad settings before any input is read.
  llvm::Expected<SizeSpec> size = parseSize(settings.budget, Units{});
  if (!size) {
    error = "invalid --remat-budget '" + settings.budget +
            "': " + llvm::toString(size.takeError());
    return failure();
  }
  if (!findStrategy(settings.strategy)) {
    error = "unknown --remat-strategy '" + settings.strategy + "'; available:";
    for (const StrategyInfo &s : allStrategies())
      error += " " + s.name;
    return failure();
  }
  if (settings.slots < 1) {
    error = "--remat-slots must be positive";
    return failure();
  }
  if (!(settings.milpSeconds > 0) || !std::isfinite(settings.milpSeconds)) {
    error = "--remat-milp-seconds must be a positive number of seconds";
    return failure();
  }

  // Clean-up first: after planning, CSE would merge the initial values the
  // planner gave each op (remat.recompute regions themselves survive it).
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  AnnotateCostsOptions annotate;
  annotate.costTable = settings.costTable;
  pm.addPass(createAnnotateCosts(annotate));
  RematerializeOptions remat;
  remat.budget = settings.budget;
  remat.strategy = settings.strategy;
  remat.slots = settings.slots;
  remat.milpSeconds = settings.milpSeconds;
  remat.functions.assign(settings.functions.begin(), settings.functions.end());
  remat.report = settings.reportFile;
  remat.costTable = settings.costTable;
  pm.addPass(createRematerialize(remat));
  return success();
}
