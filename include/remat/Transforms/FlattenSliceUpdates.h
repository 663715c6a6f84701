//===- FlattenSliceUpdates.h - Slices updated where they were cut -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// `x[r][c] = v` on a tensor, as PyTorch's functionalization writes it
// (slice_scatter of a slice_scatter) and a frontend lowers it:
//
//   %row = tensor.extract_slice %x[o] [s] [1]
//   %r1  = tensor.insert_slice %v into %row[p] [q] [1]
//   %x2  = tensor.insert_slice %r1 into %x[o] [s] [1]
//
// One-Shot Bufferize writes %r1 into %x's buffer. The planner models %r1 as
// a buffer of its own (its destination %row is a slice of a value with two
// readers), so a plan that keeps %r1 for the backward counts its bytes
// where the lowered step keeps all of %x's alive (swin_t's shifted-window
// mask: 13,376 B above the plan at its smallest budget). Written as inserts into %x itself,
//
//   %x1 = tensor.insert_slice %v into %x[o + p] [q] [1]
//
// the step computes the same values, and the slice of %x no longer exists
// for a plan to keep apart from %x.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_TRANSFORMS_FLATTENSLICEUPDATES_H
#define REMAT_TRANSFORMS_FLATTENSLICEUPDATES_H

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace remat {

/// Rewrites `outer`, an insert of a chain of inserts into a slice of its own
/// destination at the same place, as that chain inserted into the
/// destination directly (above). Applies when the slice and every link of
/// the chain have one use each, ranks are kept, strides are 1 and offsets
/// are constants.
/// Fails, changing nothing, otherwise.
mlir::LogicalResult flattenSliceUpdate(mlir::RewriterBase &rewriter,
                                       mlir::tensor::InsertSliceOp outer);

/// flattenSliceUpdate on every insert under `root`; the number rewritten.
unsigned flattenSliceUpdates(mlir::Operation *root);

} // namespace remat

#endif // REMAT_TRANSFORMS_FLATTENSLICEUPDATES_H
