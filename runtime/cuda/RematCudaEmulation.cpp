//===- RematCudaEmulation.cpp - The mgpu* memory functions on the host ----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// libRematCudaEmulation: what `-remat-lower-to-gpu{emulate=true}` code
// calls. "Device" buffers are host memory counted exactly like
// libRematCudaRuntime counts device memory (same DeviceTracking.cpp), so a
// machine without a GPU can check the device peak of the GPU lowering.
// The emulated kernels run on the host when the program reaches them, so
// a stream holds only host copies (gpu.memcpy to or from a host_shared
// buffer): each waits on its stream until the program waits for that
// stream (a synchronize, or an event recorded on it), the latest a GPU
// could run it. New buffers are filled with NaN bytes. A program that reads
// a buffer before its copy was waited for then reads NaNs, and one that
// frees a buffer a copy on another stream still uses is stopped: the
// emulation checks the waits -remat-gpu-copy-stream places. Other copies
// run at once. There are no kernels to load or launch.
//
//===----------------------------------------------------------------------===//

#include "DeviceTracking.h"
#include "remat/Runtime/RematCudaRuntime.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <vector>

namespace {
[[noreturn]] void noKernels(const char *what) {
  std::fflush(stdout);
  std::fprintf(stderr,
               "remat-cuda-emulation: %s: kernels cannot run in host "
               "emulation (lower with emulate=true, which runs them as "
               "loops, or use libRematCudaRuntime on a GPU)\n",
               what);
  std::exit(EXIT_FAILURE);
}

[[noreturn]] void fail(const char *what) {
  std::fflush(stdout);
  std::fprintf(stderr, "remat-cuda-emulation: %s\n", what);
  std::exit(EXIT_FAILURE);
}

/// Live buffers by start address: their sizes, host_shared ones apart.
std::map<uintptr_t, uint64_t> &blocks(bool host) {
  static std::map<uintptr_t, uint64_t> device, hostShared;
  return host ? hostShared : device;
}

/// Whether `p` lies in a live host_shared buffer.
bool inHostBuffer(const void *p) {
  auto &m = blocks(true);
  auto a = reinterpret_cast<uintptr_t>(p);
  auto it = m.upper_bound(a);
  return it != m.begin() && a < std::prev(it)->first + std::prev(it)->second;
}

struct HostCopy {
  char *dst;
  const char *src;
  size_t bytes;
  bool overlaps(uintptr_t begin, uint64_t size) const {
    auto d = reinterpret_cast<uintptr_t>(dst);
    auto s = reinterpret_cast<uintptr_t>(src);
    return (d < begin + size && begin < d + bytes) ||
           (s < begin + size && begin < s + bytes);
  }
};

/// A stream: the host copies not yet run, and the host buffers freed after
/// them (their memory is released once the copies have run).
struct Stream {
  std::vector<HostCopy> copies;
  std::vector<void *> frees;
};

struct Event {
  Stream *stream = nullptr;
};

std::set<Stream *> &liveStreams() {
  static std::set<Stream *> streams;
  return streams;
}

void runQueued(Stream *s) {
  if (!s || !liveStreams().count(s))
    return;
  for (const HostCopy &c : s->copies)
    std::memcpy(c.dst, c.src, c.bytes);
  s->copies.clear();
  for (void *p : s->frees)
    std::free(p);
  s->frees.clear();
}

/// Whether a copy queued on a stream other than `except` uses the buffer.
bool queuedElsewhere(Stream *except, uintptr_t begin, uint64_t size) {
  for (Stream *s : liveStreams())
    if (s != except)
      for (const HostCopy &c : s->copies)
        if (c.overlaps(begin, size))
          return true;
  return false;
}
} // namespace

extern "C" {

void *mgpuModuleLoad(void *, size_t) { noKernels("mgpuModuleLoad"); }
void *mgpuModuleLoadJIT(void *, int) { noKernels("mgpuModuleLoadJIT"); }
void mgpuModuleUnload(void *) {}
void *mgpuModuleGetFunction(void *, const char *) {
  noKernels("mgpuModuleGetFunction");
}
void mgpuLaunchKernel(void *, intptr_t, intptr_t, intptr_t, intptr_t,
                      intptr_t, intptr_t, int32_t, void *, void **, void **,
                      size_t) {
  noKernels("mgpuLaunchKernel");
}

void *mgpuStreamCreate(void) {
  auto *s = new Stream;
  liveStreams().insert(s);
  return s;
}
void mgpuStreamDestroy(void *stream) {
  auto *s = static_cast<Stream *>(stream);
  runQueued(s);
  if (liveStreams().erase(s))
    delete s;
}
void mgpuStreamSynchronize(void *stream) {
  runQueued(static_cast<Stream *>(stream));
}
// An event stands for everything its stream holds when it is waited for
// (no later than a GPU would have run it).
void mgpuStreamWaitEvent(void *, void *event) {
  runQueued(static_cast<Event *>(event)->stream);
}
void *mgpuEventCreate(void) { return new Event; }
void mgpuEventDestroy(void *event) { delete static_cast<Event *>(event); }
void mgpuEventSynchronize(void *event) {
  runQueued(static_cast<Event *>(event)->stream);
}
void mgpuEventRecord(void *event, void *stream) {
  static_cast<Event *>(event)->stream = static_cast<Stream *>(stream);
}

// A host_shared buffer (a host copy of an offloaded value) is host memory
// here as on the GPU, counted apart from device buffers.
void *mgpuMemAlloc(uint64_t sizeBytes, void *, bool isHostShared) {
  if (sizeBytes == 0)
    return nullptr;
  void *ptr = nullptr;
  // cuMemAlloc's alignment.
  if (posix_memalign(&ptr, 256, sizeBytes) != 0 || !ptr) {
    std::fprintf(stderr, "remat-cuda-emulation: out of memory (%llu bytes)\n",
                 static_cast<unsigned long long>(sizeBytes));
    std::exit(EXIT_FAILURE);
  }
  // NaN in every float type: a read before the buffer's copy or kernel
  // wrote it shows in the outputs.
  std::memset(ptr, 0xff, sizeBytes);
  blocks(isHostShared)[reinterpret_cast<uintptr_t>(ptr)] = sizeBytes;
  if (isHostShared)
    remat::runtime::trackHostAlloc(ptr, sizeBytes);
  else
    remat::runtime::trackDeviceAlloc(ptr, sizeBytes);
  return ptr;
}

// Freed as libRematCudaRuntime frees: a device buffer after its stream's
// work, a host one once its stream's copies have run (the host goes on).
void mgpuMemFree(void *ptr, void *stream) {
  if (!ptr)
    return;
  auto *s = static_cast<Stream *>(stream);
  const auto begin = reinterpret_cast<uintptr_t>(ptr);
  const bool host = blocks(true).count(begin);
  if (!host)
    runQueued(s);
  auto known = blocks(host).find(begin);
  const uint64_t size = known == blocks(host).end() ? 0 : known->second;
  if (queuedElsewhere(s, begin, size))
    fail("a buffer is freed while a host copy on another stream may still "
         "use it: the free does not wait for that copy");
  blocks(host).erase(begin);
  if (host) {
    remat::runtime::untrackHostAlloc(ptr);
    if (s && liveStreams().count(s) && !s->copies.empty()) {
      s->frees.push_back(ptr);
      return;
    }
  } else {
    remat::runtime::untrackDeviceAlloc(ptr);
  }
  std::free(ptr);
}

void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream) {
  if (!sizeBytes)
    return;
  auto *s = static_cast<Stream *>(stream);
  if (s && liveStreams().count(s) && (inHostBuffer(dst) || inHostBuffer(src))) {
    s->copies.push_back(
        {static_cast<char *>(dst), static_cast<const char *>(src), sizeBytes});
    return;
  }
  std::memcpy(dst, src, sizeBytes);
}

void mgpuMemset32(void *dst, unsigned int value, size_t count, void *) {
  auto *p = static_cast<unsigned int *>(dst);
  for (size_t i = 0; i < count; ++i)
    p[i] = value;
}

void mgpuMemset16(void *dst, unsigned short value, size_t count, void *) {
  auto *p = static_cast<unsigned short *>(dst);
  for (size_t i = 0; i < count; ++i)
    p[i] = value;
}

void mgpuMemHostRegister(void *, uint64_t) {}
void mgpuMemHostRegisterMemRef(int64_t, void *, int64_t) {}
void mgpuMemHostUnregister(void *) {}
void mgpuMemHostUnregisterMemRef(int64_t, void *, int64_t) {}
void mgpuSetDefaultDevice(int32_t) {}

} // extern "C"

// Host copies are freed at once: nothing is kept for reuse.
uint64_t remat::runtime::unusedPinnedHostBytes() { return 0; }

// Buffers come from host memory, counted as the program frees them: no
// pool of the device's.
bool remat::runtime::poolHighWatermarks(uint64_t &, uint64_t &, bool) {
  return false;
}

// Every emulated loop has finished when it returns; the queued copies run.
void remat::runtime::synchronizeDevice() {
  for (Stream *s : liveStreams())
    runQueued(s);
}
