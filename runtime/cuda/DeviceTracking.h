//===- DeviceTracking.h - Live and peak device bytes ------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Shared by libRematCudaRuntime (CUDA) and libRematCudaEmulation (host
// memory): mgpuMemAlloc/mgpuMemFree report here, device buffers and pinned
// host buffers apart; the remat_device_* API of RematCudaRuntime.h reads
// it.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_RUNTIME_CUDA_DEVICETRACKING_H
#define REMAT_RUNTIME_CUDA_DEVICETRACKING_H

#include <cstdint>

namespace remat::runtime {
/// Counts `size` bytes at `ptr` as live.
void trackDeviceAlloc(void *ptr, uint64_t size);
/// Stops counting `ptr` (unknown pointers are ignored).
void untrackDeviceAlloc(void *ptr);
/// The same for pinned host buffers (gpu.alloc host_shared: host copies of
/// offloaded values), counted apart from device memory.
void trackHostAlloc(void *ptr, uint64_t size);
/// Stops counting `ptr` as host memory; false when it is not a host buffer.
bool untrackHostAlloc(void *ptr);
/// Pinned host bytes the runtime keeps for reuse, no program buffer's.
uint64_t unusedPinnedHostBytes();
/// With a stream-ordered device allocator (REMAT_CUDA_ALLOCATOR=stream),
/// the high watermarks of the pool's used and reserved bytes, reset to
/// what is live first when `reset`; false when there is no such pool.
bool poolHighWatermarks(uint64_t &used, uint64_t &reserved, bool reset);
/// Waits until the device has finished the work queued so far (defined by
/// each runtime: the driver's context synchronize, or nothing to wait for).
void synchronizeDevice();
} // namespace remat::runtime

#endif // REMAT_RUNTIME_CUDA_DEVICETRACKING_H
