//===- ChainView.cpp - Chain view of a training graph ---------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Chain/ChainView.h"
#include "remat/Solver/Core/Simulator.h"

#include <algorithm>
#include <queue>
#include <tuple>

namespace remat {

std::string chainOpsString(const ChainOps &ops) {
  std::string s;
  for (const ChainStep &st : ops) {
    if (!s.empty())
      s += ' ';
    switch (st.op) {
    case ChainOp::FAll:
      s += "Fall";
      break;
    case ChainOp::FCheck:
      s += "Fck";
      break;
    case ChainOp::FNone:
      s += "Fn";
      break;
    case ChainOp::Backward:
      s += "B";
      break;
    }
    s += std::to_string(st.stage);
  }
  return s;
}

double chainOpsTime(const ChainSpec &chain, const ChainOps &ops) {
  double t = 0;
  for (const ChainStep &st : ops) {
    const ChainStage &c =
        st.stage <= chain.length() ? chain.stages[st.stage - 1] : chain.loss;
    t += st.op == ChainOp::Backward ? c.ub : c.uf;
  }
  return t;
}

namespace {

/// Forward nodes in a topological order where each node's ancestors come as
/// late as possible: depth-first post-order from the forward sinks, inputs
/// first. Nodes that only prepare parameters (weight transposes) land right
/// before their consumer instead of at the start, where they would make every
/// boundary cross two tensors.
std::vector<NodeId> forwardOrder(const TrainingGraph &g) {
  const int n = g.numNodes();
  std::vector<char> isSink(n, 0), seen(n, 0);
  for (NodeId v = 0; v < n; ++v) {
    if (!g.isForward(v))
      continue;
    isSink[v] = 1;
    for (TensorId t : g.node(v).outputs)
      for (NodeId c : g.consumers(t))
        if (g.isForward(c))
          isSink[v] = 0;
  }
  std::vector<NodeId> order;
  std::vector<std::pair<NodeId, size_t>> stack;
  for (NodeId root = 0; root < n; ++root) {
    if (!isSink[root])
      continue;
    stack.push_back({root, 0});
    seen[root] = 1;
    while (!stack.empty()) {
      auto &[v, next] = stack.back();
      const auto &in = g.node(v).inputs;
      if (next < in.size()) {
        TensorId t = in[next++];
        NodeId p = g.tensor(t).producer;
        if (p != kNone && !seen[p]) {
          seen[p] = 1;
          stack.push_back({p, 0});
        }
        continue;
      }
      order.push_back(v);
      stack.pop_back();
    }
  }
  return order;
}

int64_t sumBytes(const TrainingGraph &g, const std::vector<TensorId> &ts) {
  int64_t b = 0;
  for (TensorId t : ts)
    b += g.tensor(t).bytes;
  return b;
}

/// Peak bytes of running `nodes` alone: `inputs` stay live throughout,
/// outputs in `keep` stay, every other produced tensor dies after its last
/// read inside the group (right away when nothing there reads it). With
/// `discardRest`, outputs outside `keep` are never stored (a stage-level
/// F_ck). Graph inputs are excluded: they are live in every state. Inputs
/// in `dying` (part of inputBytes) die after their last read in the group.
int64_t groupPeak(const TrainingGraph &g, const std::vector<NodeId> &nodes,
                  int64_t inputBytes, const std::vector<char> &keep,
                  bool discardRest, std::vector<int> &lastIdx,
                  const std::vector<TensorId> &dying = {}) {
  for (size_t k = 0; k < nodes.size(); ++k)
    for (TensorId t : g.node(nodes[k]).inputs)
      lastIdx[t] = static_cast<int>(k);
  int64_t live = inputBytes, peak = inputBytes;
  std::vector<std::vector<TensorId>> dieAfter(nodes.size());
  for (TensorId t : dying)
    if (lastIdx[t] >= 0)
      dieAfter[lastIdx[t]].push_back(t);
  for (size_t k = 0; k < nodes.size(); ++k) {
    const Node &node = g.node(nodes[k]);
    int64_t stored = 0;
    for (TensorId t : node.outputs) {
      if (discardRest && !keep[t])
        continue;
      stored += g.tensor(t).bytes;
      if (!keep[t])
        dieAfter[std::max<int>(lastIdx[t], static_cast<int>(k))].push_back(t);
    }
    peak = std::max(peak, live + stored + node.workspace);
    live += stored;
    for (TensorId t : dieAfter[k])
      live -= g.tensor(t).bytes;
  }
  for (NodeId v : nodes)
    for (TensorId t : g.node(v).inputs)
      lastIdx[t] = -1;
  return peak;
}

} // namespace

namespace {

/// extractChain's phases, in order: cut points of the forward order, stages
/// merged until every backward node fits one stage, output readers moved
/// up, long chains coarsened, then the ChainSpec's numbers per stage.
class ChainExtractor {
public:
  ChainExtractor(const TrainingGraph &g, int maxStages, bool moveOutputReaders)
      : g(g), N(g.numNodes()), T(g.numTensors()), maxStages(maxStages),
        moveOutputReaders(moveOutputReaders) {}

  std::optional<ChainView> extract(std::string *why) {
    auto fail = [&](std::string msg) -> std::optional<ChainView> {
      if (why)
        *why = std::move(msg);
      return std::nullopt;
    };
    if (auto err = g.verify())
      return fail("malformed graph: " + *err);
    ford = forwardOrder(g);
    NF = static_cast<int>(ford.size());
    if (NF == 0)
      return fail("the graph has no forward nodes");
    pos.assign(N, -1);
    for (int i = 0; i < NF; ++i)
      pos[ford[i]] = i;
    findCutPoints();
    for (NodeId v : g.topologicalOrder())
      if (!g.isForward(v))
        btopo.push_back(v);
    assignStages();
    if (L == 0)
      return fail("the forward graph has no single-tensor cut point, so it is "
                  "not a chain of stages");
    moveOutputReaderBackwards();
    if (maxStages > 0 && L > maxStages)
      coarsen();
    buildGroups();
    markAbar();
    computeDeltas();
    fillStages();
    return std::move(view);
  }

private:
  bool producerIsForward(TensorId t) const {
    NodeId p = g.tensor(t).producer;
    return p != kNone && g.isForward(p);
  }

  /// Boundary i (1..NF-1) lies after the first i forward nodes. A forward
  /// tensor is open there if produced before it and read by a forward node
  /// after it; a boundary with exactly one open tensor is a cut point.
  void findCutPoints() {
    std::vector<int> open(NF + 1, 0);
    std::vector<int64_t> idSum(NF + 1, 0);
    for (TensorId t = 0; t < T; ++t) {
      if (!producerIsForward(t))
        continue;
      int p = pos[g.tensor(t).producer], last = p;
      for (NodeId c : g.consumers(t))
        if (g.isForward(c))
          last = std::max(last, pos[c]);
      if (last > p) {
        ++open[p + 1], --open[last + 1];
        idSum[p + 1] += t, idSum[last + 1] -= t;
      }
    }
    int count = 0;
    int64_t ids = 0;
    for (int i = 1; i < NF; ++i) {
      count += open[i];
      ids += idSum[i];
      // A tensor open at two cut boundaries would feed two later stages.
      if (count == 1 && (cutOf.empty() || cutOf.back() != ids)) {
        boundary.push_back(i);
        cutOf.push_back(static_cast<TensorId>(ids));
      }
    }
  }

  /// Merges stages until every backward node can run in a single stage.
  void assignStages() {
    active.assign(boundary.size(), 1);
    stage.assign(N, 0);
    while (mergeRound()) {
    }
  }

  /// One round: stages from the active cuts, nodes placed, and the cuts
  /// that must go marked; false when none must.
  bool mergeRound() {
    std::vector<int> activeIdx; // activeIdx[k-1] = index of cut k.
    cut.assign(1, kNone);
    for (size_t k = 0; k < boundary.size(); ++k)
      if (active[k]) {
        activeIdx.push_back(static_cast<int>(k));
        cut.push_back(cutOf[k]);
      }
    L = static_cast<int>(activeIdx.size());
    for (int i = 0, s = 1, k = 0; i < NF; ++i) {
      while (k < L && boundary[activeIdx[k]] <= i)
        ++k, ++s;
      stage[ford[i]] = s;
    }
    std::vector<char> kill(boundary.size(), 0);
    bool changed = false;
    // Stages first..last become one (cuts first..last-1 go).
    auto merge = [&](int first, int last) {
      for (int k = first; k < last; ++k)
        if (k >= 1 && k <= L)
          kill[activeIdx[k - 1]] = 1, changed = true;
    };
    // The loss stage runs once: it absorbs non-recomputable nodes and
    // required forward values (which could never be stored again).
    for (NodeId v : ford) {
      bool once = !g.node(v).recomputable;
      for (TensorId t : g.node(v).outputs)
        once |= g.isRequired(t);
      if (once)
        merge(stage[v], L + 1);
    }
    std::vector<char> fixed = placeForwardReaders(merge);
    placeOtherBackward(fixed);
    // Gradients flow from stage l+1's backward to stage l's, never upwards.
    for (NodeId b : btopo)
      for (TensorId t : g.node(b).inputs) {
        NodeId p = g.tensor(t).producer;
        if (p != kNone && !g.isForward(p) && stage[p] < stage[b])
          merge(stage[p], stage[b]);
      }
    if (!changed)
      return false;
    for (size_t k = 0; k < kill.size(); ++k)
      if (kill[k])
        active[k] = 0;
    return true;
  }

  /// A backward node reads values of its own stage and the stage's input:
  /// it runs in the highest stage it reads, and the stages between merge.
  template <typename Merge>
  std::vector<char> placeForwardReaders(Merge &merge) {
    std::vector<char> fixed(N, 0);
    for (NodeId b : btopo) {
      int hi = 0;
      for (TensorId t : g.node(b).inputs)
        if (producerIsForward(t))
          hi = std::max(hi, stage[g.tensor(t).producer]);
      if (hi == 0)
        continue;
      fixed[b] = 1;
      stage[b] = hi;
      for (TensorId t : g.node(b).inputs) {
        if (!producerIsForward(t))
          continue;
        int s = stage[g.tensor(t).producer];
        if (s == hi || (s == hi - 1 && t == cut[s]))
          continue;
        merge(t == cut[s] ? s + 1 : s, hi);
      }
    }
    return fixed;
  }

  /// Backward nodes that read no forward value.
  void placeOtherBackward(const std::vector<char> &fixed) {
    // They run as early as their inputs allow (gradient sums free their
    // inputs soonest); nodes without backward inputs run right before their
    // first consumer.
    std::vector<char> assigned(fixed);
    for (NodeId b : btopo) {
      if (fixed[b])
        continue;
      int s = 0;
      for (TensorId t : g.node(b).inputs) {
        NodeId p = g.tensor(t).producer;
        if (p != kNone && !g.isForward(p) && assigned[p])
          s = s == 0 ? stage[p] : std::min(s, stage[p]);
      }
      if (s > 0)
        stage[b] = s, assigned[b] = 1;
    }
    // Nodes that free less than they store (an input gradient g W^T whose g
    // a weight gradient still reads) rather run right before their first
    // consumer: early, their output would cross stage boundaries next to g.
    for (auto it = btopo.rbegin(); it != btopo.rend(); ++it) {
      NodeId b = *it;
      const Node &nb = g.node(b);
      int s = assigned[b] ? 0 : 1;
      if (assigned[b] && !fixed[b]) {
        int64_t out = 0, freed = 0;
        for (TensorId t : nb.outputs)
          out += g.tensor(t).bytes;
        for (TensorId t : nb.inputs)
          if (!g.isInput(t) && !g.isRequired(t) &&
              g.consumers(t).size() == 1)
            freed += g.tensor(t).bytes;
        if (out <= freed)
          continue;
      } else if (assigned[b]) {
        continue;
      }
      for (TensorId t : nb.outputs)
        for (NodeId c : g.consumers(t))
          s = std::max(s, stage[c]);
      if (s > 0 && (!assigned[b] || s < stage[b]))
        stage[b] = s;
      assigned[b] = 1;
    }
  }

  /// Removes the cuts l with !keep[l] (1..L): stages l and l+1 become one.
  void dropCuts(const std::vector<char> &keep) {
    std::vector<int> renum(L + 2, 0);
    std::vector<TensorId> kept{kNone};
    for (int l = 1, s = 1; l <= L + 1; ++l) {
      renum[l] = s;
      if (l <= L && keep[l])
        ++s, kept.push_back(cut[l]);
    }
    for (NodeId v = 0; v < N; ++v)
      if (stage[v] > 0)
        stage[v] = renum[stage[v]];
    cut = std::move(kept);
    L = static_cast<int>(cut.size()) - 1;
  }

  /// A stage whose backward reads no value of its own stage but a^l (exp's
  /// and relu's backward read their output) moves its backward up to stage
  /// l+1, where a^l is the input a rotor stage may read: then B^l needs no
  /// F_all^l, the chain DPs skip that recomputation (ChainStage::tape), and
  /// a^{l-1} is not held for it. Gradients still flow downwards: group l
  /// reads only groups >= l.
  void moveOutputReaderBackwards() {
    std::vector<char> shift(L + 2, 0);
    for (int l = 1; l <= L; ++l)
      shift[l] = moveOutputReaders;
    for (NodeId b : btopo)
      for (TensorId t : g.node(b).inputs)
        if (producerIsForward(t) && stage[b] <= L && t != cut[stage[b]])
          shift[stage[b]] = 0;
    for (NodeId b : btopo)
      stage[b] += shift[stage[b]];
    // A stage l >= 2 left without backward (a matmul before its relu) joins
    // stage l-1: B^l would read nothing, yet rotor's model holds a^{l-1}
    // until B^l. Its output becomes internal to the merged stage.
    std::vector<char> busy(L + 2, 0), keep(L + 1, 1);
    for (NodeId b : btopo)
      busy[stage[b]] = 1;
    for (int l = 2; l <= L; ++l)
      keep[l - 1] = busy[l];
    dropCuts(keep);
  }

  /// Long chains: merge adjacent stages, cheapest pair (forward + backward
  /// time) first, so that stages stay balanced and the chain DPs' O(L^2 S)
  /// tables and O(L^3 S) work stay bounded.
  void coarsen() {
    std::vector<double> cost(L + 2, 0);
    for (NodeId v = 0; v < N; ++v)
      if (stage[v] > 0)
        cost[stage[v]] += g.node(v).time;
    // Stages as a linked list; heap of (merged cost, left stage, versions).
    std::vector<int> next(L + 2), prev(L + 2), ver(L + 2, 0), head(L + 2);
    for (int l = 1; l <= L + 1; ++l)
      next[l] = l + 1, prev[l] = l - 1, head[l] = l;
    using Item = std::tuple<double, int, int, int>; // cost, l, ver l, ver r
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
    for (int l = 1; l <= L; ++l)
      heap.emplace(cost[l] + cost[l + 1], l, 0, 0);
    std::vector<char> keep(L + 1, 1);
    int stages = L + 1;
    while (stages > maxStages + 1 && !heap.empty()) {
      auto [c, l, vl, vr] = heap.top();
      heap.pop();
      int r = next[l];
      if (r > L + 1 || vl != ver[l] || vr != ver[r])
        continue; // Stale.
      keep[r - 1] = 0; // The cut between l and r (l's last stage) goes.
      cost[l] += cost[r];
      ++ver[l], ++ver[r]; // r is gone: its own pairs are stale too.
      next[l] = next[r];
      if (next[l] <= L + 1)
        prev[next[l]] = l;
      --stages;
      if (next[l] <= L + 1)
        heap.emplace(cost[l] + cost[next[l]], l, ver[l], ver[next[l]]);
      if (prev[l] >= 1)
        heap.emplace(cost[prev[l]] + cost[l], prev[l], ver[prev[l]], ver[l]);
    }
    dropCuts(keep);
  }

  void buildGroups() {
    view.cut = cut;
    view.forward.assign(L + 2, {});
    view.backward.assign(L + 2, {});
    for (NodeId v : ford)
      view.forward[stage[v]].push_back(v);
    for (NodeId b : btopo)
      view.backward[stage[b]].push_back(b);
    for (auto &group : view.backward)
      group = lowMemoryOrder(g, group);
  }

  /// abar^l: the stage's forward values that its backward reads or that are
  /// required, and a^l (rotor's convention: abar contains a).
  void markAbar() {
    inAbar.assign(T, 0);
    for (int l = 1; l <= L; ++l)
      inAbar[cut[l]] = 1;
    for (TensorId t = 0; t < T; ++t) {
      if (!producerIsForward(t))
        continue;
      int s = stage[g.tensor(t).producer];
      if (g.isRequired(t))
        inAbar[t] = 1;
      for (NodeId c : g.consumers(t))
        if (!g.isForward(c) && stage[c] == s)
          inAbar[t] = 1;
    }
  }

  /// delta^k: bytes live between B^{k+1} and B^k besides activations:
  /// gradients crossing the boundary, required outputs produced before it.
  /// shared[l]: the part of delta^l that B^l passes on into delta^{l-1}
  /// unchanged (live over both boundaries: accumulated parameter gradients,
  /// the loss), which B^l's peak d^l + d^{l-1} would count twice.
  void computeDeltas() {
    delta.assign(L + 3, 0); // Differences first, then prefix sums.
    shared.assign(L + 3, 0);
    auto liveOver = [&](int lo, int hi, int64_t bytes) { // boundaries lo..hi
      if (lo <= hi)
        delta[lo] += bytes, delta[hi + 1] -= bytes;
      if (lo + 1 <= hi)
        shared[lo + 1] += bytes, shared[hi + 1] -= bytes;
    };
    for (TensorId t = 0; t < T; ++t) {
      NodeId p = g.tensor(t).producer;
      if (p == kNone)
        continue;
      if (g.isForward(p)) {
        if (g.isRequired(t))
          liveOver(0, stage[p] - 1, g.tensor(t).bytes);
        continue;
      }
      int lr = g.isRequired(t) ? 0 : stage[p];
      for (NodeId c : g.consumers(t))
        lr = std::min(lr, stage[c]);
      liveOver(lr, stage[p] - 1, g.tensor(t).bytes);
    }
    for (int k = 1; k <= L + 2; ++k)
      delta[k] += delta[k - 1], shared[k] += shared[k - 1];
  }

  void fillStages() {
    ChainSpec &spec = view.spec;
    spec.a0 = inputBytes(g);
    spec.delta0 = delta[0];
    spec.stages.assign(L, {});
    view.discard.assign(L + 2, 0);
    lastIdx.assign(T, -1);
    keepCut.assign(T, 0);
    for (int l = 1; l <= L + 1; ++l) {
      ChainStage &st = l <= L ? spec.stages[l - 1] : spec.loss;
      st = ChainStage{};
      fillTimesAndTape(l, st);
      markDiscardable(l);
      fillForwardOverhead(l, st);
      fillBackwardOverhead(l, st);
    }
  }

  void fillTimesAndTape(int l, ChainStage &st) {
    std::vector<TensorId> abarSet;
    for (NodeId v : view.forward[l]) {
      st.uf += g.node(v).time;
      for (TensorId t : g.node(v).outputs)
        if (inAbar[t])
          abarSet.push_back(t);
    }
    // tape: B^l reads values of its own stage (else only a^{l-1}, delta^l).
    st.tape = false;
    for (NodeId b : view.backward[l]) {
      st.ub += g.node(b).time;
      for (TensorId t : g.node(b).inputs)
        if (producerIsForward(t) && stage[g.tensor(t).producer] == l)
          st.tape = true;
    }
    for (TensorId t : abarSet)
      st.tape |= g.isRequired(t);
    st.tape |= l == L + 1; // The loss stage runs its forward exactly once.
    st.a = l <= L ? g.tensor(cut[l]).bytes : 0;
    st.abar = sumBytes(g, abarSet);
    st.delta = l <= L ? delta[l] : 0;
  }

  /// A stage-level node (see ChainView::discard).
  void markDiscardable(int l) {
    if (view.forward[l].size() != 1 || view.backward[l].size() != 1)
      return;
    const Node &f = g.node(view.forward[l][0]);
    bool ok = f.type.empty();
    for (TensorId t : f.outputs) {
      if (l <= L && t == cut[l])
        continue;
      ok &= !g.isRequired(t);
      for (NodeId c : g.consumers(t))
        ok &= c == view.backward[l][0];
    }
    view.discard[l] = ok;
  }

  /// o_f: transient bytes beyond a^{l-1} and what the forward stores, the
  /// worse of storing abar (F_all) and storing a only (F_ck / F_none).
  void fillForwardOverhead(int l, ChainStage &st) {
    int64_t in = l > 1 ? g.tensor(cut[l - 1]).bytes : 0;
    int64_t all = groupPeak(g, view.forward[l], in, inAbar, false, lastIdx);
    st.of = std::max<int64_t>(0, all - in - st.abar);
    if (l <= L) {
      keepCut[cut[l]] = 1;
      int64_t ck = groupPeak(g, view.forward[l], in, keepCut,
                             view.discard[l] != 0, lastIdx);
      keepCut[cut[l]] = 0;
      st.of = std::max(st.of, ck - in - st.a);
    }
  }

  /// o_b: transient bytes beyond the backward's inputs and the outputs it
  /// leaves for later stages. Inputs that nothing after B^l reads die at
  /// their last read (the gradient from above, the stage's own forward
  /// values); a^{l-1} stays. (Backward readers in stages above l have run
  /// before B^l.)
  void fillBackwardOverhead(int l, ChainStage &st) {
    std::vector<TensorId> bin, bout, dying;
    std::vector<char> keepOut(T, 0);
    for (NodeId b : view.backward[l]) {
      for (TensorId t : g.node(b).inputs) {
        NodeId p = g.tensor(t).producer;
        if (p != kNone && (g.isForward(p) || stage[p] != l) &&
            std::find(bin.begin(), bin.end(), t) == bin.end()) {
          bin.push_back(t);
          bool dies = !g.isRequired(t) && (!g.isForward(p) || stage[p] == l);
          for (NodeId c : g.consumers(t)) // Stages above l ran before.
            dies &= g.isForward(c) || stage[c] >= l;
          if (dies)
            dying.push_back(t);
        }
      }
      for (TensorId t : g.node(b).outputs) {
        bool later = g.isRequired(t);
        for (NodeId c : g.consumers(t))
          later |= stage[c] != l;
        if (later)
          bout.push_back(t), keepOut[t] = 1;
      }
    }
    int64_t binBytes = sumBytes(g, bin);
    int64_t bpeak =
        groupPeak(g, view.backward[l], binBytes, keepOut, false, lastIdx,
                  dying);
    st.ob = std::max<int64_t>(0, bpeak - binBytes - sumBytes(g, bout)) -
            shared[l];
  }

  const TrainingGraph &g;
  const int N, T;
  const int maxStages;
  const bool moveOutputReaders;
  std::vector<NodeId> ford, btopo; ///< Forward order; backward topological.
  int NF = 0;
  std::vector<int> pos;            ///< Node -> index in ford.
  std::vector<int> boundary;       ///< Candidate cut boundaries, increasing.
  std::vector<TensorId> cutOf;     ///< Their cut tensors.
  std::vector<char> active;        ///< Per candidate: still a cut.
  std::vector<int> stage;          ///< Node -> stage (1..L+1).
  std::vector<TensorId> cut;       ///< cut[l]: a^l (1..L).
  int L = 0;                       ///< Stages before the loss stage.
  std::vector<char> inAbar, keepCut;
  std::vector<int64_t> delta, shared;
  std::vector<int> lastIdx;
  ChainView view;
};

} // namespace

std::optional<ChainView> extractChain(const TrainingGraph &g,
                                      std::string *why, int maxStages,
                                      bool moveOutputReaders) {
  return ChainExtractor(g, maxStages, moveOutputReaders).extract(why);
}

ChainView chainGraphView(const ChainGraph &cg, const ChainSpec &spec) {
  ChainView v;
  v.spec = spec;
  const int L = cg.length;
  v.forward.assign(L + 2, {});
  v.backward.assign(L + 2, {});
  v.cut.assign(L + 1, kNone);
  v.discard.assign(L + 2, 1);
  for (int l = 1; l <= L + 1; ++l) {
    v.forward[l] = {cg.forward[l]};
    v.backward[l] = {cg.backward[l]};
    if (l <= L)
      v.cut[l] = cg.a[l];
  }
  return v;
}

Schedule expandChainSchedule(const TrainingGraph &g, const ChainView &view,
                             const ChainOps &ops) {
  Schedule s;
  for (const ChainStep &st : ops) {
    const int l = st.stage;
    if (st.op == ChainOp::Backward) {
      for (NodeId b : view.backward[l])
        s.run(b);
      continue;
    }
    if (st.op != ChainOp::FAll && view.discard[l]) {
      NodeId f = view.forward[l][0];
      std::vector<TensorId> drop;
      for (TensorId t : g.node(f).outputs)
        if (l > view.length() || t != view.cut[l])
          drop.push_back(t);
      s.run(f, std::move(drop));
      continue;
    }
    for (NodeId v : view.forward[l])
      s.run(v);
  }
  return s.withEagerFrees(g);
}

} // namespace remat
