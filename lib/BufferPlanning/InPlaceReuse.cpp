//===- InPlaceReuse.cpp - When an op may write over its input -------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The MXNet note's in-place rule, made safe for loops over buffers: the
// output may take the input's storage only if every iteration reads the
// input element it then overwrites and no other iteration reads it again.
// A linalg op with parallel loops only and the same permutation indexing map
// on both buffers does exactly that (the lowered loop body loads all
// operands before it stores).
//
//===----------------------------------------------------------------------===//

#include "remat/BufferPlanning/BufferLiveness.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;

/// Same shape, identity layout and element width: element i of one is at
/// the byte offset of element i of the other.
static bool sameStorageLayout(Value a, Value b) {
  auto ta = dyn_cast<MemRefType>(a.getType());
  auto tb = dyn_cast<MemRefType>(b.getType());
  if (!ta || !tb || !ta.hasStaticShape() || ta.getShape() != tb.getShape() ||
      !ta.getLayout().isIdentity() || !tb.getLayout().isIdentity())
    return false;
  Type ea = ta.getElementType(), eb = tb.getElementType();
  if (ea == eb)
    return true;
  return ea.isIntOrFloat() && eb.isIntOrFloat() &&
         ea.getIntOrFloatBitWidth() == eb.getIntOrFloatBitWidth() &&
         ea.getIntOrFloatBitWidth() % 8 == 0;
}

bool remat::mayReuseInPlace(Operation *op, Value input, Value output,
                            ArrayRef<Value> inputAliases,
                            ArrayRef<Value> outputAliases) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureBufferSemantics() || input == output ||
      !sameStorageLayout(input, output))
    return false;
  if (!llvm::all_of(linalgOp.getIteratorTypesArray(),
                    [](auto t) { return t == utils::IteratorType::parallel; }))
    return false;

  AffineMap common;
  bool readsInput = false, writesOutput = false;
  for (OpOperand &operand : op->getOpOperands()) {
    Value v = operand.get();
    bool isInput = v == input, isOutput = v == output;
    if (!isInput && !isOutput) {
      // Another view of either buffer would see elements at other positions.
      if (llvm::is_contained(inputAliases, v) ||
          llvm::is_contained(outputAliases, v))
        return false;
      continue;
    }
    if (isInput != linalgOp.isDpsInput(&operand))
      return false; // The input is also written, or the output also read as an
                    // input.
    AffineMap map = linalgOp.getMatchingIndexingMap(&operand);
    if (!map.isPermutation() || (common && map != common))
      return false;
    common = map;
    readsInput |= isInput;
    writesOutput |= isOutput;
  }
  if (!readsInput || !writesOutput)
    return false;

  // The body must not reach either buffer other than through its arguments.
  for (ArrayRef<Value> aliases : {inputAliases, outputAliases})
    for (Value v : aliases)
      for (Operation *user : v.getUsers())
        if (user != op && op->isProperAncestor(user))
          return false;
  return true;
}
