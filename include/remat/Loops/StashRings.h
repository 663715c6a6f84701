//===- StashRings.h - Rings a loop stashes rows in, and their recomputation ===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A 1F1B pipeline step is one loop whose iteration runs a forward slot and a
// backward slot: the forward slot stashes the stage's input and each layer's
// output in rings (iteration arguments tensor<K x row>, one row written per
// iteration at slot w), and the backward slot reads rows of them back
// (docs/distributed.md). The loop is no scan (its stash is read in the body
// that writes it) and one planner node, so the planner cannot recompute in
// it. Rings written at the same row under the same mask are written in
// lock-step: when what ring j stores is computed from what ring i stores and
// values the loop does not change (the weights), every row of ring j is
// that computation of the same row of ring i. Ring j can then be dropped:
// each read of its row becomes the read of ring i's row with the
// computation run again. The rings a loop cannot derive from another (its
// roots, the stage input) are kept. An asynchronous 1F1B step writes its
// rings on one path of an scf.if (its forward slot), the other path
// yielding the ring unchanged: the branch's condition is then the mask,
// and the rings of one branch written at the same row form a group.
//
// What is not proved: that the rows read before any iteration wrote them
// (the ring's initial contents) reach only masked values, as a pipeline's
// bubble iterations do. Dropped, such a row reads as the computation of the
// root ring's initial row instead of ring j's own.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LOOPS_STASHRINGS_H
#define REMAT_LOOPS_STASHRINGS_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace remat {

/// A loop's rings: which can be dropped, and from which kept rings.
struct StashRings {
  /// Iteration arguments that are rings another ring's rows derive from
  /// (kept), and those that can be dropped.
  llvm::SmallVector<unsigned> kept, dropped;
  /// For each dropped ring, the op computing the rows it stores (a layer's
  /// output): what the backward reads then run again.
  llvm::SmallVector<mlir::Operation *> droppedProducers;
  /// Bytes the dropped rings hold (each K rows), 0 when none (a ring whose
  /// row count is dynamic counts 0).
  int64_t droppedBytes = 0;
};

/// The rings of `loop` (an scf.for) and which of them can be dropped.
StashRings findStashRings(mlir::scf::ForOp loop);

/// Drops the rings findStashRings says can be (of those, only the
/// iteration arguments in `only` when it is not empty), rewriting every
/// read of one of their rows into the kept rings' rows and the ops that
/// computed it; the loop is replaced by one without those iteration
/// arguments. Returns the new loop (the same when nothing was dropped).
/// With `share`, reads of the same row in one block share what they
/// recompute (ring j's row on the way to ring j+1's: the least time);
/// without, each read recomputes its row alone from the kept rings, so no
/// recomputed row lives from an earlier read to its own (the least memory:
/// a block's backward reads the last layer's rows first).
mlir::scf::ForOp recomputeStashRings(mlir::RewriterBase &rewriter,
                                     mlir::scf::ForOp loop,
                                     llvm::ArrayRef<unsigned> only = {},
                                     bool share = true);

/// A plan per stage: the rings of `only` (which findStashRings says can be
/// dropped) hold no rows where `recompute` (an i1 defined before the loop,
/// from the stage index) holds, and every read of their rows is an scf.if
/// that recomputes the row there and reads it back elsewhere. Each ring
/// must be written in the branch form and sized by one dynamic row count
/// (an asynchronous 1F1B step's); fails, changing nothing, otherwise.
/// `share` as for recomputeStashRings.
mlir::LogicalResult recomputeStashRingsWhere(mlir::RewriterBase &rewriter,
                                             mlir::scf::ForOp loop,
                                             llvm::ArrayRef<unsigned> only,
                                             mlir::Value recompute,
                                             bool share = true);

} // namespace remat

#endif // REMAT_LOOPS_STASHRINGS_H
