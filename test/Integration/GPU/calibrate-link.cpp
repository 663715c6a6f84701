//===- calibrate-link.cpp - Times host-device copies on a GPU -------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Times copies between pinned host memory (as libRematCudaRuntime serves
// host copies) and the device over the driver API, each direction, 4 KiB
// to 64 MiB, between events on one stream (the copy's time on the GPU):
// the link's bandwidth is the slope of the large sizes, its latency the
// time of the small ones, for remat-opt's --remat-link-bandwidth and
// --remat-link-latency (docs/benchmarks.md, "On an H100"). Built and run
// by step-times.sh.
//
//===----------------------------------------------------------------------===//
#include <cuda.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x) do { CUresult r = (x); if (r != CUDA_SUCCESS) { \
  const char *n = nullptr; cuGetErrorName(r, &n); \
  std::fprintf(stderr, "%s failed: %s\n", #x, n ? n : "?"); std::exit(1); } } while (0)

int main() {
  CHECK(cuInit(0));
  CUdevice dev; CHECK(cuDeviceGet(&dev, 0));
  CUcontext ctx; CHECK(cuDevicePrimaryCtxRetain(&ctx, dev)); CHECK(cuCtxSetCurrent(ctx));
  char name[256]; CHECK(cuDeviceGetName(name, sizeof name, dev));
  std::printf("device: %s\n", name);
  const size_t maxBytes = size_t(64) << 20;
  void *host; CHECK(cuMemHostAlloc(&host, maxBytes, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP));
  CUdeviceptr d; CHECK(cuMemAlloc(&d, maxBytes));
  CUstream s; CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  CUevent a, b; CHECK(cuEventCreate(&a, 0)); CHECK(cuEventCreate(&b, 0));
  std::printf("| bytes | to host, us (median of 21) | to device, us |\n| ---: | ---: | ---: |\n");
  for (size_t bytes = 4096; bytes <= maxBytes; bytes *= 4) {
    double med[2];
    for (int dir = 0; dir < 2; ++dir) {
      std::vector<float> t;
      for (int i = 0; i < 23; ++i) {
        CHECK(cuEventRecord(a, s));
        if (dir == 0) CHECK(cuMemcpyDtoHAsync(host, d, bytes, s));
        else CHECK(cuMemcpyHtoDAsync(d, host, bytes, s));
        CHECK(cuEventRecord(b, s));
        CHECK(cuEventSynchronize(b));
        float ms; CHECK(cuEventElapsedTime(&ms, a, b));
        if (i >= 2) t.push_back(ms * 1000.0f);
      }
      std::sort(t.begin(), t.end());
      med[dir] = t[t.size() / 2];
    }
    std::printf("| %zu | %.2f | %.2f |\n", bytes, med[0], med[1]);
  }
  return 0;
}
