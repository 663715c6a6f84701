//===- RowsRecomputedChoice.cpp - A stack kept, or its rows recomputed ----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Transforms/RowsRecomputedChoice.h"

#include "remat/Loops/ReaderRows.h"
#include "remat/Transforms/HeldDiagnostics.h"

#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace remat {

LogicalResult fitWithRowsRecomputed(func::FuncOp func,
                                    const RematOptions &options,
                                    RematResult &result, FitFunction fit) {
  OwningOpRef<func::FuncOp> recomputing = func.clone();
  const int readers = recomputeRowsInReaders(*recomputing);
  if (readers == 0)
    return fit(func, options, result);
  MLIRContext *ctx = func.getContext();
  OwningOpRef<func::FuncOp> asWritten = func.clone();
  RematResult kept;
  HeldDiagnostics keptDiags(ctx);
  const bool keptFits =
      keptDiags.hold([&] { return succeeded(fit(*asWritten, options, kept)); });
  // The same budget in bytes: a percentage is of the program as written.
  const FunctionReport &k = kept.report;
  RematOptions rowsOptions = options;
  if (!options.budget.minimum) {
    if (k.budget <= 0) { // The budget itself was refused.
      keptDiags.emit();
      result = std::move(kept);
      return failure();
    }
    rowsOptions.budget = SizeSpec{false, false, static_cast<double>(k.budget)};
  }
  rowsOptions.asWritten.peak = k.peakBefore;
  rowsOptions.asWritten.time = k.timeBefore;
  RematResult rows;
  HeldDiagnostics rowsDiags(ctx);
  const bool rowsFit = rowsDiags.hold(
      [&] { return succeeded(fit(*recomputing, rowsOptions, rows)); });
  FunctionReport &r = rows.report;
  bool rowsBetter;
  if (keptFits != rowsFit)
    rowsBetter = rowsFit;
  else if (!keptFits) // The refusal that names the smaller budget.
    rowsBetter = r.minimumBudget >= 0 &&
                 (k.minimumBudget < 0 || r.minimumBudget < k.minimumBudget);
  else if (options.budget.minimum && r.budget != k.budget)
    rowsBetter = r.budget < k.budget;
  else
    rowsBetter = r.timeAfter < k.timeAfter;
  if (!rowsBetter) {
    keptDiags.emit();
    result = std::move(kept);
    if (!keptFits)
      return failure();
    func.getBody().takeBody(asWritten->getBody());
    return success();
  }
  rowsDiags.emit();
  r.peakBefore = k.peakBefore;
  r.timeBefore = k.timeBefore;
  if (!rowsFit) {
    result = std::move(rows);
    return failure();
  }
  func.getBody().takeBody(recomputing->getBody());
  InFlightDiagnostic remark = func.emitRemark();
  remark << llvm::formatv(
      "{0} loop{1} recompute{2} the rows {3} read{2} of an earlier scan's "
      "stack (the stack no longer kept through the backward pass): ",
      readers, readers == 1 ? "" : "s", readers == 1 ? "s" : "",
      readers == 1 ? "it" : "they");
  if (!keptFits)
    remark << "keeping the stack does not fit this budget";
  else if (options.budget.minimum && r.budget < k.budget)
    remark << llvm::formatv("a smallest budget of {0} B, keeping it {1} B",
                            r.budget, k.budget);
  else
    remark << llvm::formatv("{0:F0} time units, keeping it {1:F0}", r.timeAfter,
                            k.timeAfter);
  result = std::move(rows);
  return success();
}

} // namespace remat
