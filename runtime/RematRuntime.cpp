//===- RematRuntime.cpp - Allocation tracking for lowered remat code ------===//
//
// Every allocation the lowered code makes goes through the functions below
// and is counted by an AllocationTracker.
//
//===----------------------------------------------------------------------===//

#include "remat/Runtime/RematRuntime.h"
#include "AllocationTracker.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {
using remat::runtime::AllocationTracker;

// Never destroyed: frees may still arrive while static destructors run.
AllocationTracker &tracker() {
  static AllocationTracker *t = new AllocationTracker;
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

int64_t remat_live_bytes(void) { return tracker().liveBytes(); }

int64_t remat_peak_bytes(void) { return tracker().peakBytes(); }

void remat_reset_peak(void) { tracker().resetPeak(); }

int64_t remat_num_allocs(void) { return tracker().allocations(); }

void remat_print_peak(void) {
  int64_t peak, base;
  tracker().window(peak, base);
  std::fprintf(stderr, "window_peak_bytes=%lld window_base_bytes=%lld\n",
               static_cast<long long>(peak), static_cast<long long>(base));
  std::fflush(stderr);
}

} // extern "C"
