//===- Simulator.cpp ------------------------------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Core/Simulator.h"

#include <algorithm>

namespace remat {

int64_t inputBytes(const TrainingGraph &g) {
  int64_t bytes = 0;
  for (TensorId t = 0; t < g.numTensors(); ++t)
    if (g.isInput(t))
      bytes += g.tensor(t).bytes;
  return bytes;
}

int64_t peakLowerBound(const TrainingGraph &g) {
  int64_t required = 0;
  for (TensorId t : g.requiredOutputs())
    if (!g.isInput(t))
      required += g.tensor(t).bytes;
  int64_t step = 0;
  std::vector<char> seen(g.numTensors(), 0);
  for (const Node &n : g.nodes()) {
    int64_t bytes = n.workspace;
    for (const std::vector<TensorId> *ts : {&n.inputs, &n.outputs})
      for (TensorId t : *ts)
        if (!g.isInput(t) && !seen[t]) {
          seen[t] = 1;
          bytes += g.tensor(t).bytes;
        }
    for (const std::vector<TensorId> *ts : {&n.inputs, &n.outputs})
      for (TensorId t : *ts)
        seen[t] = 0;
    step = std::max(step, bytes);
  }
  return inputBytes(g) + std::max(required, step);
}

SimulationResult simulate(const TrainingGraph &g, const Schedule &s,
                          const SimulatorOptions &opts) {
  SimulationResult r;
  std::vector<char> live(g.numTensors(), 0);
  std::vector<int> runs(g.numNodes(), 0);
  int64_t liveBytes = 0;
  for (TensorId t = 0; t < g.numTensors(); ++t)
    if (g.isInput(t)) {
      live[t] = 1;
      liveBytes += g.tensor(t).bytes;
    }
  r.peak = liveBytes;
  auto recordLive = [&] {
    if (!opts.recordLiveAtPeak)
      return;
    r.liveAtPeak.clear();
    for (TensorId t = 0; t < g.numTensors(); ++t)
      if (live[t])
        r.liveAtPeak.push_back(t);
  };
  recordLive();

  auto fail = [&](long step, std::string msg) {
    r.valid = false;
    r.errorStep = step;
    r.error = std::move(msg);
    return r;
  };

  const auto &steps = s.steps();
  for (long i = 0; i < static_cast<long>(steps.size()); ++i) {
    const Step &step = steps[i];
    std::string where = "step " + std::to_string(i) + ": ";
    if (step.isFree()) {
      TensorId t = step.id;
      if (t < 0 || t >= g.numTensors())
        return fail(i, where + "free of an unknown tensor");
      const Tensor &ten = g.tensor(t);
      if (g.isInput(t))
        return fail(i, where + "frees input '" + ten.name + "'");
      if (g.isRequired(t))
        return fail(i, where + "frees required output '" + ten.name + "'");
      if (!live[t])
        return fail(i, where + "frees '" + ten.name + "', which is not live");
      live[t] = 0;
      liveBytes -= ten.bytes;
      if (opts.recordTimeline) {
        r.usageDuringStep.push_back(liveBytes + ten.bytes);
        r.liveAfterStep.push_back(liveBytes);
      }
      continue;
    }

    NodeId n = step.id;
    if (n < 0 || n >= g.numNodes())
      return fail(i, where + "runs an unknown node");
    const Node &node = g.node(n);
    for (TensorId t : node.inputs)
      if (!live[t])
        return fail(i, where + "'" + node.name + "' reads '" +
                           g.tensor(t).name + "', which is not live");
    bool once = node.kind == NodeKind::Backward || !node.recomputable;
    if (once && runs[n] > 0)
      return fail(i, where + "'" + node.name + "' may run only once");
    for (TensorId t : step.discard)
      if (std::find(node.outputs.begin(), node.outputs.end(), t) ==
          node.outputs.end())
        return fail(i, where + "'" + node.name + "' discards '" +
                           g.tensor(t).name + "', which it does not produce");
    int64_t stored = 0;
    for (TensorId t : node.outputs) {
      if (std::find(step.discard.begin(), step.discard.end(), t) !=
          step.discard.end())
        continue;
      if (live[t])
        return fail(i, where + "'" + node.name + "' recomputes '" +
                           g.tensor(t).name + "' while it is still live");
      live[t] = 1;
      stored += g.tensor(t).bytes;
    }
    int64_t during = liveBytes + stored + node.workspace;
    if (during > r.peak) {
      r.peak = during;
      r.peakStep = i;
      recordLive();
    }
    liveBytes += stored;
    ++runs[n];
    r.time += node.time;
    if (opts.recordTimeline) {
      r.usageDuringStep.push_back(during);
      r.liveAfterStep.push_back(liveBytes);
    }
  }

  for (TensorId t : g.requiredOutputs())
    if (!live[t])
      return fail(-1, "required output '" + g.tensor(t).name +
                          "' is not live at the end");
  // Every node runs at least once: a schedule decides when and how often
  // things run, never whether the program's ops exist.
  for (NodeId n = 0; n < g.numNodes(); ++n)
    if (runs[n] == 0)
      return fail(-1, "node '" + g.node(n).name + "' never runs");
  r.valid = true;
  return r;
}

} // namespace remat
