//===- Simulator.cpp ------------------------------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Core/Simulator.h"

#include "remat/Support/CheckedArithmetic.h"

#include <algorithm>

namespace remat {

int64_t inputBytes(const TrainingGraph &g) {
  int64_t bytes = 0;
  for (TensorId t = 0; t < g.numTensors(); ++t)
    if (g.isInput(t))
      bytes += g.tensor(t).bytes;
  return bytes;
}

int64_t peakLowerBound(const TrainingGraph &g, bool resultsMayLeave) {
  int64_t required = 0;
  for (TensorId t : g.requiredOutputs())
    if (!g.isInput(t) && !resultsMayLeave)
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
    bytes -= g.inPlaceBytes(n);
    step = std::max(step, bytes);
  }
  return inputBytes(g) + std::max(required, step);
}

namespace {

/// Bytes whose release waits for a copy to end.
struct PendingRelease {
  TensorId tensor;
  double at;
  int64_t bytes;
};

/// Removes the entries of `pending` that end by `now`; returns their bytes.
int64_t releaseEnded(std::vector<PendingRelease> &pending, double now,
                     std::vector<char> *held = nullptr) {
  int64_t bytes = 0;
  auto ended = [&](const PendingRelease &p) {
    if (p.at > now)
      return false;
    bytes += p.bytes;
    if (held)
      (*held)[p.tensor] = 0;
    return true;
  };
  pending.erase(std::remove_if(pending.begin(), pending.end(), ended),
                pending.end());
  return bytes;
}

/// One pass of a schedule over a graph: the state between steps and one
/// member per step kind. A step that is invalid records why in the result and
/// returns false; the result keeps what the steps before it found.
class Simulation {
public:
  Simulation(const TrainingGraph &g, const SimulatorOptions &opts,
             const std::vector<Step> &steps);

  bool step(long i, const Step &step) {
    if (step.isAwait())
      return await(i, step.id);
    if (step.isOffload())
      return offload(i, step.id);
    if (step.isPrefetch())
      return prefetch(i, step.id);
    if (step.isFree())
      return free(i, step.id);
    return run(i, step);
  }
  bool await(long i, TensorId t);
  bool offload(long i, TensorId t);
  bool prefetch(long i, TensorId t);
  bool free(long i, TensorId t);
  bool run(long i, const Step &step);
  /// The checks and totals once every step has run.
  bool finish();

  SimulationResult r;

private:
  bool fail(long step, std::string msg) {
    r.valid = false;
    r.errorStep = step;
    r.error = std::move(msg);
    return false;
  }
  bool failAt(long i, const std::string &msg) {
    return fail(i, "step " + std::to_string(i) + ": " + msg);
  }
  void recordLive();
  void recordStep(int64_t during) {
    if (opts.recordTimeline) {
      r.usageDuringStep.push_back(during);
      r.liveAfterStep.push_back(liveBytes);
    }
  }
  bool startCopy(long i, TensorId t, const char *what);
  bool checkRun(long i, const Step &step);
  double waitToRun(const Node &node);
  bool storeOutputs(long i, const Node &node, const Step &step,
                    int64_t &stored);
  int64_t overwrittenBytes(long i, const Node &node, const Step &step) const;

  const TrainingGraph &g;
  const SimulatorOptions &opts;
  const std::vector<Step> &steps;
  // live: on the device and readable. offloading: on its way to the host,
  // its device bytes still held. onHost: a copy on the host (or on its way).
  std::vector<char> live, offloading, onHost;
  std::vector<int> runs;
  int64_t liveBytes = 0, hostBytes = 0;

  // The time model (Simulator.h). Without copies, clock is the running sum
  // of the run times, exactly as before.
  double clock = 0;                        // End of the last run.
  double toHostFree = 0, toDeviceFree = 0; // When each stream is free.
  std::vector<double> arrives;             // On the device from.
  std::vector<long> stay;                  // Open entry of hostCopies.
  long lastOffload = -1; // hostCopies entry of the last offload issued.
  double awaitUntil = 0; // The next run starts no earlier (Await steps).
  long awaited = -1;     // hostCopies entry of the copy that sets it.
  std::vector<PendingRelease> deviceReleases, hostReleases;
};

const char *const kOverflow = "byte count overflows int64";

Simulation::Simulation(const TrainingGraph &g, const SimulatorOptions &opts,
                       const std::vector<Step> &steps)
    : g(g), opts(opts), steps(steps), live(g.numTensors(), 0), offloading(g.numTensors(), 0),
      onHost(g.numTensors(), 0), runs(g.numNodes(), 0),
      arrives(g.numTensors(), 0), stay(g.numTensors(), -1) {
  for (TensorId t = 0; t < g.numTensors(); ++t)
    if (g.isInput(t)) {
      live[t] = 1;
      liveBytes += g.tensor(t).bytes;
    }
  r.peak = liveBytes;
  recordLive();
}

void Simulation::recordLive() {
  if (!opts.recordLiveAtPeak)
    return;
  r.liveAtPeak.clear();
  for (TensorId t = 0; t < g.numTensors(); ++t)
    if (live[t] || offloading[t])
      r.liveAtPeak.push_back(t);
}

bool Simulation::await(long i, TensorId t) {
  if (t < 0 || t >= g.numTensors() || stay[t] < 0 ||
      r.hostCopies[stay[t]].prefetchStep >= 0)
    return failAt(i, "awaits a copy to the host that is not in flight or on "
                     "the host");
  r.hostCopies[stay[t]].awaited = true;
  if (r.hostCopies[stay[t]].offloadEnd > awaitUntil) {
    awaitUntil = r.hostCopies[stay[t]].offloadEnd;
    awaited = stay[t];
  }
  recordStep(liveBytes);
  return true;
}

/// What offloads and prefetches share: the checks, and the bytes that copies
/// ended by now give back.
bool Simulation::startCopy(long i, TensorId t, const char *what) {
  if (t < 0 || t >= g.numTensors())
    return failAt(i, std::string(what) + " of an unknown tensor");
  if (!opts.link.usable())
    return failAt(i, std::string(what) + " of '" + g.tensor(t).name +
                         "' without a usable copy link");
  liveBytes -= releaseEnded(deviceReleases, clock, &offloading);
  hostBytes -= releaseEnded(hostReleases, clock);
  return true;
}

bool Simulation::offload(long i, TensorId t) {
  if (!startCopy(i, t, "offload"))
    return false;
  const Tensor &ten = g.tensor(t);
  if (g.isInput(t))
    return failAt(i, "offloads input '" + ten.name + "'");
  if (!live[t])
    return failAt(i, "offloads '" + ten.name + "', which is not live");
  double start = std::max({clock, toHostFree, arrives[t]});
  double end = start + opts.link.offloadTime(ten.bytes);
  toHostFree = end;
  live[t] = 0;
  offloading[t] = 1;
  onHost[t] = 1;
  deviceReleases.push_back({t, end, ten.bytes});
  std::optional<int64_t> host = checkedAdd(hostBytes, ten.bytes);
  if (!host)
    return failAt(i, kOverflow);
  hostBytes = *host;
  r.hostPeak = std::max(r.hostPeak, hostBytes);
  HostCopy c;
  c.tensor = t;
  c.bytes = ten.bytes;
  c.offloadStep = i;
  c.offloadStart = start;
  c.offloadEnd = end;
  stay[t] = static_cast<long>(r.hostCopies.size());
  lastOffload = stay[t];
  r.hostCopies.push_back(c);
  recordStep(liveBytes);
  return true;
}

bool Simulation::prefetch(long i, TensorId t) {
  if (!startCopy(i, t, "prefetch"))
    return false;
  const Tensor &ten = g.tensor(t);
  if (!onHost[t])
    return failAt(i, "prefetches '" + ten.name + "', which is not on the host");
  HostCopy &c = r.hostCopies[stay[t]];
  double start = std::max({clock, toDeviceFree, c.offloadEnd});
  double end = start + opts.link.prefetchTime(ten.bytes);
  toDeviceFree = end;
  c.prefetchStep = i;
  c.prefetchStart = start;
  c.prefetchEnd = end;
  onHost[t] = 0;
  live[t] = 1;
  arrives[t] = end;
  hostReleases.push_back({t, end, ten.bytes});
  std::optional<int64_t> held = checkedAdd(liveBytes, ten.bytes);
  if (!held)
    return failAt(i, kOverflow);
  liveBytes = *held;
  if (liveBytes > r.peak) {
    r.peak = liveBytes;
    r.peakStep = i;
    recordLive();
  }
  recordStep(liveBytes);
  return true;
}

bool Simulation::free(long i, TensorId t) {
  if (t < 0 || t >= g.numTensors())
    return failAt(i, "free of an unknown tensor");
  const Tensor &ten = g.tensor(t);
  if (g.isInput(t))
    return failAt(i, "frees input '" + ten.name + "'");
  if (g.isRequired(t))
    return failAt(i, "frees required output '" + ten.name + "'");
  if (!live[t])
    return failAt(i, "frees '" + ten.name + "', which is not live");
  live[t] = 0;
  liveBytes -= ten.bytes;
  // The tensor is held until the step ends.
  recordStep(liveBytes + ten.bytes);
  return true;
}

/// Whether the run may happen at all: its node exists, its inputs are live,
/// it may run again, and it discards only what it produces.
bool Simulation::checkRun(long i, const Step &step) {
  NodeId n = step.id;
  if (n < 0 || n >= g.numNodes())
    return failAt(i, "runs an unknown node");
  const Node &node = g.node(n);
  for (TensorId t : node.inputs)
    if (!live[t])
      return failAt(i, "'" + node.name + "' reads '" + g.tensor(t).name +
                           "', which is not live");
  bool once = node.kind == NodeKind::Backward || !node.recomputable;
  if (once && runs[n] > 0)
    return failAt(i, "'" + node.name + "' may run only once");
  for (TensorId t : step.discard)
    if (std::find(node.outputs.begin(), node.outputs.end(), t) ==
        node.outputs.end())
      return failAt(i, "'" + node.name + "' discards '" + g.tensor(t).name +
                           "', which it does not produce");
  return true;
}

/// When the run starts; each wait past the last run's end is charged to the
/// copy that causes it.
double Simulation::waitToRun(const Node &node) {
  // The run waits for its prefetched inputs; the wait is the last one's.
  double start = clock;
  TensorId latest = kNone;
  for (TensorId t : node.inputs)
    if (arrives[t] > start) {
      start = arrives[t];
      latest = t;
    }
  if (latest != kNone) {
    r.stall += start - clock;
    r.hostCopies[stay[latest]].stall += start - clock;
  }
  // Copies to the host that block: the run also waits for the last one
  // issued (the to-host stream runs them in order); the wait is its.
  if (opts.link.offloadsBlock && toHostFree > start) {
    r.stall += toHostFree - start;
    r.hostCopies[lastOffload].stall += toHostFree - start;
    start = toHostFree;
  }
  if (awaitUntil > start) {
    r.stall += awaitUntil - start;
    r.hostCopies[awaited].stall += awaitUntil - start;
    start = awaitUntil;
  }
  return start;
}

/// Makes the outputs the run keeps live; `stored` is their bytes.
bool Simulation::storeOutputs(long i, const Node &node, const Step &step,
                              int64_t &stored) {
  stored = 0;
  for (TensorId t : node.outputs) {
    if (std::find(step.discard.begin(), step.discard.end(), t) !=
        step.discard.end())
      continue;
    if (live[t])
      return failAt(i, "'" + node.name + "' recomputes '" + g.tensor(t).name +
                           "' while it is still live");
    if (onHost[t])
      return failAt(i, "'" + node.name + "' recomputes '" + g.tensor(t).name +
                           "' while it is on the host");
    live[t] = 1;
    arrives[t] = 0;
    std::optional<int64_t> sum = checkedAdd(stored, g.tensor(t).bytes);
    if (!sum)
      return failAt(i, kOverflow);
    stored = *sum;
  }
  return true;
}

bool Simulation::run(long i, const Step &step) {
  if (!checkRun(i, step))
    return false;
  const Node &node = g.node(step.id);
  double start = waitToRun(node);
  if (!deviceReleases.empty())
    liveBytes -= releaseEnded(deviceReleases, start, &offloading);
  int64_t stored;
  if (!storeOutputs(i, node, step, stored))
    return false;
  std::optional<int64_t> after = checkedAdd(liveBytes, stored);
  std::optional<int64_t> during =
      after ? checkedAdd(*after, node.workspace) : std::nullopt;
  if (!during)
    return failAt(i, kOverflow);
  int64_t shared = overwrittenBytes(i, node, step);
  *during -= shared;
  if (*during > r.peak) {
    r.peak = *during;
    r.peakStep = i;
    recordLive();
    // The overwritten input is held in its output's storage: the list then
    // adds up to the peak.
    if (shared && shared == g.tensor(node.overwrites).bytes)
      r.liveAtPeak.erase(std::remove(r.liveAtPeak.begin(), r.liveAtPeak.end(),
                                     node.overwrites),
                         r.liveAtPeak.end());
  }
  liveBytes = *after;
  ++runs[step.id];
  clock = start + node.time;
  r.time = clock;
  recordStep(*during);
  return true;
}

/// The bytes an in-place node holds once rather than twice: the input its
/// first output overwrites, when the run stores that output and frees the
/// input before anything else runs (this run is its last read).
int64_t Simulation::overwrittenBytes(long i, const Node &node,
                                     const Step &step) const {
  TensorId t = node.overwrites;
  if (g.inPlaceBytes(node) == 0 || offloading[t] || onHost[t])
    return 0;
  TensorId out = node.outputs.front();
  if (std::find(step.discard.begin(), step.discard.end(), out) !=
      step.discard.end())
    return 0;
  for (long j = i + 1; j < static_cast<long>(steps.size()); ++j) {
    const Step &next = steps[j];
    if (next.isFree() && next.id == t)
      return g.inPlaceBytes(node);
    if (!next.isFree())
      return 0;
  }
  return 0;
}

bool Simulation::finish() {
  // A result on the host at the end is returned from there.
  for (TensorId t : g.requiredOutputs())
    if (!live[t] && !onHost[t])
      return fail(-1, "required output '" + g.tensor(t).name +
                          "' is not live at the end (on the device, or on "
                          "the host after an offload)");
  // Every node runs at least once: a schedule decides when and how often
  // things run, never whether the program's ops exist.
  for (NodeId n = 0; n < g.numNodes(); ++n)
    if (runs[n] == 0)
      return fail(-1, "node '" + g.node(n).name + "' never runs");
  r.time = std::max({clock, toHostFree, toDeviceFree});
  for (HostCopy &c : r.hostCopies)
    c.hidden = c.stall == 0 && c.offloadEnd <= clock && c.prefetchEnd <= clock;
  r.valid = true;
  return true;
}

} // namespace

SimulationResult simulate(const TrainingGraph &g, const Schedule &s,
                          const SimulatorOptions &opts) {
  const auto &steps = s.steps();
  Simulation sim(g, opts, steps);
  for (long i = 0; i < static_cast<long>(steps.size()); ++i)
    if (!sim.step(i, steps[i]))
      return sim.r;
  sim.finish();
  return sim.r;
}

} // namespace remat
