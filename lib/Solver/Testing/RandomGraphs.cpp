//===- RandomGraphs.cpp - Seeded random small instances --------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Testing/RandomGraphs.h"

#include <algorithm>
#include <string>

namespace remat {

namespace {

/// SplitMix64: tiny, portable and good enough for test instances.
class Rng {
public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [lo, hi] (hi >= lo; the modulo bias is irrelevant here).
  int64_t range(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(next() % uint64_t(hi - lo + 1));
  }
  bool percent(int p) { return range(0, 99) < p; }

private:
  uint64_t state_;
};

ChainSpec chainFrom(Rng &rng, int length, const RandomCostOptions &o) {
  ChainSpec c;
  c.a0 = c.delta0 = rng.range(1, o.maxBytes);
  for (int l = 0; l < length; ++l) {
    ChainStage s;
    s.uf = static_cast<double>(rng.range(1, o.maxTime));
    s.ub = static_cast<double>(rng.range(1, o.maxTime));
    s.a = rng.range(1, o.maxBytes);
    s.abar = s.a + rng.range(0, o.maxExtra);
    s.delta = s.a;
    s.of = rng.range(0, o.maxWorkspace);
    s.ob = rng.range(0, o.maxWorkspace);
    c.stages.push_back(s);
  }
  return c;
}

} // namespace

ChainSpec randomChain(uint64_t seed, int length, const RandomCostOptions &opts) {
  Rng rng(seed);
  return chainFrom(rng, length, opts);
}

std::vector<ChainSpec> randomJoin(uint64_t seed, int branches, int maxLength,
                                  const RandomCostOptions &opts) {
  Rng rng(seed);
  std::vector<ChainSpec> out;
  for (int b = 0; b < branches; ++b) {
    int len = static_cast<int>(rng.range(1, std::max(1, maxLength)));
    out.push_back(chainFrom(rng, len, opts));
  }
  return out;
}

TrainingGraph randomTrainingDag(uint64_t seed, int numForward,
                                const RandomDagOptions &opts) {
  Rng rng(seed);
  const RandomCostOptions &c = opts.costs;
  TrainingGraph g;
  // values[0] = x, values[i + 1] = output of f_i.
  std::vector<TensorId> values{g.addInput("x", rng.range(1, c.maxBytes))};
  std::vector<NodeId> fwd;
  std::vector<TensorId> weights;
  for (int i = 0; i < numForward; ++i) {
    std::vector<TensorId> in{values[i]};
    if (i >= 1 && rng.percent(opts.skipPercent))
      in.push_back(values[rng.range(0, i - 1)]);
    if (opts.weightsPercent > 0 && rng.percent(opts.weightsPercent)) {
      weights.push_back(g.addInput("w" + std::to_string(i),
                                   rng.range(1, c.maxBytes)));
      in.push_back(weights.back());
    }
    NodeId f = g.addNode("f" + std::to_string(i), NodeKind::Forward,
                         static_cast<double>(rng.range(1, c.maxTime)), in,
                         {rng.range(1, c.maxBytes)},
                         rng.range(0, c.maxWorkspace));
    fwd.push_back(f);
    values.push_back(g.node(f).outputs[0]);
  }

  // Gradient contributions per value, filled by the backward nodes of its
  // consumers (all processed before the value's own producer).
  std::vector<std::vector<TensorId>> contribs(values.size());
  auto valueIndex = [&](TensorId t) {
    return static_cast<size_t>(std::find(values.begin(), values.end(), t) -
                               values.begin());
  };
  // The full gradient of values[v]: its single contribution, or their sum.
  auto gradientOf = [&](size_t v) {
    std::vector<TensorId> &parts = contribs[v];
    std::string name = "d" + g.tensor(values[v]).name;
    if (parts.size() == 1) {
      g.tensor(parts[0]).name = name;
      return parts[0];
    }
    NodeId acc = g.addNode("acc" + g.tensor(values[v]).name,
                           NodeKind::Backward, 1, parts,
                           {g.tensor(values[v]).bytes});
    TensorId out = g.node(acc).outputs[0];
    g.tensor(out).name = name;
    return out;
  };

  for (int i = numForward - 1; i >= 0; --i) {
    const Node f = g.node(fwd[i]); // Copy: addNode may reallocate.
    std::vector<TensorId> in;
    if (i != numForward - 1) // The loss has no incoming gradient.
      in.push_back(gradientOf(i + 1));
    in.insert(in.end(), f.inputs.begin(), f.inputs.end());
    if (rng.percent(opts.readsOutputPercent))
      in.push_back(f.outputs[0]);
    std::vector<int64_t> outBytes;
    for (TensorId t : f.inputs)
      outBytes.push_back(g.tensor(t).bytes);
    NodeId b = g.addNode("b" + f.name, NodeKind::Backward,
                         static_cast<double>(rng.range(1, c.maxTime)), in,
                         outBytes, rng.range(0, c.maxWorkspace));
    for (size_t k = 0; k < f.inputs.size(); ++k) {
      TensorId part = g.node(b).outputs[k];
      if (std::count(weights.begin(), weights.end(), f.inputs[k])) {
        g.tensor(part).name = "d" + g.tensor(f.inputs[k]).name;
        g.markRequired(part); // A weight's gradient: one reader, f.
        continue;
      }
      g.tensor(part).name =
          "d" + g.tensor(f.inputs[k]).name + "_" + f.name;
      contribs[valueIndex(f.inputs[k])].push_back(part);
    }
  }
  if (numForward > 0)
    g.markRequired(gradientOf(0));
  return g;
}

} // namespace remat
