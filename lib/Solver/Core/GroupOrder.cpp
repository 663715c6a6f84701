//===- GroupOrder.cpp - Low-memory order of a group of backward nodes -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Autodiff emits a layer's backward ops in an order that is valid but not
// frugal: on the corpus MLP the weight transposes of a layer run before the
// input-gradient matmul, so three 32 KB tensors are live where two would do
// (85% of the no-remat peak instead of 77% for every strategy). Chain stages
// and lower-set steps run their backward nodes back to back; ordering each
// such group greedily by net memory recovers most of it.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Core/Schedule.h"

#include <algorithm>
#include <unordered_map>

namespace remat {

namespace {

/// What the group reads, with local tensor ids: per node its distinct inputs
/// and stored bytes. Readers left in the group per tensor; a tensor is freed
/// by its last one when nothing outside the group reads it later (forward
/// readers have run; a backward reader elsewhere keeps it).
struct GroupTensors {
  std::vector<std::vector<int>> ins;
  std::vector<int64_t> outBytes;
  std::vector<int> preds; ///< Producers in the group not yet ordered.
  std::vector<int> left;
  std::vector<char> freeable;
  std::vector<int64_t> bytes;

  GroupTensors(const TrainingGraph &g, const std::vector<NodeId> &nodes,
               const std::unordered_map<NodeId, int> &pos);

  /// Sets `left` to each tensor's readers in the group.
  void countReaders() {
    std::fill(left.begin(), left.end(), 0);
    for (size_t i = 0; i < ins.size(); ++i)
      for (int t : ins[i])
        ++left[t];
  }
};

GroupTensors::GroupTensors(const TrainingGraph &g,
                           const std::vector<NodeId> &nodes,
                           const std::unordered_map<NodeId, int> &pos) {
  const size_t k = nodes.size();
  auto inGroup = [&](NodeId n) { return n != kNone && pos.count(n) != 0; };
  std::unordered_map<TensorId, int> local;
  std::vector<TensorId> tensorOf;
  ins.resize(k);
  outBytes.assign(k, 0);
  preds.assign(k, 0);
  for (size_t i = 0; i < k; ++i) {
    const Node &n = g.node(nodes[i]);
    for (TensorId t : n.outputs)
      outBytes[i] += g.tensor(t).bytes;
    for (TensorId t : n.inputs) {
      auto [it, fresh] = local.emplace(t, static_cast<int>(tensorOf.size()));
      if (fresh)
        tensorOf.push_back(t);
      if (std::find(ins[i].begin(), ins[i].end(), it->second) ==
          ins[i].end()) {
        ins[i].push_back(it->second);
        if (inGroup(g.tensor(t).producer))
          ++preds[i];
      }
    }
  }
  const size_t nt = tensorOf.size();
  left.assign(nt, 0);
  freeable.assign(nt, 0);
  bytes.resize(nt);
  for (size_t i = 0; i < k; ++i)
    for (int t : ins[i])
      ++left[t];
  for (size_t t = 0; t < nt; ++t) {
    TensorId id = tensorOf[t];
    bytes[t] = g.tensor(id).bytes;
    bool ok = !g.isInput(id) && !g.isRequired(id);
    for (NodeId c : g.consumers(id))
      ok &= g.isForward(c) || inGroup(c);
    freeable[t] = ok;
  }
}

/// The local peak of an order (inputs from outside: a constant base).
int64_t groupPeak(const TrainingGraph &g, const std::vector<NodeId> &nodes,
                  const GroupTensors &gt, const std::vector<int> &ord) {
  std::vector<int> readers(gt.left);
  int64_t cur = 0, top = 0;
  for (int i : ord) {
    top = std::max(top, cur + gt.outBytes[i] + g.node(nodes[i]).workspace);
    cur += gt.outBytes[i];
    for (int t : gt.ins[i])
      if (--readers[t] == 0 && gt.freeable[t])
        cur -= gt.bytes[t];
  }
  return top;
}

/// Orders the group greedily, each time the ready node of least net memory
/// (then least during its run, then first); uses up `preds` and `left`.
std::vector<int> greedyOrder(const TrainingGraph &g,
                             const std::vector<NodeId> &nodes,
                             const std::unordered_map<NodeId, int> &pos,
                             GroupTensors &gt) {
  const size_t k = nodes.size();
  std::vector<int> ready, order;
  order.reserve(k);
  for (size_t i = 0; i < k; ++i)
    if (gt.preds[i] == 0)
      ready.push_back(static_cast<int>(i));
  while (!ready.empty()) {
    size_t best = 0;
    int64_t bestNet = 0, bestDuring = 0;
    for (size_t r = 0; r < ready.size(); ++r) {
      const int i = ready[r];
      int64_t freed = 0;
      for (int t : gt.ins[i])
        if (gt.left[t] == 1 && gt.freeable[t])
          freed += gt.bytes[t];
      const int64_t net = gt.outBytes[i] - freed,
                    during = gt.outBytes[i] + g.node(nodes[i]).workspace;
      if (r == 0 || net < bestNet ||
          (net == bestNet &&
           (during < bestDuring ||
            (during == bestDuring && i < ready[best])))) {
        best = r;
        bestNet = net;
        bestDuring = during;
      }
    }
    const int i = ready[best];
    ready[best] = ready.back();
    ready.pop_back();
    order.push_back(i);
    for (int t : gt.ins[i])
      --gt.left[t];
    for (TensorId t : g.node(nodes[i]).outputs)
      for (NodeId c : g.consumers(t)) {
        auto it = pos.find(c);
        if (it != pos.end() && --gt.preds[it->second] == 0)
          ready.push_back(it->second);
      }
  }
  return order;
}

} // namespace

std::vector<NodeId> lowMemoryOrder(const TrainingGraph &g,
                                   const std::vector<NodeId> &nodes,
                                   size_t maxSize) {
  const size_t k = nodes.size();
  if (k <= 2 || k > maxSize)
    return nodes;
  std::unordered_map<NodeId, int> pos;
  pos.reserve(k * 2);
  for (size_t i = 0; i < k; ++i)
    pos[nodes[i]] = static_cast<int>(i);

  GroupTensors gt(g, nodes, pos);
  std::vector<int> order = greedyOrder(g, nodes, pos, gt);
  if (order.size() != k) // A cycle through outside nodes: keep the input.
    return nodes;
  // Greedy is not always better: keep the order with the lower group peak.
  std::vector<int> given(k);
  for (size_t i = 0; i < k; ++i)
    given[i] = static_cast<int>(i);
  gt.countReaders();
  if (groupPeak(g, nodes, gt, order) >= groupPeak(g, nodes, gt, given))
    return nodes;
  std::vector<NodeId> out(k);
  for (size_t i = 0; i < k; ++i)
    out[i] = nodes[order[i]];
  return out;
}

} // namespace remat
