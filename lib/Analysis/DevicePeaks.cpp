//===- DevicePeaks.cpp - The peak of a sharded step on each device --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Analysis/DevicePeaks.h"
#include "remat/Analysis/ShapeBounds.h"
#include "remat/Analysis/TrainingGraphBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/FoldUtils.h"

using namespace mlir;

namespace remat {

/// The device indexes of `func` and the one grid they read (null: none,
/// several, or not found).
shard::GridOp indexedGrid(func::FuncOp func, Operation *symbolScope,
                          SmallVectorImpl<Operation *> &indexes) {
  FlatSymbolRefAttr ref;
  bool one = true;
  func.walk([&](Operation *op) {
    if (!isa<shard::ProcessLinearIndexOp, shard::ProcessMultiIndexOp>(op))
      return;
    auto grid = op->getAttrOfType<FlatSymbolRefAttr>("grid");
    one = one && grid && (!ref || ref == grid);
    ref = grid;
    indexes.push_back(op);
  });
  if (!ref || !one)
    return {};
  if (auto grid = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(func, ref))
    return grid;
  return symbolScope ? SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(
                           symbolScope, ref)
                     : shard::GridOp();
}

namespace {

/// What the device index decides, decided: the integer arithmetic that now
/// has constant operands folded (a ring's row count chosen by the stage,
/// `select(s < T, 0, K)`), and each scf.if whose condition became a
/// constant replaced by the branch it takes (a stage that recomputes where
/// the others read back). Nothing else is rewritten: the copy must hold
/// the buffers the program does.
void foldDeviceChoices(func::FuncOp func) {
  OperationFolder folder(func.getContext());
  SmallVector<Operation *> arith;
  func.walk([&](Operation *op) {
    if (isa_and_nonnull<arith::ArithDialect>(op->getDialect()) &&
        !isa<arith::ConstantOp>(op))
      arith.push_back(op);
  });
  for (Operation *op : arith) {
    bool constantOperands = llvm::all_of(op->getOperands(), [](Value v) {
      return matchPattern(v, m_Constant());
    });
    if (constantOperands)
      (void)folder.tryToFold(op);
  }
  SmallVector<scf::IfOp> branches;
  func.walk([&](scf::IfOp branch) { branches.push_back(branch); });
  IRRewriter rewriter(func.getContext());
  for (scf::IfOp branch : branches) {
    std::optional<int64_t> taken = getConstantIntValue(branch.getCondition());
    if (!taken)
      continue;
    Region &region = *taken ? branch.getThenRegion() : branch.getElseRegion();
    rewriter.setInsertionPoint(branch);
    if (region.empty()) { // No else: no results either.
      rewriter.eraseOp(branch);
      continue;
    }
    Block *block = &region.front();
    auto yield = cast<scf::YieldOp>(block->getTerminator());
    SmallVector<Value> results(yield.getOperands());
    rewriter.eraseOp(yield);
    rewriter.inlineBlockBefore(block, branch);
    rewriter.replaceOp(branch, results);
  }
}

} // namespace

OwningOpRef<func::FuncOp> onDevice(func::FuncOp func, ArrayRef<int64_t> shape,
                                   int64_t device) {
  SmallVector<int64_t> coords(shape.size());
  for (int64_t a = static_cast<int64_t>(shape.size()) - 1, d = device; a >= 0;
       --a) {
    coords[a] = d % shape[a];
    d /= shape[a];
  }
  OwningOpRef<func::FuncOp> copy = func.clone();
  SmallVector<Operation *> indexes;
  copy->walk([&](Operation *op) {
    if (isa<shard::ProcessLinearIndexOp, shard::ProcessMultiIndexOp>(op))
      indexes.push_back(op);
  });
  for (Operation *op : indexes) {
    OpBuilder b(op);
    SmallVector<Value> values;
    if (auto multi = dyn_cast<shard::ProcessMultiIndexOp>(op)) {
      ArrayRef<int16_t> axes = multi.getAxes();
      for (unsigned i = 0; i < op->getNumResults(); ++i)
        values.push_back(arith::ConstantIndexOp::create(
            b, op->getLoc(), coords[axes.empty() ? i : axes[i]]));
    } else {
      values.push_back(arith::ConstantIndexOp::create(b, op->getLoc(), device));
    }
    op->replaceAllUsesWith(values);
    op->erase();
  }
  foldDeviceChoices(*copy);
  return copy;
}

std::vector<int64_t> devicePeaks(func::FuncOp func, const CostModel &costs,
                                 Operation *symbolScope) {
  if (!symbolScope)
    symbolScope = func->getParentOp();
  if (!hasDynamicShapes(func))
    return {};
  SmallVector<Operation *> indexes;
  shard::GridOp grid = indexedGrid(func, symbolScope, indexes);
  if (!grid)
    return {};
  ArrayRef<int64_t> shape = grid.getShape();
  int64_t devices = 1;
  for (int64_t d : shape) {
    if (d <= 0 || devices * d > kMaxDevicePeaks)
      return {};
    devices *= d;
  }
  // A copy the analysis cannot size is no answer, not the user's error.
  ScopedDiagnosticHandler quiet(func.getContext(),
                                [](Diagnostic &) { return success(); });
  std::vector<int64_t> peaks;
  for (int64_t device = 0; device < devices; ++device) {
    OwningOpRef<func::FuncOp> copy = onDevice(func, shape, device);
    std::optional<int64_t> peak =
        functionPeak(*copy, costs, RecomputeRegions::Flatten, symbolScope);
    if (!peak)
      return {};
    peaks.push_back(*peak);
  }
  return peaks;
}

} // namespace remat
