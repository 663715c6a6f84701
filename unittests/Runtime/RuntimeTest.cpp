//===- RuntimeTest.cpp - Allocation tracking of libRematRuntime -----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The tracker is process-wide, so every test measures differences from the
// state it starts in.
//
//===----------------------------------------------------------------------===//

#include "remat/Runtime/RematRuntime.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

TEST(RematRuntime, CountsLiveAndPeakBytes) {
  remat_reset_peak();
  int64_t base = remat_live_bytes();
  EXPECT_EQ(remat_peak_bytes(), base);
  int64_t allocs = remat_num_allocs();

  void *a = _mlir_memref_to_llvm_alloc(1000);
  void *b = _mlir_memref_to_llvm_alloc(24);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(remat_live_bytes(), base + 1024);
  EXPECT_EQ(remat_num_allocs(), allocs + 2);
  _mlir_memref_to_llvm_free(a);
  EXPECT_EQ(remat_live_bytes(), base + 24);
  void *c = _mlir_memref_to_llvm_alloc(500);
  EXPECT_EQ(remat_live_bytes(), base + 524);
  EXPECT_EQ(remat_peak_bytes(), base + 1024); // The peak stays.
  _mlir_memref_to_llvm_free(b);
  _mlir_memref_to_llvm_free(c);
  EXPECT_EQ(remat_live_bytes(), base);
  EXPECT_EQ(remat_peak_bytes(), base + 1024);
}

TEST(RematRuntime, ResetStartsAWindowAtTheLiveBytes) {
  void *held = _mlir_memref_to_llvm_alloc(4096);
  void *big = _mlir_memref_to_llvm_alloc(1 << 20);
  _mlir_memref_to_llvm_free(big); // A high peak before the window.
  remat_reset_peak();
  int64_t live = remat_live_bytes();
  EXPECT_EQ(remat_peak_bytes(), live);
  void *x = _mlir_memref_to_llvm_alloc(64);
  _mlir_memref_to_llvm_free(x);
  EXPECT_EQ(remat_peak_bytes(), live + 64);
  _mlir_memref_to_llvm_free(held);
}

TEST(RematRuntime, AlignedAllocIsAlignedAndCounted) {
  int64_t base = remat_live_bytes();
  for (size_t alignment : {1u, 4u, 16u, 64u, 128u, 4096u}) {
    void *p = _mlir_memref_to_llvm_aligned_alloc(alignment, 192);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % alignment, 0u) << alignment;
    EXPECT_EQ(remat_live_bytes(), base + 192);
    _mlir_memref_to_llvm_free(p); // free() releases aligned blocks too.
    EXPECT_EQ(remat_live_bytes(), base);
  }
}

TEST(RematRuntime, IgnoresNullAndForeignPointers) {
  int64_t base = remat_live_bytes();
  _mlir_memref_to_llvm_free(nullptr);
  void *foreign = std::malloc(32); // Not allocated through the runtime.
  _mlir_memref_to_llvm_free(foreign);
  EXPECT_EQ(remat_live_bytes(), base);
}

TEST(RematRuntime, ZeroSizedAllocations) {
  int64_t base = remat_live_bytes();
  void *p = _mlir_memref_to_llvm_alloc(0);
  EXPECT_EQ(remat_live_bytes(), base);
  _mlir_memref_to_llvm_free(p);
  EXPECT_EQ(remat_live_bytes(), base);
}

TEST(RematRuntime, ConcurrentAllocationsBalance) {
  remat_reset_peak();
  int64_t base = remat_live_bytes();
  constexpr int kThreads = 8, kRounds = 2000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([t] {
      for (int i = 0; i < kRounds; ++i) {
        void *p = (i + t) % 2 ? _mlir_memref_to_llvm_alloc(100)
                              : _mlir_memref_to_llvm_aligned_alloc(64, 128);
        _mlir_memref_to_llvm_free(p);
      }
    });
  for (std::thread &th : threads)
    th.join();
  EXPECT_EQ(remat_live_bytes(), base);
  // At most one block per thread is live at any time.
  EXPECT_LE(remat_peak_bytes(), base + kThreads * 128);
  EXPECT_GE(remat_peak_bytes(), base + 100);
}

} // namespace
