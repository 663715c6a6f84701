//===- Passes.h - remat passes ----------------------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef REMAT_TRANSFORMS_PASSES_H
#define REMAT_TRANSFORMS_PASSES_H

#include "remat/Transforms/RematSettings.h"

#include "mlir/Pass/Pass.h"

namespace remat {

/// -remat-rematerialize with default options (set them with the textual
/// pipeline), or with `settings` (checked when the pass runs).
std::unique_ptr<mlir::Pass> createRematerializePass();
std::unique_ptr<mlir::Pass>
createRematerializePass(const RematSettings &settings);

#define GEN_PASS_DECL
#include "remat/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "remat/Transforms/Passes.h.inc"

} // namespace remat

#endif // REMAT_TRANSFORMS_PASSES_H
