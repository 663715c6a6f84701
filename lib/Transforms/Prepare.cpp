//===- Prepare.cpp - Make the IR match the planner's memory model ---------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Transforms/Prepare.h"
#include "remat/Analysis/CostModel.h"
#include "remat/Analysis/OpGroups.h"
#include "remat/Dialect/Remat/Remat.h"
#include "remat/Transforms/FlattenSliceUpdates.h"
#include "remat/Transforms/LoopCarriesInPlace.h"
#include "remat/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/IR/BuiltinOps.h"

namespace remat {
#define GEN_PASS_DEF_PREPAREPASS
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;

namespace remat {
namespace {

/// Clones the initial value `v` (and the initial values it writes into)
/// right before `before`.
Value cloneInitChain(Value v, Operation *before) {
  Operation *def = v.getDefiningOp();
  OpBuilder b(before);
  IRMapping map;
  for (OpOperand *dest : destinationOperands(def))
    map.map(dest->get(), cloneInitChain(dest->get(), before));
  Operation *clone = b.clone(*def, map);
  return clone->getResult(cast<OpResult>(v).getResultNumber());
}

/// An initial value's ops: `init`, then what each writes into (a fill,
/// then the tensor.empty it fills).
SmallVector<Operation *> initChain(Operation *init) {
  SmallVector<Operation *> chain;
  for (Operation *op = init; op;) {
    chain.push_back(op);
    SmallVector<OpOperand *> dests = destinationOperands(op);
    op = dests.empty() ? nullptr : dests.front()->get().getDefiningOp();
  }
  return chain;
}

/// Gives every use of a shared initial value its own copy, right before
/// the op (in a loop body or branch: every use of one defined outside,
/// which CSE shares between the iterations and the code around them).
void privatizeInits(Block &block) {
  for (Operation &op : llvm::make_early_inc_range(block)) {
    SmallVector<OpOperand *> uses = destinationOperands(&op);
    for (OpOperand &operand : op.getOpOperands())
      if (operand.get().getDefiningOp<tensor::EmptyOp>() &&
          !llvm::is_contained(uses, &operand))
        uses.push_back(&operand);
    for (OpOperand *use : uses) {
      Value v = use->get();
      Operation *def = v.getDefiningOp();
      if (!def || !isParameterOnly(def))
        continue;
      const bool outside = def->getBlock() != &block;
      // A sole writer keeps its initial value only where it is right
      // before it: CSE leaves the one it merged others into at the first
      // one's place, and bufferized there the buffer is allocated long
      // before the op (the model allocates it with the op). sinkAbsorbed
      // does not cross ops with effects, which a collective lowered to an
      // MPI call is; a fresh copy is first written by the op, so it may.
      // (Another sole use, a call's operand, stays: a harness may measure
      // memory around the call.)
      if (outside ? !isa_and_nonnull<scf::SCFDialect>(block.getParentOp()->getDialect())
                  : v.hasOneUse() && (def->getNextNode() == &op ||
                                      !isDestinationUse(*use)))
        continue;
      use->set(cloneInitChain(v, &op));
    }
  }
  // Originals left without uses are dead initial values.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
    if (isParameterOnly(&op) && op.use_empty())
      op.erase();
}

/// Numbers every tensor.empty: each op's private initial value differs from
/// the others, so CSE after planning cannot merge them back into one buffer
/// that lives from its first to its last writer (the planner's model, and
/// what the lowering pipelines bufferize, is one buffer per op).
void tagInits(Block &block) {
  MLIRContext *ctx = block.getParentOp()->getContext();
  auto i64 = IntegerType::get(ctx, 64);
  int64_t next = 0;
  for (Operation &op : block)
    if (isa<tensor::EmptyOp>(op))
      op.setAttr(RematDialect::kInitAttrName, IntegerAttr::get(i64, next++));
}

/// Whether an op with side effects lies strictly between `from` and `to`.
bool effectsBetween(Operation *from, Operation *to) {
  for (Operation *op = from->getNextNode(); op && op != to;
       op = op->getNextNode())
    if (!isMemoryEffectFree(op))
      return true;
  return false;
}

/// Moves each absorbed op right before the op that absorbs it, but never
/// across an op with side effects (a call that measures memory, say).
void sinkAbsorbed(Block &block) {
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
    if (Operation *user = absorbingUser(&op))
      if (!effectsBetween(&op, user))
        op.moveBefore(user);
}

/// Whether `v` is a buffer allocated in `branch` and made a tensor (what
/// -remat-lower-collectives writes for a shard.recv): fresh, but nothing
/// can be written into an outer value in its place.
bool receivedInto(Value v, scf::IfOp branch) {
  auto tensor = v.getDefiningOp<bufferization::ToTensorOp>();
  Operation *alloc =
      tensor ? tensor.getBuffer().getDefiningOp<memref::AllocOp>() : nullptr;
  return alloc && branch->isAncestor(alloc);
}

/// Whether `v` is made in `branch` as a view (a slice or reshape, which
/// bufferize to views) of a value defined outside it: a ring's row read
/// back on one path where the other recomputes it (a pipeline stage's plan
/// chosen by a branch on the stage). Such a path yields no buffer of its
/// own, so the result owns none on every path.
bool viewOfOuter(Value v, scf::IfOp branch) {
  bool viewed = false;
  while (Operation *def = v.getDefiningOp()) {
    if (!branch->isAncestor(def))
      break;
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(def))
      v = slice.getSource();
    else if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(def))
      v = collapse.getSrc();
    else if (auto expand = dyn_cast<tensor::ExpandShapeOp>(def))
      v = expand.getSrc();
    else
      return false;
    viewed = true;
  }
  Operation *root = v.getDefiningOp();
  if (!root)
    root = v.getParentBlock()->getParentOp();
  return viewed && !branch->isAncestor(root);
}

/// Whether `v` is computed into a tensor.empty made in `branch`, directly
/// or through reshapes (a recomputed row of 4-d rows: the expand_shape of a
/// matmul's result).
bool madeInBranch(Value v, scf::IfOp branch) {
  while (Operation *def = v.getDefiningOp()) {
    if (!branch->isAncestor(def) ||
        !isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
      break;
    v = def->getOperand(0);
  }
  auto fresh = inPlaceTarget(v).getDefiningOp<tensor::EmptyOp>();
  return fresh && branch->isAncestor(fresh);
}

/// Where the branches of an scf.if yield, for one result, a value defined
/// outside it (V) on one path and a fresh initial value on the other (what
/// upstream shard-partition writes for a partial reduction's initial value:
/// rank 0 keeps the fill, the other ranks make a zero tensor; or a received
/// tensor, where a pipeline stage receives only if it has a partner), or a
/// view made in the branch of such a value (a ring's row) where the other
/// path computes it, every path is made to yield one buffer the result
/// owns, as the model counts it (one buffer, on every rank). As written,
/// the paths not yielding V hold V's buffer (it may alias the result, so it
/// is freed with it) and a second one, never freed: ranks differ and exceed
/// the plan.
///  - When nothing but that result reads V, the fresh value is written into
///    V instead of a tensor.empty of its own (a tensor.empty's contents are
///    undefined: any value of its type refines it): V's buffer on every
///    path.
///  - Otherwise (always for a view) the path yielding V yields a copy of
///    it: every path makes the buffer it yields, which -remat-plan-buffers
///    frees with the result.
void giveBranchResultsOneBuffer(func::FuncOp func) {
  func.walk([](scf::IfOp branch) {
    if (branch.getElseRegion().empty())
      return;
    for (OpResult r : branch->getResults()) {
      unsigned i = r.getResultNumber();
      scf::YieldOp yields[2] = {branch.thenYield(), branch.elseYield()};
      auto type = dyn_cast<RankedTensorType>(r.getType());
      if (!type || !type.hasStaticShape())
        continue;
      for (int k = 0; k < 2; ++k) {
        Value outer = yields[k].getOperand(i);
        // Defined outside the branch: by an op, or a block's argument (a
        // loop's carried value).
        Operation *def = outer.getDefiningOp();
        if (!def)
          def = outer.getParentBlock()->getParentOp();
        Value other = yields[1 - k].getOperand(i);
        auto fresh = inPlaceTarget(other).getDefiningOp<tensor::EmptyOp>();
        if (fresh && !branch->isAncestor(fresh))
          fresh = nullptr;
        const bool view = viewOfOuter(outer, branch);
        const bool made = fresh || (view && madeInBranch(other, branch));
        if (!def || (branch->isAncestor(def) && !view) ||
            (!made && !receivedInto(other, branch)) ||
            outer.getType() != type)
          continue;
        if (view) // Only a copy gives this path a buffer of its own.
          fresh = nullptr;
        bool onlyYielded = llvm::all_of(outer.getUses(), [&](OpOperand &use) {
          return use.getOwner() == yields[k] && use.getOperandNumber() == i;
        });
        // Not across a loop: V would be overwritten in one iteration and
        // read as it was in the next (bufferization then copies it).
        bool acrossLoop = false;
        for (Operation *p = branch->getParentOp(); p && !p->isAncestor(def);
             p = p->getParentOp())
          acrossLoop |= isa<LoopLikeOpInterface>(p);
        if (fresh && onlyYielded && fresh->hasOneUse() && !acrossLoop) {
          fresh.getResult().replaceAllUsesWith(outer);
          fresh.erase();
          break;
        }
        if (type.getEncoding()) // A tensor.empty of the copy would drop it.
          continue;
        OpBuilder b(yields[k]);
        // One location per result: a cost table keys ops by location, and
        // the copies of one branch are different nodes.
        Location loc = branch.getLoc();
        if (std::string key = costTableKey(branch); !key.empty())
          loc = NameLoc::get(
              b.getStringAttr(key + " result " + Twine(i)), loc);
        // Across a loop, a cheap initial value (zeros) is made again on this
        // path rather than copied: a copy would hold V through every
        // iteration, and a canonicalization folds the copy of a fill into
        // the fill, so the model of a program read back (remat-opt's output)
        // would differ from the one run.
        if (Operation *init = outer.getDefiningOp();
            acrossLoop && !view && init && isParameterOnly(init)) {
          Value made = cloneInitChain(outer, yields[k]);
          for (Operation *op : initChain(made.getDefiningOp()))
            op->setLoc(loc);
          yields[k]->setOperand(i, made);
          // The original, when nothing else reads it, goes with its chain.
          for (Operation *op : initChain(init)) {
            if (!op->use_empty())
              break;
            op->erase();
          }
          break;
        }
        Value empty = tensor::EmptyOp::create(b, loc, type.getShape(),
                                              type.getElementType());
        Value copy = linalg::CopyOp::create(b, loc, outer, empty)->getResult(0);
        yields[k]->setOperand(i, copy);
        break;
      }
    }
  });
}

struct PreparePass : public remat::impl::PreparePassBase<PreparePass> {
  void runOnOperation() override { prepareForRemat(getOperation()); }
};

} // namespace

/// Marks each insert that updates the insert before it in place as it reads
/// now (its slice computed after that one, OpGroups.h): the plan made on
/// this order may compute the slice earlier, and the rewritten function must
/// still be the graph it planned.
void pinInsertNodes(func::FuncOp func) {
  func.walk([](tensor::InsertSliceOp insert) {
    Operation *previous = insert.getDest().getDefiningOp();
    if (isa_and_nonnull<tensor::InsertSliceOp>(previous) &&
        insertsOneAtATime(previous, insert))
      insert->setAttr(RematDialect::kOwnNodeAttrName,
                      UnitAttr::get(insert.getContext()));
  });
  // Likewise a linalg op accumulating into a computed value: a plan may
  // compute its other operands earlier.
  func.walk([](linalg::LinalgOp update) {
    for (OpOperand &init : update.getDpsInitsMutable()) {
      Operation *previous = init.get().getDefiningOp();
      if (previous && writesIntoFreshBuffers(previous) &&
          updatesOneAtATime(previous, update))
        update->setAttr(RematDialect::kOwnNodeAttrName,
                        UnitAttr::get(update->getContext()));
    }
  });
}

void prepareForRemat(func::FuncOp func) {
  if (func.isExternal() || !func.getBody().hasOneBlock())
    return;
  Block &block = func.getBody().front();
  // Before the inserts are pinned: the flattened ones are inserts like any.
  flattenSliceUpdates(func);
  pinInsertNodes(func);
  // Loop bodies and branches first: their private copies are then no use
  // of the originals.
  // Sinking matters there too: the last user of an initial value CSE shared
  // keeps the original, which may sit far above it (an allocation made
  // early in every iteration).
  func.walk([&](Block *nested) {
    if (nested != &block && isa_and_nonnull<scf::SCFDialect>(
                                nested->getParentOp()->getDialect())) {
      privatizeInits(*nested);
      sinkAbsorbed(*nested);
    }
  });
  privatizeInits(block);
  sinkAbsorbed(block);
  // After privatizing, which gives a branch its own copy of an initial
  // value from outside.
  giveBranchResultsOneBuffer(func);
  // Then each carry's new value is computed into its iteration argument
  // where the old one is dead by then, as an unrolled step would free it.
  writeLoopCarriesInPlace(func);
  tagInits(block);
}

} // namespace remat
