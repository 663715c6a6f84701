//===- DeviceTracking.cpp - Live and peak device bytes --------------------===//
//
// The size of every live device pointer is kept so frees can be counted;
// one mutex guards the table and the counters (allocations are rare next to
// the kernels between them). At exit, with REMAT_REPORT_PEAK=1, the peak is
// printed on stderr.
//
//===----------------------------------------------------------------------===//

#include "DeviceTracking.h"
#include "remat/Runtime/RematCudaRuntime.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

namespace {
struct Tracker {
  std::mutex mutex;
  std::unordered_map<void *, uint64_t> sizes;
  int64_t live = 0, peak = 0, base = 0, count = 0;
};

// Never destroyed: frees may arrive while static destructors run.
Tracker &tracker() {
  static Tracker *t = new Tracker;
  return *t;
}

__attribute__((destructor)) void reportDevicePeakAtExit() {
  const char *flag = std::getenv("REMAT_REPORT_PEAK");
  if (!flag || !*flag || std::strcmp(flag, "0") == 0)
    return;
  std::fprintf(stderr,
               "device_peak_bytes=%lld\ndevice_live_bytes_at_exit=%lld\n",
               static_cast<long long>(remat_device_peak_bytes()),
               static_cast<long long>(remat_device_live_bytes()));
}
} // namespace

void remat::runtime::trackDeviceAlloc(void *ptr, uint64_t size) {
  Tracker &t = tracker();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.sizes[ptr] = size;
  t.live += static_cast<int64_t>(size);
  ++t.count;
  if (t.live > t.peak)
    t.peak = t.live;
}

void remat::runtime::untrackDeviceAlloc(void *ptr) {
  Tracker &t = tracker();
  std::lock_guard<std::mutex> lock(t.mutex);
  auto it = t.sizes.find(ptr);
  if (it == t.sizes.end())
    return;
  t.live -= static_cast<int64_t>(it->second);
  t.sizes.erase(it);
}

extern "C" {

int64_t remat_device_live_bytes(void) {
  Tracker &t = tracker();
  std::lock_guard<std::mutex> lock(t.mutex);
  return t.live;
}

int64_t remat_device_peak_bytes(void) {
  Tracker &t = tracker();
  std::lock_guard<std::mutex> lock(t.mutex);
  return t.peak;
}

void remat_device_reset_peak(void) {
  Tracker &t = tracker();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.peak = t.live;
  t.base = t.live;
}

int64_t remat_device_num_allocs(void) {
  Tracker &t = tracker();
  std::lock_guard<std::mutex> lock(t.mutex);
  return t.count;
}

void remat_device_print_peak(void) {
  Tracker &t = tracker();
  int64_t peak, base;
  {
    std::lock_guard<std::mutex> lock(t.mutex);
    peak = t.peak;
    base = t.base;
  }
  std::fprintf(stderr,
               "device_window_peak_bytes=%lld device_window_base_bytes=%lld\n",
               static_cast<long long>(peak), static_cast<long long>(base));
  std::fflush(stderr);
}

} // extern "C"
