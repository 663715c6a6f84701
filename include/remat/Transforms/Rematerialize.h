//===- Rematerialize.h - Fit one function into a memory budget --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The entry point for compilers that embed remat without a pass pipeline:
// "fit this function into B bytes". It plans on a copy of the function,
// rewrites the body only when the copy meets the budget (checked on the
// rewritten IR by the lifetime analysis), and returns the schedule, the peaks
// and the report data. `-remat-rematerialize` is a thin wrapper over it.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_TRANSFORMS_REMATERIALIZE_H
#define REMAT_TRANSFORMS_REMATERIALIZE_H

#include "remat/Analysis/CostModel.h"
#include "remat/Solver/Core/Schedule.h"
#include "remat/Support/Units.h"
#include "remat/Transforms/RematReport.h"
#include "remat/Transforms/RematSettings.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LogicalResult.h"

#include <optional>
#include <string>

namespace remat {

struct RematOptions {
  /// Peak bytes allowed, or a percentage of the peak without
  /// rematerialization (parseSize("60%", Units{})).
  SizeSpec budget;
  /// A strategy of allStrategies() ("auto": the fastest of all that apply).
  std::string strategy = "auto";
  /// Slots of every scan's checkpoints (0: those of the fastest plan).
  int64_t scanSlots = 0;
  /// Whether the plan may copy values to the host and back (offload-greedy
  /// beside the strategy, over `solve.link`).
  bool offload = false;
  /// The strategies' options (allStrategyOptions(): slots, milp-seconds,
  /// ...); budget, cache and note are set per function.
  SolveOptions solve;
  /// Where a variant of a function is planned (RowsRecomputedChoice.h):
  /// the peak and time of the function as written, which messages and
  /// percentages then speak of (0: the planned function's own).
  struct {
    int64_t peak = 0;
    double time = 0;
  } asWritten;
};

struct RematResult {
  /// Peaks, times, decisions per forward value, phase timings; on failure
  /// `fitted` is false and `minimumBudget` names the smallest budget found.
  FunctionReport report;
  /// The schedule that was materialized (empty when the function already
  /// fit and was left unchanged).
  Schedule schedule;
  int clonedOps = 0;    ///< Ops cloned into recomputation regions.
  int recomputeOps = 0; ///< remat.recompute regions created.
};

/// Fits `func` into `options.budget`. On success the body is rewritten (or
/// left alone when it already fits) and `result` describes it. On failure an
/// error is emitted at the function (naming the smallest budget it can
/// meet), the IR is unchanged, and `result.report` says how far it got.
mlir::LogicalResult rematerializeFunction(mlir::func::FuncOp func,
                                          const RematOptions &options,
                                          const CostModel &costs,
                                          RematResult &result);

/// The same, for callers that need no report of a failure.
mlir::FailureOr<RematResult> rematerializeFunction(mlir::func::FuncOp func,
                                                   const RematOptions &options,
                                                   const CostModel &costs);

} // namespace remat

#endif // REMAT_TRANSFORMS_REMATERIALIZE_H
