//===- Schedule.cpp -------------------------------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Core/Schedule.h"

#include <algorithm>
#include <sstream>

namespace remat {

void Schedule::append(const Schedule &other) {
  steps_.insert(steps_.end(), other.steps_.begin(), other.steps_.end());
}

std::vector<int> Schedule::runCounts(const TrainingGraph &g) const {
  std::vector<int> counts(g.numNodes(), 0);
  for (const Step &s : steps_)
    if (s.isRun() && s.id >= 0 && s.id < g.numNodes())
      ++counts[s.id];
  return counts;
}

bool Schedule::hasCopies() const {
  return std::any_of(steps_.begin(), steps_.end(),
                     [](const Step &s) { return s.isCopy(); });
}

Schedule Schedule::withEagerFrees(const TrainingGraph &g) const {
  // Runs and copy steps, in order; frees go after them.
  std::vector<const Step *> events;
  for (const Step &s : steps_)
    if (!s.isFree())
      events.push_back(&s);

  // For every stored tensor instance, the event index after which it dies.
  // lastUse[t] tracks the current instance of t: the index of the run that
  // produced it or last read it (or the prefetch that brought it back).
  // -1: not stored on the device.
  std::vector<long> lastUse(g.numTensors(), -1);
  std::vector<std::vector<TensorId>> freesAfter(events.size());
  auto retire = [&](TensorId t) {
    if (lastUse[t] >= 0 && !g.isInput(t) && !g.isRequired(t))
      freesAfter[lastUse[t]].push_back(t);
    lastUse[t] = -1;
  };
  for (long i = 0; i < static_cast<long>(events.size()); ++i) {
    const Step &s = *events[i];
    if (s.isAwait())
      continue; // Moves no bytes itself: the copy it waits for did.
    if (s.isCopy()) {
      if (s.id < 0 || s.id >= g.numTensors())
        continue; // The Simulator reports it.
      if (s.isOffload()) {
        lastUse[s.id] = -1; // The copy releases it: no Free.
      } else {
        retire(s.id);
        lastUse[s.id] = i;
      }
      continue;
    }
    if (s.id < 0 || s.id >= g.numNodes())
      continue; // The Simulator reports it.
    const Node &n = g.node(s.id);
    for (TensorId t : n.inputs)
      if (t >= 0 && t < g.numTensors() && lastUse[t] >= 0)
        lastUse[t] = i;
    for (TensorId t : n.outputs) {
      retire(t); // A recomputation replaces the previous instance.
      bool discarded =
          std::find(s.discard.begin(), s.discard.end(), t) != s.discard.end();
      if (!discarded)
        lastUse[t] = i;
    }
  }
  for (TensorId t = 0; t < g.numTensors(); ++t)
    retire(t);

  Schedule out;
  for (size_t i = 0; i < events.size(); ++i) {
    out.steps_.push_back(*events[i]);
    std::sort(freesAfter[i].begin(), freesAfter[i].end());
    for (TensorId t : freesAfter[i])
      out.free(t);
  }
  return out;
}

std::string Schedule::str(const TrainingGraph &g) const {
  std::ostringstream os;
  for (const Step &s : steps_) {
    if (s.isRun()) {
      os << "run " << g.node(s.id).name;
      for (TensorId t : s.discard)
        os << " -" << g.tensor(t).name;
    } else {
      const char *verb = s.isFree()      ? "free "
                         : s.isOffload() ? "offload "
                         : s.isAwait()   ? "await "
                                         : "prefetch ";
      os << verb << g.tensor(s.id).name;
    }
    os << '\n';
  }
  return os.str();
}

Schedule keepEverythingSchedule(const TrainingGraph &g) {
  Schedule s;
  for (NodeId n : g.defaultOrder())
    s.run(n);
  return s.withEagerFrees(g);
}

} // namespace remat
