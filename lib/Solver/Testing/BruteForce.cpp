//===- BruteForce.cpp - Exhaustive optimum of tiny instances --------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Dijkstra over schedule states. A state is the set of stored non-input
// tensors plus the set of nodes that have run at least once (which also tells
// whether a run-once node is spent). Edges are the Simulator's steps: Run a
// node (storing all outputs, or, with allowDiscard, any subset of them) at the
// node's time, or Free a tensor at no cost; an edge exists only when it is
// valid and the memory held during it is <= budget. Since peak and validity
// depend only on the state before each step, the cheapest path to a goal state
// (every node ran, every required output stored) is an optimal schedule.
//
// An in-place node (Node::overwrites) also has the edge that frees the
// input it overwrites right after it, the run holding the two once.
//
// Two prunings keep the search small without losing optimality:
//  - "useful" nodes: a node is useful while it still has to run (never ran,
//    or run-once and not yet run), or when a recomputable forward node has an
//    output that a useful node reads or that is a required output not yet
//    stored. Running a useless node only costs time, so it is never tried.
//  - a stored tensor that no useful node reads (and that is not required) can
//    never be read again; it is freed right away, which costs nothing and
//    only lowers memory (unless a storedWith partner still needs it).
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Testing/BruteForce.h"
#include "remat/Solver/Chain/Chain.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <unordered_map>

namespace remat {

namespace {

using Mask = uint64_t;

struct Key {
  Mask live = 0; ///< Stored non-input tensors (local bit indices).
  Mask ran = 0;  ///< Nodes that ran at least once.
  bool operator==(const Key &o) const { return live == o.live && ran == o.ran; }
};

struct KeyHash {
  size_t operator()(const Key &k) const {
    uint64_t h = k.live * 0x9E3779B97F4A7C15ULL;
    h ^= (k.ran + 0x632BE59BD9B4E019ULL) * 0xC2B2AE3D27D4EB4FULL;
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

struct Record {
  Key key;
  double dist;
  int64_t parent; ///< -1 for the start.
  Step step;      ///< The explicit step from the parent (frees of dead
                  ///< tensors that follow it are re-derived on rebuild).
};

class Search {
public:
  Search(const TrainingGraph &g, int64_t budget, const BruteForceOptions &opts)
      : g_(g), budget_(budget), opts_(opts) {}

  std::optional<BruteForceResult> run();

private:
  void index();
  Mask usefulNodes(const Key &k) const;
  /// Frees every stored tensor that no useful node can read any more.
  Key dropDead(Key k) const;
  /// Whether `live` stores a tensor without its storedWith host.
  bool orphaned(Mask live) const;
  int64_t bytesOf(Mask live) const;
  bool goal(const Key &k) const;
  Schedule rebuild(int64_t rec) const;

  const TrainingGraph &g_;
  int64_t budget_;
  BruteForceOptions opts_;

  std::vector<int> bit_;            ///< TensorId -> local bit, -1 for inputs.
  std::vector<TensorId> tensorOf_;  ///< local bit -> TensorId.
  std::vector<int64_t> bytes_;      ///< local bit -> bytes.
  std::vector<Mask> outMask_;       ///< node -> local bits of its outputs.
  std::vector<Mask> inMask_;        ///< node -> local bits of its inputs.
  std::vector<Mask> readers_;       ///< local bit -> nodes reading it.
  std::vector<Mask> host_;          ///< local bit -> bits it needs stored.
  std::vector<char> once_;          ///< node runs at most once.
  std::vector<NodeId> reverseTopo_;
  Mask required_ = 0;
  Mask allNodes_ = 0;
  int64_t inputBytes_ = 0;

  std::vector<Record> records_;
};

void Search::index() {
  bit_.assign(g_.numTensors(), -1);
  for (TensorId t = 0; t < g_.numTensors(); ++t) {
    if (g_.isInput(t)) {
      inputBytes_ += g_.tensor(t).bytes;
      continue;
    }
    bit_[t] = static_cast<int>(tensorOf_.size());
    tensorOf_.push_back(t);
    bytes_.push_back(g_.tensor(t).bytes);
  }
  readers_.assign(tensorOf_.size(), 0);
  for (NodeId n = 0; n < g_.numNodes(); ++n) {
    const Node &node = g_.node(n);
    Mask in = 0, out = 0;
    for (TensorId t : node.inputs)
      if (bit_[t] >= 0) {
        in |= Mask(1) << bit_[t];
        readers_[bit_[t]] |= Mask(1) << n;
      }
    for (TensorId t : node.outputs)
      out |= Mask(1) << bit_[t];
    inMask_.push_back(in);
    outMask_.push_back(out);
    once_.push_back(node.kind == NodeKind::Backward || !node.recomputable);
    allNodes_ |= Mask(1) << n;
  }
  for (TensorId t : g_.requiredOutputs())
    if (bit_[t] >= 0)
      required_ |= Mask(1) << bit_[t];
  host_.assign(tensorOf_.size(), 0);
  for (auto [t, host] : opts_.storedWith)
    if (bit_[t] >= 0 && bit_[host] >= 0)
      host_[bit_[t]] |= Mask(1) << bit_[host];
  reverseTopo_ = g_.topologicalOrder();
  std::reverse(reverseTopo_.begin(), reverseTopo_.end());
}

Mask Search::usefulNodes(const Key &k) const {
  // Consumers come after producers in topological order, so one reverse pass
  // settles every node.
  Mask useful = 0;
  for (NodeId n : reverseTopo_) {
    Mask bitN = Mask(1) << n;
    bool ran = k.ran & bitN;
    bool u = !ran;
    if (ran && !once_[n]) {
      Mask out = outMask_[n];
      if (out & required_ & ~k.live)
        u = true;
      for (Mask m = out; m && !u; m &= m - 1)
        if (readers_[__builtin_ctzll(m)] & useful)
          u = true;
    }
    if (u)
      useful |= bitN;
  }
  return useful;
}

Key Search::dropDead(Key k) const {
  Mask useful = usefulNodes(k);
  Mask keep = k.live;
  for (Mask m = k.live & ~required_; m; m &= m - 1) {
    int b = __builtin_ctzll(m);
    if (!(readers_[b] & useful))
      keep &= ~(Mask(1) << b);
  }
  // A host stays while something stored with it stays.
  for (Mask m = keep; m; m &= m - 1)
    keep |= host_[__builtin_ctzll(m)];
  k.live = keep;
  return k;
}

bool Search::orphaned(Mask live) const {
  for (Mask m = live; m; m &= m - 1)
    if ((host_[__builtin_ctzll(m)] & live) != host_[__builtin_ctzll(m)])
      return true;
  return false;
}

int64_t Search::bytesOf(Mask live) const {
  int64_t s = inputBytes_;
  for (Mask m = live; m; m &= m - 1)
    s += bytes_[__builtin_ctzll(m)];
  return s;
}

bool Search::goal(const Key &k) const {
  return k.ran == allNodes_ && (k.live & required_) == required_;
}

Schedule Search::rebuild(int64_t rec) const {
  std::vector<int64_t> path;
  for (int64_t r = rec; r >= 0; r = records_[r].parent)
    path.push_back(r);
  std::reverse(path.begin(), path.end());
  Schedule s;
  for (size_t i = 1; i < path.size(); ++i) {
    const Record &prev = records_[path[i - 1]];
    const Record &cur = records_[path[i]];
    s.steps().push_back(cur.step);
    // Replay the explicit step; what else vanished was a dead-tensor free.
    Mask after = prev.key.live;
    if (cur.step.isFree()) {
      after &= ~(Mask(1) << bit_[cur.step.id]);
    } else {
      after |= outMask_[cur.step.id];
      for (TensorId t : cur.step.discard)
        after &= ~(Mask(1) << bit_[t]);
    }
    // Highest bit first: a chain's r^l goes before its host a^l.
    for (Mask m = after & ~cur.key.live; m; m &= ~(Mask(1) << (63 - __builtin_clzll(m))))
      s.free(tensorOf_[63 - __builtin_clzll(m)]);
  }
  return s;
}

std::optional<BruteForceResult> Search::run() {
  // Local bitsets: at most 64 stored tensors and 64 nodes.
  int nonInputs = 0;
  for (TensorId t = 0; t < g_.numTensors(); ++t)
    nonInputs += !g_.isInput(t);
  if (nonInputs > 64 || g_.numNodes() > 64 || g_.verify())
    return std::nullopt;
  index();

  BruteForceResult res;
  if (inputBytes_ > budget_)
    return res; // Infeasible: the inputs alone exceed the budget.

  std::unordered_map<Key, int64_t, KeyHash> seen;
  using Item = std::pair<double, int64_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
  auto relax = [&](const Key &k, double d, int64_t parent, Step step) {
    auto it = seen.find(k);
    if (it != seen.end()) {
      Record &r = records_[it->second];
      if (d < r.dist) {
        r.dist = d;
        r.parent = parent;
        r.step = std::move(step);
        queue.push({d, it->second});
      }
      return;
    }
    int64_t id = static_cast<int64_t>(records_.size());
    records_.push_back(Record{k, d, parent, std::move(step)});
    seen.emplace(k, id);
    queue.push({d, id});
  };
  relax(dropDead(Key{}), 0, -1, Step{});

  std::vector<TensorId> discard;
  while (!queue.empty()) {
    auto [d, id] = queue.top();
    queue.pop();
    if (d > records_[id].dist)
      continue; // Stale entry.
    if (static_cast<int64_t>(records_.size()) > opts_.maxStates)
      return std::nullopt;
    const Key k = records_[id].key;
    if (goal(k)) {
      res.feasible = true;
      res.time = d;
      res.schedule = rebuild(id);
      return res;
    }
    int64_t live = bytesOf(k.live);
    Mask useful = usefulNodes(k);

    // Free a stored tensor (inputs are not in the mask; required ones stay).
    for (Mask m = k.live & ~required_; m; m &= m - 1) {
      int b = __builtin_ctzll(m);
      if (orphaned(k.live & ~(Mask(1) << b)))
        continue;
      Key nk = dropDead(Key{k.live & ~(Mask(1) << b), k.ran});
      relax(nk, d, id, Step::free(tensorOf_[b]));
    }

    // Run a useful node whose inputs are stored.
    for (Mask m = useful; m; m &= m - 1) {
      NodeId n = __builtin_ctzll(m);
      if ((inMask_[n] & k.live) != inMask_[n])
        continue;
      const Node &node = g_.node(n);
      size_t nOut = node.outputs.size();
      // Subsets of outputs to discard; bit i of `sub` discards outputs[i].
      uint64_t subsets = opts_.allowDiscard ? (uint64_t(1) << nOut) : 1;
      for (uint64_t sub = 0; sub < subsets; ++sub) {
        Mask stored = 0;
        discard.clear();
        for (size_t i = 0; i < nOut; ++i) {
          TensorId t = node.outputs[i];
          if (sub & (uint64_t(1) << i))
            discard.push_back(t);
          else
            stored |= Mask(1) << bit_[t];
        }
        if (stored & k.live)
          continue; // The Simulator rejects storing a live tensor.
        if (orphaned(k.live | stored))
          continue;
        int64_t during = live + bytesOf(stored) - inputBytes_ + node.workspace;
        Mask ran = k.ran | (Mask(1) << n);
        if (during <= budget_)
          relax(dropDead(Key{k.live | stored, ran}), d + node.time, id,
                Step::run(n, discard));
        // In place (the Simulator's credit): the overwritten input freed
        // right after, the run holding it and the first output once.
        TensorId over = node.overwrites;
        if (over == kNone || bit_[over] < 0 || g_.isRequired(over) ||
            !(stored & (Mask(1) << bit_[node.outputs.front()])))
          continue;
        Mask gone = ~(Mask(1) << bit_[over]);
        Key ik = dropDead(Key{(k.live | stored) & gone, ran});
        if ((ik.live & ~gone) == 0 && during - g_.inPlaceBytes(node) <= budget_)
          relax(ik, d + node.time, id, Step::run(n, discard));
      }
    }
  }
  return res; // Exhausted: no schedule fits.
}

} // namespace

std::vector<std::pair<TensorId, TensorId>>
chainStoredWith(const ChainGraph &cg) {
  std::vector<std::pair<TensorId, TensorId>> pairs;
  for (int l = 1; l <= cg.length + 1; ++l) {
    pairs.emplace_back(cg.residual[l], cg.a[l]);
    pairs.emplace_back(cg.residual[l], cg.a[l - 1]);
  }
  return pairs;
}

std::optional<BruteForceResult>
bruteForceOptimum(const TrainingGraph &g, int64_t budget,
                  const BruteForceOptions &opts) {
  return Search(g, budget, opts).run();
}

} // namespace remat
