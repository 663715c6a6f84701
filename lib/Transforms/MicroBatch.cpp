//===- MicroBatch.cpp - Fit the body of a micro-batch loop ----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The lifetime analysis models a loop as one node whose workspace is the
// peak of one run of its body, so the function's peak during the loop is
// what it holds around the loop plus the body's peak. The body, outlined
// into a function (induction variable, carries and captured values as
// arguments, constants cloned in), has the same peak with what it reads
// counted as arguments. Fitting it into the budget less the difference fits
// the loop; the whole function is checked again after the body is put back.
//
//===----------------------------------------------------------------------===//

#include "remat/Transforms/MicroBatch.h"
#include "remat/Transforms/OutlineRegion.h"

#include "remat/Analysis/OpGroups.h"
#include "remat/Analysis/TrainingGraphBuilder.h"
#include "remat/Dialect/Remat/Remat.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Transforms/Prepare.h"
#include "remat/Transforms/RematReport.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Remarks.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace remat;

namespace {

/// The loop body as a private function next to `parent`: arguments are the
/// induction variable, the carries, then `captured` (the values from above
/// that are not constants); it returns what the body yields, the loss
/// marked.
func::FuncOp outlineBody(scf::ForOp loop, func::FuncOp parent,
                         unsigned lossIndex, SmallVectorImpl<Value> &captured) {
  func::FuncOp func = outlineRegion(loop.getRegion(),
                                    (parent.getSymName() + ".body").str(),
                                    captured);
  Builder b(loop.getContext());
  func.setResultAttr(lossIndex, RematDialect::kLossAttrName, b.getUnitAttr());
  // Its arguments are writable (OpGroups.h): the carries are the loop's
  // buffers, which the body writes its new values into once the old ones
  // are dead, as in the loop.
  // In the module, so that callees resolve; renamed if the name is taken.
  SymbolTable(parent->getParentOp())
      .insert(func, std::next(Block::iterator(parent)));
  return func;
}

/// Replaces the loop's body by `func`'s (outlineBody's arguments).
void inlineBody(func::FuncOp func, scf::ForOp loop, ArrayRef<Value> captured) {
  Block &body = *loop.getBody();
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body))) {
    op.dropAllUses();
    op.erase();
  }
  Block &entry = func.getBody().front();
  IRMapping map;
  map.map(entry.getArguments().take_front(body.getNumArguments()),
          body.getArguments());
  map.map(entry.getArguments().drop_front(body.getNumArguments()), captured);
  OpBuilder b = OpBuilder::atBlockEnd(&body);
  scf::YieldOp::create(b, entry.getTerminator()->getLoc(),
                       cloneBodyInto(entry, b, map));
}

/// The function's program order, simulated with its timeline.
struct Timeline {
  IRTrainingGraph ig;
  SimulationResult sim;
};

FailureOr<Timeline> timeline(func::FuncOp func, const CostModel &costs,
                             Operation *scope) {
  FailureOr<IRTrainingGraph> ig =
      buildTrainingGraph(func, costs, RecomputeRegions::Flatten, scope);
  if (failed(ig))
    return failure();
  SimulatorOptions record;
  record.recordTimeline = true;
  SimulationResult sim = simulate(ig->graph, ig->programOrder, record);
  if (!sim.valid)
    return func.emitError() << "internal error: the program order is not a "
                               "valid schedule: "
                            << sim.error;
  return Timeline{std::move(*ig), std::move(sim)};
}

/// Bytes held while `loop` runs and the most held at any other step.
std::pair<int64_t, int64_t> usageAtAndBeside(const Timeline &t,
                                             scf::ForOp loop) {
  NodeId node = t.ig.opNodes.lookup(loop);
  int64_t at = 0, beside = 0;
  const std::vector<Step> &steps = t.ig.programOrder.steps();
  for (size_t i = 0; i < steps.size(); ++i) {
    int64_t used = t.sim.usageDuringStep[i];
    if (steps[i].isRun() && steps[i].id == node)
      at = std::max(at, used);
    else
      beside = std::max(beside, used);
  }
  return {at, beside};
}

class MicroBatchFitter {
public:
  MicroBatchFitter(func::FuncOp original, const RematOptions &options,
                   const CostModel &costs, RematResult &result)
      : original(original), options(options), costs(costs), result(result),
        scope(original->getParentOp()) {}

  LogicalResult run() {
    if (!scope || !scope->hasTrait<OpTrait::SymbolTable>())
      return original.emitError()
             << "remat plans a micro-batch loop's body as a function of its "
                "own: @"
             << original.getSymName() << " must be in a module";
    OwningOpRef<func::FuncOp> work(original.clone());
    prepareForRemat(*work);
    scf::ForOp loop = microBatchLoop(*work);
    if (!loop)
      return original.emitError() << "internal error: prepare changed the "
                                     "micro-batch loop";
    FailureOr<Timeline> before = timeline(*work, costs, scope);
    if (failed(before))
      return failure();
    if (options.budget.minimum)
      return original.emitError()
             << "@" << original.getSymName()
             << " is a micro-batch step, planned inside its loop's body: "
                "budget=min is not supported for it; give a size or a "
                "percentage";
    // Percentages are of the peak of the program as it runs: the timeline
    // of the prepared copy (as the lowering prepares it too).
    int64_t peakBefore =
        functionPeak(*work, costs, RecomputeRegions::Flatten, scope)
            .value_or(before->sim.peak);
    llvm::Expected<int64_t> budget =
        resolveBudget(options.budget, peakBefore);
    if (!budget)
      return original.emitError() << llvm::toString(budget.takeError());
    FunctionReport &fr = result.report;
    fr.name = original.getSymName().str();
    fr.strategy = options.strategy;
    fr.budget = *budget;
    fr.peakBefore = peakBefore;
    fr.timeBefore = before->sim.time;
    if (std::optional<int64_t> asIs = functionPeak(
            original, costs, RecomputeRegions::Flatten, scope);
        asIs && *asIs <= *budget)
      return keepAsIs(*asIs);
    auto [atLoop, beside] = usageAtAndBeside(*before, loop);
    if (beside > *budget)
      return original.emitError()
             << "cannot fit @" << original.getSymName() << " into " << *budget
             << " B: outside its micro-batch loop it holds " << beside
             << " B, and remat plans only inside that loop's body";

    SmallVector<Value> captured;
    unsigned lossIndex =
        cast<OpResult>(cast<func::ReturnOp>(
                           work->getBody().front().getTerminator())
                           .getOperand(lossResultIndex(*work)))
            .getResultNumber();
    func::FuncOp body = outlineBody(loop, original, lossIndex, captured);
    llvm::scope_exit eraseBody([&] { body.erase(); });
    std::optional<int64_t> bodyPeak =
        functionPeak(body, costs, RecomputeRegions::Flatten, scope);
    if (!bodyPeak)
      return failure();
    // What the function holds around the loop that the body does not count.
    const int64_t around = std::max<int64_t>(0, atLoop - *bodyPeak);
    if (failed(fitBody(body, *budget - around, around)))
      return failure();
    inlineBody(body, loop, captured);

    FailureOr<Timeline> after = timeline(*work, costs, scope);
    if (failed(after))
      return failure();
    if (after->sim.peak > *budget)
      return original.emitError()
             << "internal error: with its micro-batch loop's body fitted, @"
             << original.getSymName() << " peaks at " << after->sim.peak
             << " B, above the budget of " << *budget << " B";
    original.getBody().takeBody(work->getBody());
    fr.fitted = true;
    fr.peakAfter = after->sim.peak;
    fr.timeBefore = before->sim.time;
    fr.timeAfter = after->sim.time;
    remark::passed(original.getLoc(), remarkOpts())
        << llvm::formatv("micro-batch loop body fitted by strategy {0}: peak "
                         "{1} B -> {2} B (budget {3} B), time +{4}",
                         fr.strategy, fr.peakBefore, fr.peakAfter, fr.budget,
                         percentOf(fr.timeAfter - fr.timeBefore,
                                   fr.timeBefore))
               .str();
    return success();
  }

private:
  remark::RemarkOpts remarkOpts() {
    return remark::RemarkOpts::name("Rematerialized")
        .category("remat")
        .function(original.getSymName());
  }

  LogicalResult keepAsIs(int64_t peak) {
    remark::analysis(original.getLoc(),
                     remark::RemarkOpts::name("Fits")
                         .category("remat")
                         .function(original.getSymName()))
        << llvm::formatv("peak {0} B already within the budget of {1} B; "
                         "nothing to do",
                         peak, result.report.budget)
               .str();
    result.report.strategy = "none";
    result.report.fitted = true;
    result.report.peakAfter = peak;
    result.report.timeAfter = result.report.timeBefore;
    return success();
  }

  /// Fits the outlined body into `bodyBudget`. Its errors are restated as
  /// one about the function (the body is not a function the user wrote).
  LogicalResult fitBody(func::FuncOp body, int64_t bodyBudget,
                        int64_t around) {
    FunctionReport &fr = result.report;
    if (bodyBudget <= 0)
      return original.emitError()
             << "cannot fit @" << original.getSymName() << " into "
             << fr.budget << " B: around its micro-batch loop it holds "
             << around << " B";
    RematOptions inner = options;
    inner.budget = SizeSpec();
    inner.budget.value = static_cast<double>(bodyBudget);
    RematResult bodyResult;
    std::vector<std::string> errors;
    LogicalResult fitted = success();
    {
      ScopedDiagnosticHandler quiet(original->getContext(), [&](Diagnostic &d) {
        if (d.getSeverity() != DiagnosticSeverity::Error)
          return failure(); // Remarks and notes pass on.
        errors.push_back(d.str());
        return success();
      });
      fitted = rematerializeFunction(body, inner, costs, bodyResult);
    }
    FunctionReport &br = bodyResult.report;
    fr.strategy = br.strategy;
    fr.ops = br.ops;
    fr.seconds = br.seconds;
    fr.bound = br.bound;
    fr.gap = br.gap;
    fr.values = std::move(br.values);
    result.schedule = std::move(bodyResult.schedule);
    result.clonedOps = bodyResult.clonedOps;
    result.recomputeOps = bodyResult.recomputeOps;
    if (succeeded(fitted))
      return success();
    InFlightDiagnostic diag = original.emitError();
    diag << "cannot fit @" << original.getSymName() << " into " << fr.budget
         << " B (" << percentOf(fr.budget, fr.peakBefore)
         << " of its peak without rematerialization, " << fr.peakBefore
         << " B) with strategy '" << options.strategy
         << "': the body of its micro-batch loop must fit " << bodyBudget
         << " B";
    if (br.minimumBudget > 0) {
      fr.minimumBudget = br.minimumBudget + around;
      diag << "; the smallest budget it can meet is " << fr.minimumBudget
           << " B (" << percentOf(fr.minimumBudget, fr.peakBefore) << ")";
    }
    else // Not a budget miss: say what went wrong.
      for (const std::string &error : errors)
        diag.attachNote(body.getLoc()) << error;
    return failure();
  }

  func::FuncOp original;
  const RematOptions &options;
  const CostModel &costs;
  RematResult &result;
  Operation *scope;
};

} // namespace

LogicalResult remat::rematerializeMicroBatchStep(func::FuncOp func,
                                                 const RematOptions &options,
                                                 const CostModel &costs,
                                                 RematResult &result) {
  return MicroBatchFitter(func, options, costs, result).run();
}
