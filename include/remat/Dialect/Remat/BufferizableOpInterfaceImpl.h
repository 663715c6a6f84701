//===- BufferizableOpInterfaceImpl.h - remat ops in One-Shot Bufferize ----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef REMAT_DIALECT_REMAT_BUFFERIZABLEOPINTERFACEIMPL_H
#define REMAT_DIALECT_REMAT_BUFFERIZABLEOPINTERFACEIMPL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace remat {
/// remat.offload bufferizes to a host buffer (memref.alloc {remat.host})
/// and a memref.copy into it; remat.prefetch to a fresh buffer and a
/// memref.copy from the host one.
void registerBufferizableOpInterfaceExternalModels(
    mlir::DialectRegistry &registry);
} // namespace remat

#endif // REMAT_DIALECT_REMAT_BUFFERIZABLEOPINTERFACEIMPL_H
