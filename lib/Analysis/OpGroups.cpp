//===- OpGroups.cpp - Which ops form one planner node ---------------------===//

#include "remat/Analysis/OpGroups.h"
#include "remat/Dialect/Remat/Remat.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace remat {

bool isFreeValue(Operation *op) {
  return op->getNumOperands() == 0 && op->getNumRegions() == 0 &&
         op->hasTrait<OpTrait::ConstantLike>();
}

SmallVector<OpOperand *> destinationOperands(Operation *op) {
  SmallVector<OpOperand *> dests;
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(op)) {
    for (OpOperand &init : dps.getDpsInitsMutable())
      dests.push_back(&init);
  } else if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
    dests.push_back(&insert.getDestMutable());
  }
  return dests;
}

Operation *absorbingUser(Operation *op) {
  if (op->getNumResults() != 1 || !op->getResult(0).hasOneUse() ||
      isFreeValue(op) || isa<RecomputeOp>(op) || !isMemoryEffectFree(op))
    return nullptr;
  OpOperand &use = *op->getResult(0).getUses().begin();
  Operation *user = use.getOwner();
  if (user->getBlock() != op->getBlock() ||
      user->hasTrait<OpTrait::IsTerminator>() || isa<RecomputeOp>(user))
    return nullptr;
  return isDestinationUse(use) || isParameterOnly(op) ? user : nullptr;
}

bool isDestinationUse(OpOperand &use) {
  return llvm::is_contained(destinationOperands(use.getOwner()), &use);
}

bool isParameterOnly(Operation *op) {
  if (isa<tensor::EmptyOp>(op))
    return true;
  if (op->getNumResults() != 1 || op->getNumRegions() > 1 ||
      !isMemoryEffectFree(op) || isa<RecomputeOp>(op))
    return false;
  SmallVector<OpOperand *> dests = destinationOperands(op);
  if (dests.empty())
    return false;
  for (OpOperand &operand : op->getOpOperands()) {
    Value v = operand.get();
    Operation *def = v.getDefiningOp();
    if (llvm::is_contained(dests, &operand)) {
      if (!def || !isParameterOnly(def))
        return false;
    } else if (def && !isFreeValue(def)) {
      return false; // Reads a computed value: not a cheap initial value.
    }
  }
  return true;
}

} // namespace remat
