//===- ReaderRows.h - Rows recomputed by the scan reading them --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A stacked RNN's layers, once a scan over layers is unrolled
// (NestedScans.h), are scans one after the other: layer 1's forward loop
// reads row t of layer 0's output stack at its iteration t, and layer 1's
// backward loop reads those rows again, in reverse. The stack then lives
// from layer 0's forward to the end of layer 1's backward, whole: the
// checkpointing of either scan cannot drop it (it is no residual of layer
// 1's scan, and layer 0's backward is not where it is read). Unrolled, the
// same step lets the planner recompute each row on its own.
//
// The rewrite gives the reader the rows to itself: layer 1's forward loop
// runs layer 0's step again (layer 0's carries carried beside its own), its
// row read becomes the value just computed, and it stacks that value in a
// stack of its own, which the reads after the loop read instead. The stack
// is then a residual of layer 1's scan, which its checkpointing drops and
// recomputes from the slots of both layers' carries. Layer 0's forward loop
// runs as before (its backward reads its own stacks). The meaning is
// unchanged; the step runs layer 0's forward once more, so -remat-fit plans
// the function both ways and keeps the better (RowsRecomputedChoice.h).
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LOOPS_READERROWS_H
#define REMAT_LOOPS_READERROWS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace remat {

/// Rewrites, in `func`'s body, each scf.for reading row k of a stack an
/// earlier scf.for (a scan without loops inside, of the same bounds) wrote
/// at its iteration k, the stack also read after the reader, as above.
/// Returns how many reader loops it rewrote.
int recomputeRowsInReaders(mlir::func::FuncOp func);

} // namespace remat

#endif // REMAT_LOOPS_READERROWS_H
