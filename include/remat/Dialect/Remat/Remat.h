//===- Remat.h - The remat dialect ------------------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef REMAT_DIALECT_REMAT_REMAT_H
#define REMAT_DIALECT_REMAT_REMAT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"

namespace remat {
/// The fictitious resource written by remat.recompute (see RematOps.td).
struct RecomputeResource
    : public mlir::SideEffects::Resource::Base<RecomputeResource> {
  llvm::StringRef getName() final { return "remat.recompute"; }
};
/// The fictitious resource written by remat.offload and remat.prefetch.
struct HostCopyResource
    : public mlir::SideEffects::Resource::Base<HostCopyResource> {
  llvm::StringRef getName() final { return "remat.host_copy"; }
};
} // namespace remat
MLIR_DECLARE_EXPLICIT_TYPE_ID(remat::RecomputeResource)
MLIR_DECLARE_EXPLICIT_TYPE_ID(remat::HostCopyResource)

#include "remat/Dialect/Remat/RematDialect.h.inc"
#include "remat/Dialect/Remat/RematEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "remat/Dialect/Remat/RematAttrs.h.inc"

#define GET_OP_CLASSES
#include "remat/Dialect/Remat/RematOps.h.inc"

#endif // REMAT_DIALECT_REMAT_REMAT_H
