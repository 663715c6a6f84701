//===- DeviceTracking.cpp - Live and peak device bytes --------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Device allocations counted by an AllocationTracker, pinned host buffers
// (host copies of offloaded values) by another. At exit, with
// REMAT_REPORT_PEAK=1, the peaks are printed on stderr.
//
//===----------------------------------------------------------------------===//

#include "DeviceTracking.h"
#include "../AllocationTracker.h"
#include "remat/Runtime/RematCudaRuntime.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {
using remat::runtime::AllocationTracker;

// Never destroyed: frees may arrive while static destructors run.
AllocationTracker &tracker() {
  static AllocationTracker *t = new AllocationTracker;
  return *t;
}
AllocationTracker &hostTracker() {
  static AllocationTracker *t = new AllocationTracker;
  return *t;
}

bool envFlag(const char *name) {
  const char *flag = std::getenv(name);
  return flag && *flag && std::strcmp(flag, "0") != 0;
}

// When the measurement window began (the last remat_device_reset_peak).
std::chrono::steady_clock::time_point &windowStart() {
  static std::chrono::steady_clock::time_point start =
      std::chrono::steady_clock::now();
  return start;
}

__attribute__((destructor)) void reportDevicePeakAtExit() {
  if (!envFlag("REMAT_REPORT_PEAK"))
    return;
  std::fprintf(stderr,
               "device_peak_bytes=%lld\ndevice_live_bytes_at_exit=%lld\n"
               "host_copies_peak_bytes=%lld\n"
               "host_copies_live_bytes_at_exit=%lld\n"
               "host_copies_kept_for_reuse_bytes=%lld\n",
               static_cast<long long>(remat_device_peak_bytes()),
               static_cast<long long>(remat_device_live_bytes()),
               static_cast<long long>(hostTracker().peakBytes()),
               static_cast<long long>(hostTracker().liveBytes()),
               static_cast<long long>(remat::runtime::unusedPinnedHostBytes()));
}
} // namespace

void remat::runtime::trackDeviceAlloc(void *ptr, uint64_t size) {
  tracker().track(ptr, size);
}

void remat::runtime::untrackDeviceAlloc(void *ptr) { tracker().untrack(ptr); }

void remat::runtime::trackHostAlloc(void *ptr, uint64_t size) {
  hostTracker().track(ptr, size);
}

bool remat::runtime::untrackHostAlloc(void *ptr) {
  return hostTracker().untrack(ptr);
}

extern "C" {

int64_t remat_device_live_bytes(void) { return tracker().liveBytes(); }

int64_t remat_device_peak_bytes(void) { return tracker().peakBytes(); }

void remat_device_reset_peak(void) {
  tracker().resetPeak();
  hostTracker().resetPeak();
  uint64_t used, reserved;
  remat::runtime::poolHighWatermarks(used, reserved, /*reset=*/true);
  if (envFlag("REMAT_REPORT_TIME")) {
    remat::runtime::synchronizeDevice(); // Earlier work is not the window's.
    windowStart() = std::chrono::steady_clock::now();
  }
}

int64_t remat_device_num_allocs(void) { return tracker().allocations(); }

void remat_device_print_peak(void) {
  int64_t peak, base;
  tracker().window(peak, base);
  std::fprintf(stderr,
               "device_window_peak_bytes=%lld device_window_base_bytes=%lld\n",
               static_cast<long long>(peak), static_cast<long long>(base));
  hostTracker().window(peak, base);
  std::fprintf(stderr,
               "host_window_peak_bytes=%lld host_window_base_bytes=%lld\n",
               static_cast<long long>(peak), static_cast<long long>(base));
  uint64_t used, reserved;
  if (remat::runtime::poolHighWatermarks(used, reserved, /*reset=*/false)) {
    remat::runtime::synchronizeDevice();
    remat::runtime::poolHighWatermarks(used, reserved, /*reset=*/false);
    std::fprintf(stderr,
                 "device_pool_window_used_high_bytes=%llu "
                 "device_pool_window_reserved_high_bytes=%llu\n",
                 static_cast<unsigned long long>(used),
                 static_cast<unsigned long long>(reserved));
  }
  if (envFlag("REMAT_REPORT_TIME")) {
    remat::runtime::synchronizeDevice();
    std::chrono::duration<double> seconds =
        std::chrono::steady_clock::now() - windowStart();
    std::fprintf(stderr, "device_window_seconds=%.6f\n", seconds.count());
  }
  std::fflush(stderr);
}

} // extern "C"
