//===- TrainingGraph.cpp --------------------------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Core/TrainingGraph.h"
#include "remat/Support/CheckedArithmetic.h"

#include <algorithm>
#include <cmath>
#include <queue>

namespace remat {

TensorId TrainingGraph::addInput(std::string name, int64_t bytes) {
  tensors_.push_back(Tensor{std::move(name), bytes, kNone});
  invalidateCaches();
  return static_cast<TensorId>(tensors_.size() - 1);
}

NodeId TrainingGraph::addNode(std::string name, NodeKind kind, double time,
                              std::vector<TensorId> inputs,
                              const std::vector<int64_t> &outputBytes,
                              int64_t workspace) {
  NodeId id = static_cast<NodeId>(nodes_.size());
  Node n;
  n.name = std::move(name);
  n.kind = kind;
  n.time = time;
  n.workspace = workspace;
  n.inputs = std::move(inputs);
  for (size_t i = 0; i < outputBytes.size(); ++i) {
    std::string tname = outputBytes.size() == 1
                            ? n.name
                            : n.name + "#" + std::to_string(i);
    tensors_.push_back(Tensor{std::move(tname), outputBytes[i], id});
    n.outputs.push_back(static_cast<TensorId>(tensors_.size() - 1));
  }
  nodes_.push_back(std::move(n));
  invalidateCaches();
  return id;
}

void TrainingGraph::markRequired(TensorId t) {
  if (isRequired(t))
    return;
  required_.push_back(t);
  if (t >= 0 && static_cast<size_t>(t) >= requiredFlags_.size())
    requiredFlags_.resize(static_cast<size_t>(t) + 1, 0);
  if (t >= 0)
    requiredFlags_[t] = 1;
}

bool TrainingGraph::isRequired(TensorId t) const {
  // A flag per tensor: the planners ask for every tensor, and a step has a
  // gradient per parameter (thousands on a 40k-op step).
  return t >= 0 && static_cast<size_t>(t) < requiredFlags_.size() &&
         requiredFlags_[t];
}

const std::vector<NodeId> &TrainingGraph::consumers(TensorId t) const {
  if (!consumersValid_) {
    consumers_.assign(tensors_.size(), {});
    for (NodeId n = 0; n < numNodes(); ++n)
      for (TensorId in : nodes_[n].inputs)
        if (in >= 0 && in < numTensors() &&
            (consumers_[in].empty() || consumers_[in].back() != n))
          consumers_[in].push_back(n);
    consumersValid_ = true;
  }
  return consumers_[t];
}

int64_t TrainingGraph::inPlaceBytes(const Node &n) const {
  if (n.overwrites == kNone || isInput(n.overwrites) || n.outputs.empty())
    return 0;
  return std::min(tensors_[n.overwrites].bytes,
                  tensors_[n.outputs.front()].bytes);
}

std::optional<std::string> TrainingGraph::verify() const {
  auto tensorOk = [&](TensorId t) { return t >= 0 && t < numTensors(); };
  for (NodeId n = 0; n < numNodes(); ++n) {
    const Node &node = nodes_[n];
    if (!std::isfinite(node.time))
      return "node '" + node.name + "' has a time that is not a finite "
             "number";
    if (node.time < 0)
      return "node '" + node.name + "' has a negative time";
    if (node.workspace < 0)
      return "node '" + node.name + "' has a negative workspace";
    for (TensorId t : node.inputs) {
      if (!tensorOk(t))
        return "node '" + node.name + "' reads an unknown tensor";
      if (node.kind == NodeKind::Forward && !isInput(t) &&
          nodes_[tensors_[t].producer].kind == NodeKind::Backward)
        return "forward node '" + node.name + "' reads backward value '" +
               tensors_[t].name + "'";
    }
    for (TensorId t : node.outputs)
      if (!tensorOk(t) || tensors_[t].producer != n)
        return "node '" + node.name + "' lists an output it does not produce";
    if (node.overwrites != kNone &&
        (node.outputs.empty() ||
         std::find(node.inputs.begin(), node.inputs.end(), node.overwrites) ==
             node.inputs.end()))
      return "node '" + node.name + "' overwrites a tensor it does not read";
  }
  for (TensorId t = 0; t < numTensors(); ++t) {
    if (tensors_[t].bytes < 0)
      return "tensor '" + tensors_[t].name + "' has a negative size";
    if (tensors_[t].producer != kNone &&
        (tensors_[t].producer < 0 || tensors_[t].producer >= numNodes()))
      return "tensor '" + tensors_[t].name + "' has an unknown producer";
  }
  for (TensorId t : required_)
    if (!tensorOk(t))
      return std::string("an unknown tensor is marked required");
  // Every peak is at most all tensors plus the largest workspace: when that
  // fits in int64, no sum of bytes the strategies or the Simulator make can
  // overflow.
  std::optional<int64_t> total = 0;
  int64_t maxWorkspace = 0;
  for (const Tensor &t : tensors_)
    if (total)
      total = checkedAdd(*total, t.bytes);
  for (const Node &n : nodes_)
    maxWorkspace = std::max(maxWorkspace, n.workspace);
  if (total)
    total = checkedAdd(*total, maxWorkspace);
  if (!total)
    return std::string("the tensors and the largest workspace total more "
                       "than 9223372036854775807 bytes (2^63 - 1)");
  // Times are doubles: a schedule runs each node a bounded number of times,
  // so a finite sum keeps every schedule's time finite in practice.
  double time = 0;
  for (const Node &n : nodes_)
    time += n.time;
  if (!std::isfinite(time))
    return std::string("the nodes' times add up to more than a double holds");
  if (topologicalOrder().size() != nodes_.size())
    return std::string("the graph has a cycle");
  return std::nullopt;
}

std::vector<NodeId> TrainingGraph::topologicalOrder() const {
  // Kahn's algorithm, taking the smallest ready id first so the order is
  // deterministic and follows insertion order where dependencies allow.
  std::vector<int> indegree(nodes_.size(), 0);
  for (NodeId n = 0; n < numNodes(); ++n)
    for (TensorId t : nodes_[n].inputs)
      if (!isInput(t))
        ++indegree[n];
  std::priority_queue<NodeId, std::vector<NodeId>, std::greater<NodeId>> ready;
  for (NodeId n = 0; n < numNodes(); ++n)
    if (indegree[n] == 0)
      ready.push(n);
  std::vector<NodeId> order;
  order.reserve(nodes_.size());
  while (!ready.empty()) {
    NodeId n = ready.top();
    ready.pop();
    order.push_back(n);
    for (TensorId t : nodes_[n].outputs)
      for (NodeId c : consumers(t))
        for (TensorId in : nodes_[c].inputs)
          if (in == t && --indegree[c] == 0)
            ready.push(c);
  }
  if (order.size() != nodes_.size())
    return {};
  return order;
}

std::vector<NodeId> TrainingGraph::defaultOrder() const {
  std::vector<NodeId> order = topologicalOrder();
  std::stable_partition(order.begin(), order.end(),
                        [&](NodeId n) { return isForward(n); });
  return order;
}

double TrainingGraph::baseTime() const {
  double t = 0;
  for (const Node &n : nodes_)
    t += n.time;
  return t;
}

} // namespace remat
