//===- ArenaPacking.h - Static offsets for buffers with lifetimes -*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The packing half of the buffer planner, free of MLIR so it can be tested on
// its own: given buffers with byte sizes and lifetimes (inclusive intervals of
// op positions), choose an offset for each inside one arena such that two
// buffers whose lifetimes overlap never overlap in memory. Following the MXNet
// memory note: a buffer may take over the storage of an input whose last use
// is the op that first writes it (in-place), buffers with disjoint lifetimes
// share storage, and the placement is a best-fit greedy packing.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_BUFFERPLANNING_ARENAPACKING_H
#define REMAT_BUFFERPLANNING_ARENAPACKING_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace remat {
namespace arena {

/// One buffer of the arena. Live over [start, end] (op positions, inclusive).
struct Buffer {
  int64_t size = 0;
  int64_t start = 0;
  int64_t end = 0;
  /// Index of a buffer whose storage this one may reuse in place: the op at
  /// `start` reads it for the last time while writing this buffer element by
  /// element. -1 if none. Honoured only when that buffer ends at `start`
  /// (and starts before it), has the same size and is not taken over by
  /// another buffer.
  int64_t inPlaceOf = -1;
};

struct Plan {
  std::vector<int64_t> offsets; ///< Per buffer, multiples of the alignment.
  int64_t arenaSize = 0;        ///< Bytes of the arena (multiple of alignment).
  int64_t sumOfSizes = 0;       ///< Sum of the buffers' sizes (not rounded).
  /// Max over positions of the (aligned) bytes live at once, counting an
  /// in-place chain once: no placement can use less.
  int64_t lowerBound = 0;
  /// Buffers that reuse their input in place (their `inPlaceOf` honoured).
  std::vector<bool> inPlace;
};

/// Whether the lifetimes of `a` and `b` share a position.
inline bool lifetimesOverlap(const Buffer &a, const Buffer &b) {
  return a.start <= b.end && b.start <= a.end;
}

/// Places `buffers` in one arena. `alignment` (a power of two, >= 1) is the
/// alignment of every offset. Deterministic.
Plan pack(const std::vector<Buffer> &buffers, int64_t alignment);

/// A broken rule of a plan: the buffers involved (-1 when fewer) and why.
struct Violation {
  std::string message;
  int64_t first = -1, second = -1;
};

/// Checks `plan` against `buffers`: offsets aligned and inside the arena,
/// in-place reuse only where `inPlaceOf` allows it, and two buffers with
/// overlapping lifetimes disjoint in memory unless one reuses the other in
/// place (then at the same offset). Returns the first violation.
std::optional<Violation> verify(const std::vector<Buffer> &buffers,
                                const Plan &plan, int64_t alignment);

} // namespace arena
} // namespace remat

#endif // REMAT_BUFFERPLANNING_ARENAPACKING_H
