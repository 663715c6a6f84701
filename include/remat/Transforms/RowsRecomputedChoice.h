//===- RowsRecomputedChoice.h - Keep a stack or recompute rows -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Where a scan reads another scan's stack row by row and the stack is read
// again after it (a stacked RNN's layers, ReaderRows.h), the reader can run
// the writer's step again instead, making the rows its own residuals. That
// costs the writer's forward once more and can lower the peak by the stack.
// `-remat-fit` plans the function both ways, each with every other choice
// it has, and keeps the better: at a budget the faster plan, at the
// smallest budget the smaller (then the faster). Only the kept plan's
// diagnostics are emitted; where neither fits, the refusal of the one that
// reaches lower.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_TRANSFORMS_ROWSRECOMPUTEDCHOICE_H
#define REMAT_TRANSFORMS_ROWSRECOMPUTEDCHOICE_H

#include "remat/Transforms/HostStackChoice.h"

namespace remat {

/// Fits `func` by `fit` as it is and, where some loop reads another's stack
/// so, with the rows recomputed by the reader, and keeps the better (above);
/// the contract of rematerializeFunction.
mlir::LogicalResult fitWithRowsRecomputed(mlir::func::FuncOp func,
                                          const RematOptions &options,
                                          RematResult &result, FitFunction fit);

} // namespace remat

#endif // REMAT_TRANSFORMS_ROWSRECOMPUTEDCHOICE_H
