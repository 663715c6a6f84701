//===- LoopReversal.cpp - Binomial checkpointing of a loop of T steps ----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Loop/LoopReversal.h"
#include "remat/Solver/Loop/ReversalRules.h"
#include "ReversalWalk.h"

#include <algorithm>
#include <string>

namespace remat {
namespace {

constexpr int64_t kSaturated = int64_t(1) << 62;

/// The forward loop's stores come first (store(0) included), then the
/// peeled last step's reversal, then the interpreter from the first sweep's
/// slots.
template <typename Visitor>
void walkReversal(int64_t steps, int64_t slots, Visitor &v) {
  std::vector<int64_t> pos = firstSweepPositions(steps, slots);
  for (int64_t p : pos)
    v.store(p);
  v.forwardLoopDone();
  v.reverse(steps - 1); // From carry_{T-1}, the forward loop's result.
  detail::walkInterpreter(std::move(pos), steps - 1, slots, v);
}

} // namespace

int64_t binomialBeta(int64_t c, int64_t r) {
  if (r < 0 || c < 0)
    return 0;
  const int64_t k = std::min(c, r);
  __int128 v = 1;
  for (int64_t i = 1; i <= k; ++i) {
    v = v * (c + r - k + i) / i; // C(c+r-k+i, i): exact at every step.
    if (v > kSaturated)
      return kSaturated;
  }
  return static_cast<int64_t>(v);
}

int64_t binomialRepetitions(int64_t steps, int64_t c) {
  int64_t r = 0;
  while (binomialBeta(c, r) < steps)
    ++r;
  return r;
}

int64_t minimalAdvances(int64_t steps, int64_t c) {
  if (steps <= 1)
    return 0;
  if (c < 1)
    return -1;
  const int64_t r = binomialRepetitions(steps, c);
  return r * steps - binomialBeta(c + 1, r - 1);
}

int64_t optimalSplit(int64_t steps, int64_t c) {
  reversal::IntDomain d;
  return reversal::split(d, steps, std::max<int64_t>(c, 1));
}

std::vector<int64_t> firstSweepPositions(int64_t steps, int64_t slots) {
  reversal::IntDomain d;
  std::vector<int64_t> pos{0};
  // The forward loop covers steps 0..T-2: a store at T-1 would keep the
  // carry that its result already is.
  while (static_cast<int64_t>(pos.size()) < slots && steps - pos.back() > 1) {
    const int64_t top = static_cast<int64_t>(pos.size()) - 1;
    const int64_t at =
        reversal::nextFirstSweepStore(d, pos.back(), top, steps, slots);
    if (at >= steps - 1)
      break;
    pos.push_back(at);
  }
  return pos;
}

LoopReversalCounts countLoopReversal(int64_t steps, int64_t slots) {
  return detail::countWalk(
      steps, [&](auto &v) { walkReversal(steps, slots, v); });
}

UnrolledReversal unrolledLoopReversal(int64_t steps, int64_t slots,
                                      int64_t carryBytes) {
  return detail::unrolledWalk(
      steps, carryBytes, [&](auto &v) { walkReversal(steps, slots, v); });
}

} // namespace remat
