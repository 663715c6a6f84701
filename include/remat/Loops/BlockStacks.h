//===- BlockStacks.h - Stacks written k rows per iteration ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A scan may stack k rows per iteration into a flat tensor: h_t of [B, W]
// written at rows [B * (t + 1), B * (t + 2)) of a [(T + 1) * B, W] stack,
// as a frontend that flattens batch and time writes it. That is a stack
// of [B, W] blocks: the flat axis read as [T + 1, B] makes every such
// write and read one whole row of a [T + 1, B, W] stack, which the scan
// matcher (ScanLoops.h) reads like any other. This normalization retypes
// such a loop's iteration argument to the blocked shape (tensor.expand_shape
// of its init; tensor.empty made anew), and rewrites its block writes and
// every block read of it, in the loop and after it, as row accesses
// (offset / k on the new axis, rank-reducing to the types they had). The
// meaning and the bytes are unchanged.
//
// A loop is left as it is unless every access is such a block: the same
// axis and row count k, the offset a sum whose every term and constant is
// a multiple of k (IndexExpr.h), the stack's shape static. Offsets not
// multiples of k (blocks that straddle the blocked rows) and stacks of
// run-time length are not normalized.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LOOPS_BLOCKSTACKS_H
#define REMAT_LOOPS_BLOCKSTACKS_H

#include "mlir/IR/Operation.h"

namespace remat {

/// Normalizes every loop under `root` (scf.for, or an scf.while whose
/// condition forwards its arguments unchanged, in order) that stacks k > 1
/// rows per iteration as above. Returns how many stacks it retyped.
int blockFlatStacks(mlir::Operation *root);

} // namespace remat

#endif // REMAT_LOOPS_BLOCKSTACKS_H
