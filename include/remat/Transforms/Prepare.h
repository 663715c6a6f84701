//===- Prepare.h - Make the IR match the planner's memory model -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Bufferization writes an op's result into the buffer of its destination
// operand when nothing else reads that operand, and copies otherwise. The
// planner models one buffer per node (an op with the initial values it
// writes into, OpGroups.h), so before planning:
//  - an initial value (tensor.empty, a fill or a broadcast of a parameter)
//    used by several ops is duplicated, one copy per use;
//  - each absorbed initial value is moved right before the op that writes
//    into it, so its buffer is created where the model creates it;
//  - a slice updated where it was cut (`m[r][c] = v` on a tensor) becomes
//    inserts into the tensor itself (FlattenSliceUpdates.h), as
//    bufferization writes it.
// All are semantics-preserving and cheap (initial values cost at most one
// write per element).
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_TRANSFORMS_PREPARE_H
#define REMAT_TRANSFORMS_PREPARE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace remat {

void prepareForRemat(mlir::func::FuncOp func);

} // namespace remat

#endif // REMAT_TRANSFORMS_PREPARE_H
