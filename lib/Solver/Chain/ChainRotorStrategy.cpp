//===- ChainRotorStrategy.cpp - Rotor's persistent chain DP (Alg. 3) -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Beaumont et al. 2024, Theorem 4.8: C(s, t, m) is the fastest memory
// persistent way to go from {a^{s-1}, delta^t} to delta^{s-1} within m
// slots (a^{s-1} not counted):
//   C(s, s, m) = u_f^s + u_b^s                  if m >= m_all(s, s)
//              = u_b^s  without tape (B^s reads only a^{s-1} and delta^s)
//   C_all      = u_f^s + C(s+1, t, m - abar^s) + u_b^s
//                                               if m >= m_all(s, t)
//   C_ck(s')   = sum_{k=s}^{s'-1} u_f^k + C(s', t, m - a^{s'-1})
//                + C(s, s'-1, m)                if m >= m_none(s, t)
// m_all(s, t)  = max(d^t + abar^s + o_f^s, d^s + abar^s + d^{s-1} + o_b^s)
// m_none(s, t) = d^t + max(a^s + o_f^s, max_{s<j<t} a^{j-1} + a^j + o_f^j)
// The paper prints a^s where C_all and m_all need abar^s (its prose says
// abar; see the digest's list of typos): F_all^s stores abar^s.
//
// RotorModel::Graph adds H(s, t, m), the same with abar^t already held
// (inside m) and only B^t..B^s left, and one case to both tables:
//   C_ckall(s') = sum_{k=s}^{s'-1} u_f^k + C(s', t, m - abar^{s'-1})
//                 + H(s, s'-1, m)               for s' >= s+2,
// running F_ck^s F_none^{s+1..s'-2} F_all^{s'-1}: F_all^{s'-1} drops its
// input a^{s'-2}, which H recomputes from a^{s-1} right before B^{s'-1}.
// H's cases mirror C's with abar^t added to every forward peak; its right
// sub-chains are H, its left ones C (after B^t nothing is held).
//
// Speed (the 339-stage ResNet-1001 chain took rotor's C code 20 s):
//  - each row C(s, t, .) is a non-increasing step function of m, infinite
//    below lo(s, t) and constant from sat(s, t) on: only [lo, sat] is
//    stored, float once the table is large (double for small tables, so
//    exact tests compare exact sums);
//  - each candidate runs over m with unit stride (vectorised), from its
//    first feasible m to where the row is already below its floor;
//  - rows are computed in an L2-friendly order (see run()).
// The reconstruction (Alg. 4) recomputes each argmin with the very same
// floating-point expressions, so no choice table is stored.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Chain/ChainSolvers.h"
#include "remat/Solver/Chain/ChainStrategies.h"

#include <algorithm>
#include <limits>

// The kernel is a plain loop over m; an AVX2 clone (picked at load time)
// doubles its width where the CPU has it.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) &&     \
    defined(__linux__)
#define REMAT_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define REMAT_VECTOR_CLONES
#endif

namespace remat {
namespace {

enum Table { C = 0, H = 1 };

template <class V> class PersistentDP {
public:
  PersistentDP(const SlotChain &c, bool graph)
      : c_(c), n_(c.n), M_(c.M), graph_(graph) {
    pairs_ = size_t(n_) * (n_ + 1) / 2;
    size_t rows = (graph ? 2 : 1) * pairs_;
    lo_.assign(rows, M_ + 1);
    sat_.assign(rows, M_);
    off_.assign(rows, 0);
    last_.assign(rows, kInf);
    mNone_.assign(pairs_, 0);
    P_.assign(n_ + 1, 0);
    for (int k = 1; k <= n_; ++k)
      P_[k] = P_[k - 1] + c.UF[k];
    for (int s = 1; s <= n_; ++s) {
      int inner = 0; // max_{s<j<t} a^{j-1} + a^j + o_f^j
      for (int t = s; t <= n_; ++t) {
        if (t - 1 > s)
          inner = std::max(inner, c.A[t - 2] + c.A[t - 1] + c.OF[t - 1]);
        size_t p = pair(s, t);
        mNone_[p] = c.D[t] + std::max(c.A[s] + c.OF[s], inner);
      }
    }
  }

  void run() {
    std::vector<V> out(M_ + 1);
    // Row (s, t) reads rows (s', t), s' > s, and (s, u), u < t. Blocks of
    // kBlockS consecutive s, t ascending inside, s descending inside that:
    // the rows of column t and of the block's s stay in the L2 cache, where
    // the paper's order (by t - s) streams the whole table for every row.
    constexpr int kBlockS = 8;
    for (int hi = n_; hi >= 1; hi -= kBlockS) {
      const int lo = std::max(1, hi - kBlockS + 1);
      for (int t = lo; t <= n_; ++t)
        for (int s = std::min(hi, t); s >= lo; --s)
          for (int tab = 0; tab <= (graph_ ? 1 : 0); ++tab)
            computeRow(tab, s, t, out);
    }
  }

  V get(int tab, int s, int t, int m) const {
    size_t p = row(tab, s, t);
    if (m < lo_[p])
      return kInf;
    return data_[off_[p] + (std::min(m, sat_[p]) - lo_[p])];
  }

  /// Alg. 4: the operations of C(1, n, M), re-deriving each argmin.
  ChainOps reconstruct() const {
    ChainOps ops;
    struct Task {
      int tab, s, t, m;
      bool emit;
      ChainStep step;
    };
    std::vector<Task> stack{{C, 1, n_, M_, false, {}}};
    while (!stack.empty()) {
      Task k = stack.back();
      stack.pop_back();
      if (k.emit) {
        ops.push_back(k.step);
        continue;
      }
      const int tab = k.tab, s = k.s, t = k.t, m = k.m;
      const V v = get(tab, s, t, m);
      if (s == t) {
        if (tab == C && c_.Tape[s])
          ops.push_back({ChainOp::FAll, s});
        ops.push_back({ChainOp::Backward, s});
        continue;
      }
      if (m >= mAll(tab, s, t) && allValue(tab, s, t, m) == v) {
        ops.push_back({ChainOp::FAll, s});
        stack.push_back({0, 0, 0, 0, true, {ChainOp::Backward, s}});
        stack.push_back({tab, s + 1, t, m - c_.Abar[s], false, {}});
        continue;
      }
      int best = -1;
      bool all = false;
      for (int sp = s + 1; sp <= t && m >= mNone(tab, s, t) && best < 0; ++sp) {
        if (ckValue(tab, s, sp, t, m) == v)
          best = sp;
        else if (ckallFits(tab, s, sp, t, m) &&
                 ckallValue(tab, s, sp, t, m) == v)
          best = sp, all = true;
      }
      if (best < 0) // Unreachable: v is one of the candidates.
        return {};
      ops.push_back({ChainOp::FCheck, s});
      for (int j = s + 1; j < best; ++j)
        ops.push_back(
            {all && j == best - 1 ? ChainOp::FAll : ChainOp::FNone, j});
      if (all) {
        stack.push_back({H, s, best - 1, m, false, {}});
        stack.push_back({tab, best, t, m - c_.Abar[best - 1], false, {}});
      } else {
        stack.push_back({C, s, best - 1, m, false, {}});
        stack.push_back({tab, best, t, m - c_.A[best - 1], false, {}});
      }
    }
    return ops;
  }

private:
  static constexpr V kInf = std::numeric_limits<V>::infinity();

  static size_t pair(int s, int t) { return size_t(t) * (t - 1) / 2 + (s - 1); }
  size_t row(int tab, int s, int t) const { return tab * pairs_ + pair(s, t); }

  // Thresholds: H holds abar^t during every forward of the chain.
  int held(int tab, int t) const { return tab == H ? c_.Abar[t] : 0; }
  int mNone(int tab, int s, int t) const {
    return mNone_[pair(s, t)] + held(tab, t);
  }
  // Without tape abar^s (= a^s) is dead by B^s: its last reader is B^{s+1}.
  int mAll(int tab, int s, int t) const {
    return std::max(c_.D[t] + held(tab, t) + c_.Abar[s] + c_.OF[s],
                    c_.D[s] + (c_.Tape[s] ? c_.Abar[s] : 0) + c_.D[s - 1] +
                        c_.OB[s]);
  }
  // F_all^{sp-1} reads a^{sp-2} (which then dies) and stores abar^{sp-1}.
  bool ckallFits(int tab, int s, int sp, int t, int m) const {
    return graph_ && sp >= s + 2 &&
           c_.D[t] + held(tab, t) + c_.A[sp - 2] + c_.Abar[sp - 1] +
                   c_.OF[sp - 1] <=
               m;
  }

  V at(int tab, int s, int t, int m) const {
    return m < 0 ? kInf : get(tab, s, t, m);
  }
  V allValue(int tab, int s, int t, int m) const {
    return V(c_.UF[s] + c_.UB[s]) + at(tab, s + 1, t, m - c_.Abar[s]);
  }
  V ckValue(int tab, int s, int sp, int t, int m) const {
    return (V(P_[sp - 1] - P_[s - 1]) + at(tab, sp, t, m - c_.A[sp - 1])) +
           get(C, s, sp - 1, m);
  }
  V ckallValue(int tab, int s, int sp, int t, int m) const {
    return (V(P_[sp - 1] - P_[s - 1]) + at(tab, sp, t, m - c_.Abar[sp - 1])) +
           get(H, s, sp - 1, m);
  }

  /// A candidate: (f + X(m - sh)) + Y(m) for m >= start, X = row px, Y =
  /// row py (py < 0: no Y term). It is never below K, its value where both
  /// rows are saturated.
  struct Cand {
    V K, f;
    int start, sh;
    size_t px;
    long py;
  };

  Cand makeCand(V f, size_t px, int sh, long py, int start) const {
    V K = f + last_[px];
    if (py >= 0)
      K = K + last_[py];
    return Cand{K, f, start, sh, px, py};
  }

  /// out = min(out, candidate) on [start, M]. out is non-increasing in m (a
  /// minimum of non-increasing functions) and the candidate never goes below
  /// K: past the first m with out <= K (binary search) it cannot win.
  void apply(const Cand &c, V *out) const {
    if (out[M_] > c.K) { // It may win anywhere.
      applyRange(c, c.start, M_ + 1, out);
      return;
    }
    // Branch-free lower bound: the first m in [start, M+1) with out <= K.
    int base = c.start, len = M_ + 2 - c.start;
    while (len > 1) {
      const int half = len / 2;
      base = out[base + half - 1] <= c.K ? base : base + half;
      len -= half;
    }
    if (base > c.start)
      applyRange(c, c.start, base, out);
  }

  REMAT_VECTOR_CLONES
  void applyRange(const Cand &c, int from, int end, V *out) const {
    const V *D = data_.data();
    const V f = c.f;
    const int xs = sat_[c.px] + c.sh; // X(m - sh) is constant from xs on.
    // D[bx + m] = X(m - sh) and D[by + m] = Y(m) on the ranges used.
    const ptrdiff_t bx = ptrdiff_t(off_[c.px]) - lo_[c.px] - c.sh;
    const V xl = last_[c.px];
    if (c.py < 0) {
      const int e = std::min(xs, end);
      for (int m = from; m < e; ++m) {
        V v = f + D[bx + m];
        out[m] = v < out[m] ? v : out[m];
      }
      for (int m = std::max(from, e); m < end; ++m)
        out[m] = c.K < out[m] ? c.K : out[m];
      return;
    }
    const int ys = sat_[c.py];
    const ptrdiff_t by = ptrdiff_t(off_[c.py]) - lo_[c.py];
    const V yl = last_[c.py];
    const int e1 = std::min({xs, ys, end});
    for (int m = from; m < e1; ++m) {
      V v = (f + D[bx + m]) + D[by + m];
      out[m] = v < out[m] ? v : out[m];
    }
    const int b = std::max(from, e1);
    const int e2 = std::min(std::max(xs, ys), end);
    if (xs < ys) {
      const V fx = f + xl;
      for (int m = b; m < e2; ++m) {
        V v = fx + D[by + m];
        out[m] = v < out[m] ? v : out[m];
      }
    } else {
      for (int m = b; m < e2; ++m) {
        V v = (f + D[bx + m]) + yl;
        out[m] = v < out[m] ? v : out[m];
      }
    }
    for (int m = std::max(from, e2); m < end; ++m)
      out[m] = c.K < out[m] ? c.K : out[m];
  }

  void computeRow(int tab, int s, int t, std::vector<V> &outv) {
    V *out = outv.data();
    std::fill(outv.begin(), outv.end(), kInf);
    const size_t p = row(tab, s, t);
    if (s == t) {
      // F_all^s B^s, or only B^s when H already holds abar^s or B^s reads
      // no value of its stage (no tape).
      const bool fwd = tab == C && c_.Tape[s];
      int need = tab == H ? c_.D[s] + c_.Abar[s] + c_.D[s - 1] + c_.OB[s]
                 : fwd    ? mAll(C, s, s)
                          : c_.D[s] + c_.D[s - 1] + c_.OB[s];
      for (int m = std::max(need, 0); m <= M_; ++m)
        out[m] = V(fwd ? c_.UF[s] + c_.UB[s] : c_.UB[s]);
    } else {
      // C_all: F_all^s keeps abar^s through the rest of the chain.
      size_t px = row(tab, s + 1, t);
      int sh = c_.Abar[s];
      int start = std::max(mAll(tab, s, t), lo_[px] + sh);
      if (start <= M_)
        apply(makeCand(V(c_.UF[s] + c_.UB[s]), px, sh, -1, start), out);
      // C_ck: F_ck^s F_none^{s+1..s'-1} keeps a^{s'-1} for (s', t);
      // C_ckall: ... F_all^{s'-1} keeps abar^{s'-1} instead.
      const int none = mNone(tab, s, t);
      for (int sp = s + 1; sp <= t; ++sp) {
        const V f = V(P_[sp - 1] - P_[s - 1]);
        size_t pa = row(tab, sp, t), pb = row(C, s, sp - 1);
        int sh2 = c_.A[sp - 1];
        int st = std::max({none, lo_[pa] + sh2, lo_[pb]});
        if (st <= M_)
          apply(makeCand(f, pa, sh2, long(pb), st), out);
        if (!graph_ || sp < s + 2)
          continue;
        pb = row(H, s, sp - 1);
        sh2 = c_.Abar[sp - 1];
        int fit = c_.D[t] + held(tab, t) + c_.A[sp - 2] + c_.Abar[sp - 1] +
                  c_.OF[sp - 1];
        st = std::max({none, fit, lo_[pa] + sh2, lo_[pb]});
        if (st <= M_)
          apply(makeCand(f, pa, sh2, long(pb), st), out);
      }
    }
    int lo = 0;
    while (lo <= M_ && out[lo] == kInf)
      ++lo;
    lo_[p] = lo;
    if (lo > M_) {
      sat_[p] = M_;
      return;
    }
    int sat = lo;
    while (out[sat] != out[M_])
      ++sat;
    sat_[p] = sat;
    last_[p] = out[M_];
    off_[p] = data_.size();
    data_.insert(data_.end(), out + lo, out + sat + 1);
  }

  const SlotChain &c_;
  int n_, M_;
  bool graph_;
  size_t pairs_ = 0;
  std::vector<int> lo_, sat_, mNone_;
  std::vector<size_t> off_;
  std::vector<V> last_; ///< Per row: its value at M (also from sat on).

  std::vector<V> data_;
  std::vector<double> P_;
};

template <class V>
ChainPlan planWith(const ChainSpec &chain, const SlotChain &sc, bool graph) {
  ChainPlan plan;
  PersistentDP<V> dp(sc, graph);
  dp.run();
  if (dp.get(C, 1, sc.n, sc.M) == std::numeric_limits<V>::infinity()) {
    plan.reason = "chain-rotor: the budget is below what any persistent "
                  "schedule needs (" +
                  std::to_string(sc.M + 1) + " slots of " +
                  std::to_string(sc.q) + " bytes are not enough)";
    return plan;
  }
  plan.ops = dp.reconstruct();
  plan.feasible = !plan.ops.empty();
  if (!plan.feasible)
    plan.reason = "chain-rotor: internal error in the reconstruction";
  plan.time = chainOpsTime(chain, plan.ops);
  return plan;
}

} // namespace

ChainPlan rotorPersistentPlan(const ChainSpec &chain, int64_t budget, int slots,
                              RotorModel model) {
  // Keep the table under ~1 GiB: fewer slots on very long chains.
  const bool graph = model == RotorModel::Graph;
  const int64_t n = chain.length() + 1,
                pairs = (graph ? 2 : 1) * n * (n + 1) / 2;
  const int64_t maxEntries = int64_t(256) << 20;
  std::string note;
  if (pairs * (int64_t(slots) + 1) > maxEntries) {
    int fit = static_cast<int>(std::max<int64_t>(1, maxEntries / pairs - 1));
    note = "using " + std::to_string(fit) + " memory slots instead of " +
           std::to_string(slots) + " to bound the DP table";
    slots = fit;
  }
  SlotChain sc = discretiseChain(chain, budget, slots);
  ChainPlan plan;
  if (sc.M < 0) {
    plan.reason = "chain-rotor: the budget is below the graph inputs";
    return plan;
  }
  plan = pairs * (int64_t(sc.M) + 1) <= (int64_t(4) << 20)
             ? planWith<double>(chain, sc, graph)
             : planWith<float>(chain, sc, graph);
  plan.note = note;
  return plan;
}

StrategyResult solveChainRotor(const TrainingGraph &g,
                               const SolveOptions &opts) {
  return solveViaChain(
      g, opts, "chain-rotor",
      [&](const TrainingGraph &, const ChainView &view, int64_t budget) {
        return rotorPersistentPlan(view.spec, budget, opts.slots,
                                   RotorModel::Paper);
      });
}

} // namespace remat
