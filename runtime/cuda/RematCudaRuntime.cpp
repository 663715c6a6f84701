//===- RematCudaRuntime.cpp - mgpu* functions over the CUDA driver API ----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What code lowered by `-remat-lower-to-gpu` calls: the ABI of MLIR 22's
// gpu-to-llvm lowering and of the gpu.binary translation (SelectObjectAttr),
// implemented from scratch over the driver API. Device allocations are
// counted (DeviceTracking.cpp) like libRematRuntime counts host ones. All
// work runs in the primary context of one device; errors are fatal (see
// RematCudaRuntime.h).
//
//===----------------------------------------------------------------------===//

#include "DeviceTracking.h"
#include "remat/Runtime/RematCudaRuntime.h"

#include <cuda.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace {

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

[[noreturn]] void fatal(const char *what, CUresult result) {
  // A failure while exiting (a module unload after an earlier error) must
  // not re-enter exit().
  static std::atomic<bool> failing{false};
  const char *name = nullptr, *text = nullptr;
  // The stub cannot name errors either; name the ones that mean "no GPU".
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS)
    name = result == CUDA_ERROR_STUB_LIBRARY ? "CUDA_ERROR_STUB_LIBRARY"
           : result == CUDA_ERROR_NO_DEVICE  ? "CUDA_ERROR_NO_DEVICE"
                                             : nullptr;
  if (cuGetErrorString(result, &text) != CUDA_SUCCESS)
    text = nullptr;
  std::fflush(stdout); // What the program printed so far comes first.
  std::fprintf(stderr, "remat-cuda-runtime: %s failed: %s (error %d%s%s)\n",
               what, name ? name : "unknown CUDA error",
               static_cast<int>(result), text ? ": " : "", text ? text : "");
  if (result == CUDA_ERROR_STUB_LIBRARY)
    std::fprintf(stderr, "remat-cuda-runtime: the CUDA driver is the "
                         "toolkit's stub library: no NVIDIA driver here\n");
  else if (result == CUDA_ERROR_NO_DEVICE)
    std::fprintf(stderr, "remat-cuda-runtime: no CUDA device\n");
  std::fflush(stderr);
  if (failing.exchange(true))
    std::_Exit(EXIT_FAILURE);
  std::exit(EXIT_FAILURE);
}

void check(CUresult result, const char *what) {
  if (result != CUDA_SUCCESS)
    fatal(what, result);
}

#define REMAT_CUDA_CHECK(expr) check((expr), #expr)

//===----------------------------------------------------------------------===//
// Context
//===----------------------------------------------------------------------===//

std::atomic<int> defaultDevice{0};

/// The primary context of the default device, retained on first use.
CUcontext primaryContext() {
  static CUcontext context = [] {
    REMAT_CUDA_CHECK(cuInit(0));
    CUdevice device;
    REMAT_CUDA_CHECK(cuDeviceGet(&device, defaultDevice.load()));
    CUcontext ctx = nullptr;
    REMAT_CUDA_CHECK(cuDevicePrimaryCtxRetain(&ctx, device));
    return ctx;
  }();
  return context;
}

/// Makes the primary context current on the calling thread (once).
void useContext() {
  thread_local bool current = false;
  if (current)
    return;
  REMAT_CUDA_CHECK(cuCtxSetCurrent(primaryContext()));
  current = true;
}

CUdeviceptr devicePtr(void *ptr) { return reinterpret_cast<CUdeviceptr>(ptr); }

//===----------------------------------------------------------------------===//
// Pinned host blocks
//===----------------------------------------------------------------------===//

/// The pinned host blocks of offloaded values' host copies, kept once the
/// program frees them for its next copy of the same size (each step copies
/// the same values again). cuMemHostAlloc and cuMemFreeHost take tens of
/// microseconds each and cuMemFreeHost waits for the whole device: on an H100
/// they made an offloading step of the corpus ResNet 40 % slower than one
/// without copies. DeviceTracking counts the program's copies; the blocks
/// kept unused are reported apart at exit.
class PinnedBlocks {
public:
  void *take(uint64_t size) {
    Unused found{nullptr, nullptr};
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto it = unused.find(size);
      if (it != unused.end()) {
        found = it->second;
        unused.erase(it);
        unusedBytes -= size;
      }
    }
    if (found.block) {
      // The copies that read it before it was freed have finished.
      if (found.done) {
        REMAT_CUDA_CHECK(cuEventSynchronize(found.done));
        REMAT_CUDA_CHECK(cuEventDestroy(found.done));
      }
      return found.block;
    }
    void *block = nullptr;
    REMAT_CUDA_CHECK(cuMemHostAlloc(
        &block, size, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP));
    std::lock_guard<std::mutex> lock(mutex);
    sizeOf[block] = size;
    return block;
  }
  /// `done`: an event after the last work that uses `block` (null: none
  /// pending); the block is not handed out again before it.
  void give(void *block, CUevent done) {
    std::lock_guard<std::mutex> lock(mutex);
    uint64_t size = sizeOf.at(block);
    unused.emplace(size, Unused{block, done});
    unusedBytes += size;
  }
  uint64_t unusedTotal() {
    std::lock_guard<std::mutex> lock(mutex);
    return unusedBytes;
  }

private:
  std::mutex mutex;
  struct Unused {
    void *block;
    CUevent done;
  };
  std::unordered_map<void *, uint64_t> sizeOf;
  std::unordered_multimap<uint64_t, Unused> unused;
  uint64_t unusedBytes = 0;
};

// Never destroyed: the process's exit releases pinned memory.
PinnedBlocks &pinnedBlocks() {
  static PinnedBlocks *blocks = new PinnedBlocks;
  return *blocks;
}
CUstream asStream(void *stream) { return static_cast<CUstream>(stream); }

/// Streams the program destroyed, handed out again: with host copies on
/// streams of their own (-remat-gpu-copy-stream) a step creates one per
/// copy, and cuStreamCreate takes microseconds. A destroyed stream's work
/// is done (gpu-to-llvm destroys only after a synchronize); were it not,
/// new work would only queue behind it.
class StreamPool {
public:
  CUstream take() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!idle.empty()) {
        CUstream s = idle.back();
        idle.pop_back();
        return s;
      }
    }
    CUstream stream = nullptr;
    REMAT_CUDA_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    return stream;
  }
  void give(CUstream stream) {
    std::lock_guard<std::mutex> lock(mutex);
    idle.push_back(stream);
  }

private:
  std::mutex mutex;
  std::vector<CUstream> idle;
};

// Never destroyed, like the pinned blocks: the process's exit releases them.
StreamPool &streamPool() {
  static StreamPool *pool = new StreamPool;
  return *pool;
}

/// Device buffers come from the device's default memory pool in stream
/// order (cuMemAllocAsync on the stream of the buffer's first use,
/// cuMemFreeAsync on the stream of its last), so a free does not make the
/// host wait: on an H100 the corpus ResNet's step ran 1.5 to 1.9x faster
/// than with cuMemAlloc and cuMemFree, which wait for the stream and, in
/// the driver, for the whole device (docs/benchmarks.md, "On an H100").
/// REMAT_CUDA_ALLOCATOR=sync, or a device without memory pools, keeps
/// those. The counted peaks are the same either way: a buffer is counted
/// from its allocation to its free in the host's program, and a buffer
/// freed on a stream other than its own (a host copy's stream) is freed
/// only once that stream's work is done, so the device never holds more
/// than the count says.
class DeviceBuffers {
public:
  bool streamOrdered() {
    static const bool on = [] {
      const char *allocator = std::getenv("REMAT_CUDA_ALLOCATOR");
      if (allocator && std::strcmp(allocator, "sync") == 0)
        return false;
      CUdevice device;
      REMAT_CUDA_CHECK(cuCtxGetDevice(&device));
      int pools = 0;
      REMAT_CUDA_CHECK(cuDeviceGetAttribute(
          &pools, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, device));
      return pools != 0;
    }();
    return on;
  }

  /// The default pool of the current device, keeping what it holds (a
  /// release at each synchronize would return to the driver's slow path).
  CUmemoryPool pool() {
    static CUmemoryPool p = [] {
      CUdevice device;
      REMAT_CUDA_CHECK(cuCtxGetDevice(&device));
      CUmemoryPool pool = nullptr;
      REMAT_CUDA_CHECK(cuDeviceGetDefaultMemPool(&pool, device));
      cuuint64_t keepAll = ~cuuint64_t(0);
      REMAT_CUDA_CHECK(cuMemPoolSetAttribute(
          pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keepAll));
      return pool;
    }();
    return p;
  }

  CUdeviceptr allocate(uint64_t size, CUstream stream) {
    CUdeviceptr ptr = 0;
    if (!streamOrdered()) {
      REMAT_CUDA_CHECK(cuMemAlloc(&ptr, size));
      return ptr;
    }
    pool();
    REMAT_CUDA_CHECK(cuMemAllocAsync(&ptr, size, stream));
    // Without a stream (a synchronous gpu.alloc) the buffer is ready for
    // every stream when this returns.
    if (!stream)
      REMAT_CUDA_CHECK(cuStreamSynchronize(nullptr));
    std::lock_guard<std::mutex> lock(mutex);
    streamOf[ptr] = stream;
    return ptr;
  }

  void free(CUdeviceptr ptr, CUstream stream) {
    if (!streamOrdered()) {
      // After the stream's work, which may still use the buffer
      // (gpu-async-region chains kernels and frees on one stream).
      if (stream)
        REMAT_CUDA_CHECK(cuStreamSynchronize(stream));
      REMAT_CUDA_CHECK(cuMemFree(ptr));
      return;
    }
    CUstream own = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto it = streamOf.find(ptr);
      if (it != streamOf.end()) {
        own = it->second;
        streamOf.erase(it);
      }
    }
    // On another stream (a copy to the host freeing its source), or on
    // none, the host waits for that work first: freed in stream order, the
    // buffer would stay on the device after the count has dropped it.
    if (!stream)
      REMAT_CUDA_CHECK(cuCtxSynchronize());
    else if (stream != own)
      REMAT_CUDA_CHECK(cuStreamSynchronize(stream));
    REMAT_CUDA_CHECK(cuMemFreeAsync(ptr, stream));
  }

  /// The high watermarks of the pool's used and reserved bytes (what the
  /// driver counts at the calls; reserved in its own granules), reset to
  /// what is in use first when `reset`. False without a pool.
  bool highWatermarks(uint64_t &used, uint64_t &reserved, bool reset) {
    if (!streamOrdered())
      return false;
    cuuint64_t u = 0, r = 0;
    if (reset) {
      REMAT_CUDA_CHECK(cuCtxSynchronize()); // Earlier frees are done.
      REMAT_CUDA_CHECK(
          cuMemPoolSetAttribute(pool(), CU_MEMPOOL_ATTR_USED_MEM_HIGH, &u));
      REMAT_CUDA_CHECK(
          cuMemPoolSetAttribute(pool(), CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, &r));
    }
    REMAT_CUDA_CHECK(
        cuMemPoolGetAttribute(pool(), CU_MEMPOOL_ATTR_USED_MEM_HIGH, &u));
    REMAT_CUDA_CHECK(
        cuMemPoolGetAttribute(pool(), CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, &r));
    used = u;
    reserved = r;
    return true;
  }

private:
  std::mutex mutex;
  /// The stream each live buffer was allocated on.
  std::unordered_map<CUdeviceptr, CUstream> streamOf;
};

// Never destroyed, like the pinned blocks.
DeviceBuffers &deviceBuffers() {
  static DeviceBuffers *buffers = new DeviceBuffers;
  return *buffers;
}

} // namespace

extern "C" {

//===----------------------------------------------------------------------===//
// Modules and launches
//===----------------------------------------------------------------------===//

void *mgpuModuleLoad(void *data, size_t /*size*/) {
  useContext();
  CUmodule module = nullptr;
  REMAT_CUDA_CHECK(cuModuleLoadData(&module, data));
  return module;
}

void *mgpuModuleLoadJIT(void *data, int optLevel) {
  useContext();
  // PTX: let the driver compile it, and show its log when it cannot.
  char log[8192] = {0};
  CUjit_option options[] = {CU_JIT_OPTIMIZATION_LEVEL,
                            CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {reinterpret_cast<void *>(static_cast<intptr_t>(
                        optLevel < 0 ? 0 : (optLevel > 4 ? 4 : optLevel))),
                    log, reinterpret_cast<void *>(sizeof(log) - 1)};
  CUmodule module = nullptr;
  CUresult result = cuModuleLoadDataEx(&module, data, 3, options, values);
  if (result != CUDA_SUCCESS) {
    if (log[0])
      std::fprintf(stderr, "remat-cuda-runtime: PTX JIT log:\n%s\n", log);
    fatal("cuModuleLoadDataEx (PTX JIT)", result);
  }
  return module;
}

void mgpuModuleUnload(void *module) {
  if (!module)
    return;
  useContext();
  CUresult result = cuModuleUnload(static_cast<CUmodule>(module));
  // A program compiled ahead of time unloads its kernels from a global
  // destructor, which runs after the driver's own exit handler has released
  // every module: nothing is left to free.
  if (result != CUDA_ERROR_DEINITIALIZED)
    check(result, "cuModuleUnload");
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  useContext();
  CUfunction function = nullptr;
  CUresult result =
      cuModuleGetFunction(&function, static_cast<CUmodule>(module), name);
  if (result != CUDA_SUCCESS) {
    std::fprintf(stderr, "remat-cuda-runtime: kernel '%s'\n", name);
    fatal("cuModuleGetFunction", result);
  }
  return function;
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, size_t /*paramsCount*/) {
  useContext();
  REMAT_CUDA_CHECK(cuLaunchKernel(
      static_cast<CUfunction>(function), gridX, gridY, gridZ, blockX, blockY,
      blockZ, static_cast<unsigned>(smem), asStream(stream), params, extra));
}

//===----------------------------------------------------------------------===//
// Streams and events
//===----------------------------------------------------------------------===//

void *mgpuStreamCreate(void) {
  useContext();
  return streamPool().take();
}

void mgpuStreamDestroy(void *stream) {
  if (stream)
    streamPool().give(asStream(stream));
}

void mgpuStreamSynchronize(void *stream) {
  useContext();
  REMAT_CUDA_CHECK(cuStreamSynchronize(asStream(stream)));
}

void mgpuStreamWaitEvent(void *stream, void *event) {
  useContext();
  REMAT_CUDA_CHECK(
      cuStreamWaitEvent(asStream(stream), static_cast<CUevent>(event), 0));
}

void *mgpuEventCreate(void) {
  useContext();
  CUevent event = nullptr;
  REMAT_CUDA_CHECK(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING));
  return event;
}

void mgpuEventDestroy(void *event) {
  useContext();
  REMAT_CUDA_CHECK(cuEventDestroy(static_cast<CUevent>(event)));
}

void mgpuEventSynchronize(void *event) {
  useContext();
  REMAT_CUDA_CHECK(cuEventSynchronize(static_cast<CUevent>(event)));
}

void mgpuEventRecord(void *event, void *stream) {
  useContext();
  REMAT_CUDA_CHECK(
      cuEventRecord(static_cast<CUevent>(event), asStream(stream)));
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, bool isHostShared) {
  if (sizeBytes == 0)
    return nullptr; // cuMemAlloc rejects 0; nothing to count.
  useContext();
  if (isHostShared) {
    // remat lowers only host copies of offloaded values to host_shared:
    // pinned host memory the device can address (pageable memory would make
    // the copies synchronous), counted apart from device memory.
    void *host = pinnedBlocks().take(sizeBytes);
    remat::runtime::trackHostAlloc(host, sizeBytes);
    return host;
  }
  CUdeviceptr ptr = deviceBuffers().allocate(sizeBytes, asStream(stream));
  void *result = reinterpret_cast<void *>(ptr);
  remat::runtime::trackDeviceAlloc(result, sizeBytes);
  return result;
}

void mgpuMemFree(void *ptr, void *stream) {
  if (!ptr)
    return;
  useContext();
  if (remat::runtime::untrackHostAlloc(ptr)) {
    // Kept for reuse once the stream's work that may still copy from it is
    // done (an event, waited for when the block is taken again); with no
    // stream, once the whole device's is. The host does not wait here.
    CUevent done = nullptr;
    if (stream) {
      REMAT_CUDA_CHECK(cuEventCreate(&done, CU_EVENT_DISABLE_TIMING));
      REMAT_CUDA_CHECK(cuEventRecord(done, asStream(stream)));
    } else {
      REMAT_CUDA_CHECK(cuCtxSynchronize());
    }
    pinnedBlocks().give(ptr, done);
    return;
  }
  deviceBuffers().free(devicePtr(ptr), asStream(stream));
  remat::runtime::untrackDeviceAlloc(ptr);
}

void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream) {
  if (sizeBytes == 0)
    return;
  useContext();
  // Unified addressing tells host from device pointers.
  REMAT_CUDA_CHECK(cuMemcpyAsync(devicePtr(dst), devicePtr(src), sizeBytes,
                                 asStream(stream)));
}

void mgpuMemset32(void *dst, unsigned int value, size_t count, void *stream) {
  useContext();
  REMAT_CUDA_CHECK(
      cuMemsetD32Async(devicePtr(dst), value, count, asStream(stream)));
}

void mgpuMemset16(void *dst, unsigned short value, size_t count,
                  void *stream) {
  useContext();
  REMAT_CUDA_CHECK(
      cuMemsetD16Async(devicePtr(dst), value, count, asStream(stream)));
}

//===----------------------------------------------------------------------===//
// Host registration, device selection
//===----------------------------------------------------------------------===//

void mgpuMemHostRegister(void *ptr, uint64_t sizeBytes) {
  useContext();
  REMAT_CUDA_CHECK(cuMemHostRegister(ptr, sizeBytes, 0));
}

void mgpuMemHostUnregister(void *ptr) {
  useContext();
  REMAT_CUDA_CHECK(cuMemHostUnregister(ptr));
}

namespace {
/// The start and byte size of a dense ranked memref descriptor
/// {allocated, aligned, offset, sizes[rank], strides[rank]}.
struct DenseRange {
  char *begin;
  uint64_t bytes;
};
DenseRange denseRange(int64_t rank, void *descriptor, int64_t elementSize) {
  auto *fields = static_cast<char *>(descriptor);
  char *aligned = *reinterpret_cast<char **>(fields + sizeof(void *));
  const int64_t *offsetSizes =
      reinterpret_cast<const int64_t *>(fields + 2 * sizeof(void *));
  uint64_t elements = 1;
  for (int64_t i = 0; i < rank; ++i)
    elements *= static_cast<uint64_t>(offsetSizes[1 + i]);
  return {aligned + offsetSizes[0] * elementSize,
          elements * static_cast<uint64_t>(elementSize)};
}
} // namespace

void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                               int64_t elementSizeBytes) {
  DenseRange r = denseRange(rank, descriptor, elementSizeBytes);
  mgpuMemHostRegister(r.begin, r.bytes);
}

void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                 int64_t elementSizeBytes) {
  mgpuMemHostUnregister(denseRange(rank, descriptor, elementSizeBytes).begin);
}

void mgpuSetDefaultDevice(int32_t device) { defaultDevice = device; }

} // extern "C"

// Outside extern "C": DeviceTracking's hooks have C++ linkage.
uint64_t remat::runtime::unusedPinnedHostBytes() {
  return pinnedBlocks().unusedTotal();
}

bool remat::runtime::poolHighWatermarks(uint64_t &used, uint64_t &reserved,
                                        bool reset) {
  useContext();
  return deviceBuffers().highWatermarks(used, reserved, reset);
}

void remat::runtime::synchronizeDevice() {
  useContext();
  REMAT_CUDA_CHECK(cuCtxSynchronize());
}
