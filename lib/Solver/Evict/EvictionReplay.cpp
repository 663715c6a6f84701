//===- EvictionReplay.cpp - Replay a program, freeing what costs least ----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// planByEviction(): see Eviction.h. The replay keeps, per value, whether it
// is stored, how many pending runs need it (pinned values are never freed),
// and the positions of the targets that read it. Values whose producer may
// run again are the candidates for freeing; the others (graph inputs,
// required outputs, outputs of backward and non-recomputable nodes) stay
// until nothing can need them any more.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Evict/Eviction.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Support/CheckedArithmetic.h"

#include <algorithm>
#include <climits>
#include <cmath>

namespace remat {

namespace {

/// A replay scores candidates and walks freed ancestors at most this many
/// times per node of the graph (plans within budget need under 1,000 on the
/// model graphs and the 40,000-op ResNet): more means the budget makes it
/// recompute the same values over and over, and the plan would be poor.
constexpr int64_t kWorkPerNode = 4000;

class EvictionReplay {
public:
  EvictionReplay(const TrainingGraph &g, const std::vector<NodeId> &targets,
                 int64_t budget, const EvictionHeuristic &h)
      : g(g), targets(targets), budget(budget), h(h),
        maxWork(kWorkPerNode * (static_cast<int64_t>(g.numNodes()) + 64)) {
    index();
  }

  /// Builds the schedule in `storage`'s memory (its steps cleared).
  void useStorage(Schedule storage) {
    out = std::move(storage);
    out.steps().clear();
  }
  /// The schedule's memory, after a run that returned none.
  Schedule takeStorage() { return std::move(out); }

  EvictionPlan run() {
    mem = inputBytes(g);
    for (TensorId t = 0; t < g.numTensors(); ++t)
      live[t] = g.isInput(t);
    if (mem > budget) {
      fail("the graph inputs alone take " + std::to_string(mem) + " bytes");
      return std::move(plan);
    }
    for (long pos = 0; pos < static_cast<long>(targets.size()); ++pos) {
      from = pos;
      NodeId n = targets[pos];
      if (!(ran[n] && allOutputsStored(n)) && !compute(n))
        return std::move(plan);
      from = pos + 1; // Its reads are done.
      for (TensorId t : g.node(n).inputs)
        maybeFree(t, /*justRead=*/true);
      for (TensorId t : g.node(n).outputs)
        maybeFree(t, /*justRead=*/false);
    }
    plan.schedule = std::move(out);
    return std::move(plan);
  }

private:
  /// Per node whether it may run again; per tensor the targets reading it
  /// and the last target that may need it (directly, or to recompute a
  /// value read later).
  void index() {
    const int nn = g.numNodes(), nt = g.numTensors();
    rerun.assign(nn, 0);
    for (NodeId n = 0; n < nn; ++n) {
      const Node &node = g.node(n);
      bool r = g.isForward(n) && node.recomputable;
      for (TensorId t : node.outputs)
        r = r && !g.isRequired(t);
      rerun[n] = r;
    }
    reads.assign(nt, {});
    for (long pos = 0; pos < static_cast<long>(targets.size()); ++pos)
      for (TensorId t : g.node(targets[pos]).inputs)
        reads[t].push_back(pos);
    lastNeeded.assign(nt, -1);
    for (TensorId t = 0; t < nt; ++t)
      if (!reads[t].empty())
        lastNeeded[t] = reads[t].back();
    // The size term of a value's score does not change: computed once, not
    // at every choice of a value to free (pow on every candidate).
    sizeTerms.assign(nt, 0);
    for (TensorId t = 0; t < nt; ++t) {
      const double bytes = static_cast<double>(g.tensor(t).bytes);
      sizeTerms[t] = h.sizeWeight == 1 ? bytes : std::pow(bytes, h.sizeWeight);
    }
    // Distances are whole numbers of targets, at most twice their count:
    // their powers tabled (pow took 4 % of the 40k-op ResNet's pass).
    distTerms.resize(2 * targets.size() + 2);
    for (size_t d = 0; d < distTerms.size(); ++d)
      distTerms[d] = std::pow(static_cast<double>(d), h.distanceWeight);
    std::vector<NodeId> topo = g.topologicalOrder();
    for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
      if (!rerun[*it])
        continue;
      long m = -1;
      for (TensorId o : g.node(*it).outputs)
        m = std::max(m, lastNeeded[o]);
      for (TensorId i : g.node(*it).inputs)
        lastNeeded[i] = std::max(lastNeeded[i], m);
    }
    firstBackward = static_cast<long>(targets.size());
    for (long pos = 0; pos < static_cast<long>(targets.size()); ++pos)
      if (!g.isForward(targets[pos])) {
        firstBackward = pos;
        break;
      }
    cursor.assign(nt, 0);
    live.assign(nt, 0);
    pinned.assign(nt, 0);
    slot.assign(nt, -1);
    ran.assign(nn, 0);
    costMemo.assign(nn, 0);
    costKnown.assign(nn, 0);
  }

  bool fail(std::string why) {
    plan.reason = std::move(why);
    return false;
  }

  bool allOutputsStored(NodeId n) const {
    for (TensorId t : g.node(n).outputs)
      if (!live[t])
        return false;
    return true;
  }

  bool giveUp() {
    return fail("gave up after " + std::to_string(out.size()) +
                " steps: the budget forces recomputation after "
                "recomputation (thrashing)");
  }

  bool allInputsStored(NodeId n) const {
    for (TensorId t : g.node(n).inputs)
      if (!live[t])
        return false;
    return true;
  }

  /// The first target at or after `from` that reads `t`; LONG_MAX: none.
  long nextRead(TensorId t) {
    const std::vector<long> &r = reads[t];
    size_t &c = cursor[t];
    while (c < r.size() && r[c] < from)
      ++c;
    return c < r.size() ? r[c] : LONG_MAX;
  }

  /// Runs `n` after making its inputs stored, recomputing missing ones
  /// (depth first, with an explicit stack: chains may be thousands deep).
  /// A pending run pins all its inputs from the start, stored or not, so
  /// nothing it will read is freed while its other inputs are made.
  bool compute(NodeId n) {
    struct Frame {
      NodeId node;
      size_t next = 0; ///< Inputs found stored so far.
    };
    std::vector<Frame> stack;
    auto push = [&](NodeId m) {
      for (TensorId t : g.node(m).inputs)
        ++pinned[t];
      stack.push_back({m});
    };
    push(n);
    while (!stack.empty()) {
      if (++work > maxWork)
        return giveUp();
      Frame &f = stack.back();
      const Node &node = g.node(f.node);
      if (f.next < node.inputs.size()) {
        TensorId t = node.inputs[f.next];
        if (live[t]) {
          ++f.next;
          continue;
        }
        NodeId p = g.tensor(t).producer;
        if (p == kNone || !rerun[p] || !ran[p])
          return fail("internal error: " + g.tensor(t).name +
                      " is needed but can no longer be computed");
        push(p); // Invalidates f.
        continue;
      }
      // A view among the inputs may have gone with its source (a sibling
      // recomputed meanwhile): make the inputs stored again.
      if (!allInputsStored(f.node)) {
        f.next = 0;
        continue;
      }
      NodeId m = f.node;
      stack.pop_back();
      if (!execute(m))
        return false;
      for (TensorId t : g.node(m).inputs)
        --pinned[t];
      for (TensorId t : g.node(m).inputs)
        maybeFree(t, /*justRead=*/true);
      for (TensorId t : g.node(m).outputs)
        maybeFree(t, /*justRead=*/false);
    }
    return true;
  }

  /// Runs `n`, whose inputs are stored and pinned.
  bool execute(NodeId n) {
    const Node &node = g.node(n);
    // A recomputation stores every output again: drop the stored ones.
    for (TensorId t : node.outputs)
      if (live[t])
        release(t);
    int64_t need = node.workspace;
    for (TensorId t : node.outputs)
      need = saturatingAdd(need, g.tensor(t).bytes);
    if (!makeRoom(need, n))
      return false;
    out.run(n);
    ran[n] = 1;
    for (TensorId t : node.outputs)
      store(t);
    return true;
  }

  /// Frees candidates, cheapest first, until `need` more bytes fit.
  bool makeRoom(int64_t need, NodeId n) {
    while (saturatingAdd(mem, need) > budget) {
      TensorId victim = kNone;
      double best = INFINITY;
      work += static_cast<int64_t>(candidates.size());
      if (work > maxWork)
        return giveUp();
      for (TensorId t : candidates) {
        if (pinned[t])
          continue;
        double s = score(t);
        if (s < best || (s == best && t < victim)) {
          best = s;
          victim = t;
        }
      }
      if (victim == kNone)
        return fail("running " + g.node(n).name + " needs " +
                    std::to_string(saturatingAdd(mem, need)) +
                    " bytes with every value it needs stored");
      release(victim);
    }
    return true;
  }

  /// Low: free first. Recomputing `t` costs its producer's time plus the
  /// cost of restoring the inputs of the producer that are gone too, down to
  /// stored values (DTR's evicted neighbourhood, ancestors only): freeing a
  /// value next to freed ones would make a long chain to recompute, so the
  /// plan keeps checkpoints spread out.
  double score(TensorId t) {
    const Tensor &tensor = g.tensor(t);
    double cost = restoreCost(tensor.producer);
    // Values read by no target but kept to recompute others go first.
    long next = nextRead(t);
    double distance =
        next == LONG_MAX
            ? static_cast<double>(targets.size()) + (lastNeeded[t] - from + 1)
            : static_cast<double>(std::min(next, horizonAfter(from)) - from + 1);
    const double sizeTerm = sizeTerms[t];
    double distTerm =
        h.distanceWeight == 1 ? distance : distancePower(distance);
    return cost / (sizeTerm * distTerm);
  }

  /// distance ^ distanceWeight, from the table where it holds it.
  double distancePower(double distance) const {
    if (distance >= 0 && distance < static_cast<double>(distTerms.size()) &&
        distance == std::floor(distance))
      return distTerms[static_cast<size_t>(distance)];
    return std::pow(distance, h.distanceWeight);
  }

  /// Time to run `n` again from what is stored now. Post-order walk with
  /// an explicit stack: freed chains may be long. Memoized across choices
  /// (most candidates' costs do not change between two choices; rescoring
  /// them all walked 3-6 ancestors per candidate on the 40k-op ResNet):
  /// `forget` drops an entry when a value it read is stored or freed.
  double restoreCost(NodeId root) {
    walk.assign(1, root);
    while (!walk.empty()) {
      ++work;
      NodeId n = walk.back();
      if (costKnown[n]) {
        walk.pop_back();
        continue;
      }
      double cost = g.node(n).time;
      bool ready = true;
      for (TensorId i : g.node(n).inputs) {
        NodeId p = g.tensor(i).producer;
        if (live[i] || p == kNone)
          continue;
        if (costKnown[p]) {
          cost += costMemo[p];
        } else {
          walk.push_back(p);
          ready = false;
        }
      }
      if (!ready)
        continue;
      walk.pop_back();
      costKnown[n] = 1;
      costMemo[n] = cost;
    }
    return costMemo[root];
  }

  /// `t` was stored or freed: the cost of a node reading it changes, and so
  /// does that of every node whose cost added it through freed values.
  /// Known costs only ever rest on known costs, so the walk stops at
  /// forgotten ones.
  void storedChanged(TensorId t) {
    for (NodeId c : g.consumers(t))
      if (costKnown[c])
        forgetting.push_back(c);
    while (!forgetting.empty()) {
      NodeId n = forgetting.back();
      forgetting.pop_back();
      if (!costKnown[n])
        continue;
      costKnown[n] = 0;
      for (TensorId o : g.node(n).outputs)
        if (!live[o])
          for (NodeId c : g.consumers(o))
            if (costKnown[c])
              forgetting.push_back(c);
    }
  }

  /// In the forward part, memory peaks where the backward begins: freeing a
  /// value read only after that point helps as much whenever it is read, so
  /// reads beyond it count as at it and cost per byte decides. (Without
  /// this, early convolutions were freed before late paddings: 10 % overhead
  /// instead of 0.4 % on the 40,000-op ResNet at 70 %.)
  long horizonAfter(long pos) const {
    return pos < firstBackward ? firstBackward : LONG_MAX;
  }

  /// Zero bytes: in graphs of IR, a view (a reshape or slice; some cost a
  /// little time). Keeping one for recomputations saves no memory in the
  /// model, and a view kept long, then read by a recomputation, made the
  /// TinyTransformer step measure 8 KiB above the plan on the CPU (the
  /// lowering keeps more than the model says).
  bool isView(TensorId t) const {
    NodeId p = g.tensor(t).producer;
    return g.tensor(t).bytes == 0 && p != kNone && rerun[p];
  }

  /// Frees `t` once no pending or later run can need it: neither a target
  /// nor the recomputation of a value a target reads. Values kept only for
  /// recomputations are the first candidates when memory runs short; views
  /// (`justRead`: after a run read it) are not kept for them at all.
  void maybeFree(TensorId t, bool justRead) {
    if (!live[t] || pinned[t] || g.isInput(t) || g.isRequired(t))
      return;
    if (lastNeeded[t] >= from && !(justRead && isView(t) &&
                                   nextRead(t) == LONG_MAX))
      return;
    release(t);
  }

  void store(TensorId t) {
    live[t] = 1;
    storedChanged(t);
    mem = saturatingAdd(mem, g.tensor(t).bytes);
    if (rerun[g.tensor(t).producer] && g.tensor(t).bytes > 0) {
      slot[t] = static_cast<long>(candidates.size());
      candidates.push_back(t);
    }
  }

  /// Frees `t`, and the stored zero-byte values computed from it: in graphs
  /// of IR those are views (reshapes, slices) that alias its buffer, so a
  /// view kept while its source is recomputed would keep the old buffer
  /// alive in the IR although the plan counts it freed.
  void release(TensorId root) {
    std::vector<TensorId> work{root};
    while (!work.empty()) {
      TensorId t = work.back();
      work.pop_back();
      if (!live[t])
        continue;
      dropStored(t);
      for (NodeId c : g.consumers(t))
        if (rerun[c])
          for (TensorId o : g.node(c).outputs)
            if (live[o] && g.tensor(o).bytes == 0)
              work.push_back(o);
    }
  }

  void dropStored(TensorId t) {
    live[t] = 0;
    storedChanged(t);
    mem -= g.tensor(t).bytes;
    out.free(t);
    if (slot[t] >= 0) { // Swap-remove from the candidates.
      TensorId last = candidates.back();
      candidates[slot[t]] = last;
      slot[last] = slot[t];
      candidates.pop_back();
      slot[t] = -1;
    }
  }

  const TrainingGraph &g;
  const std::vector<NodeId> &targets;
  const int64_t budget;
  const EvictionHeuristic h;

  std::vector<char> rerun, ran, live;
  std::vector<std::vector<long>> reads;
  std::vector<size_t> cursor;
  std::vector<long> lastNeeded, slot;
  std::vector<int> pinned;
  std::vector<double> costMemo;
  std::vector<double> sizeTerms; ///< By tensor: bytes ^ sizeWeight.
  std::vector<double> distTerms; ///< By distance: d ^ distanceWeight.
  std::vector<char> costKnown; ///< By node: costMemo holds its cost now.
  std::vector<NodeId> walk, forgetting;
  std::vector<TensorId> candidates; ///< Stored values that may be freed.
  int64_t mem = 0;
  int64_t work = 0; ///< Candidates scored and ancestors walked so far.
  const int64_t maxWork;
  long from = 0;
  long firstBackward = 0; ///< Position of the first backward target. ///< Reads at targets before this position are done.
  Schedule out;
  EvictionPlan plan;
};

} // namespace

EvictionPlan planByEviction(const TrainingGraph &g,
                            const std::vector<NodeId> &targets, int64_t budget,
                            const EvictionHeuristic &heuristic,
                            Schedule *scratch) {
  EvictionReplay replay(g, targets, budget, heuristic);
  if (scratch)
    replay.useStorage(std::move(*scratch));
  EvictionPlan plan = replay.run();
  if (scratch && !plan.schedule)
    *scratch = replay.takeStorage();
  return plan;
}

} // namespace remat
