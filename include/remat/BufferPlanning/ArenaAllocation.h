//===- ArenaAllocation.h - One arena per function ---------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The IR half of arena planning: turns the liveness of a function's buffers
// into a packing problem (lifetimes at the granularity of the entry block,
// in-place candidates), and rewrites the allocations into views of one
// arena at the offsets the packer chose.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_BUFFERPLANNING_ARENAALLOCATION_H
#define REMAT_BUFFERPLANNING_ARENAALLOCATION_H

#include "remat/BufferPlanning/ArenaPacking.h"
#include "remat/BufferPlanning/BufferLiveness.h"

namespace remat {

/// Bytes of a statically shaped memref type, or nullopt.
std::optional<int64_t> staticByteSize(mlir::MemRefType type,
                                      mlir::Operation *scope);

/// Whether the buffer `info` (of `func`) may be placed in the arena: a
/// `memref.alloc` of static shape, identity layout and default memory space,
/// inside `func`'s entry block or regions nested in it, that does not escape.
bool isArenaCandidate(const BufferInfo &info, mlir::FunctionOpInterface func);

/// Lifetimes of `buffers` (each defined in `func`'s entry block or regions
/// nested in it) as positions of the entry block, sizes in bytes, and
/// in-place candidates. Buffers are referred to by their index.
std::vector<arena::Buffer>
buildPackingProblem(mlir::FunctionOpInterface func,
                    llvm::ArrayRef<BufferInfo> buffers);

struct ArenaSummary {
  arena::Plan plan;
  mlir::Operation *arenaAlloc = nullptr;
};

/// Places `buffers` (arena candidates of `func`) in one arena allocated at
/// the entry of `func` and freed after the last use of its last buffer.
mlir::FailureOr<ArenaSummary> placeInArena(mlir::FunctionOpInterface func,
                                           llvm::ArrayRef<BufferInfo> buffers,
                                           int64_t alignment);

} // namespace remat

#endif // REMAT_BUFFERPLANNING_ARENAALLOCATION_H
