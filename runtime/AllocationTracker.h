//===- AllocationTracker.h - Live and peak bytes of one allocator -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Shared by libRematRuntime (host allocations of lowered code) and the GPU
// runtimes (device allocations): the size of every live pointer is kept so
// frees can be counted too. One mutex guards the table and the counters:
// allocations are rare next to the loops or kernels between them, and a
// consistent peak matters more than speed. Header-only and plain C++: each
// shared library keeps its own tracker.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_RUNTIME_ALLOCATIONTRACKER_H
#define REMAT_RUNTIME_ALLOCATIONTRACKER_H

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_map>

namespace remat::runtime {

class AllocationTracker {
public:
  /// Counts `size` bytes at `ptr` as live; returns `ptr` (null: nothing).
  void *track(void *ptr, size_t size) {
    if (!ptr)
      return ptr;
    std::lock_guard<std::mutex> lock(mutex);
    sizes[ptr] = size;
    live += static_cast<int64_t>(size);
    ++count;
    if (live > peak)
      peak = live;
    return ptr;
  }

  /// Stops counting `ptr`; pointers it does not know (allocated before
  /// tracking, or by someone else) are ignored.
  /// Returns whether `ptr` was counted.
  bool untrack(void *ptr) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = sizes.find(ptr);
    if (it == sizes.end())
      return false;
    live -= static_cast<int64_t>(it->second);
    sizes.erase(it);
    return true;
  }

  int64_t liveBytes() { return read(live); }
  int64_t peakBytes() { return read(peak); }
  int64_t allocations() { return read(count); }

  /// Starts a new window: the peak from now on, above the live bytes now.
  void resetPeak() {
    std::lock_guard<std::mutex> lock(mutex);
    peak = live;
    base = live;
  }

  /// The window's peak and the live bytes at its start, read together.
  void window(int64_t &windowPeak, int64_t &windowBase) {
    std::lock_guard<std::mutex> lock(mutex);
    windowPeak = peak;
    windowBase = base;
  }

private:
  int64_t read(const int64_t &counter) {
    std::lock_guard<std::mutex> lock(mutex);
    return counter;
  }

  std::mutex mutex;
  std::unordered_map<void *, size_t> sizes;
  int64_t live = 0, peak = 0, base = 0, count = 0;
};

} // namespace remat::runtime

#endif // REMAT_RUNTIME_ALLOCATIONTRACKER_H
