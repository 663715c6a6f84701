//===- RematOps.cpp - remat operations ------------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Dialect/Remat/Remat.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace remat;

//===----------------------------------------------------------------------===//
// RecomputeOp
//===----------------------------------------------------------------------===//

MLIR_DEFINE_EXPLICIT_TYPE_ID(remat::RecomputeResource)

YieldOp RecomputeOp::getYield() {
  return cast<YieldOp>(getBodyBlock().getTerminator());
}

/// The value `v` stands for: a body argument's operand, a result's yielded
/// value.
static Value sameSizeAs(RecomputeOp op, Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v))
    return op.getInputs()[arg.getArgNumber()];
  return op.getYield().getValues()[cast<OpResult>(v).getResultNumber()];
}

void RecomputeOp::populateBoundsForIndexValue(Value value,
                                              ValueBoundsConstraintSet &cstr) {
  cstr.bound(value) == cstr.getExpr(sameSizeAs(*this, value));
}

void RecomputeOp::populateBoundsForShapedValueDim(
    Value value, int64_t dim, ValueBoundsConstraintSet &cstr) {
  cstr.bound(value)[dim] == cstr.getExpr(sameSizeAs(*this, value), dim);
}

LogicalResult RecomputeOp::verify() {
  Block &body = getBodyBlock();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError() << "has " << getInputs().size()
                         << " inputs but its region takes "
                         << body.getNumArguments() << " arguments";
  for (auto [i, input, arg] :
       llvm::enumerate(getInputs(), body.getArguments()))
    if (input.getType() != arg.getType())
      return emitOpError() << "input #" << i << " has type "
                           << input.getType() << " but region argument #" << i
                           << " has type " << arg.getType();
  YieldOp yield = getYield();
  if (yield.getValues().size() != getNumResults())
    return emitOpError() << "yields " << yield.getValues().size()
                         << " values but has " << getNumResults()
                         << " results";
  for (auto [i, value, result] :
       llvm::enumerate(yield.getValues(), getResults()))
    if (value.getType() != result.getType())
      return emitOpError() << "yields " << value.getType() << " as value #"
                           << i << " but result #" << i << " has type "
                           << result.getType();
  return success();
}

//===----------------------------------------------------------------------===//
// GenericOp (remat.op)
//===----------------------------------------------------------------------===//

LogicalResult GenericOp::verify() {
  if (getName().empty())
    return emitOpError() << "needs a non-empty op name";
  bool dynamic = llvm::any_of(getResultTypes(), [](Type t) {
    auto shaped = dyn_cast<ShapedType>(t);
    return !shaped || !shaped.hasStaticShape();
  });
  if (dynamic && getCost().getBytes() == 0)
    return emitOpError() << "'" << getName()
                         << "' has dynamically shaped results: its cost must "
                            "give their size in bytes";
  if (std::optional<int64_t> k = getOverwrites()) {
    if (*k < 0 || *k >= static_cast<int64_t>(getInputs().size()) ||
        getNumResults() == 0)
      return emitOpError() << "overwrites operand " << *k << " of "
                           << getInputs().size() << " (and needs a result)";
    auto in = dyn_cast<ShapedType>(getInputs()[*k].getType());
    auto out = dyn_cast<ShapedType>(getResult(0).getType());
    if (!in || !out || !in.hasStaticShape() || !out.hasStaticShape() ||
        in.getElementType() != out.getElementType() ||
        in.getNumElements() != out.getNumElements())
      return emitOpError() << "overwrites operand " << *k << " of type "
                           << getInputs()[*k].getType()
                           << ", which does not hold its first result "
                           << getResult(0).getType()
                           << " (same element type and count)";
  }
  return success();
}

void GenericOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  // A random op (dropout, randn) draws new numbers each time it runs: model
  // that as a write so it is neither merged, deleted nor recomputed.
  if (getRandom())
    effects.emplace_back(MemoryEffects::Write::get());
}

#define GET_OP_CLASSES
#include "remat/Dialect/Remat/RematOps.cpp.inc"
