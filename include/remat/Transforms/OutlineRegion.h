//===- OutlineRegion.h - A region's block as a function of its own -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Planning a micro-batch loop's body alone and timing a loop body's nodes
// both need the body as a function: its block's arguments, then what it
// reads from above, its constants cloned in.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_TRANSFORMS_OUTLINEREGION_H
#define REMAT_TRANSFORMS_OUTLINEREGION_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"

namespace remat {

/// `region`'s one block as a private function named `name`, in no module
/// yet (at the location of the region's op): its arguments are the block's,
/// then the values the region reads from above that are not constants
/// (appended to `captured`); the constants are cloned in; it returns what
/// the terminator passes on.
mlir::func::FuncOp outlineRegion(mlir::Region &region, llvm::StringRef name,
                                 llvm::SmallVectorImpl<mlir::Value> &captured);

/// Clones `from`'s ops but its terminator at `b` (values mapped by `map`)
/// and returns what the terminator passes on, mapped.
llvm::SmallVector<mlir::Value> cloneBodyInto(mlir::Block &from,
                                             mlir::OpBuilder &b,
                                             mlir::IRMapping &map);

} // namespace remat

#endif // REMAT_TRANSFORMS_OUTLINEREGION_H
