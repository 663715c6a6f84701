//===- ForwardStackReads.h - A loop's reads of its own stack ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// `hs[t + 1] = f(hs[t])`: a loop that reads back a row of a stack it writes
// keeps its state in the stack rather than in an iteration argument. When
// the loop writes one whole row per iteration, one row further each time,
// and the row read is the one written d iterations before (or, in the first
// d iterations, a row written before the loop), the value read is the value
// stored then: it can be carried instead. Each such read becomes an
// iteration argument holding the value stored d iterations before (d of
// them, a shift register), starting from the rows written before the loop.
// The meaning is unchanged; the stack is then written only, and the loop a
// scan's forward loop as ScanLoops.h reads it (the value carried is the
// carry the scan checkpoints).
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LOOPS_FORWARDSTACKREADS_H
#define REMAT_LOOPS_FORWARDSTACKREADS_H

#include "mlir/IR/Operation.h"

namespace remat {

/// At most this many rows back a read is forwarded (as many values carried).
constexpr int64_t kMostRowsForwarded = 8;

/// Forwards such reads in every scf.for and scf.while under `root` whose
/// bounds the scan matcher reads (constant lower bound and step); returns
/// how many reads it forwarded.
int forwardStackReads(mlir::Operation *root);

} // namespace remat

#endif // REMAT_LOOPS_FORWARDSTACKREADS_H
