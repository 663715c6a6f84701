//===- LoopCarries.h - A loop's iteration arguments, for or while -*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The normalizations that retype a loop's iteration arguments
// (TensorCarries.cpp, BlockStacks.cpp) see an scf.for and a counted
// scf.while the same way: the inits, the arguments of each region, the
// values yielded and the results, slot k of each being iteration k's value.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_LOOPS_LOOPCARRIES_H
#define REMAT_LIB_LOOPS_LOOPCARRIES_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace remat {

/// A loop's iteration arguments as the body sees them and what it yields
/// for each: an scf.for's, or an scf.while whose condition forwards its
/// arguments unchanged, in order (a counted while, as frontends write it),
/// then its after region's arguments and yield.
struct Carries {
  mlir::Operation *loop = nullptr;
  mlir::MutableOperandRange inits;
  mlir::Block::BlockArgListType
      before; ///< A while's before region; else empty.
  mlir::Block::BlockArgListType body;
  mlir::Operation *yield = nullptr;
  mlir::scf::ConditionOp condition; ///< A while's; else null.
};

/// `op`'s carries, when it is an scf.for or such an scf.while.
std::optional<Carries> carriesOf(mlir::Operation *op);

/// Whether the loop yields, for some iteration argument, one whole row
/// written into that argument at a row that moves with the iteration: it
/// stacks (ScanLoops.h reads it further). A write at a constant row (one
/// element of a carry updated) is no stack.
bool stacksRows(const Carries &loop);

/// Whether a while's before region only passes iteration argument k on to
/// the condition (always, for an scf.for): a stack retyped in the body is
/// then retyped there too, with nothing else to change.
bool beforeOnlyPassesOn(const Carries &loop, unsigned k);

/// `loop` (an scf.for or an scf.while) with `inits` appended to its
/// iteration arguments, each iteration yielding `yields(newArgs)` for them
/// (built before the terminator of the body); returns the new loop's new
/// arguments. The loop itself is replaced, its body moved: values of the
/// old body stay valid, its block arguments do not.
llvm::SmallVector<mlir::Value>
withCarries(mlir::RewriterBase &rewriter, mlir::Operation *loop,
            mlir::ValueRange inits,
            llvm::function_ref<llvm::SmallVector<mlir::Value>(mlir::ValueRange)>
                yields);

/// An scf.for's constant trip count.
std::optional<int64_t> tripCount(mlir::scf::ForOp loop);

/// The row `access` of a stack of type `stack` touches along `axis`, as
/// `loop`'s iteration number: (coefficient, constant), the row being
/// coefficient * k + constant at iteration k; none when it is no whole row
/// or does not move with k alone.
std::optional<std::pair<int64_t, int64_t>>
rowAtIteration(mlir::Operation *access, mlir::RankedTensorType stack,
               int64_t axis, mlir::scf::ForOp loop);

/// Erases `op` and the chain of tensor.insert_slice ops, the linalg.fill
/// and the tensor.empty it wrote into, as far as nothing else uses them (a
/// stack's initial value, once a normalization has rebuilt it).
void eraseUnusedChain(mlir::RewriterBase &rewriter, mlir::Operation *op);

} // namespace remat

#endif // REMAT_LIB_LOOPS_LOOPCARRIES_H
