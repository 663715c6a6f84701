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
  if (isParameterOnly(op))
    return user;
  // A computed value a linalg op updates in place (`outs(%acc)`) stays a
  // node of its own: an accumulation chain of T updates is T nodes, each
  // reading its own step's values, not one node reading all of them.
  // Slices inserted into a computed value (concatenation, padding) keep
  // forming one node with it.
  return isDestinationUse(use) && isa<tensor::InsertSliceOp>(user) ? user
                                                                    : nullptr;
}

OpOperand *updatedInPlace(OpResult result) {
  Operation *op = result.getOwner();
  auto dps = dyn_cast<DestinationStyleOpInterface>(op);
  if (!dps || !dps.hasPureTensorSemantics())
    return nullptr;
  OpOperand *init = dps.getTiedOpOperand(result);
  Value dest = init->get();
  Operation *def = dest.getDefiningOp();
  // A block argument is not writable (One-Shot Bufferize copies it); a
  // value read elsewhere too is copied before the write.
  if (!def || def->getBlock() != op->getBlock() || !dest.hasOneUse() ||
      isFreeValue(def) || absorbingUser(def) == op)
    return nullptr;
  return init;
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
