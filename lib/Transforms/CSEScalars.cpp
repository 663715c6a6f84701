//===- CSEScalars.cpp - CSE that leaves tensor computations as written ----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Upstream's CSE merges two equal tensor computations into one value. When
// the input recomputes a forward value in its backward pass, that merge
// makes the value live across the step: the input's own plan is lost and
// the program returned measures more than the one given. This one merges
// only what holds no tensor memory (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "remat/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/ScopedHashTable.h"

namespace remat {
#define GEN_PASS_DEF_CSESCALARSPASS
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;

namespace {

/// Ops equal up to their locations (upstream CSE's notion of equal).
struct EqualOps : llvm::DenseMapInfo<Operation *> {
  static unsigned getHashValue(const Operation *op) {
    return OperationEquivalence::computeHash(
        const_cast<Operation *>(op), OperationEquivalence::directHashValue,
        OperationEquivalence::ignoreHashValue,
        OperationEquivalence::IgnoreLocations);
  }
  static bool isEqual(const Operation *lhs, const Operation *rhs) {
    if (lhs == rhs)
      return true;
    if (lhs == getEmptyKey() || lhs == getTombstoneKey() ||
        rhs == getEmptyKey() || rhs == getTombstoneKey())
      return false;
    return OperationEquivalence::isEquivalentTo(
        const_cast<Operation *>(lhs), const_cast<Operation *>(rhs),
        OperationEquivalence::IgnoreLocations);
  }
};

using KnownOps = llvm::ScopedHashTable<Operation *, Operation *, EqualOps>;

/// Pure, without regions, and holding no tensor memory: merging two of
/// them changes no buffer's lifetime. A tensor.empty has no contents: the
/// ops writing into a shared one each get their own again
/// (-remat-prepare), where the loop rewrites expect them.
bool isMergeable(Operation *op) {
  if (op->getNumResults() == 0 || !isMemoryEffectFree(op))
    return false;
  // A constant tensor (a zero fill): what upstream's cse shared, and
  // -remat-prepare gives each op writing into it its own again.
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    return matchPattern(fill.getInputs()[0], m_Constant()) &&
           fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>();
  if (op->getNumRegions() != 0)
    return false;
  if (op->hasTrait<OpTrait::ConstantLike>() || isa<tensor::EmptyOp>(op))
    return true;
  return llvm::none_of(op->getResultTypes(), llvm::IsaPred<TensorType>);
}

class ScalarMerger {
public:
  explicit ScalarMerger(RewriterBase &rewriter) : rewriter(rewriter) {}

  void mergeIn(Region &region) {
    for (Block &block : region) {
      // An op of one block dominates no other block of a CFG region; the
      // blocks of a single-block region see the enclosing scopes only.
      KnownOps::ScopeTy scope(known);
      mergeIn(block);
    }
  }

  int merged = 0;

private:
  void mergeIn(Block &block) {
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (isMergeable(&op)) {
        if (Operation *earlier = known.lookup(&op)) {
          rewriter.replaceOp(&op, earlier->getResults());
          ++merged;
        } else {
          known.insert(&op, &op);
        }
        continue;
      }
      if (op.hasTrait<OpTrait::IsIsolatedFromAbove>())
        continue; // Its own scope; not this pass's to clean.
      for (Region &region : op.getRegions())
        mergeIn(region);
    }
  }

  RewriterBase &rewriter;
  KnownOps known;
};

struct CSEScalarsPass
    : public remat::impl::CSEScalarsPassBase<CSEScalarsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    ScalarMerger merger(rewriter);
    merger.mergeIn(getOperation().getBody());
    if (merger.merged == 0)
      markAllAnalysesPreserved();
  }
};

} // namespace
