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
  auto inGroup = [&](NodeId n) { return n != kNone && pos.count(n) != 0; };

  // Local tensor ids for everything the group reads; per node its distinct
  // inputs and stored bytes. Readers left in the group per tensor; a tensor
  // is freed by its last one when nothing outside the group reads it later
  // (forward readers have run; a backward reader elsewhere keeps it).
  std::unordered_map<TensorId, int> local;
  std::vector<TensorId> tensorOf;
  std::vector<std::vector<int>> ins(k);
  std::vector<int64_t> outBytes(k, 0);
  std::vector<int> preds(k, 0);
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
  std::vector<int> left(nt, 0);
  std::vector<char> freeable(nt, 0);
  std::vector<int64_t> bytes(nt);
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

  // The local peak of an order (inputs from outside: a constant base).
  auto peak = [&](const std::vector<int> &ord) {
    std::vector<int> readers(left);
    int64_t cur = 0, top = 0;
    for (int i : ord) {
      top = std::max(top, cur + outBytes[i] + g.node(nodes[i]).workspace);
      cur += outBytes[i];
      for (int t : ins[i])
        if (--readers[t] == 0 && freeable[t])
          cur -= bytes[t];
    }
    return top;
  };

  std::vector<int> ready, order;
  order.reserve(k);
  for (size_t i = 0; i < k; ++i)
    if (preds[i] == 0)
      ready.push_back(static_cast<int>(i));
  while (!ready.empty()) {
    size_t best = 0;
    int64_t bestNet = 0, bestDuring = 0;
    for (size_t r = 0; r < ready.size(); ++r) {
      const int i = ready[r];
      int64_t freed = 0;
      for (int t : ins[i])
        if (left[t] == 1 && freeable[t])
          freed += bytes[t];
      const int64_t net = outBytes[i] - freed,
                    during = outBytes[i] + g.node(nodes[i]).workspace;
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
    for (int t : ins[i])
      --left[t];
    for (TensorId t : g.node(nodes[i]).outputs)
      for (NodeId c : g.consumers(t)) {
        auto it = pos.find(c);
        if (it != pos.end() && --preds[it->second] == 0)
          ready.push_back(it->second);
      }
  }
  if (order.size() != k) // A cycle through outside nodes: keep the input.
    return nodes;
  // Greedy is not always better: keep the order with the lower group peak.
  std::vector<int> given(k);
  for (size_t i = 0; i < k; ++i)
    given[i] = static_cast<int>(i);
  std::fill(left.begin(), left.end(), 0);
  for (size_t i = 0; i < k; ++i)
    for (int t : ins[i])
      ++left[t];
  if (peak(order) >= peak(given))
    return nodes;
  std::vector<NodeId> out(k);
  for (size_t i = 0; i < k; ++i)
    out[i] = nodes[order[i]];
  return out;
}

} // namespace remat
