//===- HostCopyOps.cpp - remat.offload and remat.prefetch -----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The verifiers of the two host copies: a host copy is read only by the
// prefetches that bring it back and by the function's return (a result
// returned from host memory), and a prefetch reads a host copy.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/Remat.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace remat;

MLIR_DEFINE_EXPLICIT_TYPE_ID(remat::HostCopyResource)

LogicalResult OffloadOp::verify() {
  for (Operation *user : getResult().getUsers())
    if (!isa<PrefetchOp, func::ReturnOp>(user))
      return emitOpError() << "result is a host copy, read only by "
                              "remat.prefetch and func.return; '"
                           << user->getName() << "' reads it";
  return success();
}

LogicalResult PrefetchOp::verify() {
  if (!getInput().getDefiningOp<OffloadOp>())
    return emitOpError() << "reads a host copy: its operand must be the "
                            "result of a remat.offload";
  return success();
}

/// `stack`'s type without its leading dimension: the type of one row.
static RankedTensorType rowType(RankedTensorType stack) {
  return RankedTensorType::get(stack.getShape().drop_front(),
                               stack.getElementType());
}

static LogicalResult verifyRow(Operation *op, RankedTensorType stack,
                               RankedTensorType row, StringRef what) {
  if (stack.getRank() < 1)
    return op->emitOpError() << "needs a stack of rank 1 or more (rows along "
                                "its leading dimension), got "
                             << stack;
  if (row != rowType(stack))
    return op->emitOpError() << what << " must be one row of the stack, "
                             << rowType(stack) << ", got " << row;
  return success();
}

LogicalResult HostEmptyOp::verify() {
  if (getType().getRank() < 1)
    return emitOpError() << "makes a stack: a tensor of rank 1 or more, got "
                         << getType();
  return success();
}

LogicalResult OffloadRowOp::verify() {
  return verifyRow(*this, getStack().getType(), getValue().getType(),
                   "the value");
}

LogicalResult PrefetchRowOp::verify() {
  return verifyRow(*this, getStack().getType(), getResult().getType(),
                   "the result");
}
