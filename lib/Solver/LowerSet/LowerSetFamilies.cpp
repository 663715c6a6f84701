//===- LowerSetFamilies.cpp - All lower sets, or the pruned family L_v ----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/LowerSet/LowerSet.h"

#include <algorithm>
#include <numeric>

namespace remat {

namespace {

/// Open-addressing set of bitsets stored in a family (ids index its bits).
class SetTable {
public:
  SetTable(const std::vector<uint64_t> &bits, int words)
      : bits_(bits), words_(words), slots_(1024, -1) {}

  /// The id of `s` if present, else -1.
  int find(const uint64_t *s) const {
    for (size_t i = hash(s) & (slots_.size() - 1);;
         i = (i + 1) & (slots_.size() - 1)) {
      int id = slots_[i];
      if (id < 0)
        return -1;
      if (std::equal(s, s + words_, &bits_[size_t(id) * words_]))
        return id;
    }
  }
  /// Records id (whose bits are already in the family).
  void insert(int id) {
    if (++count_ * 2 > slots_.size())
      grow();
    place(id);
  }

private:
  size_t hash(const uint64_t *s) const {
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (int w = 0; w < words_; ++w)
      h = (h ^ s[w]) * 0xBF58476D1CE4E5B9ull, h ^= h >> 29;
    return static_cast<size_t>(h);
  }
  void place(int id) {
    size_t i = hash(&bits_[size_t(id) * words_]) & (slots_.size() - 1);
    while (slots_[i] >= 0)
      i = (i + 1) & (slots_.size() - 1);
    slots_[i] = id;
  }
  void grow() {
    std::vector<int> old;
    old.swap(slots_);
    slots_.assign(old.size() * 2, -1);
    for (int id : old)
      if (id >= 0)
        place(id);
  }

  const std::vector<uint64_t> &bits_;
  int words_;
  std::vector<int> slots_;
  size_t count_ = 0;
};

/// The transpose of the family's child edges.
void addParents(LowerSetFamily &f) {
  const int n = f.size();
  f.parentStart.assign(n + 1, 0);
  for (int c : f.children)
    ++f.parentStart[c + 1];
  for (int i = 0; i < n; ++i)
    f.parentStart[i + 1] += f.parentStart[i];
  f.parents.assign(f.children.size(), 0);
  std::vector<int> fill(f.parentStart.begin(), f.parentStart.end() - 1);
  for (int s = 0; s < n; ++s)
    for (int i = f.childStart[s]; i < f.childStart[s + 1]; ++i)
      f.parents[fill[f.children[i]]++] = s;
}

} // namespace

LowerSetFamily allLowerSets(const LowerSetModel &m, int64_t cap) {
  LowerSetFamily f;
  const int n = m.size(), W = m.words();
  f.words = W;
  f.bits.assign(W, 0); // The empty set.
  SetTable table(f.bits, W);
  table.insert(0);
  f.childStart.push_back(0);
  std::vector<uint64_t> child(W);
  // Breadth first from the empty set: ids come out sorted by size, a linear
  // extension of inclusion, which is the order the DP needs.
  for (int id = 0; id < static_cast<int>(f.bits.size() / W); ++id) {
    for (int v = 0; v < n; ++v) {
      const uint64_t *s = f.set(id);
      if (setHas(s, v))
        continue;
      bool addable = true;
      for (int p : m.pred(v))
        if (!setHas(s, p)) {
          addable = false;
          break;
        }
      if (!addable)
        continue;
      std::copy(s, s + W, child.begin());
      setAdd(child.data(), v);
      int c = table.find(child.data());
      if (c < 0) {
        c = static_cast<int>(f.bits.size() / W);
        if (c >= cap) {
          f.complete = false;
          break;
        }
        f.bits.insert(f.bits.end(), child.begin(), child.end());
        table.insert(c);
      }
      f.children.push_back(c);
    }
    f.childStart.push_back(static_cast<int>(f.children.size()));
    if (!f.complete)
      break;
  }
  if (!f.complete) {
    f.bits.clear();
    f.childStart.clear();
    f.children.clear();
    return f;
  }
  int count = static_cast<int>(f.bits.size() / W);
  f.info.reserve(count);
  for (int id = 0; id < count; ++id)
    f.info.push_back(m.info(f.set(id)));
  f.fullId = count - 1; // The only set of size n, found last.
  addParents(f);
  return f;
}

LowerSetFamily prunedLowerSets(const LowerSetModel &m, int maxSets) {
  const int n = m.size(), W = m.words();
  NodeSet full = m.fullSet();
  // With maxSets, the nodes (in their topological numbering) are cut into
  // maxSets runs and only the slowest node of each keeps its L_v: segment
  // boundaries spread over the whole graph, each caching an expensive value
  // (a convolution, a matmul), which is what cuts the overhead.
  std::vector<char> kept(n, 1);
  if (maxSets > 0 && maxSets < n) {
    std::fill(kept.begin(), kept.end(), 0);
    for (int b = 0; b < maxSets; ++b) {
      int lo = int(int64_t(n) * b / maxSets), hi = int(int64_t(n) * (b + 1) / maxSets);
      int best = lo;
      for (int v = lo; v < hi; ++v)
        if (m.time(v) > m.time(best))
          best = v;
      if (lo < hi)
        kept[best] = 1;
    }
  }
  // Candidates: the empty set, L_v for each kept v, and V unless it is
  // some L_v. setOf[v]: the candidate index of L_v, -1 when not kept.
  std::vector<NodeSet> sets{NodeSet(W, 0)};
  std::vector<int> setOf(n, -1);
  for (int v = 0; v < n; ++v)
    if (kept[v]) {
      setOf[v] = static_cast<int>(sets.size());
      sets.emplace_back(m.ancestors(v), m.ancestors(v) + W);
    }
  bool haveFull = n == 0; // Then V is the empty set.
  for (size_t i = 1; i < sets.size() && !haveFull; ++i)
    haveFull = sets[i] == full;
  if (!haveFull)
    sets.push_back(full);
  auto popcount = [&](const NodeSet &s) {
    int c = 0;
    for (uint64_t w : s)
      c += __builtin_popcountll(w);
    return c;
  };
  std::vector<int> sizes(sets.size());
  for (size_t i = 0; i < sets.size(); ++i)
    sizes[i] = popcount(sets[i]);
  std::vector<int> order(sets.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return sizes[a] < sizes[b]; });
  std::vector<int> idOf(sets.size());
  LowerSetFamily f;
  f.words = W;
  f.pruned = true;
  for (size_t i = 0; i < order.size(); ++i) {
    idOf[order[i]] = static_cast<int>(i);
    f.bits.insert(f.bits.end(), sets[order[i]].begin(), sets[order[i]].end());
    f.info.push_back(m.info(sets[order[i]].data()));
    if (sets[order[i]] == full)
      f.fullId = static_cast<int>(i);
  }
  // Edges: the empty set -> L_r for roots r; L_u -> L_w for u -> w. The L_x
  // containing L_u are those of the descendants x of u. Thinned: to the
  // nearest kept nodes along paths through dropped ones.
  std::vector<std::vector<int>> adj(sets.size());
  std::vector<int> seen(n, -1), stack;
  auto link = [&](int from, const std::vector<int> &starts) {
    stack.assign(starts.begin(), starts.end());
    while (!stack.empty()) {
      int w = stack.back();
      stack.pop_back();
      if (seen[w] == from)
        continue;
      seen[w] = from;
      if (kept[w]) {
        adj[idOf[from]].push_back(idOf[setOf[w]]);
        continue;
      }
      stack.insert(stack.end(), m.succ(w).begin(), m.succ(w).end());
    }
  };
  std::vector<int> roots;
  for (int v = 0; v < n; ++v)
    if (m.pred(v).empty())
      roots.push_back(v);
  link(0, roots);
  for (int v = 0; v < n; ++v)
    if (kept[v])
      link(setOf[v], m.succ(v));
  f.childStart.push_back(0);
  for (size_t id = 0; id < adj.size(); ++id) {
    f.children.insert(f.children.end(), adj[id].begin(), adj[id].end());
    f.childStart.push_back(static_cast<int>(f.children.size()));
  }
  addParents(f);
  return f;
}

} // namespace remat
