//===- OnlineCheckpointing.cpp - Checkpoints for loops of unknown length --===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Loops/OnlineCheckpointing.h"
#include "ReversalWalk.h"

#include <algorithm>
#include <cassert>

namespace remat {

OnlineCheckpoints::OnlineCheckpoints(int64_t slots) : slots(slots) {
  assert(slots >= 1 && "a loop needs a slot for its first carry");
}

int64_t OnlineCheckpoints::segmentBound(int64_t c, int64_t r) {
  return binomialBeta(c, r - 1);
}

int64_t OnlineCheckpoints::mergeable(int64_t i) const {
  const int64_t n = static_cast<int64_t>(pos.size());
  auto length = [&](int64_t k) {
    return (k + 1 < n ? pos[k + 1] : i) - pos[k];
  };
  for (int64_t j = 1; j < n; ++j)
    if (length(j - 1) + length(j) <= segmentBound(slots - (j - 1), r))
      return j;
  return -1;
}

OnlineCheckpoints::Decision OnlineCheckpoints::offer(int64_t i) {
  assert(i > pos.back() && "offers come in order, after position 0");
  if (static_cast<int64_t>(pos.size()) < slots) {
    pos.push_back(i);
    return {true, -1};
  }
  // The top segment may wait while it fits its bound should the loop end
  // after this step (T = i + 1); then one more repetition is allowed.
  for (;;) {
    if (int64_t j = mergeable(i); j >= 0) {
      pos.erase(pos.begin() + j);
      pos.push_back(i);
      return {true, j};
    }
    if (i + 1 - pos.back() <= segmentBound(1, r))
      return {};
    ++r;
  }
}

namespace {

/// The forward loop's stores (store(0) included), then the interpreter
/// from the slots it leaves, with no step at hand (done = T).
template <typename Visitor>
void walkOnline(int64_t steps, int64_t slots, Visitor &v) {
  OnlineCheckpoints online(slots);
  v.store(0);
  for (int64_t i = 1; i < steps; ++i)
    if (online.offer(i).store)
      v.store(i);
  v.forwardLoopDone();
  detail::walkInterpreter(online.positions(), steps, slots, v);
}

} // namespace

LoopReversalCounts countOnlineReversal(int64_t steps, int64_t slots) {
  return detail::countWalk(steps,
                           [&](auto &v) { walkOnline(steps, slots, v); });
}

UnrolledReversal unrolledOnlineReversal(int64_t steps, int64_t slots,
                                        int64_t carryBytes) {
  return detail::unrolledWalk(
      steps, carryBytes, [&](auto &v) { walkOnline(steps, slots, v); });
}

} // namespace remat
