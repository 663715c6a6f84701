//===- HostStackChoice.h - Checkpoint a scan, or keep its stacks on host -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// With offload=true, a scan's stored values have a third place beside the
// device and recomputation: host memory (HostStacks.h). `-remat-fit` plans
// the function both ways, each with every other choice it has (checkpoint
// counts, recomputation, offload of other values), and keeps the better:
// at a budget the faster plan, at the smallest budget the smaller (then the
// faster). Only the kept plan's diagnostics are emitted.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_TRANSFORMS_HOSTSTACKCHOICE_H
#define REMAT_TRANSFORMS_HOSTSTACKCHOICE_H

#include "remat/Transforms/Rematerialize.h"

#include "llvm/ADT/STLFunctionalExtras.h"

namespace remat {

/// Fits one function (a detached copy) with `options`: what
/// rematerializeFunction does, the symbols looked up where the function is.
using FitFunction = llvm::function_ref<mlir::LogicalResult(
    mlir::func::FuncOp, const RematOptions &, RematResult &)>;

/// Fits `func` by `fit` as it is and, where some scan can keep its stacks on
/// the host, so too, and keeps the better (above); the contract of
/// rematerializeFunction.
mlir::LogicalResult fitWithHostStacks(mlir::func::FuncOp func,
                                      const RematOptions &options,
                                      RematResult &result, FitFunction fit);

} // namespace remat

#endif // REMAT_TRANSFORMS_HOSTSTACKCHOICE_H
