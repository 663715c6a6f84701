//===- SizedParts.cpp - Parts of a graph planned at one of several sizes --===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Core/SizedParts.h"

#include <set>

namespace remat {

TrainingGraph withSizes(TrainingGraph g, const std::vector<SizedPart> &parts,
                        const std::vector<int> &picks) {
  for (size_t i = 0; i < parts.size() && i < picks.size(); ++i) {
    const SizedPart::Choice &c = parts[i].choices[picks[i]];
    for (size_t j = 0; j < parts[i].tensors.size(); ++j)
      g.tensor(parts[i].tensors[j]).bytes = c.bytes[j];
    if (parts[i].node != kNone)
      g.node(parts[i].node).time = c.time;
  }
  return g;
}

std::optional<std::string> verifySizedParts(const TrainingGraph &g,
                                            const std::vector<SizedPart> &parts) {
  std::set<TensorId> seen;
  for (size_t i = 0; i < parts.size(); ++i) {
    const SizedPart &p = parts[i];
    const std::string where = "sized part " + std::to_string(i) + ": ";
    if (p.choices.empty())
      return where + "no choice";
    if (p.node != kNone && (p.node < 0 || p.node >= g.numNodes()))
      return where + "node out of range";
    for (TensorId t : p.tensors) {
      if (t < 0 || t >= g.numTensors())
        return where + "tensor out of range";
      if (g.isInput(t))
        return where + "tensor '" + g.tensor(t).name + "' is a graph input";
      if (!seen.insert(t).second)
        return where + "tensor '" + g.tensor(t).name + "' in two parts";
    }
    for (const SizedPart::Choice &c : p.choices) {
      if (c.bytes.size() != p.tensors.size())
        return where + "a choice without one size per tensor";
      for (int64_t b : c.bytes)
        if (b < 0)
          return where + "negative bytes";
      if (c.time < 0)
        return where + "negative time";
    }
  }
  return std::nullopt;
}

} // namespace remat
