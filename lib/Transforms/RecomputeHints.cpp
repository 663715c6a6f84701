//===- RecomputeHints.cpp - Enforce #remat.policy<recompute> --------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Transforms/RecomputeHints.h"

#include "llvm/ADT/DenseSet.h"

using namespace mlir;

namespace remat {

LogicalResult applyRecomputeHints(IRTrainingGraph &ig) {
  TrainingGraph &g = ig.graph;
  // Hinted forward nodes, in program (topological) order.
  std::vector<NodeId> hinted;
  for (TensorId t : ig.recomputeHints) {
    NodeId n = g.tensor(t).producer;
    if (hinted.empty() || hinted.back() != n)
      hinted.push_back(n);
  }
  llvm::DenseSet<NodeId> hintedSet(hinted.begin(), hinted.end());
  for (NodeId n : hinted) {
    Operation *op = ig.primaryOp(n);
    if (!g.node(n).recomputable)
      return op->emitError()
             << "#remat.policy<recompute> cannot hold: this op has side "
                "effects or randomness and is never recomputed; remove the "
                "hint";
    for (TensorId t : g.node(n).outputs)
      if (g.isRequired(t))
        return op->emitError()
               << "#remat.policy<recompute> cannot hold: the value is a "
                  "result of the function and stays live; remove the hint";
  }

  // Which hinted nodes need a copy: those read by a backward node, directly
  // or through the copy of another hinted node (reverse program order).
  const int originalNodes = g.numNodes();
  std::vector<char> needsCopy(originalNodes, 0);
  for (auto it = hinted.rbegin(); it != hinted.rend(); ++it) {
    NodeId n = *it;
    for (TensorId out : g.node(n).outputs)
      for (NodeId c : g.consumers(out))
        if (!g.isForward(c) || (hintedSet.contains(c) && needsCopy[c]))
          needsCopy[n] = 1;
  }

  std::vector<TensorId> copyOfTensor(g.numTensors(), kNone);
  auto redirect = [&](NodeId reader, TensorId from) {
    TensorId to = copyOfTensor[from];
    if (to == kNone)
      return from;
    ig.redirected[reader][from] = to;
    return to;
  };
  for (NodeId n : hinted) {
    if (!needsCopy[n])
      continue;
    Node orig = g.node(n);
    std::vector<int64_t> bytes;
    for (TensorId t : orig.outputs)
      bytes.push_back(g.tensor(t).bytes);
    NodeId copy = g.addNode(orig.name + ".recompute", NodeKind::Backward,
                            orig.time, {}, bytes, orig.workspace);
    std::vector<TensorId> inputs;
    for (TensorId t : orig.inputs)
      inputs.push_back(redirect(copy, t));
    Node &c = g.node(copy);
    c.inputs = std::move(inputs);
    c.recomputable = false;
    c.type = orig.type;
    ig.nodeOps.push_back(ig.nodeOps[n]);
    ig.copyOf.push_back(n);
    for (auto [from, to] : llvm::zip(orig.outputs, g.node(copy).outputs))
      copyOfTensor[from] = to;
  }
  // Backward readers of hinted values read the copies.
  for (NodeId b = 0; b < originalNodes; ++b) {
    if (g.isForward(b))
      continue;
    std::vector<TensorId> inputs = g.node(b).inputs;
    for (TensorId &t : inputs)
      t = redirect(b, t);
    g.node(b).inputs = std::move(inputs);
  }
  return success();
}

} // namespace remat
