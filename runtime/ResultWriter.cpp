//===- ResultWriter.cpp - A program's f32 results, in binary --------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// remat_write_f32 appends a tensor to the file $REMAT_RESULTS_FILE names,
// exactly and fast: printMemrefF32's text of a large model's gradients is
// gigabytes (resnet101's 44 million floats: 0.7 GB) and most of the run's
// time, to print and to parse again.
//
//===----------------------------------------------------------------------===//

#include "remat/Runtime/RematRuntime.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace {

// The ranked descriptor an unranked memref points to (MLIR's
// StridedMemRefType): two pointers, the offset, then `rank` sizes and
// `rank` strides, all in elements.
struct DescriptorView {
  const float *aligned;
  int64_t offset;
  const int64_t *sizes;
  const int64_t *strides;
};

DescriptorView view(void *descriptor, int64_t rank) {
  auto *pointers = static_cast<float **>(descriptor);
  auto *ints = reinterpret_cast<int64_t *>(pointers + 2);
  return {pointers[1], ints[0], ints + 1, ints + 1 + rank};
}

bool isRowMajor(const DescriptorView &d, int64_t rank) {
  int64_t expected = 1;
  for (int64_t i = rank - 1; i >= 0; --i) {
    if (d.sizes[i] != 1 && d.strides[i] != expected)
      return false;
    expected *= d.sizes[i];
  }
  return true;
}

// Writes the elements in row-major order, whatever the strides.
bool writeElements(std::FILE *out, const DescriptorView &d, int64_t rank,
                   int64_t count) {
  const float *base = d.aligned + d.offset;
  if (isRowMajor(d, rank))
    return std::fwrite(base, sizeof(float), count, out) ==
           static_cast<size_t>(count);
  std::vector<int64_t> index(rank, 0);
  std::vector<float> buffer;
  buffer.reserve(count);
  for (int64_t n = 0; n < count; ++n) {
    int64_t at = 0;
    for (int64_t i = 0; i < rank; ++i)
      at += index[i] * d.strides[i];
    buffer.push_back(base[at]);
    for (int64_t i = rank - 1; i >= 0 && ++index[i] == d.sizes[i]; --i)
      index[i] = 0;
  }
  return std::fwrite(buffer.data(), sizeof(float), count, out) ==
         static_cast<size_t>(count);
}

std::FILE *resultsFile() {
  static std::FILE *file = [] {
    const char *path = std::getenv("REMAT_RESULTS_FILE");
    if (!path || !*path) {
      std::fprintf(stderr, "remat_write_f32: set REMAT_RESULTS_FILE to the "
                           "file the results are written to\n");
      std::exit(2);
    }
    std::FILE *f = std::fopen(path, "wb");
    if (!f) {
      std::fprintf(stderr, "remat_write_f32: cannot write %s\n", path);
      std::exit(2);
    }
    return f;
  }();
  return file;
}

} // namespace

extern "C" void remat_write_f32(int64_t rank, void *descriptor) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  std::FILE *out = resultsFile();
  DescriptorView d = view(descriptor, rank);
  int64_t count = 1;
  for (int64_t i = 0; i < rank; ++i)
    count *= d.sizes[i];
  bool ok = std::fwrite(&rank, sizeof rank, 1, out) == 1 &&
            (rank == 0 ||
             std::fwrite(d.sizes, sizeof(int64_t), rank, out) ==
                 static_cast<size_t>(rank)) &&
            writeElements(out, d, rank, count) && std::fflush(out) == 0;
  if (!ok) {
    std::fprintf(stderr, "remat_write_f32: writing $REMAT_RESULTS_FILE "
                         "failed (disk full?)\n");
    std::exit(2);
  }
}
