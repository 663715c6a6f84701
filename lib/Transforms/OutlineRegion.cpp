//===- OutlineRegion.cpp - A region's block as a function of its own ------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Transforms/OutlineRegion.h"

#include "remat/Analysis/OpGroups.h"

#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace remat {

SmallVector<Value> cloneBodyInto(Block &from, OpBuilder &b, IRMapping &map) {
  for (Operation &op : from.without_terminator())
    b.clone(op, map);
  return llvm::map_to_vector(from.getTerminator()->getOperands(),
                             [&](Value v) { return map.lookup(v); });
}

func::FuncOp outlineRegion(Region &region, StringRef name,
                           SmallVectorImpl<Value> &captured) {
  llvm::SetVector<Value> above;
  getUsedValuesDefinedAbove(region, above);
  SmallVector<Operation *> constants;
  const size_t first = captured.size();
  for (Value v : above) {
    Operation *def = v.getDefiningOp();
    if (def && isConstantValue(def))
      constants.push_back(def);
    else
      captured.push_back(v);
  }
  ArrayRef<Value> fromAbove = ArrayRef<Value>(captured).drop_front(first);
  Block &body = region.front();
  SmallVector<Type> argTypes(body.getArgumentTypes());
  for (Value v : fromAbove)
    argTypes.push_back(v.getType());

  Operation *parent = region.getParentOp();
  OpBuilder b(parent->getContext());
  auto func = func::FuncOp::create(
      parent->getLoc(), name,
      b.getFunctionType(argTypes, body.getTerminator()->getOperandTypes()));
  func.setPrivate();
  Block *entry = func.addEntryBlock();
  IRMapping map;
  map.map(body.getArguments(),
          entry->getArguments().take_front(body.getNumArguments()));
  map.map(fromAbove, entry->getArguments().drop_front(body.getNumArguments()));
  b.setInsertionPointToStart(entry);
  for (Operation *c : constants)
    b.clone(*c, map);
  func::ReturnOp::create(b, body.getTerminator()->getLoc(),
                         cloneBodyInto(body, b, map));
  return func;
}

} // namespace remat
