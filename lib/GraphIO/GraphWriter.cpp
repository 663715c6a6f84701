//===- GraphWriter.cpp - TrainingGraph to the JSON graph format -----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/GraphIO/GraphWriter.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

namespace remat {

void writeGraphJSON(llvm::raw_ostream &os, const TrainingGraph &g,
                    llvm::StringRef timeUnit) {
  llvm::json::Array tensors, nodes, required;
  for (const Tensor &t : g.tensors())
    tensors.push_back(llvm::json::Object{{"name", t.name}, {"size", t.bytes}});
  auto names = [&](const std::vector<TensorId> &ids) {
    llvm::json::Array a;
    for (TensorId t : ids)
      a.push_back(g.tensor(t).name);
    return a;
  };
  for (const Node &n : g.nodes()) {
    llvm::json::Object o{
        {"name", n.name},
        {"kind", n.kind == NodeKind::Forward ? "forward" : "backward"},
        {"time", n.time},
        {"inputs", names(n.inputs)},
        {"outputs", names(n.outputs)}};
    if (n.workspace)
      o["workspace"] = n.workspace;
    if (!n.recomputable && n.kind == NodeKind::Forward)
      o["recomputable"] = false;
    if (!n.type.empty())
      o["type"] = n.type;
    if (n.overwrites != kNone)
      o["overwrites"] = g.tensor(n.overwrites).name;
    nodes.push_back(std::move(o));
  }
  os << llvm::formatv(
      "{0:2}\n",
      llvm::json::Value(llvm::json::Object{
          {"kind", "graph"},
          {"units", llvm::json::Object{{"time", timeUnit}, {"memory", "B"}}},
          {"tensors", std::move(tensors)},
          {"nodes", std::move(nodes)},
          {"required", names(g.requiredOutputs())}}));
}

} // namespace remat
