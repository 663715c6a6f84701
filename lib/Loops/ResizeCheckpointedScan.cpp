//===- ResizeCheckpointedScan.cpp - Another slot count, set in place ------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A reversal emitted with K slots differs from the one emitted with K' in
// the slot buffers' first dimension (and the types of every value they
// flow into) and the constants derived from K, both recorded by the
// emitter (CheckpointedScan::SlotSized), and how often its loops run
// (derived from the counts, addRegionRuns). The pass chooses
// K on the rewrite at a probe count and sets it here, so the emitter runs
// once per scan.
//
//===----------------------------------------------------------------------===//

#include "remat/Loops/CheckpointScans.h"
#include "remat/Solver/Loop/OnlineCheckpointing.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;

namespace remat {
namespace {

/// The op whose IR holds `v`'s type: its definition, or its block's owner.
Operation *holderOf(Value v) {
  if (Operation *def = v.getDefiningOp())
    return def;
  return cast<BlockArgument>(v).getOwner()->getParentOp();
}

/// Gives `root` the type `type` and every value it flows into unchanged in
/// kind (a loop's argument and result, a branch's result, what an insert
/// into it returns) the same. The emitted loops pass slot buffers through
/// no other op.
void retype(RewriterBase &rewriter, Value root, Type type) {
  SmallVector<Value> worklist;
  auto set = [&](Value v) {
    if (v.getType() == type)
      return;
    rewriter.modifyOpInPlace(holderOf(v), [&] { v.setType(type); });
    worklist.push_back(v);
  };
  set(root);
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      const unsigned n = use.getOperandNumber();
      if (auto loop = dyn_cast<scf::ForOp>(user)) {
        if (n >= loop.getNumControlOperands()) {
          set(loop.getTiedLoopRegionIterArg(&use));
          set(loop.getTiedLoopResult(&use));
        }
      } else if (auto loop = dyn_cast<scf::WhileOp>(user)) {
        set(loop.getBeforeArguments()[n]);
      } else if (auto condition = dyn_cast<scf::ConditionOp>(user)) {
        if (n > 0) {
          auto loop = cast<scf::WhileOp>(condition->getParentOp());
          set(loop.getAfterArguments()[n - 1]);
          set(loop.getResult(n - 1));
        }
      } else if (isa<scf::YieldOp>(user)) {
        Operation *parent = user->getParentOp();
        if (auto loop = dyn_cast<scf::ForOp>(parent)) {
          set(loop.getRegionIterArgs()[n]);
          set(loop.getResult(n));
        } else if (auto loop = dyn_cast<scf::WhileOp>(parent)) {
          set(loop.getBeforeArguments()[n]);
        } else {
          set(parent->getResult(n));
        }
      } else if (auto insert = dyn_cast<tensor::InsertSliceOp>(user)) {
        if (use.get() == insert.getDest())
          set(insert.getResult());
      } else if (auto insert = dyn_cast<tensor::InsertOp>(user)) {
        if (use.get() == insert.getDest())
          set(insert.getResult());
      }
    }
  }
}

} // namespace

LogicalResult resizeCheckpointedScan(RewriterBase &rewriter,
                                     CheckpointedScan &scan, int64_t slots) {
  if (slots == scan.slots)
    return success();
  const LoopReversalCounts counts =
      reversalCounts(scan.online, scan.steps, slots);
  for (auto [op, rowsOffset] : scan.sized.buffers) {
    auto empty = cast<tensor::EmptyOp>(op);
    SmallVector<int64_t> shape(empty.getType().getShape());
    shape[0] = slots + rowsOffset;
    retype(rewriter, empty.getResult(),
           empty.getType().clone(ArrayRef<int64_t>(shape)));
  }
  for (auto [op, kind] : scan.sized.constants) {
    auto constant = cast<arith::ConstantOp>(op);
    rewriter.modifyOpInPlace(constant, [&] {
      constant.setValueAttr(rewriter.getIndexAttr(
          slotConstantValue(kind, scan.steps, slots, counts)));
    });
  }
  scan.slots = slots;
  scan.counts = counts;
  // The loops the slots flow through, verified with what they hold.
  for (Operation *loop : {scan.forward, scan.interpreter})
    if (loop && failed(verify(loop)))
      return failure();
  return success();
}

} // namespace remat
