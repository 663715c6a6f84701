//===- RematRuntime.cpp - Allocation tracking for lowered remat code ------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every allocation the lowered code makes goes through the functions below
// and is counted by an AllocationTracker. The remat_timer_* functions keep
// time samples of calls (TimerSamples.h summarizes them).
//
//===----------------------------------------------------------------------===//

#include "remat/Runtime/RematRuntime.h"
#include "AllocationTracker.h"
#include "TimerSamples.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <string>
#include <vector>

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

// The timers' state. Their calls come from one thread in practice; the
// mutex only keeps a misuse from corrupting the vectors.
struct Timers {
  std::mutex mutex;
  std::array<int64_t, REMAT_NUM_TIMERS> started{};
  std::array<std::vector<double>, REMAT_NUM_TIMERS> samples;
};

Timers &timers() {
  static Timers *t = new Timers; // Never destroyed, as the tracker.
  return *t;
}

bool validTimer(int64_t id) { return id >= 0 && id < REMAT_NUM_TIMERS; }

// Under mpiexec (MPICH's launcher sets PMI_RANK) the peak lines start with
// `rank=R ` so the ranks' reports can be told apart; otherwise nothing.
const char *rankPrefix() {
  static const std::string *prefix = [] {
    const char *rank = std::getenv("PMI_RANK");
    return new std::string(rank && *rank ? "rank=" + std::string(rank) + " "
                                         : "");
  }();
  return prefix->c_str();
}

__attribute__((destructor)) void reportPeakAtExit() {
  const char *flag = std::getenv("REMAT_REPORT_PEAK");
  if (flag && *flag && std::strcmp(flag, "0") != 0)
    std::fprintf(stderr, "%speak_bytes=%lld\n", rankPrefix(),
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
  std::fprintf(stderr, "%swindow_peak_bytes=%lld window_base_bytes=%lld\n",
               rankPrefix(), static_cast<long long>(peak),
               static_cast<long long>(base));
  std::fflush(stderr);
}

int64_t remat_clock_ns(void) {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

void remat_timer_start(int64_t id) {
  if (!validTimer(id))
    return;
  int64_t now = remat_clock_ns(); // Outside the lock: only the call is timed.
  std::lock_guard<std::mutex> lock(timers().mutex);
  timers().started[id] = now;
}

void remat_timer_stop(int64_t id) {
  int64_t now = remat_clock_ns();
  if (!validTimer(id))
    return;
  int64_t started;
  {
    std::lock_guard<std::mutex> lock(timers().mutex);
    started = timers().started[id];
  }
  remat_timer_record(id, now - started);
}

void remat_timer_record(int64_t id, int64_t ns) {
  if (!validTimer(id))
    return;
  std::lock_guard<std::mutex> lock(timers().mutex);
  timers().samples[id].push_back(static_cast<double>(ns));
}

int64_t remat_timer_count(int64_t id) {
  if (!validTimer(id))
    return 0;
  std::lock_guard<std::mutex> lock(timers().mutex);
  return static_cast<int64_t>(timers().samples[id].size());
}

void remat_timer_reset(void) {
  std::lock_guard<std::mutex> lock(timers().mutex);
  for (std::vector<double> &s : timers().samples)
    s.clear();
}

void remat_timer_print(int64_t id) {
  if (!validTimer(id))
    return;
  remat::runtime::SampleSummary s;
  {
    std::lock_guard<std::mutex> lock(timers().mutex);
    s = remat::runtime::summarize(timers().samples[id]);
  }
  std::fprintf(stderr,
               "timer id=%lld n=%zu min_ns=%.0f p10_ns=%.0f median_ns=%.0f "
               "p90_ns=%.0f max_ns=%.0f mad_ns=%.0f\n",
               static_cast<long long>(id), s.count, s.min, s.p10, s.median,
               s.p90, s.max, s.mad);
  std::fflush(stderr);
}

void remat_timer_print_ratio(int64_t num, int64_t den) {
  if (!validTimer(num) || !validTimer(den))
    return;
  remat::runtime::SampleSummary s;
  {
    std::lock_guard<std::mutex> lock(timers().mutex);
    s = remat::runtime::summarize(remat::runtime::pairedRatios(
        timers().samples[num], timers().samples[den]));
  }
  std::fprintf(stderr,
               "timer_ratio num=%lld den=%lld n=%zu min=%.4f p10=%.4f "
               "median=%.4f p90=%.4f max=%.4f mad=%.4f\n",
               static_cast<long long>(num), static_cast<long long>(den),
               s.count, s.min, s.p10, s.median, s.p90, s.max, s.mad);
  std::fflush(stderr);
}

} // extern "C"
