//===- ResultWriterTest.cpp - remat_write_f32's file ----------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The writer opens $REMAT_RESULTS_FILE once per process, so one test writes
// every case and reads the file back.
//
//===----------------------------------------------------------------------===//

#include "remat/Runtime/RematRuntime.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

// A ranked descriptor laid out as MLIR's StridedMemRefType<float, Rank>.
template <int Rank> struct Descriptor {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t sizes[Rank > 0 ? Rank : 1];
  int64_t strides[Rank > 0 ? Rank : 1];
};

struct Record {
  std::vector<int64_t> sizes;
  std::vector<float> values;
};

std::vector<Record> readRecords(const std::string &path) {
  std::vector<Record> out;
  std::FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    return out;
  int64_t rank;
  while (std::fread(&rank, sizeof rank, 1, f) == 1) {
    Record r;
    r.sizes.resize(rank);
    if (rank && std::fread(r.sizes.data(), sizeof(int64_t), rank, f) !=
                    static_cast<size_t>(rank))
      break;
    int64_t count = 1;
    for (int64_t s : r.sizes)
      count *= s;
    r.values.resize(count);
    if (std::fread(r.values.data(), sizeof(float), count, f) !=
        static_cast<size_t>(count))
      break;
    out.push_back(r);
  }
  std::fclose(f);
  return out;
}

TEST(ResultWriter, WritesScalarsRowMajorAndStridedViewsExactly) {
  std::string path = ::testing::TempDir() + "remat_results_test.bin";
  ASSERT_EQ(setenv("REMAT_RESULTS_FILE", path.c_str(), 1), 0);

  float scalar = 0.1f; // Not exact in decimal: the bits must survive.
  Descriptor<0> s{&scalar, &scalar, 0, {0}, {0}};
  remat_write_f32(0, &s);

  // 2x3 row-major, starting one element into its buffer.
  std::vector<float> buffer = {-1, 1, 2, 3, 4, 5, 6};
  Descriptor<2> m{buffer.data(), buffer.data(), 1, {2, 3}, {3, 1}};
  remat_write_f32(2, &m);

  // Its transpose (3x2, strides 1 and 3): written in the view's row order.
  Descriptor<2> t{buffer.data(), buffer.data(), 1, {3, 2}, {1, 3}};
  remat_write_f32(2, &t);

  // An empty tensor: its sizes and no elements.
  Descriptor<1> e{buffer.data(), buffer.data(), 0, {0}, {1}};
  remat_write_f32(1, &e);

  std::vector<Record> r = readRecords(path);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_TRUE(r[0].sizes.empty());
  ASSERT_EQ(r[0].values.size(), 1u);
  EXPECT_EQ(r[0].values[0], 0.1f);
  EXPECT_EQ(r[1].sizes, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(r[1].values, (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(r[2].sizes, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(r[2].values, (std::vector<float>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(r[3].sizes, (std::vector<int64_t>{0}));
  EXPECT_TRUE(r[3].values.empty());
  std::remove(path.c_str());
}

} // namespace
