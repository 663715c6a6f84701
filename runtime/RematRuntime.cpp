//===- RematRuntime.cpp - Allocation tracking for lowered remat code ------===//
//
// Every allocation the lowered code makes goes through the functions below;
// the size of each live pointer is kept so frees can be counted too. One
// mutex guards the table and the counters: allocations are rare next to the
// loops between them, and a consistent peak matters more than speed.
//
//===----------------------------------------------------------------------===//

#include "remat/Runtime/RematRuntime.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

namespace {
struct Tracker {
  std::mutex mutex;
  std::unordered_map<void *, size_t> sizes;
  int64_t live = 0;
  int64_t peak = 0;
  int64_t base = 0; // Live bytes at the last reset.
  int64_t count = 0;

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

  void untrack(void *ptr) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = sizes.find(ptr);
    if (it == sizes.end())
      return; // Not ours (allocated before tracking or by someone else).
    live -= static_cast<int64_t>(it->second);
    sizes.erase(it);
  }
};

// Never destroyed: frees may still arrive while static destructors run.
Tracker &tracker() {
  static Tracker *t = new Tracker;
  return *t;
}

size_t roundUpToPowerOf2(size_t x) {
  size_t p = sizeof(void *); // posix_memalign's minimum.
  while (p < x)
    p <<= 1;
  return p;
}

__attribute__((destructor)) void reportPeakAtExit() {
  const char *flag = std::getenv("REMAT_REPORT_PEAK");
  if (flag && *flag && std::strcmp(flag, "0") != 0)
    std::fprintf(stderr, "peak_bytes=%lld\n",
                 static_cast<long long>(remat_peak_bytes()));
}
} // namespace

extern "C" {

void *_mlir_memref_to_llvm_alloc(size_t size) {
  return tracker().track(std::malloc(size), size);
}

void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size) {
  void *ptr = nullptr;
  if (posix_memalign(&ptr, roundUpToPowerOf2(alignment), size) != 0)
    return nullptr;
  return tracker().track(ptr, size);
}

void _mlir_memref_to_llvm_free(void *ptr) {
  if (!ptr)
    return;
  tracker().untrack(ptr);
  std::free(ptr); // Both allocation paths are released by free().
}

int64_t remat_live_bytes(void) {
  Tracker &t = tracker();
  std::lock_guard<std::mutex> lock(t.mutex);
  return t.live;
}

int64_t remat_peak_bytes(void) {
  Tracker &t = tracker();
  std::lock_guard<std::mutex> lock(t.mutex);
  return t.peak;
}

void remat_reset_peak(void) {
  Tracker &t = tracker();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.peak = t.live;
  t.base = t.live;
}

int64_t remat_num_allocs(void) {
  Tracker &t = tracker();
  std::lock_guard<std::mutex> lock(t.mutex);
  return t.count;
}

void remat_print_peak(void) {
  Tracker &t = tracker();
  int64_t peak, base;
  {
    std::lock_guard<std::mutex> lock(t.mutex);
    peak = t.peak;
    base = t.base;
  }
  std::fprintf(stderr, "window_peak_bytes=%lld window_base_bytes=%lld\n",
               static_cast<long long>(peak), static_cast<long long>(base));
  std::fflush(stderr);
}

} // extern "C"
