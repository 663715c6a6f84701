//===- Passes.h - Buffer planning passes ------------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef REMAT_BUFFERPLANNING_PASSES_H
#define REMAT_BUFFERPLANNING_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Pass/Pass.h"

namespace remat {

#define GEN_PASS_DECL
#include "remat/BufferPlanning/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "remat/BufferPlanning/Passes.h.inc"

} // namespace remat

#endif // REMAT_BUFFERPLANNING_PASSES_H
