//===- InitRemat.h - Register remat with an MLIR context --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The two entry points for compilers that embed remat: one registers the
// dialect (and the external models it attaches to upstream ops), the other
// registers every remat pass and pipeline with the global pass registry.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_INITREMAT_H
#define REMAT_INITREMAT_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace remat {

/// Adds the remat dialect (and its interface models) to `registry`.
void registerRematDialect(mlir::DialectRegistry &registry);

/// Registers all remat passes and pass pipelines (idempotent).
void registerRematPasses();

} // namespace remat

#endif // REMAT_INITREMAT_H
