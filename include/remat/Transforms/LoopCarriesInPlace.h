//===- LoopCarriesInPlace.h - Loop bodies that update their carries -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// One buffer per carried tensor, for the whole loop: what One-Shot Bufferize
// needs, and what keeps a loop's peak at one copy of each carry. The value a
// body yields for a carry is written into the iteration argument either by
// the op that computes it (when the old value is dead by then) or, failing
// that, by a copy at the end of the iteration.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_TRANSFORMS_LOOPCARRIESINPLACE_H
#define REMAT_TRANSFORMS_LOOPCARRIESINPLACE_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

namespace remat {

/// Makes the linalg op computing `v` in a loop body write into that body's
/// iteration argument `arg` instead of a fresh initial value (a
/// tensor.empty, or a linalg.fill of one), when the memory model then sees
/// `v` written in place into `arg` (OpGroups.h: the old value is not read
/// after the write, but by the op itself element by element). Returns
/// whether `v` is now in place in `arg`; the IR is unchanged when not.
bool writeInPlaceIntoCarry(mlir::Value v, mlir::Value arg);

/// writeInPlaceIntoCarry on every yielded carry of every scf.for and
/// pass-through scf.while under `root`: the old and the new value of a
/// carry are then not both live until the iteration ends. A write into a
/// carry on one path of an scf.if whose old value is read after it has
/// that old value copied instead, before the op of the body holding the
/// branch, on every path (of its sizes, dynamic ones too): the reads after
/// the write read the copy, and the write is in place (a copy one path
/// alone made could not be freed). -remat-prepare runs it, so the analysis
/// sees the copy the run makes.
void writeLoopCarriesInPlace(mlir::Operation *root);

} // namespace remat

#endif // REMAT_TRANSFORMS_LOOPCARRIESINPLACE_H
