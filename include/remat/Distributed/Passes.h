//===- Passes.h - Passes of sharded (SPMD) programs -------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef REMAT_DISTRIBUTED_PASSES_H
#define REMAT_DISTRIBUTED_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Pass/Pass.h"

namespace remat {

#define GEN_PASS_DECL
#include "remat/Distributed/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "remat/Distributed/Passes.h.inc"

} // namespace remat

#endif // REMAT_DISTRIBUTED_PASSES_H
