//===- TimerTest.cpp - The timers of libRematRuntime ----------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Statistics are checked on recorded samples with known values; the clock
// only for being monotonic and for start/stop adding one sample each (no
// assertion on how long anything takes: the machine is shared).
//
//===----------------------------------------------------------------------===//

#include "remat/Runtime/RematRuntime.h"

#include <gtest/gtest.h>

#include <string>

namespace {

std::string printed(void (*print)()) {
  testing::internal::CaptureStderr();
  print();
  return testing::internal::GetCapturedStderr();
}

TEST(RematTimer, ClockIsMonotonic) {
  int64_t a = remat_clock_ns();
  int64_t b = remat_clock_ns();
  EXPECT_GT(a, 0);
  EXPECT_GE(b, a);
}

TEST(RematTimer, StartStopRecordsOneSampleEach) {
  remat_timer_reset();
  for (int i = 0; i < 3; ++i) {
    remat_timer_start(2);
    remat_timer_stop(2);
  }
  EXPECT_EQ(remat_timer_count(2), 3);
  EXPECT_EQ(remat_timer_count(3), 0);
  remat_timer_reset();
  EXPECT_EQ(remat_timer_count(2), 0);
}

TEST(RematTimer, PrintsOrderStatistics) {
  remat_timer_reset();
  // Sorted: 10 20 30 30 40 50 1000. Median 30; p10 at index 0.1 * 6 = 0.6,
  // interpolated as numpy does: 10 + 0.6 * 10; p90 at 5.4: 50 + 0.4 * 950;
  // MAD: the median of
  // |x - 30| = 20 10 0 0 10 20 970 is 10. The outlier moves neither.
  for (int64_t ns : {50, 10, 1000, 30, 20, 40, 30})
    remat_timer_record(0, ns);
  EXPECT_EQ(printed([] { remat_timer_print(0); }),
            "timer id=0 n=7 min_ns=10 p10_ns=16 median_ns=30 p90_ns=430 "
            "max_ns=1000 mad_ns=10\n");
  remat_timer_reset();
}

TEST(RematTimer, RatioPairsTheSamplesInOrder) {
  remat_timer_reset();
  // Pair i ran under the same load: the ratios are 1.1, 1.1, 1.2 though the
  // samples themselves vary tenfold; the extra sample of timer 1 has no pair.
  const int64_t den[] = {100, 1000, 500};
  const int64_t num[] = {110, 1100, 600, 7};
  for (int64_t ns : den)
    remat_timer_record(0, ns);
  for (int64_t ns : num)
    remat_timer_record(1, ns);
  EXPECT_EQ(printed([] { remat_timer_print_ratio(1, 0); }),
            "timer_ratio num=1 den=0 n=3 min=1.1000 p10=1.1000 median=1.1000 "
            "p90=1.1800 max=1.2000 mad=0.0000\n");
  remat_timer_reset();
}

TEST(RematTimer, IgnoresUnknownIds) {
  remat_timer_reset();
  remat_timer_start(-1);
  remat_timer_stop(REMAT_NUM_TIMERS);
  remat_timer_record(REMAT_NUM_TIMERS, 5);
  EXPECT_EQ(remat_timer_count(REMAT_NUM_TIMERS), 0);
  EXPECT_EQ(printed([] { remat_timer_print(-1); }), "");
}

TEST(RematTimer, EmptyTimerPrintsZeroSamples) {
  remat_timer_reset();
  EXPECT_EQ(printed([] { remat_timer_print(5); }),
            "timer id=5 n=0 min_ns=0 p10_ns=0 median_ns=0 p90_ns=0 max_ns=0 "
            "mad_ns=0\n");
}

} // namespace
