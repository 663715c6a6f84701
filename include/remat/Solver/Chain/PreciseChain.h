//===- PreciseChain.h - Butt's precise checkpointing DP (thesis Alg. 3.4) -===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// S. Butt, "Precise Optimal Checkpointing for Memory-Efficient Deep
// Learning" (MEng thesis, Imperial College 2019), Sec. 3.1: Gruslys et al.'s
// BPTT dynamic program generalised to per-layer compute and memory costs.
//
// Thesis notation (Sec. 3.1.1): forwards L_1..L_n map f_{l-1} to f_l;
// backwards L'_0..L'_n map (f_i, b_{i+1}) to b_i. C(i, j, m) is the least
// time to compute b_i given f_i (held outside m) and b_j (placed inside m and
// freed by the subproblem, Sec. 3.1.6). Eq. 3.1:
//   C(i, j, m) = min_{i<k<j} sum_{l=i+1..k} alpha^f_l + C(k, j, m - hold_k)
//                                                    + C(i, k, m)
// under the stage peaks of Eq. 3.3; when every k fails, the "recompute
// everything" strategy (Eq. 3.4/3.5) is the fallback (Alg. 3.4, l. 73-80).
//
// The engine is shared: chain-precise runs it on a whole chain, and the join
// strategy uses it as Opt_0 (the single-branch optimum of Beaumont et al.
// 2019, Theorem 3) for every segment of a branch. Memory arrives already
// discretised into slots; callers describe their memory model through the
// per-step tables below (the Simulator's model, or the join paper's in-place
// pebble model), so the recurrence itself is model-free.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_CHAIN_PRECISECHAIN_H
#define REMAT_SOLVER_CHAIN_PRECISECHAIN_H

#include "remat/Solver/Chain/ChainSolvers.h"

#include <cstdint>
#include <limits>
#include <vector>

namespace remat {

/// Costs of a chain in thesis notation, memory in slots. Vectors are indexed
/// by the thesis indices (entry 0 of the forward tables is unused).
struct PreciseChainTables {
  int n = 0;                    ///< Forwards L_1..L_n, backwards L'_0..L'_n.
  std::vector<double> fwdTime;  ///< [0..n]: alpha^f_l.
  std::vector<double> bwdTime;  ///< [0..n]: alpha^b_i.
  std::vector<int64_t> grad;    ///< [0..n+1]: beta^b_i, size of b_i.
  /// [0..n]: slots f_k occupies as a checkpoint of subproblem (i, j), when
  /// k > i + 1 (hold) and when k = i + 1 (holdNext; may share data with f_i).
  std::vector<int64_t> hold, holdNext;
  /// [0..n]: slots used while L_l runs in a forward sweep, beyond what is
  /// held outside and b_j: First when its input is the sweep's start f_i,
  /// Mid when the input is a value of the sweep that dies; Keep when f_l is
  /// the checkpoint the sweep ends with (stored in full).
  std::vector<int64_t> stepFirst, stepFirstKeep, stepMid, stepMidKeep;
  /// [0..n]: slots used while L'_i runs beyond f_i (b_{i+1} and b_i, its
  /// workspace; may be less than grad[i+1] + grad[i] in an in-place model).
  std::vector<int64_t> bwdPeak;

  /// Tables of a chain of n forwards, every entry 0.
  static PreciseChainTables zeros(int n) {
    PreciseChainTables t;
    t.n = n;
    for (std::vector<double> *v : {&t.fwdTime, &t.bwdTime})
      v->assign(n + 1, 0);
    for (std::vector<int64_t> *v :
         {&t.hold, &t.holdNext, &t.stepFirst, &t.stepFirstKeep, &t.stepMid,
          &t.stepMidKeep, &t.bwdPeak})
      v->assign(n + 1, 0);
    t.grad.assign(n + 2, 0);
    return t;
  }
};

struct PreciseChainOptions {
  /// False: never checkpoint; every (i, j) uses the recompute-everything
  /// strategy (tests of Eq. 3.4 / 3.5).
  bool recursion = true;
};

class PreciseChainDP {
public:
  static constexpr double kInf = std::numeric_limits<double>::infinity();

  /// Solves C(i, j, m) for all 0 <= i < j <= maxEnd (default n + 1) and
  /// 0 <= m <= maxSlots.
  PreciseChainDP(PreciseChainTables tables, int64_t maxSlots,
                 PreciseChainOptions opts = {}, int maxEnd = -1);

  /// C(i, j, m); kInf when infeasible (also for m < 0).
  double cost(int i, int j, int64_t m) const;

  /// One operation of a policy: L_index (forward; keep: the sweep's last
  /// step, whose output is stored in full) or L'_index (backward).
  struct Op {
    bool forward;
    int index;
    bool keep;
  };
  /// Appends the operations of the optimal policy of (i, j, m) (Alg. 3.5).
  /// Requires cost(i, j, m) < kInf.
  void emit(int i, int j, int64_t m, std::vector<Op> &out) const;

  /// C(i, j, m) for m in [lo, hi] as c[m - lo]; infeasible below lo,
  /// c[hi - lo] above hi; c == nullptr when infeasible everywhere.
  struct RowView {
    int64_t lo, hi;
    const double *c;
  };
  RowView row(int i, int j) const {
    const Entry &e = entry(i, j);
    return {e.lo, e.hi, e.c.empty() ? nullptr : e.c.data()};
  }

  /// How many stored (i, j, m) entries chose the quadratic fallback.
  int64_t quadraticEntries() const { return quadEntries_; }
  /// Number of stored (i, j, m) entries (the table size actually kept).
  int64_t storedEntries() const { return stored_; }
  const PreciseChainTables &tables() const { return t_; }

private:
  /// C(i, j, .) for m in [lo, hi]; m > hi has the value at hi (no
  /// recomputation reached, or hi = maxSlots); m < lo is infeasible.
  struct Entry {
    int64_t lo = 0, hi = -1;
    std::vector<double> c;
  };
  const Entry &entry(int i, int j) const { return e_[size_t(i) * w_ + j]; }
  int64_t holdOf(int i, int k) const {
    return k == i + 1 ? t_.holdNext[k] : t_.hold[k];
  }
  int64_t step(int i, int l, bool keep) const {
    if (l == i + 1)
      return keep ? t_.stepFirstKeep[l] : t_.stepFirst[l];
    return keep ? t_.stepMidKeep[l] : t_.stepMid[l];
  }
  void solvePair(int i, int j, int64_t quadPeak, double quadCost);

  PreciseChainTables t_;
  int64_t maxSlots_;
  PreciseChainOptions opts_;
  int maxEnd_, w_;
  std::vector<double> fPre_, bPre_; ///< Prefix sums of fwdTime / bwdTime.
  std::vector<int64_t> quadPeak_;   ///< Per pair: Eq. 3.4.
  std::vector<double> quadCost_;    ///< Per pair: Eq. 3.5.
  std::vector<Entry> e_;
  std::vector<double> row_;         ///< Scratch row of solvePair.
  int64_t quadEntries_ = 0, stored_ = 0;
};

/// chain-precise on a rotor chain (Chain.h), as the thesis runs it on
/// PyTorch (Sec. 3.2.2): a checkpoint f_k is layer k's input and autograd
/// history, a^{k-1} + abar^k (only abar^k right after the segment start,
/// whose a^{k-1} it shares); sweeps store a^l alone (F_none / F_ck) and the
/// checkpoint in full (F_all); L'_k = B^k, L'_0 a dummy. The thesis model has
/// no F_ck checkpoints (a^k without its history), so this is optimal only
/// within that restriction; rotor's persistent DP can beat it. `budget` is
/// the Simulator peak on buildChainGraph(chain).graph.
ChainPlan preciseChainPlan(const ChainSpec &chain, int64_t budget,
                           int slots = 500);

} // namespace remat

#endif // REMAT_SOLVER_CHAIN_PRECISECHAIN_H
