//===- Passes.h - Passes of the GPU lowering --------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef REMAT_GPU_PASSES_H
#define REMAT_GPU_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace remat {

#define GEN_PASS_DECL
#include "remat/GPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "remat/GPU/Passes.h.inc"

/// The CUDA toolkit root: `option` if set, else $CUDA_HOME, $CUDA_PATH,
/// /usr/local/cuda.
std::string findCudaToolkit(llvm::StringRef option);

} // namespace remat

#endif // REMAT_GPU_PASSES_H
