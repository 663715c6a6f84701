//===- PreciseChain.cpp - Butt's precise checkpointing DP ------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Subproblems are solved in the thesis's "subproblem order" (Sec. 3.1.2,
// Fig. 3.2): i from the end leftwards, j rightwards from i + 1, so (k, j)
// and (i, k) are known when (i, j) is reached. Departures from Alg. 3.4 that
// change no value, only speed and memory:
//  - a row C(i, j, .) is a non-increasing step function of m: infinite below
//    its smallest feasible m, constant once the cost reaches the
//    no-recomputation bound (or at maxSlots). Only that range is stored
//    (this subsumes the thesis's "skip small m", Sec. 3.1.10);
//  - the whole row is computed per action k at once (inner loop over m,
//    unit stride), and only where it can still improve the row: action k
//    costs at least LB(i, j) + sum_{l=i+1..k-1} alpha^f_l (it recomputes
//    f_{i+1}..f_{k-1} once more), and the row is non-increasing in m, so
//    the m it can improve form a prefix found by binary search; once that
//    prefix is empty no later k (costing more) can help;
//  - the thesis's B table (the peak a solution actually uses) only serves
//    its combined check "peak > m" (Alg. 3.4 l. 55), which cannot fail once
//    every stage was checked against its own share of m; D is not stored
//    either: emit() recomputes each argmin with the same expressions.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Chain/PreciseChain.h"

#include <algorithm>
#include <cmath>

namespace remat {

PreciseChainDP::PreciseChainDP(PreciseChainTables tables, int64_t maxSlots,
                               PreciseChainOptions opts, int maxEnd)
    : t_(std::move(tables)), maxSlots_(std::max<int64_t>(-1, maxSlots)),
      opts_(opts) {
  const int n = t_.n;
  maxEnd_ = maxEnd < 0 ? n + 1 : std::min(maxEnd, n + 1);
  w_ = maxEnd_ + 1;
  fPre_.assign(n + 2, 0);
  for (int l = 1; l <= n; ++l)
    fPre_[l] = fPre_[l - 1] + t_.fwdTime[l];
  fPre_[n + 1] = fPre_[n];
  bPre_.assign(n + 2, 0);
  for (int i = 0; i <= n; ++i)
    bPre_[i + 1] = bPre_[i] + t_.bwdTime[i];
  e_.assign(size_t(w_) * w_, Entry{});
  quadPeak_.assign(size_t(w_) * w_, 0);
  quadCost_.assign(size_t(w_) * w_, 0);
  row_.resize(size_t(maxSlots_ + 2));

  for (int i = maxEnd_ - 1; i >= 0; --i) {
    // The recompute-everything strategy on (i, j), memoised along j
    // (Alg. 3.2 / 3.3): round j' = j - 1 sweeps f_i -> f_{j-1} holding b_j,
    // then runs L'_{j-1} with f_{j-1} held; the remaining rounds are the
    // strategy on (i, j-1).
    int64_t qPeak = std::max(t_.bwdPeak[i], t_.grad[i + 1]);
    double qCost = t_.bwdTime[i];
    int64_t midPeak = std::numeric_limits<int64_t>::min(); // L_{i+1..j-2}
    for (int j = i + 1; j <= maxEnd_; ++j) {
      if (j >= i + 2) {
        int k = j - 1;
        int64_t sweep = std::max(midPeak, step(i, k, true));
        qPeak = std::max({qPeak, t_.grad[j] + sweep,
                          holdOf(i, k) + t_.bwdPeak[k]});
        qCost += fPre_[k] - fPre_[i] + t_.bwdTime[k];
        midPeak = std::max(midPeak, step(i, k, false));
      }
      quadPeak_[size_t(i) * w_ + j] = qPeak;
      quadCost_[size_t(i) * w_ + j] = qCost;
      solvePair(i, j, qPeak, qCost);
    }
  }
  row_.clear();
  row_.shrink_to_fit();
}

void PreciseChainDP::solvePair(int i, int j, int64_t quadPeak,
                               double quadCost) {
  Entry &e = e_[size_t(i) * w_ + j];
  const int64_t M = maxSlots_;
  if (j == i + 1) { // Base case (Sec. 3.1.11): L'_i alone.
    int64_t need = std::max<int64_t>({0, t_.bwdPeak[i], t_.grad[j]});
    e.lo = e.hi = need;
    if (need <= M) {
      e.c = {t_.bwdTime[i]};
      ++stored_;
    }
    return;
  }
  const double lb = fPre_[j - 1] - fPre_[i] + bPre_[j] - bPre_[i];
  double *row = row_.data();
  std::fill(row, row + M + 1, kInf);
  if (opts_.recursion) {
    int64_t fpeak = std::numeric_limits<int64_t>::min();
    for (int k = i + 1; k < j; ++k) {
      // Stage 1 (Eq. 3.3): forwards f_{i+1}..f_k while holding b_j.
      int64_t peakF = t_.grad[j] + std::max(fpeak, step(i, k, true));
      fpeak = std::max(fpeak, step(i, k, false));
      // Action k recomputes f_{i+1}..f_{k-1} once more: it costs at least
      // bound, so it can only improve the m where row[m] > bound, a prefix
      // [0, mStar) of the non-increasing row.
      const double bound = lb + (fPre_[k - 1] - fPre_[i]);
      int64_t mStar =
          std::partition_point(row, row + M + 1,
                               [&](double v) { return v > bound; }) -
          row;
      if (mStar == 0)
        break; // Later actions cost even more.
      const Entry &R = entry(k, j), &L = entry(i, k);
      const int64_t hold = holdOf(i, k);
      if (!R.c.empty() && !L.c.empty()) {
        // Stage 2 (hold f_k, right) and stage 3 (left), Eq. 3.1.
        const double fwd = fPre_[k] - fPre_[i];
        const int64_t start = std::max({peakF, R.lo + hold, L.lo});
        const int64_t stop = mStar - 1;
        const double *rc = R.c.data(), *lc = L.c.data();
        const int64_t ro = hold + R.lo, lo = L.lo;
        const double rEnd = R.c.back(), lEnd = L.c.back();
        // Both sub-rows vary, then one, then the action is constant.
        int64_t m = start;
        for (int64_t e1 = std::min({stop, R.hi + hold, L.hi}); m <= e1; ++m)
          row[m] = std::min(row[m], fwd + rc[m - ro] + lc[m - lo]);
        for (int64_t e2 = std::min(stop, R.hi + hold); m <= e2; ++m)
          row[m] = std::min(row[m], fwd + rc[m - ro] + lEnd);
        for (int64_t e3 = std::min(stop, L.hi); m <= e3; ++m)
          row[m] = std::min(row[m], fwd + rEnd + lc[m - lo]);
        for (; m <= stop; ++m)
          row[m] = std::min(row[m], fwd + rEnd + lEnd);
      }
      if (t_.grad[j] + fpeak > M)
        break; // Every later sweep passes through L_k.
    }
  }
  int64_t lo = -1, hi = M;
  for (int64_t m = 0; m <= M; ++m) {
    double c = row[m];
    if (c == kInf && quadPeak <= m) { // Every action failed: Alg. 3.4 l. 73.
      c = quadCost;
      ++quadEntries_;
    }
    row[m] = c;
    if (lo < 0 && c < kInf)
      lo = m;
    if (lo >= 0 && c <= lb + 1e-9 * std::max(1.0, std::fabs(lb))) {
      hi = m; // No recomputation: more memory cannot help.
      break;
    }
  }
  if (lo < 0) {
    e.lo = M + 1;
    return;
  }
  e.lo = lo;
  e.hi = hi;
  e.c.assign(row + lo, row + hi + 1);
  stored_ += hi - lo + 1;
}

double PreciseChainDP::cost(int i, int j, int64_t m) const {
  if (m < 0 || i < 0 || j <= i || j > maxEnd_)
    return kInf;
  const Entry &e = entry(i, j);
  if (e.c.empty() || m < e.lo)
    return kInf;
  return e.c[size_t(std::min(m, e.hi) - e.lo)];
}

void PreciseChainDP::emit(int i, int j, int64_t m, std::vector<Op> &out) const {
  if (j == i + 1) {
    out.push_back({false, i, false});
    return;
  }
  // Recompute the argmin with the expressions solvePair used (an exact
  // match; the nearest candidate within rounding is a safety net).
  const double v = cost(i, j, m);
  int bestK = -1;
  double bestDiff = 1e-9 * std::max(1.0, std::fabs(v));
  if (opts_.recursion) {
    int64_t fpeak = std::numeric_limits<int64_t>::min();
    for (int k = i + 1; k < j && bestDiff > 0; ++k) {
      int64_t peakF = t_.grad[j] + std::max(fpeak, step(i, k, true));
      fpeak = std::max(fpeak, step(i, k, false));
      const Entry &R = entry(k, j), &L = entry(i, k);
      const int64_t hold = holdOf(i, k);
      if (!R.c.empty() && !L.c.empty() && m >= peakF && m - hold >= R.lo &&
          m >= L.lo) {
        const double fwd = fPre_[k] - fPre_[i];
        double c = fwd + R.c[std::min(m - hold, R.hi) - R.lo] +
                   L.c[std::min(m, L.hi) - L.lo];
        if (std::fabs(c - v) <= bestDiff) {
          bestDiff = std::fabs(c - v);
          bestK = k;
        }
      }
      if (t_.grad[j] + fpeak > m)
        break;
    }
  }
  if (bestK > 0) {
    const int k = bestK;
    for (int l = i + 1; l <= k; ++l)
      out.push_back({true, l, l == k});
    emit(k, j, m - holdOf(i, k), out);
    emit(i, k, m, out);
    return;
  }
  // The quadratic fallback (Eq. 3.4 / 3.5).
  for (int jp = j - 1; jp >= i; --jp) {
    for (int l = i + 1; l <= jp; ++l)
      out.push_back({true, l, l == jp});
    out.push_back({false, jp, false});
  }
}

} // namespace remat
