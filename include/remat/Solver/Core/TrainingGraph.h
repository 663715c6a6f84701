//===- TrainingGraph.h - Forward/backward graph of one training step -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The planning model every strategy works on. Nodes are computations (a
// forward op, a backward op, or a whole chain stage); tensors are the values
// they produce, each with a size in bytes. A node reads its input tensors and
// produces its output tensors. Tensors without a producer are graph inputs
// (data, parameters): live from the start and never freed. Required outputs
// (the gradients, the loss) must be live when the schedule ends and are never
// freed once produced.
//
// Plain C++17: no MLIR or LLVM headers, so the solver library can be embedded
// anywhere.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_CORE_TRAININGGRAPH_H
#define REMAT_SOLVER_CORE_TRAININGGRAPH_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace remat {

using NodeId = int32_t;
using TensorId = int32_t;
constexpr int32_t kNone = -1;

enum class NodeKind : uint8_t { Forward, Backward };

struct Tensor {
  std::string name;
  int64_t bytes = 0;
  NodeId producer = kNone; ///< kNone: a graph input.
};

struct Node {
  std::string name;
  NodeKind kind = NodeKind::Forward;
  double time = 0;        ///< Cost of one execution.
  int64_t workspace = 0;  ///< Transient bytes while it runs (o_f / o_b).
  std::vector<TensorId> inputs;
  std::vector<TensorId> outputs;
  /// False for ops with side effects or randomness: a forward node that must
  /// run exactly once. Backward nodes always run exactly once.
  bool recomputable = true;
  /// An input whose storage the first output takes when this run is the
  /// input's last read (an in-place kernel, as Inductor writes over a
  /// buffer it frees): the two are then held once while the node runs.
  TensorId overwrites = kNone;
  std::string type; ///< Free-form op type ("Convolution2D", "linalg.matmul").
};

class TrainingGraph {
public:
  TensorId addInput(std::string name, int64_t bytes);
  /// Adds a node and one output tensor per entry of `outputBytes`; the new
  /// tensors are named "<node>" (single output) or "<node>#i".
  NodeId addNode(std::string name, NodeKind kind, double time,
                 std::vector<TensorId> inputs,
                 const std::vector<int64_t> &outputBytes,
                 int64_t workspace = 0);
  void markRequired(TensorId t);

  const std::vector<Node> &nodes() const { return nodes_; }
  const std::vector<Tensor> &tensors() const { return tensors_; }
  const Node &node(NodeId n) const { return nodes_[n]; }
  Node &node(NodeId n) {
    invalidateCaches(); // The caller may change the node's inputs.
    return nodes_[n];
  }
  const Tensor &tensor(TensorId t) const { return tensors_[t]; }
  Tensor &tensor(TensorId t) { return tensors_[t]; }
  int numNodes() const { return static_cast<int>(nodes_.size()); }
  int numTensors() const { return static_cast<int>(tensors_.size()); }

  /// Tensors that must be live at the end (gradients of inputs, the loss...).
  const std::vector<TensorId> &requiredOutputs() const { return required_; }
  bool isRequired(TensorId t) const;
  bool isInput(TensorId t) const { return tensors_[t].producer == kNone; }
  bool isForward(NodeId n) const { return nodes_[n].kind == NodeKind::Forward; }

  /// Nodes reading tensor `t`, in node order (computed on demand, cached).
  const std::vector<NodeId> &consumers(TensorId t) const;

  /// Checks structural sanity: ids in range, every tensor produced once,
  /// forward nodes read only forward values and inputs, no cycles. Returns an
  /// explanation, or std::nullopt when the graph is well formed.
  std::optional<std::string> verify() const;

  /// A topological order of all nodes, or empty if the graph has a cycle.
  std::vector<NodeId> topologicalOrder() const;

  /// Forward nodes then backward nodes, each group topologically sorted: the
  /// order of the program without rematerialization.
  std::vector<NodeId> defaultOrder() const;

  /// The bytes node `n` holds once when its run is the last read of the
  /// input it overwrites (Node::overwrites): that input's or its first
  /// output's, the smaller; 0 without one or for a graph input.
  int64_t inPlaceBytes(const Node &n) const;

  /// Sum of the times of all nodes run once: the no-recomputation time.
  double baseTime() const;

private:
  void invalidateCaches() { consumersValid_ = false; }

  std::vector<Node> nodes_;
  std::vector<Tensor> tensors_;
  std::vector<TensorId> required_;
  std::vector<char> requiredFlags_; ///< By tensor: in required_.
  mutable std::vector<std::vector<NodeId>> consumers_;
  mutable bool consumersValid_ = false;
};

} // namespace remat

#endif // REMAT_SOLVER_CORE_TRAININGGRAPH_H
