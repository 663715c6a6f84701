//===- MicroBatch.h - Fit the body of a micro-batch loop --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A step that accumulates gradients over micro-batches has its whole forward
// and backward in the body of one scf.for (microBatchLoop(),
// TrainingGraphBuilder.h). rematerializeFunction plans such a step inside
// that body: the body becomes a function of its own, is fitted like any
// step into the budget less what the function holds around the loop, and
// is put back. The loop itself is unchanged.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_TRANSFORMS_MICROBATCH_H
#define REMAT_TRANSFORMS_MICROBATCH_H

#include "remat/Transforms/Rematerialize.h"

namespace remat {

/// Fits `func`, a micro-batch step (microBatchLoop(func) is its loop), into
/// `options.budget` (a percentage is of the whole function's peak). On
/// failure an error names the smallest budget the body can meet, as a budget
/// of the function, and the IR is unchanged.
mlir::LogicalResult rematerializeMicroBatchStep(mlir::func::FuncOp func,
                                                const RematOptions &options,
                                                const CostModel &costs,
                                                RematResult &result);

} // namespace remat

#endif // REMAT_TRANSFORMS_MICROBATCH_H
