//===- Passes.h - remat passes ----------------------------------*- C++ -*-===//
#ifndef REMAT_TRANSFORMS_PASSES_H
#define REMAT_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace remat {

#define GEN_PASS_DECL
#include "remat/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "remat/Transforms/Passes.h.inc"

} // namespace remat

#endif // REMAT_TRANSFORMS_PASSES_H
