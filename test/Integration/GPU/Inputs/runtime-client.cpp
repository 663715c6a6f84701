// A program linked against libRematCudaRuntime (and so against the CUDA
// driver library, the toolkit's stub where there is no GPU). Without
// arguments it only uses the tracking API, which needs no device; with
// `alloc` it allocates device memory, which needs one.
#include "remat/Runtime/RematCudaRuntime.h"

#include <cstdio>
#include <cstring>

int main(int argc, char **argv) {
  std::printf("live=%lld peak=%lld allocs=%lld\n",
              static_cast<long long>(remat_device_live_bytes()),
              static_cast<long long>(remat_device_peak_bytes()),
              static_cast<long long>(remat_device_num_allocs()));
  std::fflush(stdout);
  if (argc > 1 && std::strcmp(argv[1], "alloc") == 0) {
    void *stream = mgpuStreamCreate();
    void *p = mgpuMemAlloc(1024, stream, false);
    void *q = mgpuMemAlloc(4096, stream, false);
    mgpuMemFree(p, stream);
    remat_device_reset_peak();
    void *r = mgpuMemAlloc(512, stream, false);
    remat_device_print_peak();
    mgpuMemFree(q, stream);
    mgpuMemFree(r, stream);
    mgpuStreamDestroy(stream);
    std::printf("live=%lld peak=%lld allocs=%lld\n",
                static_cast<long long>(remat_device_live_bytes()),
                static_cast<long long>(remat_device_peak_bytes()),
                static_cast<long long>(remat_device_num_allocs()));
  }
  if (argc > 1 && std::strcmp(argv[1], "host") == 0) {
    // Host copies (pinned): a freed block comes back for the next copy of
    // its size, and is counted as the program's only while it holds one.
    void *stream = mgpuStreamCreate();
    void *a = mgpuMemAlloc(256, stream, true);
    mgpuMemFree(a, stream);
    void *b = mgpuMemAlloc(256, stream, true);
    void *c = mgpuMemAlloc(128, stream, true);
    std::printf("reused=%d distinct=%d\n", a == b, b != c);
    mgpuMemFree(b, stream);
    mgpuMemFree(c, stream);
    mgpuStreamDestroy(stream);
  }
  return 0;
}
