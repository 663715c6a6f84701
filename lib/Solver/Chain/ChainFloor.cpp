//===- ChainFloor.cpp - The least peak of any chain-view schedule ---------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A chain plan runs B^{L+1}, B^L, ..., B^1 in this order (B^l reads
// delta^l, which B^{l+1} produces; solveViaChain refuses a plan that does
// not) and expands each B^l into the stage's backward nodes, run one after
// the other with nothing in between (expandChainSchedule), once each (the
// Simulator runs a backward node once). That alone forces memory while a
// block runs: what it reads from outside was stored before it, and what
// nodes that run once produced before it and nodes after it read, or that
// is required, stays. The bound counts only what the Simulator's rules
// force, so it holds for every valid schedule that runs the backward groups
// so, whatever the chain DP, the slots or the chain budget: the
// smallest-budget search skips the solves below it.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Chain/ChainSolvers.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Support/CheckedArithmetic.h"

#include <algorithm>

namespace remat {

namespace {

/// A node that runs exactly once in every valid schedule.
bool runsOnce(const TrainingGraph &g, NodeId n) {
  return !g.isForward(n) || !g.node(n).recomputable;
}

/// The nodes that run before block `l` (`after` false) or after it (true) in
/// every valid schedule that runs the backward groups as blocks in chain
/// order (B^{L+1} first). Seeds: the blocks on that side and block l's
/// ancestors (an input must be live when read, so its producer ran before,
/// and only block nodes run inside the block) or descendants (they read what
/// a block node, run once, produced: every run of theirs comes later). A
/// node of another block among them runs once, inside its block, which is
/// then entirely on that side (blocks of disjoint nodes do not interleave):
/// the whole block and its ancestors (descendants) are too.
std::vector<char> sideOfBlock(const TrainingGraph &g, const ChainView &view,
                              const std::vector<int> &blockOf, int l,
                              bool after) {
  std::vector<char> seen(g.numNodes(), 0), blockSeen(view.backward.size(), 0);
  std::vector<NodeId> stack;
  auto visit = [&](NodeId n) {
    if (n != kNone && !seen[n]) {
      seen[n] = 1;
      stack.push_back(n);
    }
  };
  for (size_t k = 1; k < view.backward.size(); ++k)
    if (static_cast<int>(k) == l || (static_cast<int>(k) < l) == after) {
      blockSeen[k] = 1;
      for (NodeId b : view.backward[k])
        visit(b);
    }
  while (!stack.empty()) {
    const Node &n = g.node(stack.back());
    const int k = blockOf[stack.back()];
    stack.pop_back();
    if (k >= 0 && !blockSeen[k]) {
      blockSeen[k] = 1;
      for (NodeId m : view.backward[k])
        visit(m);
    }
    for (TensorId t : after ? n.outputs : n.inputs) {
      if (!after)
        visit(g.tensor(t).producer);
      else
        for (NodeId c : g.consumers(t))
          visit(c);
    }
  }
  for (NodeId b : view.backward[l])
    seen[b] = 0;
  return seen;
}

/// The bytes live while each node of block `l` runs, at least (`held`: the
/// tensors known live; released after their last read in the block unless
/// kept for good):
/// - the graph inputs (never freed) and the node's workspace;
/// - from nodes that run once, before the block: their required outputs
///   (stored, to be live at the end, and never freed) and those a node after
///   the block reads (produced once), for good;
/// - every tensor a block node reads that no block node produces, until its
///   last read: live then, and only block nodes run in between;
/// - the outputs of the block's nodes that are required or read: a node
///   that runs once cannot discard them, and a run holds its outputs; later
///   on until their last read in the block, or for good as above.
class BlockFloor {
public:
  BlockFloor(const TrainingGraph &g, const ChainView &view,
             const std::vector<int> &blockOf, int l)
      : g(g), block(view.backward[l]), held(g.numTensors(), 0),
        lastRead(g.numTensors(), -1), readAfter(g.numTensors(), 0),
        releaseAt(block.size()) {
    for (size_t j = 0; j < block.size(); ++j)
      for (TensorId t : g.node(block[j]).inputs)
        lastRead[t] = static_cast<int>(j);
    std::vector<char> after = sideOfBlock(g, view, blockOf, l, true);
    for (NodeId n = 0; n < g.numNodes(); ++n)
      if (after[n])
        for (TensorId t : g.node(n).inputs)
          readAfter[t] = 1;
    std::vector<char> before = sideOfBlock(g, view, blockOf, l, false);
    for (NodeId n = 0; n < g.numNodes(); ++n)
      if (before[n] && runsOnce(g, n))
        for (TensorId t : g.node(n).outputs)
          if (g.isRequired(t) || readAfter[t])
            hold(t, /*forGood=*/true);
    for (NodeId b : block)
      for (TensorId t : g.node(b).inputs)
        if (!g.isInput(t) && blockOf[g.tensor(t).producer] != l)
          hold(t, g.isRequired(t));
  }

  int64_t peak() {
    int64_t most = 0;
    for (size_t j = 0; j < block.size(); ++j) {
      const int here = static_cast<int>(j);
      const Node &n = g.node(block[j]);
      const bool once = runsOnce(g, block[j]);
      int64_t outputs = 0;
      for (TensorId t : n.outputs)
        if (once && !held[t] && (g.isRequired(t) || !g.consumers(t).empty()))
          outputs = saturatingAdd(outputs, g.tensor(t).bytes);
      most = std::max(most, saturatingAdd(live, saturatingAdd(outputs,
                                                              n.workspace)));
      for (TensorId t : n.outputs)
        if (once && (g.isRequired(t) || readAfter[t] || lastRead[t] > here))
          hold(t, g.isRequired(t) || readAfter[t]);
      for (TensorId t : releaseAt[j]) {
        held[t] = 0;
        live -= g.tensor(t).bytes;
      }
    }
    return saturatingAdd(inputBytes(g), most);
  }

private:
  void hold(TensorId t, bool forGood) {
    if (held[t])
      return;
    held[t] = 1;
    live = saturatingAdd(live, g.tensor(t).bytes);
    if (!forGood && lastRead[t] >= 0)
      releaseAt[lastRead[t]].push_back(t);
  }

  const TrainingGraph &g;
  const std::vector<NodeId> &block;
  std::vector<char> held;
  std::vector<int> lastRead; ///< The last block position reading it, or -1.
  std::vector<char> readAfter;
  std::vector<std::vector<TensorId>> releaseAt;
  int64_t live = 0;
};

} // namespace

int64_t backwardBlockFloor(const TrainingGraph &g, const ChainView &view) {
  std::vector<int> blockOf(g.numNodes(), -1);
  for (size_t l = 1; l < view.backward.size(); ++l)
    for (NodeId b : view.backward[l])
      blockOf[b] = static_cast<int>(l);
  int64_t floor = inputBytes(g);
  for (size_t l = 1; l < view.backward.size(); ++l)
    if (!view.backward[l].empty())
      floor = std::max(
          floor, BlockFloor(g, view, blockOf, static_cast<int>(l)).peak());
  return floor;
}

int64_t viaChainFloor(const TrainingGraph &g, const SolveOptions &opts) {
  // solveViaChain returns the program itself (only where it fits) or an
  // expansion on one of these two views.
  int64_t floor = simulate(g, keepEverythingSchedule(g)).peak;
  for (bool moveOutputReaders : {true, false})
    if (std::optional<ChainView> view = extractChain(
            g, nullptr, opts.maxChainStages, moveOutputReaders))
      floor = std::min(floor, backwardBlockFloor(g, *view));
  return floor;
}

} // namespace remat
