//===- BufferRoot.h - The buffer a memref views -----------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef REMAT_GPU_BUFFERROOT_H
#define REMAT_GPU_BUFFERROOT_H

#include "mlir/IR/Value.h"

namespace remat {

/// The buffer `v` views: through view-like ops, memref.cast and
/// memref.extract_strided_metadata, to the allocation or argument.
mlir::Value rootBuffer(mlir::Value v);

} // namespace remat

#endif // REMAT_GPU_BUFFERROOT_H
