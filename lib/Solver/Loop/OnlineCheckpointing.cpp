//===- OnlineCheckpointing.cpp - Checkpoints for loops of unknown length --===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Loop/OnlineCheckpointing.h"
#include "ReversalWalk.h"
#include "remat/Solver/Loop/ReversalRules.h"

#include <algorithm>
#include <cassert>

namespace remat {

OnlineCheckpoints::OnlineCheckpoints(int64_t slots) : slots(slots) {
  assert(slots >= 1 && "a loop needs a slot for its first carry");
}

OnlineCheckpoints::Decision OnlineCheckpoints::offer(int64_t i) {
  assert(i > pos.back() && "offers come in order, after position 0");
  if (static_cast<int64_t>(pos.size()) < slots) {
    pos.push_back(i);
    return {true, -1};
  }
  reversal::IntDomain d;
  const reversal::OnlineDrop<reversal::IntDomain> drop = reversal::onlineDrop(
      d, [&](reversal::IntDomain &, int64_t k) { return pos[k]; }, i, r,
      slots);
  r = drop.repetitions;
  if (drop.dropped < 0)
    return {};
  pos.erase(pos.begin() + drop.dropped);
  pos.push_back(i);
  return {true, drop.dropped};
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

int64_t onlineForwardSteps(int64_t steps, int64_t slots) {
  if (steps >= 1 && slots >= 1 && steps <= binomialBeta(slots, 2) - 1)
    return minimalAdvances(steps, slots) + 1 + (steps > slots ? 1 : 0);
  return countOnlineReversal(steps, slots).forwardSteps;
}

UnrolledReversal unrolledOnlineReversal(int64_t steps, int64_t slots,
                                        int64_t carryBytes) {
  return detail::unrolledWalk(
      steps, carryBytes, [&](auto &v) { walkOnline(steps, slots, v); });
}

} // namespace remat
