//===- LoopReversal.cpp - Binomial checkpointing of a loop of T steps ----===//

#include "remat/Solver/Loop/LoopReversal.h"

#include <algorithm>
#include <string>

namespace remat {
namespace {

constexpr int64_t kSaturated = int64_t(1) << 62;

/// The actions of a reversal, in order, handed to a visitor:
///   v.advance(from, count)  re-run `count` steps from the carry at `from`;
///   v.store(position)       keep the carry reached in the next slot;
///   v.reverse(step)         reverse step `step` (its input carry at hand).
/// The forward loop's stores come first (store(0) included), then the
/// peeled last step's reversal, then one interpreter action at a time.
template <typename Visitor>
void walkReversal(int64_t steps, int64_t slots, Visitor &v) {
  std::vector<int64_t> pos = firstSweepPositions(steps, slots);
  for (int64_t p : pos)
    v.store(p);
  v.forwardLoopDone();
  int64_t done = steps - 1;
  v.reverse(done); // From carry_{T-1}, the forward loop's result.
  while (done > 0) {
    const int64_t lo = pos.back();
    const int64_t length = done - lo;
    const int64_t free = slots - static_cast<int64_t>(pos.size());
    const bool turn = length == 1 || free == 0;
    v.action(turn);
    if (turn) {
      v.advance(lo, length - 1);
      v.reverse(--done);
      if (done == lo && pos.size() > 1)
        pos.pop_back();
      continue;
    }
    const int64_t m = optimalSplit(length, free + 1);
    v.advance(lo, m);
    pos.push_back(lo + m);
    v.store(lo + m);
  }
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
  if (c <= 1)
    return steps - 1; // Only the working carry: reverse from the last step.
  const int64_t r = binomialRepetitions(steps, c);
  const int64_t m = std::min(std::max(binomialBeta(c, r - 2),
                                      steps - binomialBeta(c - 1, r)),
                             steps - binomialBeta(c - 1, r - 1));
  return std::clamp<int64_t>(m, 1, steps - 1);
}

std::vector<int64_t> firstSweepPositions(int64_t steps, int64_t slots) {
  std::vector<int64_t> pos{0};
  // The forward loop covers steps 0..T-2: a store at T-1 would keep the
  // carry that its result already is.
  for (int64_t at = 0; static_cast<int64_t>(pos.size()) < slots;) {
    const int64_t length = steps - at;
    if (length <= 1)
      break;
    at += optimalSplit(length, slots - static_cast<int64_t>(pos.size()) + 1);
    if (at >= steps - 1)
      break;
    pos.push_back(at);
  }
  return pos;
}

LoopReversalCounts countLoopReversal(int64_t steps, int64_t slots) {
  struct Counter {
    LoopReversalCounts c;
    bool inForward = true;
    void store(int64_t) {
      if (inForward)
        ++c.firstSweepShots;
    }
    bool inTurn = false;
    void forwardLoopDone() { inForward = false; }
    void advance(int64_t, int64_t n) {
      c.advances += n;
      (inTurn ? c.turnAdvances : c.storeAdvances) += n;
    }
    void reverse(int64_t) {}
    void action(bool turn) {
      ++c.actions;
      ++(turn ? c.turns : c.stores);
      inTurn = turn;
    }
  } counter;
  walkReversal(steps, slots, counter);
  counter.c.forwardSteps = steps + counter.c.advances;
  return counter.c;
}

UnrolledReversal unrolledLoopReversal(int64_t steps, int64_t slots,
                                      int64_t carryBytes) {
  UnrolledReversal u;
  TrainingGraph &g = u.graph;
  std::vector<TensorId> carry{g.addInput("carry0", carryBytes)};
  std::vector<NodeId> fwd;
  for (int64_t i = 1; i <= steps; ++i) {
    const std::string n = std::to_string(i);
    fwd.push_back(g.addNode("F" + n, NodeKind::Forward, 1, {carry.back()},
                            {carryBytes}));
    carry.push_back(g.node(fwd.back()).outputs[0]);
  }
  NodeId loss = g.addNode("loss", NodeKind::Forward, 0, {carry[steps]}, {4});
  g.markRequired(g.node(loss).outputs[0]);
  NodeId seed = g.addNode("dloss", NodeKind::Backward, 0,
                          {g.node(loss).outputs[0]}, {carryBytes});
  std::vector<NodeId> bwd(steps + 1, kNone);
  TensorId d = g.node(seed).outputs[0];
  for (int64_t i = steps; i >= 1; --i) {
    bwd[i] = g.addNode("B" + std::to_string(i), NodeKind::Backward, 1,
                       {carry[i - 1], d}, {carryBytes});
    d = g.node(bwd[i]).outputs[0];
  }
  g.markRequired(d);

  struct Emitter {
    Schedule runs;
    const std::vector<NodeId> &fwd, &bwd;
    int64_t steps;
    void store(int64_t) {}
    void forwardLoopDone() {
      for (NodeId n : fwd) // Steps 0..T-2, then the peeled step T-1.
        runs.run(n);
    }
    void advance(int64_t from, int64_t n) {
      for (int64_t i = 0; i < n; ++i)
        runs.run(fwd[from + i]);
    }
    void reverse(int64_t step) { runs.run(bwd[step + 1]); }
    void action(bool) {}
  } emitter{Schedule(), fwd, bwd, steps};
  // The loss and its seed run between the forward loop and the reversal.
  struct Sequencer : Emitter {
    NodeId loss, seed;
    void forwardLoopDone() {
      Emitter::forwardLoopDone();
      runs.run(loss);
      runs.run(seed);
    }
  } seq{emitter, loss, seed};
  walkReversal(steps, slots, seq);
  u.schedule = seq.runs.withEagerFrees(g);
  return u;
}

} // namespace remat
