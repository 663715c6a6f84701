//===- GPUPasses.h - Passes of the GPU lowering -----------------*- C++ -*-===//
#ifndef REMAT_PIPELINES_GPUPASSES_H
#define REMAT_PIPELINES_GPUPASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

namespace remat {

#define GEN_PASS_DECL
#include "remat/Pipelines/GPUPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "remat/Pipelines/GPUPasses.h.inc"

} // namespace remat

#endif // REMAT_PIPELINES_GPUPASSES_H
