//===- LowerSet.h - Lower sets, the canonical strategy and its DP ---------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Kusumoto et al. 2019, "A Graph Theoretic Framework of Recomputation
// Algorithms for Memory-Efficient Backpropagation" (papers/lower-sets-*).
//
// V is the set of forward nodes (the paper's variables; graph inputs and
// parameters are not in V). A node's memory M_v is the bytes of its outputs
// (all of them: op-level graphs store every result), its time T_v the node
// time; (u, w) is an edge when w reads an output of u. A lower set L has no
// edge from V \ L into L; its boundary d(L) holds the nodes of L read from
// outside L. An increasing sequence L_1 < ... < L_k = V defines the
// canonical strategy (Sec. 3): forward segment by segment caching d(L_i),
// then backward from segment k to 1, recomputing V_i = L_i \ L_{i-1} from
// the cache before the backward nodes of V_i run.
//
// Model used by the DPs (the paper's, adapted to real backward graphs; see
// docs/solver.md). With D(L) = d(L) + non-recomputable nodes of L and
// U_i = D(L_1) + ... + D(L_i):
//  overhead  T = sum_{i<k} T(V_i \ D(L_i))                          (Eq. 1)
//    V_k is not recomputed: its values are still live when the backward
//    starts (Eq. 1 also counts T(V_k); dropping it only removes waste).
//  memory    M(i) = M(U_{i-1}) + M(V_i) + Mb(i) + X(L_i) + W(i)     (Eq. 2)
//    Mb(i): outputs of the backward nodes run in step i (the paper's
//    second M(V_i)); X(L): forward values outside L read by backward nodes
//    of steps <= i (the paper's d+(L) and d-(d+(L)) terms) plus backward
//    values produced before step i and still needed (or required); W(i):
//    the largest workspace of a node run in step i.
//  peak      base + max_i M(i), base = inputs + required forward values.
// A backward node runs in the step of the earliest segment holding a forward
// value it (or a backward node it depends on) reads. Every term counts what
// the Simulator may hold at once during step i, so the model's peak bounds
// the simulated peak of the canonical schedule from above: a plan that fits
// the model always fits the Simulator, no budget tightening is needed.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_LOWERSET_LOWERSET_H
#define REMAT_SOLVER_LOWERSET_LOWERSET_H

#include "remat/Solver/Core/Schedule.h"

#include <cstdint>
#include <vector>

namespace remat {

/// A subset of V as a bitset, one bit per forward node in the model's order.
using NodeSet = std::vector<uint64_t>;

inline bool setHas(const uint64_t *s, int v) { return (s[v >> 6] >> (v & 63)) & 1; }
inline void setAdd(uint64_t *s, int v) { s[v >> 6] |= uint64_t(1) << (v & 63); }

/// Per-set quantities the DP combines in O(|d(L')|) per transition.
struct LowerSetInfo {
  int64_t mem = 0;       ///< M(L).
  double time = 0;       ///< T(L).
  int64_t bwdBytes = 0;  ///< Outputs of the backward nodes of steps <= L.
  int64_t extra = 0;     ///< X(L).
  int64_t memD = 0;      ///< M(D(L)).
  double timeD = 0;      ///< T(D(L)).
  int64_t memNR = 0;     ///< M(non-recomputable nodes of L).
  double timeNR = 0;
  int size = 0;          ///< |L|.
  bool full = false;     ///< L = V.
  std::vector<int> boundary; ///< d(L) minus non-recomputable nodes.
};

/// One transition L -> L' of a sequence.
struct LowerSetStep {
  double overhead = 0; ///< T(V' \ D(L')); 0 when L' = V.
  int64_t cached = 0;  ///< M(U') - M(U) = M(D(L') \ L).
  int64_t peak = 0;    ///< M(i) - M(U_{i-1}).
};

class LowerSetModel {
public:
  explicit LowerSetModel(const TrainingGraph &g);

  const TrainingGraph &graph() const { return g_; }
  int size() const { return n_; }
  int words() const { return words_; }
  NodeId node(int v) const { return nodes_[v]; }
  int index(NodeId n) const { return index_[n]; }
  const std::vector<int> &succ(int v) const { return succ_[v]; }
  const std::vector<int> &pred(int v) const { return pred_[v]; }
  int64_t mem(int v) const { return mem_[v]; }
  double time(int v) const { return time_[v]; }
  bool recomputable(int v) const { return !nr_[v]; }
  /// Inputs plus required forward values: held by every schedule.
  int64_t baseBytes() const { return base_; }
  /// L_v = {w | v is reachable from w} (Sec. 4.3), v included.
  const uint64_t *ancestors(int v) const { return &anc_[size_t(v) * words_]; }
  NodeSet fullSet() const;

  LowerSetInfo info(const uint64_t *set) const;
  LowerSetStep step(const uint64_t *from, const LowerSetInfo &fi,
                    const uint64_t *to, const LowerSetInfo &ti) const;
  /// Model overhead and peak (base included) of L_1 < ... < L_k = V.
  struct Cost {
    double overhead = 0;
    int64_t peak = 0;
  };
  Cost evaluate(const std::vector<NodeSet> &seq) const;

  /// When a backward step recomputes its segment: all of it before the
  /// step's backward nodes (the paper's order), or each value right before
  /// the first backward node that reads it (shorter lifetimes, not always a
  /// lower peak: the recomputations' inputs may live longer).
  enum class RecomputeTiming { Eager, JustInTime };
  /// The canonical strategy of L_1 < ... < L_k = V as a Schedule (runs,
  /// then eager frees). Recomputations nobody reads are left out.
  Schedule canonicalSchedule(const std::vector<NodeSet> &seq,
                             RecomputeTiming timing =
                                 RecomputeTiming::Eager) const;

private:
  /// Per forward node: its edges in V, stored bytes, workspace and time.
  void readForwardNodes();
  /// Each forward node's ancestors in V, itself included, as a bit set.
  void computeAncestors();
  /// Per backward node: what it reads and writes, and the minimal forward
  /// nodes it depends on.
  void readBackwardNodes();
  bool inR(int b, const uint64_t *set, bool full) const;
  int64_t workspace(const uint64_t *from, bool fromFull, const uint64_t *to,
                    bool toFull) const;

  const TrainingGraph &g_;
  int n_ = 0, words_ = 1;
  std::vector<NodeId> nodes_;       ///< Forward nodes, topological order.
  std::vector<int> index_;          ///< NodeId -> index in V, or -1.
  std::vector<std::vector<int>> succ_, pred_;
  std::vector<int64_t> mem_, wsF_;
  std::vector<double> time_;
  std::vector<char> nr_;
  std::vector<uint64_t> anc_;
  int64_t base_ = 0;
  // Backward side, bwd nodes in topological order.
  std::vector<NodeId> bwd_;
  std::vector<std::vector<int>> minF_; ///< Minimal forward nodes b depends on.
  std::vector<int64_t> bwdOut_, wsB_;
  std::vector<std::vector<TensorId>> fwdReads_, bwdReads_;
  std::vector<int> bwdIndexOfNode_;    ///< NodeId -> bwd index, or -1.
  std::vector<TensorId> requiredBwd_;
  std::vector<int> wsFwdNodes_, wsBwdByWs_; ///< Nodes with workspace.
  mutable std::vector<int> stamp_;     ///< Scratch for info().
  mutable int stampNow_ = 0;
};

/// A family of lower sets with edges for superset search: every member of
/// the family containing L is reachable from L along `children`, and each
/// edge goes to a superset.
struct LowerSetFamily {
  int words = 1;
  std::vector<uint64_t> bits; ///< size() * words.
  std::vector<LowerSetInfo> info;
  std::vector<int> childStart, children; ///< CSR adjacency.
  /// The reverse edges: every member contained in L is reachable from L.
  std::vector<int> parentStart, parents;
  int fullId = -1;       ///< The id of V (sets are sorted by size; 0 is the
                         ///< empty set).
  bool complete = true;  ///< False: enumeration stopped at the cap.
  bool pruned = false;   ///< The L_v family of Sec. 4.3.
  /// > 0: a step adds at most this many nodes, except the last one to V.
  /// Cuts the DP's transitions from |family|^2 / 2 to |family| * maxStep on
  /// large graphs (an approximation: long non-final segments are lost).
  int maxStep = 0;
  int size() const { return static_cast<int>(info.size()); }
  const uint64_t *set(int id) const { return &bits[size_t(id) * words]; }
};

/// Every lower set (Sec. 4.2), at most `cap` of them (complete = false when
/// there are more), with the cover edges L -> L + {v}.
LowerSetFamily allLowerSets(const LowerSetModel &m, int64_t cap);
/// The empty set, V and L_v for every v (Sec. 4.3), with edges
/// L_u -> L_w for each edge u -> w. With maxSets > 0 only maxSets of the
/// L_v: the slowest node's of each of maxSets runs of consecutive nodes
/// (large graphs: the DP's work grows about like |family|^3).
LowerSetFamily prunedLowerSets(const LowerSetModel &m, int maxSets = 0);

enum class LowerSetObjective {
  MinOverhead, ///< Time-centric (Sec. 4.2).
  MaxOverhead, ///< Memory-centric at a given budget (Sec. 4.4).
  MinPeak,     ///< The smallest model peak: the lowest budget B of Sec. 4.4.
};

struct LowerSetPlan {
  bool feasible = false;
  std::vector<NodeSet> sets; ///< L_1 < ... < L_k = V.
  double overhead = 0;       ///< Model overhead (Eq. 1).
  int64_t peak = 0;          ///< Model peak, base included (Eq. 2).
  /// The DP ran out of work (`workLeft`): this is the incumbent it started
  /// from (or nothing), not necessarily the optimum.
  bool exhausted = false;
};

/// The DP of Sec. 4.2 over `family`: states (L, t) keep the Pareto front of
/// (objective, M(U)); transitions go from L to every superset in the family
/// whose step fits the budget (base included). A feasible `incumbent` bounds
/// the search and is returned when nothing beats it. MinPeak over all lower
/// sets is exact (the same DP with the peak so far as the objective); on
/// the L_v family it bisects the budget with a feasibility-only DP, to 0.1%
/// of the peak (exactly below 1000 bytes). `granularity` > 1 compares caches in
/// units of that many bytes when deciding dominance (fronts shrink to at most
/// budget / granularity entries); plans stay feasible, optimality becomes
/// approximate. 1 is exact. With `workLeft`, the work done (transitions
/// tried, front entries scanned) is counted against it; when it runs out the
/// DP gives up (exhausted).
LowerSetPlan solveLowerSetDP(const LowerSetModel &m,
                             const LowerSetFamily &family,
                             LowerSetObjective objective, int64_t budget,
                             const LowerSetPlan *incumbent = nullptr,
                             int64_t granularity = 1,
                             int64_t *workLeft = nullptr);

} // namespace remat

#endif // REMAT_SOLVER_LOWERSET_LOWERSET_H
