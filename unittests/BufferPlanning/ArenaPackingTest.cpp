//===- ArenaPackingTest.cpp - The arena packing of the buffer planner -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/BufferPlanning/ArenaPacking.h"

#include <gtest/gtest.h>

#include <random>

using namespace remat::arena;

namespace {

Plan packChecked(const std::vector<Buffer> &buffers, int64_t alignment) {
  Plan plan = pack(buffers, alignment);
  std::optional<Violation> error = verify(buffers, plan, alignment);
  EXPECT_FALSE(error) << error->message;
  return plan;
}

TEST(ArenaPacking, Empty) {
  Plan plan = packChecked({}, 64);
  EXPECT_EQ(plan.arenaSize, 0);
  EXPECT_EQ(plan.sumOfSizes, 0);
}

TEST(ArenaPacking, OverlappingLifetimesGetDisjointStorage) {
  // Three buffers live together: the arena is their (aligned) sum.
  std::vector<Buffer> b = {{100, 0, 5}, {64, 1, 4}, {10, 2, 3}};
  Plan plan = packChecked(b, 64);
  EXPECT_EQ(plan.arenaSize, 128 + 64 + 64);
  EXPECT_EQ(plan.sumOfSizes, 174);
  EXPECT_EQ(plan.lowerBound, plan.arenaSize);
}

TEST(ArenaPacking, DisjointLifetimesShareStorage) {
  // MXNet "normal sharing": B dies before E is computed, sizes differ.
  std::vector<Buffer> b = {{256, 0, 2}, {128, 3, 5}, {256, 4, 6}};
  Plan plan = packChecked(b, 64);
  // Buffer 0 shares its bytes with a later buffer; the arena is the most
  // ever live at once.
  EXPECT_TRUE(plan.offsets[0] == plan.offsets[1] ||
              plan.offsets[0] == plan.offsets[2]);
  EXPECT_EQ(plan.arenaSize, 384);
  EXPECT_EQ(plan.lowerBound, 384);
}

TEST(ArenaPacking, TouchingLifetimesConflictWithoutInPlace) {
  // The op at position 2 reads buffer 0 and writes buffer 1.
  std::vector<Buffer> b = {{256, 0, 2}, {256, 2, 4}};
  Plan plan = packChecked(b, 64);
  EXPECT_EQ(plan.arenaSize, 512);
  EXPECT_FALSE(plan.inPlace[1]);
}

TEST(ArenaPacking, InPlaceChainUsesOneSlot) {
  // sigmoid(sigmoid(sigmoid(x))): each result reuses its input's storage.
  std::vector<Buffer> b = {
      {256, 0, 1}, {256, 1, 2, 0}, {256, 2, 3, 1}, {256, 3, 4, 2}};
  Plan plan = packChecked(b, 64);
  EXPECT_EQ(plan.arenaSize, 256);
  EXPECT_EQ(plan.offsets, (std::vector<int64_t>{0, 0, 0, 0}));
  EXPECT_EQ(plan.inPlace, (std::vector<bool>{false, true, true, true}));
}

TEST(ArenaPacking, InPlaceTrapIsAvoided) {
  // MXNet's trap: B is still read after C = sigmoid(B) (end 3, not 2).
  std::vector<Buffer> b = {{256, 0, 3}, {256, 2, 4, 0}};
  Plan plan = packChecked(b, 64);
  EXPECT_FALSE(plan.inPlace[1]);
  EXPECT_EQ(plan.arenaSize, 512);
}

TEST(ArenaPacking, InPlaceNeedsTheSameSize) {
  std::vector<Buffer> b = {{256, 0, 2}, {128, 2, 4, 0}};
  EXPECT_FALSE(packChecked(b, 64).inPlace[1]);
}

TEST(ArenaPacking, AnInputIsTakenOverOnce) {
  // Two results of one op both name the same dying input.
  std::vector<Buffer> b = {{256, 0, 2}, {256, 2, 4, 0}, {256, 2, 5, 0}};
  Plan plan = packChecked(b, 64);
  EXPECT_TRUE(plan.inPlace[1]);
  EXPECT_FALSE(plan.inPlace[2]);
  EXPECT_EQ(plan.arenaSize, 512);
}

TEST(ArenaPacking, BestFitPicksTheTightestGap) {
  // From position 10 two holes are free: 128 bytes (left by buffer 1) and
  // 64 bytes (left by buffer 3). Buffer 5 (64 bytes) must take the small one
  // so that buffer 6 (128 bytes, starting later) still fits.
  std::vector<Buffer> b = {{128, 0, 20}, {128, 0, 5},  {64, 0, 20},  {64, 0, 5},
                           {64, 0, 20},  {64, 10, 12}, {128, 11, 12}};
  Plan plan = packChecked(b, 64);
  EXPECT_EQ(plan.lowerBound, 448);
  EXPECT_EQ(plan.arenaSize, 448);
  EXPECT_EQ(plan.offsets[5], plan.offsets[3]);
  EXPECT_EQ(plan.offsets[6], plan.offsets[1]);
}

TEST(ArenaPacking, RandomInstancesAreValid) {
  std::mt19937 rng(1234);
  for (int instance = 0; instance < 3000; ++instance) {
    int n = std::uniform_int_distribution<int>(1, 40)(rng);
    int64_t alignment = int64_t(1)
                        << std::uniform_int_distribution<int>(0, 7)(rng);
    std::vector<Buffer> b(n);
    for (int i = 0; i < n; ++i) {
      int64_t s = std::uniform_int_distribution<int64_t>(0, 50)(rng);
      int64_t len = std::uniform_int_distribution<int64_t>(0, 12)(rng);
      int64_t size = std::uniform_int_distribution<int64_t>(0, 8)(rng) * 96 +
                     std::uniform_int_distribution<int64_t>(0, 3)(rng) * 4;
      b[i] = {size, s, s + len, -1};
    }
    // Make some buffers consumers of a dying input of the same size; also
    // plant invalid claims the packer must refuse.
    for (int i = 0; i < n; ++i) {
      int x = std::uniform_int_distribution<int>(0, n - 1)(rng);
      if (x == i || std::uniform_int_distribution<int>(0, 2)(rng) == 0)
        continue;
      if (std::uniform_int_distribution<int>(0, 3)(rng)) {
        b[i].start = b[x].end;
        b[i].end = std::max(b[i].end, b[i].start);
        b[i].size = b[x].size;
      }
      b[i].inPlaceOf = x;
    }
    Plan plan = pack(b, alignment);
    std::optional<Violation> error = verify(b, plan, alignment);
    ASSERT_FALSE(error) << "instance " << instance << ": " << error->message;
    int64_t alignedSum = 0;
    for (const Buffer &x : b)
      alignedSum += (x.size + alignment - 1) / alignment * alignment;
    EXPECT_GE(plan.arenaSize, plan.lowerBound);
    EXPECT_LE(plan.arenaSize, alignedSum);
  }
}

TEST(ArenaPacking, VerifyCatchesOverlaps) {
  std::vector<Buffer> b = {{128, 0, 3}, {128, 2, 4}};
  Plan plan = pack(b, 64);
  plan.offsets[1] = plan.offsets[0] + 64;
  std::optional<Violation> overlap = verify(b, plan, 64);
  ASSERT_TRUE(overlap);
  EXPECT_EQ(overlap->first, 0);
  EXPECT_EQ(overlap->second, 1);
  plan.offsets[1] = 160; // Disjoint, but misaligned.
  plan.arenaSize = 320;
  std::optional<Violation> misaligned = verify(b, plan, 64);
  ASSERT_TRUE(misaligned);
  EXPECT_EQ(misaligned->first, 1);
  plan.inPlace[1] = true; // buffer 1 names no input.
  plan.offsets[1] = 192;
  EXPECT_TRUE(verify(b, plan, 64));
}

} // namespace
