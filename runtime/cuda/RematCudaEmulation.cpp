//===- RematCudaEmulation.cpp - The mgpu* memory functions on the host ----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// libRematCudaEmulation: what `-remat-lower-to-gpu{emulate=true}` code
// calls. "Device" buffers are host memory counted exactly like
// libRematCudaRuntime counts device memory (same DeviceTracking.cpp), so a
// machine without a GPU can check the device peak of the GPU lowering.
// Streams and events are no-ops (everything is synchronous); there are no
// kernels to load or launch.
//
//===----------------------------------------------------------------------===//

#include "DeviceTracking.h"
#include "remat/Runtime/RematCudaRuntime.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

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

// A distinct non-null handle for streams and events.
char handle;
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

void *mgpuStreamCreate(void) { return &handle; }
void mgpuStreamDestroy(void *) {}
void mgpuStreamSynchronize(void *) {}
void mgpuStreamWaitEvent(void *, void *) {}
void *mgpuEventCreate(void) { return &handle; }
void mgpuEventDestroy(void *) {}
void mgpuEventSynchronize(void *) {}
void mgpuEventRecord(void *, void *) {}

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
  if (isHostShared)
    remat::runtime::trackHostAlloc(ptr, sizeBytes);
  else
    remat::runtime::trackDeviceAlloc(ptr, sizeBytes);
  return ptr;
}

void mgpuMemFree(void *ptr, void *) {
  if (!ptr)
    return;
  if (!remat::runtime::untrackHostAlloc(ptr))
    remat::runtime::untrackDeviceAlloc(ptr);
  std::free(ptr);
}

void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *) {
  if (sizeBytes)
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

// Every emulated copy and loop has finished when it returns.
void remat::runtime::synchronizeDevice() {}
