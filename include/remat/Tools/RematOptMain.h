//===- RematOptMain.h - The remat-opt driver --------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What remat-opt does beyond upstream's MlirOptMain, as a library function
// so that the tool is registration plus one call (as mlir-opt is).
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_TOOLS_REMATOPTMAIN_H
#define REMAT_TOOLS_REMATOPTMAIN_H

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/LogicalResult.h"

namespace remat {

/// mlir-opt on the dialects of `registry` and the registered passes, plus:
/// - `--remat-<option>=<value>` for each option of the `-remat-fit`
///   pipeline (`RematPipelineOptions`): `--remat-budget=SIZE` runs that
///   pipeline, with the other flags as its options, before any other pass;
/// - errors print no op dump unless `--mlir-print-op-on-diagnostic` is given;
/// - atomic output: the result is written to a temporary file renamed over
///   the output only when the run succeeds, so a failed run leaves an
///   existing output untouched (and `-o` may name the input).
mlir::LogicalResult rematOptMain(int argc, char **argv,
                                 mlir::DialectRegistry &registry);

} // namespace remat

#endif // REMAT_TOOLS_REMATOPTMAIN_H
