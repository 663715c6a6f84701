//===- LowerSetModel.cpp - V, Eq. (1)/(2) and the canonical strategy ------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/LowerSet/LowerSet.h"
#include "remat/Solver/Core/Simulator.h"

#include <algorithm>

namespace remat {

LowerSetModel::LowerSetModel(const TrainingGraph &g) : g_(g) {
  std::vector<NodeId> topo = g.topologicalOrder();
  index_.assign(g.numNodes(), -1);
  bwdIndexOfNode_.assign(g.numNodes(), -1);
  for (NodeId n : topo) {
    if (g.isForward(n)) {
      index_[n] = static_cast<int>(nodes_.size());
      nodes_.push_back(n);
    } else {
      bwdIndexOfNode_[n] = static_cast<int>(bwd_.size());
      bwd_.push_back(n);
    }
  }
  n_ = static_cast<int>(nodes_.size());
  words_ = std::max(1, (n_ + 63) / 64);
  readForwardNodes();
  computeAncestors();
  readBackwardNodes();
  for (int b = 0; b < static_cast<int>(bwd_.size()); ++b)
    if (wsB_[b] > 0)
      wsBwdByWs_.push_back(b);
  std::stable_sort(wsBwdByWs_.begin(), wsBwdByWs_.end(),
                   [&](int x, int y) { return wsB_[x] > wsB_[y]; });
  stamp_.assign(g.numTensors(), 0);
}

void LowerSetModel::readForwardNodes() {
  const TrainingGraph &g = g_;
  succ_.assign(n_, {});
  pred_.assign(n_, {});
  mem_.assign(n_, 0);
  wsF_.assign(n_, 0);
  time_.assign(n_, 0);
  nr_.assign(n_, 0);
  base_ = inputBytes(g);
  auto fwdProducer = [&](TensorId t) {
    NodeId p = g.tensor(t).producer;
    return p == kNone ? -1 : index_[p];
  };
  for (int v = 0; v < n_; ++v) {
    const Node &node = g.node(nodes_[v]);
    time_[v] = node.time;
    wsF_[v] = node.workspace;
    nr_[v] = !node.recomputable;
    for (TensorId t : node.outputs) {
      if (g.isRequired(t))
        base_ += g.tensor(t).bytes; // Live from its production on.
      else
        mem_[v] += g.tensor(t).bytes;
    }
    for (TensorId t : node.inputs) {
      int p = fwdProducer(t);
      if (p >= 0 && std::find(pred_[v].begin(), pred_[v].end(), p) ==
                        pred_[v].end()) {
        pred_[v].push_back(p);
        succ_[p].push_back(v);
      }
    }
    if (wsF_[v] > 0)
      wsFwdNodes_.push_back(v);
  }
}

void LowerSetModel::computeAncestors() {
  anc_.assign(size_t(n_) * words_, 0);
  for (int v = 0; v < n_; ++v) {
    uint64_t *a = &anc_[size_t(v) * words_];
    setAdd(a, v);
    for (int p : pred_[v])
      for (int w = 0; w < words_; ++w)
        a[w] |= anc_[size_t(p) * words_ + w];
  }
}

void LowerSetModel::readBackwardNodes() {
  const TrainingGraph &g = g_;
  // Backward nodes: reads, and the minimal forward nodes of F(b), the forward
  // nodes b or a backward node it depends on reads. b runs in the step of
  // the first segment meeting F(b), i.e. b is in R(L) iff F(b) meets L, iff
  // one of its minimal elements is in L (L is a lower set).
  const int nb = static_cast<int>(bwd_.size());
  minF_.assign(nb, {});
  bwdOut_.assign(nb, 0);
  wsB_.assign(nb, 0);
  fwdReads_.assign(nb, {});
  bwdReads_.assign(nb, {});
  for (int b = 0; b < nb; ++b) {
    const Node &node = g.node(bwd_[b]);
    wsB_[b] = node.workspace;
    for (TensorId t : node.outputs) {
      bwdOut_[b] += g.tensor(t).bytes;
      if (g.isRequired(t))
        requiredBwd_.push_back(t);
    }
    std::vector<int> cand;
    for (TensorId t : node.inputs) {
      NodeId p = g.tensor(t).producer;
      if (p == kNone)
        continue;
      if (g.isForward(p)) {
        cand.push_back(index_[p]);
        if (!g.isRequired(t))
          fwdReads_[b].push_back(t);
      } else {
        bwdReads_[b].push_back(t);
        const std::vector<int> &m = minF_[bwdIndexOfNode_[p]];
        cand.insert(cand.end(), m.begin(), m.end());
      }
    }
    std::sort(cand.begin(), cand.end());
    cand.erase(std::unique(cand.begin(), cand.end()), cand.end());
    for (int v : cand) {
      bool minimal = true;
      for (int u : cand)
        if (u != v && setHas(ancestors(v), u)) {
          minimal = false;
          break;
        }
      if (minimal)
        minF_[b].push_back(v);
    }
  }
}

NodeSet LowerSetModel::fullSet() const {
  NodeSet s(words_, 0);
  for (int v = 0; v < n_; ++v)
    setAdd(s.data(), v);
  return s;
}

bool LowerSetModel::inR(int b, const uint64_t *set, bool full) const {
  // Backward nodes reading no forward value run in the first backward step.
  if (minF_[b].empty())
    return full;
  for (int v : minF_[b])
    if (setHas(set, v))
      return true;
  return false;
}

LowerSetInfo LowerSetModel::info(const uint64_t *set) const {
  LowerSetInfo in;
  for (int w = 0; w < words_; ++w)
    for (uint64_t bits = set[w]; bits; bits &= bits - 1) {
      int v = w * 64 + __builtin_ctzll(bits);
      ++in.size;
      in.mem += mem_[v];
      in.time += time_[v];
      if (nr_[v]) {
        in.memNR += mem_[v];
        in.timeNR += time_[v];
        continue;
      }
      for (int s : succ_[v])
        if (!setHas(set, s)) {
          in.boundary.push_back(v);
          in.memD += mem_[v];
          in.timeD += time_[v];
          break;
        }
    }
  in.memD += in.memNR;
  in.timeD += in.timeNR;
  in.full = in.size == n_;

  // R(L), then X(L): forward values outside L read by R(L), and backward
  // values produced outside R(L) that R(L) reads or that are required.
  const int nb = static_cast<int>(bwd_.size());
  std::vector<char> r(nb, 0);
  for (int b = 0; b < nb; ++b)
    if (inR(b, set, in.full)) {
      r[b] = 1;
      in.bwdBytes += bwdOut_[b];
    }
  if (++stampNow_ == 0) {
    std::fill(stamp_.begin(), stamp_.end(), 0);
    stampNow_ = 1;
  }
  for (int b = 0; b < nb; ++b) {
    if (!r[b])
      continue;
    for (TensorId t : fwdReads_[b])
      if (stamp_[t] != stampNow_ &&
          !setHas(set, index_[g_.tensor(t).producer])) {
        stamp_[t] = stampNow_;
        in.extra += g_.tensor(t).bytes;
      }
    for (TensorId t : bwdReads_[b])
      if (stamp_[t] != stampNow_ &&
          !r[bwdIndexOfNode_[g_.tensor(t).producer]]) {
        stamp_[t] = stampNow_;
        in.extra += g_.tensor(t).bytes;
      }
  }
  for (TensorId t : requiredBwd_)
    if (stamp_[t] != stampNow_ && !r[bwdIndexOfNode_[g_.tensor(t).producer]]) {
      stamp_[t] = stampNow_;
      in.extra += g_.tensor(t).bytes;
    }
  return in;
}

int64_t LowerSetModel::workspace(const uint64_t *from, bool fromFull,
                                 const uint64_t *to, bool toFull) const {
  int64_t ws = 0;
  for (int v : wsFwdNodes_)
    if (setHas(to, v) && !setHas(from, v))
      ws = std::max(ws, wsF_[v]);
  for (int b : wsBwdByWs_) {
    if (wsB_[b] <= ws)
      break; // Sorted by decreasing workspace.
    if (inR(b, to, toFull) && !inR(b, from, fromFull)) {
      ws = wsB_[b];
      break;
    }
  }
  return ws;
}

LowerSetStep LowerSetModel::step(const uint64_t *from, const LowerSetInfo &fi,
                                 const uint64_t *to,
                                 const LowerSetInfo &ti) const {
  // D(L') meets L only in d(L') and in the non-recomputable nodes of L;
  // those were cached in earlier steps (d(L') & L is inside d(L)).
  int64_t interMem = fi.memNR;
  double interTime = fi.timeNR;
  for (int v : ti.boundary)
    if (setHas(from, v)) {
      interMem += mem_[v];
      interTime += time_[v];
    }
  LowerSetStep st;
  st.cached = ti.memD - interMem;
  st.overhead =
      ti.full ? 0 : (ti.time - fi.time) - (ti.timeD - interTime);
  st.peak = ti.mem - fi.mem + ti.bwdBytes - fi.bwdBytes + ti.extra;
  if (!wsFwdNodes_.empty() || !wsBwdByWs_.empty())
    st.peak += workspace(from, fi.full, to, ti.full);
  return st;
}

LowerSetModel::Cost
LowerSetModel::evaluate(const std::vector<NodeSet> &seq) const {
  Cost c;
  NodeSet prev(words_, 0);
  LowerSetInfo pi = info(prev.data());
  int64_t cached = 0, peak = 0;
  for (const NodeSet &l : seq) {
    LowerSetInfo li = info(l.data());
    LowerSetStep st = step(prev.data(), pi, l.data(), li);
    peak = std::max(peak, cached + st.peak);
    c.overhead += st.overhead;
    cached += st.cached;
    prev = l;
    pi = std::move(li);
  }
  c.peak = base_ + peak;
  return c;
}

Schedule
LowerSetModel::canonicalSchedule(const std::vector<NodeSet> &seq,
                                  RecomputeTiming timing) const {
  const int k = static_cast<int>(seq.size());
  // seg[v]: the segment (1-based) holding v; cached: never recomputed.
  std::vector<int> seg(n_, k);
  for (int v = 0; v < n_; ++v)
    for (int i = 0; i < k; ++i)
      if (setHas(seq[i].data(), v)) {
        seg[v] = i + 1;
        break;
      }
  std::vector<char> cached(n_, 0);
  for (int v = 0; v < n_; ++v) {
    cached[v] = nr_[v] || seg[v] == k;
    for (int s : succ_[v])
      if (seg[s] > seg[v])
        cached[v] = 1; // In d(L_seg(v)).
  }
  // A backward node runs in the step of the earliest segment it depends on.
  const int nb = static_cast<int>(bwd_.size());
  std::vector<int> bseg(nb, k);
  for (int b = 0; b < nb; ++b)
    for (TensorId t : g_.node(bwd_[b]).inputs) {
      NodeId p = g_.tensor(t).producer;
      if (p == kNone)
        continue;
      int s = g_.isForward(p) ? seg[index_[p]] : bseg[bwdIndexOfNode_[p]];
      bseg[b] = std::min(bseg[b], s);
    }

  Schedule s;
  for (int i = 1; i <= k; ++i)
    for (int v = 0; v < n_; ++v)
      if (seg[v] == i)
        s.run(nodes_[v]);
  // minBwdStep[v]: the earliest step (lowest index) whose backward nodes
  // read v, or k + 1.
  std::vector<int> minBwdStep(n_, k + 1);
  for (int b = 0; b < nb; ++b)
    for (TensorId t : g_.node(bwd_[b]).inputs) {
      NodeId p = g_.tensor(t).producer;
      if (p != kNone && g_.isForward(p))
        minBwdStep[index_[p]] = std::min(minBwdStep[index_[p]], bseg[b]);
    }
  std::vector<char> needed(n_, 0), recomputed(n_, 0);
  std::vector<int> stack, closure;
  for (int i = k; i >= 1; --i) {
    std::vector<NodeId> group;
    for (int b = 0; b < nb; ++b)
      if (bseg[b] == i)
        group.push_back(bwd_[b]);
    group = lowMemoryOrder(g_, group);
    if (i < k && timing == RecomputeTiming::JustInTime) {
      // Before each backward node, what it reads from V_i and is not live,
      // with what that needs, in topological order.
      for (NodeId b : group) {
        stack.clear();
        closure.clear();
        for (TensorId t : g_.node(b).inputs) {
          NodeId p = g_.tensor(t).producer;
          if (p != kNone && g_.isForward(p))
            stack.push_back(index_[p]);
        }
        while (!stack.empty()) {
          int v = stack.back();
          stack.pop_back();
          if (seg[v] != i || cached[v] || recomputed[v])
            continue;
          recomputed[v] = 1;
          closure.push_back(v);
          for (int u : pred_[v])
            stack.push_back(u);
        }
        std::sort(closure.begin(), closure.end());
        for (int v : closure)
          s.run(nodes_[v]);
        s.run(b);
      }
      continue;
    }
    if (i < k) {
      // Recompute what steps <= i read, in reverse topological order.
      for (int v = n_ - 1; v >= 0; --v) {
        if (seg[v] != i || cached[v])
          continue;
        needed[v] = minBwdStep[v] <= i;
        for (int w : succ_[v])
          if (seg[w] == i && needed[w] && !cached[w])
            needed[v] = 1;
      }
      for (int v = 0; v < n_; ++v)
        if (seg[v] == i && needed[v] && !cached[v])
          s.run(nodes_[v]);
    }
    for (NodeId b : group)
      s.run(b);
  }
  return s.withEagerFrees(g_);
}

} // namespace remat
