//===- ChainRotorWeakStrategy.cpp - Rotor's floating DP (Alg. 1) ---------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Beaumont et al. 2024, Theorem 4.7: C(s, t, l, m) is the fastest weakly
// persistent way to go from {a^{s-1}, delta^l} to delta^{t-1}, s <= t <= l,
// within m slots (a^{s-1} not counted); when t > s the floating activation
// a^{s-1} must be consumed (no later step reads it). Cases:
//   base   s = t = l: F_all^s B^s;
//   C_all  s = t < l: F_all^s, C(s+1, s+1, l, m - abar^s), B^s;
//   C_ck   t < l: F_ck^s F_none^{s+1..s'-1}, C(s', t', l, m - a^{s'-1}),
//          C(s, t, t'-1, m)  for s < s' <= t', t < t' <= l;
//   move   s < t: F_none^{s..r-1}, C(r, t, l, m + a^{s-1} - a^{r-1}) for
//          s < r <= t: the floating activation moves right.
// "move" followed by C_ck is the paper's C_ck(s, t, r, s', t', l) with r > s
// (Eq. 3-4, whose reconstruction passes m where the equation has
// m - a^{r-1} + a^{s-1}; the equation is right), so the search costs
// O(M L^5) instead of O(M L^6). Move also covers t = l > s, which Eq. (2)
// leaves infinite. Memory conditions are the exact peaks of the Simulator's
// model (F_none steps after the floating activation died may use its slots),
// not the paper's m_none, and the Corollary 4.5 pruning (a^{r-1} >= a^{s-1})
// is not applied: both only widen the search, every candidate stays valid.
//
// RotorModel::Graph lets F_all^l drop its input a^{l-1} (B^l reads it as a
// tensor of its own; it is recomputed from an earlier checkpoint before
// B^l). Tables T[in][out](s, t, l, m) extend C = T[0][0]: `in`, abar^l is
// already held (inside m) and only B^l is left of stage l; `out`, the
// sub-chain also leaves abar^{t-1} held for its caller (t > s). New cases:
//   ckall  t < l: F_ck^s F_none^{s+1..s'-2} F_all^{s'-1} (drops a^{s'-2}),
//          T[in][0](s', s', l, m - abar^{s'-1}), T[1][out](s, t, s'-1, m);
//   ck     as C_ck, with the first sub-chain T[in][o] and the second
//          T[o][out], o in {0, 1};
//   tape   out, t = s+1: F_all^s (drops the floating a^{s-1}), then
//          T[in][0](s+1, s+1, l, m + a^{s-1} - abar^s).
// With them the DP equals the exhaustive search on every tested chain
// graph; rotor's model is slower on about half of the (chain, budget)
// pairs of small random chains, by up to 42% (docs/solver.md).
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Chain/ChainSolvers.h"
#include "remat/Solver/Chain/ChainStrategies.h"

#include <algorithm>
#include <limits>

namespace remat {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

class WeakDP {
public:
  WeakDP(const SlotChain &c, bool graph)
      : c_(c), n_(c.n), M_(c.M), tables_(graph ? 4 : 1) {
    idx_.assign(size_t(n_ + 1) * (n_ + 1) * (n_ + 1), -1);
    size_t k = 0;
    for (int l = 1; l <= n_; ++l)
      for (int t = 1; t <= l; ++t)
        for (int s = 1; s <= t; ++s)
          idx_[key(s, t, l)] = static_cast<long>(k++);
    states_ = k;
    table_.assign(tables_ * k * size_t(M_ + 1), kInf);
    P_.assign(n_ + 1, 0);
    for (int j = 1; j <= n_; ++j)
      P_[j] = P_[j - 1] + c.UF[j];
  }

  void run() {
    for (int l = 1; l <= n_; ++l)
      for (int s = l; s >= 1; --s)
        for (int t = s; t <= l; ++t)
          for (int tab = 0; tab < tables_; ++tab) {
            double *row = &table_[rowIndex(tab, s, t, l)];
            for (int m = 0; m <= M_; ++m)
              row[m] = best(tab, s, t, l, m, nullptr);
          }
  }

  double get(int tab, int s, int t, int l, int m) const {
    if (m < 0)
      return kInf;
    return table_[rowIndex(tab, s, t, l) + std::min(m, M_)];
  }

  ChainOps reconstruct() const {
    ChainOps ops;
    rebuild(0, 1, 1, n_, M_, ops);
    return ops;
  }

private:
  // Table index: bit 0 = in (abar^l held), bit 1 = out (abar^{t-1} left).
  static int tab(int in, int out) { return in | out << 1; }
  size_t key(int s, int t, int l) const {
    return (size_t(l) * (n_ + 1) + t) * (n_ + 1) + s;
  }
  size_t rowIndex(int tab, int s, int t, int l) const {
    return (tab * states_ + idx_[key(s, t, l)]) * size_t(M_ + 1);
  }
  double uf(int from, int to) const { return P_[to] - P_[from - 1]; }

  struct Choice {
    int kind = -1; // 0 base, 1 all, 2 ck, 3 move, 4 ckall, 5 tape
    int a = 0, b = 0, o = 0;
  };

  /// The value of table `tb` at (s, t, l, m); the argmin goes to *ch.
  double best(int tb, int s, int t, int l, int m, Choice *ch) const {
    const int in = tb & 1, out = tb >> 1;
    double v = kInf;
    auto take = [&](double x, int kind, int a, int b, int o) {
      if (x < v) {
        v = x;
        if (ch)
          *ch = {kind, a, b, o};
      }
    };
    if (out && t == s)
      return v;                                     // Nothing left to tape.
    const int dl = c_.D[l] + (in ? c_.Abar[l] : 0); // Stored until B^l.
    const int back = c_.D[s] + c_.Abar[s] + c_.D[s - 1] + c_.OB[s];
    const int fall = dl + c_.Abar[s] + c_.OF[s]; // F_all^s.
    if (s == t && t == l) {
      if (m >= (in ? back : std::max(fall, back)))
        take(in ? c_.UB[s] : c_.UF[s] + c_.UB[s], 0, 0, 0, 0);
      return v;
    }
    if (s == t && m >= std::max(fall, back))
      take((c_.UF[s] + c_.UB[s]) + get(tb, s + 1, s + 1, l, m - c_.Abar[s]), 1,
           0, 0, 0);
    if (out && t == s + 1 && m >= fall)
      take(c_.UF[s] +
               get(tab(in, 0), s + 1, s + 1, l, m + c_.A[s - 1] - c_.Abar[s]),
           5, 0, 0, 0);
    // The first forward F^s, with a^{s-1} still stored (outside m).
    if (m < dl + c_.A[s] + c_.OF[s])
      return v;
    // F_none^j reads a^{j-1} and stores a^j.
    auto fwd = [&](int j) { return dl + c_.A[j - 1] + c_.A[j] + c_.OF[j]; };
    if (t < l) {
      for (int sp = s + 1; sp <= l; ++sp) {
        const double f = uf(s, sp - 1);
        // ckall: the last forward is F_all^{sp-1}, dropping a^{sp-2}.
        if (tables_ > 1 && sp >= s + 2 && t <= sp - 1 &&
            dl + c_.A[sp - 2] + c_.Abar[sp - 1] + c_.OF[sp - 1] <= m)
          take((f + get(tab(in, 0), sp, sp, l, m - c_.Abar[sp - 1])) +
                   get(tab(1, out), s, t, sp - 1, m),
               4, sp, 0, 0);
        if (sp - 1 > s && fwd(sp - 1) > m)
          break; // F_none^{sp-1} does not fit, nor any longer prefix.
        for (int tp = std::max(sp, t + 1); tp <= l; ++tp)
          for (int o = 0; o < (tables_ > 1 && tp > sp ? 2 : 1); ++o)
            take((f + get(tab(in, o), sp, tp, l, m - c_.A[sp - 1])) +
                     get(tab(o, out), s, t, tp - 1, m),
                 2, sp, tp, o);
      }
    }
    if (s < t) {
      // After F^s the floating a^{s-1} is gone: its slots are free again.
      const int room = m + c_.A[s - 1];
      for (int r = s + 1; r <= t; ++r) {
        if (r - 1 > s && fwd(r - 1) > room)
          break;
        take(uf(s, r - 1) + get(tb, r, t, l, room - c_.A[r - 1]), 3, r, 0, 0);
      }
    }
    return v;
  }

  void rebuild(int tb, int s, int t, int l, int m, ChainOps &ops) const {
    const int in = tb & 1, out = tb >> 1;
    Choice ch;
    best(tb, s, t, l, m, &ch);
    switch (ch.kind) {
    case 0:
      if (!in)
        ops.push_back({ChainOp::FAll, s});
      ops.push_back({ChainOp::Backward, s});
      return;
    case 1:
      ops.push_back({ChainOp::FAll, s});
      rebuild(tb, s + 1, s + 1, l, m - c_.Abar[s], ops);
      ops.push_back({ChainOp::Backward, s});
      return;
    case 2:
    case 4:
      ops.push_back({ChainOp::FCheck, s});
      for (int j = s + 1; j < ch.a; ++j)
        ops.push_back(
            {ch.kind == 4 && j == ch.a - 1 ? ChainOp::FAll : ChainOp::FNone,
             j});
      if (ch.kind == 2) {
        rebuild(tab(in, ch.o), ch.a, ch.b, l, m - c_.A[ch.a - 1], ops);
        rebuild(tab(ch.o, out), s, t, ch.b - 1, m, ops);
      } else {
        rebuild(tab(in, 0), ch.a, ch.a, l, m - c_.Abar[ch.a - 1], ops);
        rebuild(tab(1, out), s, t, ch.a - 1, m, ops);
      }
      return;
    case 3:
      for (int j = s; j < ch.a; ++j)
        ops.push_back({ChainOp::FNone, j});
      rebuild(tb, ch.a, t, l, std::min(M_, m + c_.A[s - 1] - c_.A[ch.a - 1]),
              ops);
      return;
    case 5:
      ops.push_back({ChainOp::FAll, s});
      rebuild(tab(in, 0), s + 1, s + 1, l,
              std::min(M_, m + c_.A[s - 1] - c_.Abar[s]), ops);
      return;
    default:
      ops.clear(); // Unreachable for a finite value.
    }
  }

  const SlotChain &c_;
  int n_, M_, tables_;
  size_t states_ = 0;
  std::vector<long> idx_;
  std::vector<double> table_;
  std::vector<double> P_;
};

} // namespace

ChainPlan rotorWeakPlan(const ChainSpec &chain, int64_t budget, int slots,
                        RotorModel model) {
  ChainPlan plan;
  SlotChain sc = discretiseChain(chain, budget, slots);
  if (sc.M < 0) {
    plan.reason = "chain-rotor-weak: the budget is below the graph inputs";
    return plan;
  }
  // States ~ n^3/6 (M+1) per table, each O(n^2): refuse what would take
  // more than a few seconds (about 23 stages at 500 slots) or 256 MB.
  const double n = sc.n;
  const double tables = model == RotorModel::Graph ? 4 : 1;
  const double work = tables * n * n * n * n * n / 12.0 * (sc.M + 1.0);
  const double states = tables * n * n * n / 6.0 * (sc.M + 1.0);
  if (work > 1.5e9 || states > 32e6) {
    plan.reason = "chain-rotor-weak: a chain of " +
                  std::to_string(chain.length()) + " stages with " +
                  std::to_string(sc.M) +
                  " memory slots is too large for the O(M L^5) reference DP "
                  "(use chain-rotor, or fewer slots)";
    return plan;
  }
  WeakDP dp(sc, model == RotorModel::Graph);
  dp.run();
  if (dp.get(0, 1, 1, sc.n, sc.M) == kInf) {
    plan.reason = "chain-rotor-weak: the budget is below what any schedule "
                  "needs (" +
                  std::to_string(sc.M) + " slots of " + std::to_string(sc.q) +
                  " bytes)";
    return plan;
  }
  plan.ops = dp.reconstruct();
  plan.feasible = !plan.ops.empty();
  if (!plan.feasible)
    plan.reason = "chain-rotor-weak: internal error in the reconstruction";
  plan.time = chainOpsTime(chain, plan.ops);
  return plan;
}

StrategyResult solveChainRotorWeak(const TrainingGraph &g,
                                   const SolveOptions &opts) {
  return solveViaChain(
      g, opts, "chain-rotor-weak",
      [&](const TrainingGraph &, const ChainView &view, int64_t budget) {
        return rotorWeakPlan(view.spec, budget, opts.slots);
      });
}

} // namespace remat
