//===- DeviceTracking.h - Live and peak device bytes ------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Shared by libRematCudaRuntime (CUDA) and libRematCudaEmulation (host
// memory): mgpuMemAlloc/mgpuMemFree report here; the remat_device_* API of
// RematCudaRuntime.h reads it.
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
} // namespace remat::runtime

#endif // REMAT_RUNTIME_CUDA_DEVICETRACKING_H
