//===- ModelGraphs.cpp ----------------------------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Testing/ModelGraphs.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace remat {

TensorId ForwardGraphBuilder::input(const std::string &name, int64_t bytes,
                                    bool parameter) {
  TensorId t = g_.addInput(name, bytes);
  param_.resize(g_.numTensors(), 0);
  param_[t] = parameter;
  return t;
}

NodeId ForwardGraphBuilder::op(const std::string &name,
                               const std::string &type, double time,
                               std::vector<TensorId> inputs,
                               const std::vector<int64_t> &outBytes,
                               bool gradReadsInputs, bool gradReadsOutputs,
                               int64_t workspace) {
  NodeId n = g_.addNode(name, NodeKind::Forward, time, std::move(inputs),
                        outBytes, workspace);
  g_.node(n).type = type;
  param_.resize(g_.numTensors(), 0);
  readsIn_.resize(g_.numNodes(), 0);
  readsOut_.resize(g_.numNodes(), 0);
  readsIn_[n] = gradReadsInputs;
  readsOut_[n] = gradReadsOutputs;
  return n;
}

TensorId ForwardGraphBuilder::value(const std::string &name,
                                    const std::string &type, double time,
                                    std::vector<TensorId> inputs,
                                    int64_t bytes, bool gradReadsInputs,
                                    bool gradReadsOutputs) {
  NodeId n = op(name, type, time, std::move(inputs), {bytes}, gradReadsInputs,
                gradReadsOutputs);
  return g_.node(n).outputs[0];
}

TrainingGraph ForwardGraphBuilder::build(TensorId loss) const {
  TrainingGraph g = g_;
  const int numFwd = g.numNodes();
  std::vector<std::vector<TensorId>> parts(g.numTensors());
  // The gradient of t: its single contribution, or an accumulation node.
  auto gradientOf = [&](TensorId t) {
    std::vector<TensorId> &p = parts[t];
    std::string name = "d" + g.tensor(t).name;
    if (p.size() == 1) {
      g.tensor(p[0]).name = name;
      return p[0];
    }
    NodeId acc = g.addNode("acc_" + g.tensor(t).name, NodeKind::Backward, 1,
                           p, {g.tensor(t).bytes});
    g.node(acc).type = "add";
    TensorId out = g.node(acc).outputs[0];
    g.tensor(out).name = name;
    return out;
  };
  auto differentiable = [&](TensorId t) {
    return !g.isInput(t) || (t < static_cast<TensorId>(param_.size()) &&
                             param_[t]);
  };
  for (NodeId n = numFwd - 1; n >= 0; --n) {
    const Node f = g.node(n); // Copy: addNode may reallocate.
    std::vector<TensorId> in;
    for (TensorId y : f.outputs)
      if (y != loss && !parts[y].empty())
        in.push_back(gradientOf(y));
    bool isLoss = std::find(f.outputs.begin(), f.outputs.end(), loss) !=
                  f.outputs.end();
    if (in.empty() && !isLoss)
      continue; // Nothing flows back through this op.
    auto add = [&](TensorId t) {
      if (std::find(in.begin(), in.end(), t) == in.end())
        in.push_back(t);
    };
    if (readsIn_[n])
      for (TensorId t : f.inputs)
        add(t);
    if (readsOut_[n])
      for (TensorId t : f.outputs)
        add(t);
    std::vector<TensorId> targets;
    for (TensorId t : f.inputs)
      if (differentiable(t) &&
          std::find(targets.begin(), targets.end(), t) == targets.end())
        targets.push_back(t);
    if (targets.empty())
      continue;
    std::vector<int64_t> bytes;
    for (TensorId t : targets)
      bytes.push_back(g.tensor(t).bytes);
    NodeId b = g.addNode("d" + f.name, NodeKind::Backward, 2 * f.time, in,
                         bytes, f.workspace);
    g.node(b).type = f.type + ".grad";
    for (size_t k = 0; k < targets.size(); ++k) {
      TensorId part = g.node(b).outputs[k];
      g.tensor(part).name = "d" + g.tensor(targets[k]).name + "_" + f.name;
      parts[targets[k]].push_back(part);
    }
  }
  for (TensorId t = 0; t < static_cast<TensorId>(param_.size()); ++t)
    if (param_[t] && !parts[t].empty())
      g.markRequired(gradientOf(t));
  g.markRequired(loss);
  return g;
}

namespace {

constexpr int64_t kBatchBytes = 32 * 4; // Batch of 32, float32.

int64_t act(int64_t c, int64_t hw) { return kBatchBytes * c * hw * hw; }

double opTime(const std::string &type) {
  return type.compare(0, 4, "conv") == 0 ? 10 : 1;
}

/// A convolution with its fused weight+bias parameter.
struct Net {
  ForwardGraphBuilder b;
  int count = 0;
  std::string id(const std::string &s) { return s + std::to_string(count++); }
  TensorId conv(TensorId x, int64_t cin, int64_t cout, int k, int64_t hw) {
    TensorId w = b.input(id("W"), 4 * (cout * cin * k * k + cout), true);
    return b.value(id("conv"), "conv", opTime("conv"), {x, w}, act(cout, hw));
  }
  TensorId relu(TensorId x, int64_t c, int64_t hw) {
    return b.value(id("relu"), "relu", 1, {x}, act(c, hw), false, true);
  }
  TensorId pool(TensorId x, int64_t c, int64_t hw) {
    return b.value(id("pool"), "maxpool", 1, {x}, act(c, hw), true, true);
  }
  TensorId avgpool(TensorId x, int64_t c, int64_t hw) {
    return b.value(id("avgpool"), "avgpool", 1, {x}, act(c, hw), false);
  }
  TensorId fc(TensorId x, int64_t cin, int64_t cout) {
    TensorId w = b.input(id("W"), 4 * (cout * cin + cout), true);
    return b.value(id("fc"), "linear", 1, {x, w}, kBatchBytes * cout);
  }
  TensorId dropout(TensorId x, int64_t bytes) {
    NodeId n = b.op(id("dropout"), "dropout", 1, {x}, {bytes}, false, true);
    b.graph().node(n).recomputable = false; // Random: never recomputed.
    return b.graph().node(n).outputs[0];
  }
  TensorId loss(TensorId x, TensorId labels) {
    return b.value(id("loss"), "softmax_cross_entropy", 1, {x, labels}, 4);
  }
  TensorId add(TensorId x, TensorId y, int64_t bytes) {
    return b.value(id("add"), "add", 1, {x, y}, bytes, false);
  }
};

TrainingGraph googlenetWithModules(int modules) {
  Net net;
  ForwardGraphBuilder &b = net.b;
  TensorId x = b.input("image", act(3, 224), false);
  TensorId labels = b.input("labels", kBatchBytes, false);
  TensorId h = net.relu(net.conv(x, 3, 64, 7, 112), 64, 112);
  h = net.pool(h, 64, 56);
  h = b.value("lrn1", "lrn", 1, {h}, act(64, 56), true, true);
  h = net.relu(net.conv(h, 64, 64, 1, 56), 64, 56);
  h = net.relu(net.conv(h, 64, 192, 3, 56), 192, 56);
  h = b.value("lrn2", "lrn", 1, {h}, act(192, 56), true, true);
  h = net.pool(h, 192, 28);
  int64_t c = 192, hw = 28;
  std::vector<TensorId> losses;
  auto auxHead = [&](TensorId in, int64_t cin) {
    TensorId a = net.avgpool(in, cin, 4);
    a = net.relu(net.conv(a, cin, 128, 1, 4), 128, 4);
    a = net.relu(net.fc(a, 128 * 16, 1024), 1024, 1);
    a = net.dropout(a, kBatchBytes * 1024);
    losses.push_back(net.loss(net.fc(a, 1024, 1000), labels));
  };
  for (int m = 0; m < modules; ++m) {
    // GoogLeNet pools after module 2 of 9 and after module 7 of 9, and
    // branches its auxiliary heads off modules 3 and 6.
    if (m == (2 * modules + 4) / 9 && m > 0 && hw > 14) {
      h = net.pool(h, c, 14);
      hw = 14;
    }
    if (m == (7 * modules + 4) / 9 && m > 0 && hw > 7) {
      h = net.pool(h, c, 7);
      hw = 7;
    }
    int64_t cout = 256 + (1024 - 256) * m / std::max(1, modules - 1);
    cout -= cout % 32;
    TensorId b1 = net.conv(h, c, cout / 4, 1, hw);
    TensorId b2 = net.relu(net.conv(h, c, cout * 3 / 16, 1, hw), cout * 3 / 16,
                           hw);
    b2 = net.conv(b2, cout * 3 / 16, cout / 2, 3, hw);
    TensorId b3 = net.relu(net.conv(h, c, cout / 32, 1, hw), cout / 32, hw);
    b3 = net.conv(b3, cout / 32, cout / 8, 5, hw);
    TensorId b4 = net.pool(h, c, hw);
    b4 = net.conv(b4, c, cout / 8, 1, hw);
    TensorId cat = b.value(net.id("concat"), "concat", 1, {b1, b2, b3, b4},
                           act(cout, hw), false);
    h = net.relu(cat, cout, hw);
    c = cout;
    if (modules >= 3 && (m + 1 == modules / 3 || m + 1 == 2 * modules / 3))
      auxHead(h, c);
  }
  TensorId y = net.avgpool(h, c, 1);
  y = net.dropout(y, act(c, 1));
  losses.push_back(net.loss(net.fc(y, c, 1000), labels));
  TensorId total = losses.back();
  for (size_t i = 0; i + 1 < losses.size(); ++i)
    total = net.add(total, losses[i], 4);
  return b.build(total);
}

TrainingGraph resnetWithBlocks(int blocks) {
  Net net;
  ForwardGraphBuilder &b = net.b;
  TensorId x = b.input("image", act(3, 224), false);
  TensorId labels = b.input("labels", kBatchBytes, false);
  auto bn = [&](TensorId in, int64_t c, int64_t hw) {
    // Outputs: normalized value and the saved mean / inverse std.
    TensorId gamma = b.input(net.id("gamma"), 8 * c, true);
    NodeId n = b.op(net.id("bn"), "batchnorm", 1, {in, gamma},
                    {act(c, hw), 8 * c}, true, true);
    return b.graph().node(n).outputs[0];
  };
  TensorId h = net.relu(bn(net.conv(x, 3, 64, 7, 112), 64, 112), 64, 112);
  h = net.pool(h, 64, 56);
  // ResNet-50 distributes 3, 4, 6, 3 blocks over its four stages.
  const int base[4] = {3, 4, 6, 3};
  int64_t c = 64;
  for (int s = 0; s < 4; ++s) {
    int n = std::max(1, (blocks * base[s] + 8) / 16);
    int64_t cout = 256 << s, mid = cout / 4;
    int64_t ohw = 56 >> s;
    for (int k = 0; k < n; ++k) {
      TensorId r = net.relu(bn(net.conv(h, c, mid, 1, ohw), mid, ohw), mid, ohw);
      r = net.relu(bn(net.conv(r, mid, mid, 3, ohw), mid, ohw), mid, ohw);
      r = bn(net.conv(r, mid, cout, 1, ohw), cout, ohw);
      TensorId sc = h;
      if (k == 0) // Projection shortcut where the shape changes.
        sc = bn(net.conv(h, c, cout, 1, ohw), cout, ohw);
      h = net.relu(net.add(r, sc, act(cout, ohw)), cout, ohw);
      c = cout;
    }
  }
  TensorId y = net.avgpool(h, c, 1);
  return b.build(net.loss(net.fc(y, c, 1000), labels));
}

TrainingGraph unetWithConvs(int convsPerLevel) {
  Net net;
  ForwardGraphBuilder &b = net.b;
  const int levels = 4;
  TensorId x = b.input("image", act(1, 572), false);
  TensorId labels = b.input("labels", kBatchBytes * 388 * 388, false);
  auto block = [&](TensorId h, int64_t cin, int64_t c, int64_t hw) {
    for (int k = 0; k < convsPerLevel; ++k) {
      h = net.relu(net.conv(h, k == 0 ? cin : c, c, 3, hw), c, hw);
    }
    return h;
  };
  std::vector<TensorId> skips;
  std::vector<int64_t> sizes;
  TensorId h = x;
  int64_t c = 1, hw = 572;
  for (int l = 0; l < levels; ++l) {
    int64_t cout = 64 << l;
    h = block(h, c, cout, hw);
    skips.push_back(h);
    sizes.push_back(hw);
    c = cout;
    hw /= 2;
    h = net.pool(h, c, hw);
  }
  h = block(h, c, c * 2, hw);
  c *= 2;
  for (int l = levels - 1; l >= 0; --l) {
    int64_t cout = 64 << l;
    hw = sizes[l];
    TensorId up = b.value(net.id("deconv"), "conv_transpose", 10,
                          {h, b.input(net.id("W"), 4 * c * cout * 4, true)},
                          act(cout, hw));
    // The skip is cropped (a view op in the IR) before the concat.
    TensorId crop = b.value(net.id("crop"), "slice", 1, {skips[l]},
                            act(cout, hw), false);
    TensorId cat = b.value(net.id("concat"), "concat", 1, {crop, up},
                           act(2 * cout, hw), false);
    h = block(cat, 2 * cout, cout, hw);
    c = cout;
  }
  h = net.conv(h, c, 2, 1, hw);
  return b.build(net.loss(h, labels));
}

/// The smallest size parameter whose graph has at least n nodes.
TrainingGraph atLeast(int n, const std::function<TrainingGraph(int)> &make) {
  for (int k = 1;; ++k) {
    TrainingGraph g = make(k);
    if (g.numNodes() >= n || k >= 100000)
      return g;
  }
}

/// Small integer generator (splitmix64), stable across platforms.
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 1) {}
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int64_t range(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1));
  }
  bool percent(int p) { return range(0, 99) < p; }
};

} // namespace

TrainingGraph googlenetLike(int n) { return atLeast(n, googlenetWithModules); }
TrainingGraph resnetLike(int n) { return atLeast(n, resnetWithBlocks); }
TrainingGraph unetLike(int n) { return atLeast(n, unetWithConvs); }

TrainingGraph randomBranchyDag(uint64_t seed, int numForward,
                               const RandomBranchyOptions &o) {
  Rng rng(seed);
  ForwardGraphBuilder b;
  std::vector<TensorId> values{b.input("x", rng.range(1, o.maxBytes), false),
                               b.input("w", rng.range(1, o.maxBytes), true)};
  std::vector<char> used(2, 1);
  for (int i = 0; i < numForward; ++i) {
    int k = static_cast<int>(rng.range(1, std::max(1, o.maxInputs)));
    std::vector<TensorId> in;
    for (int j = 0; j < k; ++j) {
      // Prefer recent values so the DAG has depth as well as width.
      int64_t lo = std::max<int64_t>(0, static_cast<int64_t>(values.size()) - 4);
      int64_t pick = rng.percent(70)
                         ? rng.range(lo, static_cast<int64_t>(values.size()) - 1)
                         : rng.range(0, static_cast<int64_t>(values.size()) - 1);
      TensorId t = values[pick];
      if (std::find(in.begin(), in.end(), t) == in.end())
        in.push_back(t);
    }
    std::vector<int64_t> outs{rng.range(1, o.maxBytes)};
    if (rng.percent(o.twoOutputPercent))
      outs.push_back(rng.range(1, o.maxBytes));
    bool readsOut = rng.percent(50);
    NodeId n = b.op("f" + std::to_string(i), "op",
                    static_cast<double>(rng.range(1, o.maxTime)), in, outs,
                    true, readsOut, rng.range(0, o.maxWorkspace));
    if (rng.percent(o.nonRecomputablePercent))
      b.graph().node(n).recomputable = false;
    for (TensorId t : b.graph().node(n).outputs)
      values.push_back(t);
  }
  // Every op output nobody reads feeds the loss, so all ops matter.
  TrainingGraph &g = b.graph();
  std::vector<TensorId> sinks;
  for (TensorId t = 0; t < g.numTensors(); ++t)
    if (!g.isInput(t) && g.consumers(t).empty())
      sinks.push_back(t);
  if (sinks.empty())
    sinks.push_back(values.back());
  TensorId loss = b.value("loss", "loss", 1, sinks, 1);
  return b.build(loss);
}

TrainingGraph modelGraph(ModelShape shape, int n) {
  switch (shape) {
  case ModelShape::GoogLeNet:
    return googlenetLike(n);
  case ModelShape::ResNet:
    return resnetLike(n);
  case ModelShape::UNet:
    return unetLike(n);
  }
  return TrainingGraph();
}

const char *modelShapeName(ModelShape shape) {
  switch (shape) {
  case ModelShape::GoogLeNet:
    return "googlenet";
  case ModelShape::ResNet:
    return "resnet";
  case ModelShape::UNet:
    return "unet";
  }
  return "?";
}

} // namespace remat
