//===- LoweringStages.h - Stages shared by the CPU and GPU lowerings -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Internal to lib/Pipelines: both lowerings start from the same tensor IR
// and end in the same host LLVM dialect; only the middle differs.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_PIPELINES_LOWERINGSTAGES_H
#define REMAT_LIB_PIPELINES_LOWERINGSTAGES_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace remat {

/// Tensor IR after rematerialization to buffers: refuse planning-only ops
/// (and host copies, for `target` "cpu"),
/// dissolve recomputation regions (only now: CSE could have merged the
/// clones back), elementwise arith/math to linalg, one initial value per
/// destination, then One-Shot Bufferize with identity layouts at function
/// boundaries (so callers and the model agree on memref types).
void addTensorToBufferStages(mlir::OpPassManager &pm, int64_t alignment,
                             llvm::StringRef target);

/// Strided metadata expanded, affine and scf lowered to cf (host and, before
/// outlining, kernels alike).
void addControlFlowStages(mlir::OpPassManager &pm);

/// Host code to the LLVM dialect, after addControlFlowStages: every
/// allocation through `_mlir_memref_to_llvm_*` (libRematRuntime
/// counts them; aligned allocations request exactly their size rounded up
/// to the alignment), and, `withGPU`, the mgpu* runtime calls.
void addHostToLLVMStages(mlir::OpPassManager &pm, bool withGPU);

} // namespace remat

#endif // REMAT_LIB_PIPELINES_LOWERINGSTAGES_H
