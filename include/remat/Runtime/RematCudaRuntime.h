/*===- RematCudaRuntime.h - CUDA runtime for remat's GPU lowering -*- C -*-===//
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * libRematCudaRuntime implements the `mgpu*` functions that MLIR 22's
 * `gpu-to-llvm` lowering and the `gpu.binary` translation call (module
 * load/unload, function lookup, kernel launch, streams, events, device memory
 * alloc/free/copy/memset) over the CUDA driver API, and counts the device
 * bytes the program holds: live now and the peak since the start (or since
 * the last remat_device_reset_peak). Sizes are the bytes requested from
 * mgpuMemAlloc (exact tensor bytes; the driver rounds up internally).
 *
 * Device buffers come from the device's default memory pool in stream order
 * (cuMemAllocAsync/cuMemFreeAsync: a free does not make the host wait);
 * REMAT_CUDA_ALLOCATOR=sync uses cuMemAlloc/cuMemFree instead. With the
 * pool, remat_device_print_peak adds
 * `device_pool_window_used_high_bytes=<U> device_pool_window_reserved_high_bytes=<R>`,
 * the pool's own high watermarks over the window.
 *
 * With REMAT_REPORT_PEAK=1 in the environment the library prints
 * `device_peak_bytes=<N>` and `device_live_bytes_at_exit=<L>` on stderr when
 * the process exits.
 *
 * Host copies of offloaded values (`gpu.alloc host_shared` in remat's
 * lowering, nothing else) are pinned host memory (cuMemHostAlloc, mapped
 * for the device) counted apart: remat_device_print_peak prints their
 * window too, and the exit report adds `host_copies_peak_bytes=<N>`,
 * `host_copies_live_bytes_at_exit=<L>` and
 * `host_copies_kept_for_reuse_bytes=<K>`: a freed pinned block is kept for
 * the next host copy of its size (K bytes held unused at exit), not counted
 * as the program's.
 *
 * Every CUDA error is fatal: the library names the call and the CUDA error
 * on stderr and exits with status 1 (a kernel that silently did not run
 * would print wrong numbers instead).
 *
 * Plain C ABI, no MLIR dependency: load it with
 *   mlir-runner -shared-libs=libRematCudaRuntime.so,libRematRuntime.so,...
 *===----------------------------------------------------------------------===*/
#ifndef REMAT_RUNTIME_REMATCUDARUNTIME_H
#define REMAT_RUNTIME_REMATCUDARUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define REMAT_CUDA_EXPORT __attribute__((visibility("default")))

/* Modules: `data` is a cubin or fatbin (`size` bytes) or, for JIT, PTX. */
REMAT_CUDA_EXPORT void *mgpuModuleLoad(void *data, size_t size);
REMAT_CUDA_EXPORT void *mgpuModuleLoadJIT(void *data, int optLevel);
REMAT_CUDA_EXPORT void mgpuModuleUnload(void *module);
REMAT_CUDA_EXPORT void *mgpuModuleGetFunction(void *module, const char *name);
REMAT_CUDA_EXPORT void mgpuLaunchKernel(void *function, intptr_t gridX,
                                        intptr_t gridY, intptr_t gridZ,
                                        intptr_t blockX, intptr_t blockY,
                                        intptr_t blockZ, int32_t smem,
                                        void *stream, void **params,
                                        void **extra, size_t paramsCount);

/* Streams and events. */
REMAT_CUDA_EXPORT void *mgpuStreamCreate(void);
REMAT_CUDA_EXPORT void mgpuStreamDestroy(void *stream);
REMAT_CUDA_EXPORT void mgpuStreamSynchronize(void *stream);
REMAT_CUDA_EXPORT void mgpuStreamWaitEvent(void *stream, void *event);
REMAT_CUDA_EXPORT void *mgpuEventCreate(void);
REMAT_CUDA_EXPORT void mgpuEventDestroy(void *event);
REMAT_CUDA_EXPORT void mgpuEventSynchronize(void *event);
REMAT_CUDA_EXPORT void mgpuEventRecord(void *event, void *stream);

/* Device memory (tracked); with isHostShared, pinned host memory (tracked
 * apart). */
REMAT_CUDA_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes, void *stream,
                                     bool isHostShared);
REMAT_CUDA_EXPORT void mgpuMemFree(void *ptr, void *stream);
REMAT_CUDA_EXPORT void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                                  void *stream);
REMAT_CUDA_EXPORT void mgpuMemset32(void *dst, unsigned int value,
                                    size_t count, void *stream);
REMAT_CUDA_EXPORT void mgpuMemset16(void *dst, unsigned short value,
                                    size_t count, void *stream);

/* Host memory registration and device selection. */
REMAT_CUDA_EXPORT void mgpuMemHostRegister(void *ptr, uint64_t sizeBytes);
REMAT_CUDA_EXPORT void mgpuMemHostRegisterMemRef(int64_t rank,
                                                 void *descriptor,
                                                 int64_t elementSizeBytes);
REMAT_CUDA_EXPORT void mgpuMemHostUnregister(void *ptr);
REMAT_CUDA_EXPORT void mgpuMemHostUnregisterMemRef(int64_t rank,
                                                   void *descriptor,
                                                   int64_t elementSizeBytes);
REMAT_CUDA_EXPORT void mgpuSetDefaultDevice(int32_t device);

/* Device bytes allocated through mgpuMemAlloc and not yet freed. */
REMAT_CUDA_EXPORT int64_t remat_device_live_bytes(void);
/* Largest value the live device bytes reached since start or last reset. */
REMAT_CUDA_EXPORT int64_t remat_device_peak_bytes(void);
/* Restarts peak tracking from the device bytes live now (and the host
 * copies' from the host copy bytes live now). */
REMAT_CUDA_EXPORT void remat_device_reset_peak(void);
/* Number of device allocations since the start. */
REMAT_CUDA_EXPORT int64_t remat_device_num_allocs(void);
/* Prints `device_window_peak_bytes=<peak> device_window_base_bytes=<live at
 * last reset>` on stderr, then `host_window_peak_bytes=<peak>
 * host_window_base_bytes=<live at last reset>` for the host copies. With
 * REMAT_REPORT_TIME=1 in the environment, then `device_window_seconds=<s>`:
 * the wall time since the last reset, the device synchronized at both ends
 * (a step's time on the GPU, without the process's start). */
REMAT_CUDA_EXPORT void remat_device_print_peak(void);

#ifdef __cplusplus
}
#endif

#endif /* REMAT_RUNTIME_REMATCUDARUNTIME_H */
