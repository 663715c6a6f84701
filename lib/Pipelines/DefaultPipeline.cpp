//===- DefaultPipeline.cpp - `-remat-fit`: what --remat-budget runs -------===//

#include "remat/Pipelines/Pipelines.h"
#include "remat/Transforms/Passes.h"
#include "remat/Transforms/Rematerialize.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

LogicalResult
remat::buildDefaultRematPipeline(OpPassManager &pm,
                                 const RematPipelineOptions &options,
                                 std::string &error) {
  // Reject bad settings before any input is read.
  if (std::optional<std::string> wrong = checkRematSettings(
          options.budget, options.strategy, options.slots,
          options.milpSeconds)) {
    error = *wrong;
    return failure();
  }
  // Calls the planner would see as opaque nodes: inline what upstream's
  // inliner can (private callees, then dropped once unused).
  pm.addPass(createInlinerPass());
  // Clean-up first: after planning, CSE would merge the initial values the
  // planner gave each op (remat.recompute regions themselves survive it).
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  AnnotateCostsPassOptions annotate;
  annotate.costTable = options.costTable;
  pm.addPass(createAnnotateCostsPass(annotate));
  RematerializePassOptions remat;
  remat.budget = options.budget;
  remat.strategy = options.strategy;
  remat.slots = options.slots;
  remat.milpSeconds = options.milpSeconds;
  remat.functions.assign(options.functions.begin(), options.functions.end());
  remat.report = options.report;
  remat.costTable = options.costTable;
  pm.addPass(createRematerializePass(remat));
  return success();
}

void remat::registerDefaultRematPipeline() {
  // registerPassPipeline rather than PassPipelineRegistration: a bad setting
  // is an error the pipeline's parser reports, not a pipeline that fails.
  registerPassPipeline(
      "remat-fit",
      "Fit every training step into a memory budget: canonicalize, cse, "
      "annotate costs, rematerialize (what remat-opt --remat-budget=SIZE "
      "runs)",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        RematPipelineOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        std::string error;
        if (failed(buildDefaultRematPipeline(pm, options, error)))
          return errorHandler("-remat-fit: " + error);
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> optHandler) {
        optHandler(RematPipelineOptions());
      });
}
