//===- ShapeBounds.h - Plan dynamic shapes at their upper bounds -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// For a fixed schedule the peak and the time only grow with every dimension,
// so a plan computed with every dynamic dimension at its upper bound meets
// the budget for every smaller size. The bounds: `remat.bounds` on function
// arguments (set by the user, or by the pass option dim-bounds), and for
// every other value upstream's value-bounds analysis
// (ValueBoundsOpInterface: tensor.dim of bounded arguments, constants,
// affine.min, destination-style results).
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_ANALYSIS_SHAPEBOUNDS_H
#define REMAT_ANALYSIS_SHAPEBOUNDS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>
#include <string>

namespace remat {

/// Whether a tensor anywhere in `func` (arguments, results, values of its
/// body) has a dynamic dimension.
bool hasDynamicShapes(mlir::func::FuncOp func);

/// A copy of `func` whose tensor types are their upper bounds, and the way
/// back to `func`'s ops and values. The copy is for the analyses that read
/// sizes from types; it does not verify (a tensor.empty keeps its operands).
struct BoundedCopy {
  mlir::OwningOpRef<mlir::func::FuncOp> copy;
  llvm::DenseMap<mlir::Operation *, mlir::Operation *> originalOps;
  llvm::DenseMap<mlir::Value, mlir::Value> originalValues;
};

/// Fails with an error naming the first dimension without a bound and how
/// to give one. `symbolScope`: where the grids of device indexes are found
/// when `func` is a detached copy (a size sized by the stage index is
/// bounded by the grid's devices).
mlir::FailureOr<BoundedCopy> boundedCopy(mlir::func::FuncOp func,
                                         mlir::Operation *symbolScope = nullptr);

/// An upper bound of an index value (a loop's trip count, a size), or
/// nullopt: the value-bounds analysis's, else its arithmetic's (min, max,
/// add, a never-negative difference, the device index below the grid's
/// devices).
std::optional<int64_t> indexUpperBound(mlir::Value v,
                                       mlir::Operation *symbolScope = nullptr);

/// The argument bounds in words ("arg0: ?x64 <= 32x64"), empty when every
/// argument is static.
std::string describeBounds(mlir::func::FuncOp func);

/// One bound of the dim-bounds option: "argK:D=N" (argument K's dimension D
/// is at most N). std::nullopt when `spec` is well formed, else what is
/// wrong with it.
std::optional<std::string> checkDimBound(llvm::StringRef spec);

/// Sets the option's bounds as `remat.bounds` on `func`'s arguments. Fails
/// with an error when a bound names a missing argument or dimension, or a
/// static dimension; a bound on a function with fewer arguments is an error
/// too (the option applies to every function planned).
mlir::LogicalResult applyDimBounds(mlir::func::FuncOp func,
                                   llvm::ArrayRef<std::string> specs);

} // namespace remat

#endif // REMAT_ANALYSIS_SHAPEBOUNDS_H
