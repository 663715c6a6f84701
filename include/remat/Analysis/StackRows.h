//===- StackRows.h - Whole-row accesses of a stacked tensor ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A stack holds one row per iteration along its time axis. These read the
// row an access touches, whatever else the access is: the scan matcher
// (ScanLoops.cpp) and the forwarding of a loop's reads of its own stack
// (ForwardStackReads.cpp) ask the same questions of the same ops.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_ANALYSIS_STACKROWS_H
#define REMAT_ANALYSIS_STACKROWS_H

#include "remat/Analysis/IndexExpr.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

#include <optional>

namespace remat {

/// The row `access` (a write into or a read of `stack`) touches, when it
/// touches one whole row along the stack's time axis `axis` (0: [T, ...] as
/// torch.stack and JAX's scan stack; 1: a batch-first [B, T, ...]):
/// tensor.insert_slice / extract_slice of offset `row` on that axis and 0
/// elsewhere, size 1 on it and whole elsewhere, strides 1; or tensor.insert
/// / extract of a 1-D stack.
std::optional<IndexExpr> wholeRow(mlir::Operation *access,
                                  mlir::RankedTensorType stack, int64_t axis,
                                  const IndexFacts &facts = {});

/// The time axis of the stack `write` writes one row of: the one axis
/// along which it writes a whole row; where several qualify (other axes of
/// extent 1), the one whose offset is not a constant (it moves with the
/// iteration), else the first.
std::optional<int64_t> rowAxisOf(mlir::Operation *write,
                                 mlir::RankedTensorType stack);

/// The type of what one row access stores or reads: the inserted or read
/// value's.
mlir::Type rowValueType(mlir::Operation *access);

/// What a row write (tensor.insert_slice / tensor.insert) stores, and the
/// tensor it writes into (null for any other op).
mlir::Value storedValue(mlir::Operation *insert);
mlir::Value insertDest(mlir::Operation *insert);

} // namespace remat

#endif // REMAT_ANALYSIS_STACKROWS_H
