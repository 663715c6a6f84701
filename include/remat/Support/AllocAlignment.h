//===- AllocAlignment.h - How the target rounds allocations ---------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every allocator rounds: aligned_alloc needs a size that is a multiple of
// the alignment, cuMemAlloc hands out 256-byte aligned blocks, caching
// allocators round to 512 B. The memory model counts each buffer at the
// size the lowering requests for it, so that the predicted peak is the one
// the runtime measures. Plain C++ (no LLVM): the solver uses it too.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SUPPORT_ALLOCALIGNMENT_H
#define REMAT_SUPPORT_ALLOCALIGNMENT_H

#include "remat/Support/CheckedArithmetic.h"

#include <cstdint>
#include <limits>

namespace remat {

/// The allocation alignment -remat-lower-to-cpu and -remat-lower-to-gpu use
/// unless told otherwise, and so the memory model's default. 1 counts exact
/// tensor bytes.
constexpr int64_t kDefaultAllocAlignment = 64;

/// Whether `alignment` is a valid allocation alignment (a power of two).
constexpr bool isValidAllocAlignment(int64_t alignment) {
  return alignment >= 1 && (alignment & (alignment - 1)) == 0;
}

/// `bytes` rounded up to a multiple of `alignment`; 0 and negative sizes
/// stay as they are, and a rounding past int64 gives int64's maximum (the
/// "too many bytes" every layer reports as an error).
inline int64_t roundUpToAlignment(int64_t bytes, int64_t alignment) {
  if (alignment <= 1 || bytes <= 0)
    return bytes;
  int64_t rest = bytes % alignment;
  if (rest == 0)
    return bytes;
  return checkedAdd(bytes, alignment - rest)
      .value_or(std::numeric_limits<int64_t>::max());
}

} // namespace remat

#endif // REMAT_SUPPORT_ALLOCALIGNMENT_H
