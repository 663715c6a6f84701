//===- TimerSamples.h - Per-call time samples and their statistics -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// libRematRuntime's timers (remat_timer_*): a few numbered series of
// nanosecond samples, summarized by order statistics. The median and the
// median absolute deviation rather than mean and standard deviation: on a
// shared machine a few calls are preempted and take many times longer, and
// those outliers should not move the summary. Header-only, no MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_RUNTIME_TIMERSAMPLES_H
#define REMAT_RUNTIME_TIMERSAMPLES_H

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace remat::runtime {

struct SampleSummary {
  size_t count = 0;
  double min = 0, p10 = 0, median = 0, p90 = 0, max = 0;
  /// Median absolute deviation from the median.
  double mad = 0;
};

/// The value at quantile `q` of sorted `v` (linear interpolation between
/// neighbours, as numpy's default); 0 for an empty `v`.
inline double quantileOfSorted(const std::vector<double> &v, double q) {
  if (v.empty())
    return 0;
  double pos = q * static_cast<double>(v.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

inline SampleSummary summarize(std::vector<double> v) {
  SampleSummary s;
  s.count = v.size();
  if (v.empty())
    return s;
  std::sort(v.begin(), v.end());
  s.min = v.front();
  s.max = v.back();
  s.p10 = quantileOfSorted(v, 0.1);
  s.median = quantileOfSorted(v, 0.5);
  s.p90 = quantileOfSorted(v, 0.9);
  for (double &x : v)
    x = std::fabs(x - s.median);
  std::sort(v.begin(), v.end());
  s.mad = quantileOfSorted(v, 0.5);
  return s;
}

/// `num[i] / den[i]` for the first min(|num|, |den|) samples: with the two
/// series recorded alternately, sample i of each ran under about the same
/// machine load, so the ratio of a pair cancels most of the load's effect.
inline std::vector<double> pairedRatios(const std::vector<double> &num,
                                        const std::vector<double> &den) {
  std::vector<double> r;
  for (size_t i = 0, e = std::min(num.size(), den.size()); i < e; ++i)
    if (den[i] > 0)
      r.push_back(num[i] / den[i]);
  return r;
}

} // namespace remat::runtime

#endif // REMAT_RUNTIME_TIMERSAMPLES_H
