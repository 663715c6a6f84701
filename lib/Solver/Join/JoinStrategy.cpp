//===- JoinStrategy.cpp - Join graphs (Beaumont et al. 2019, Theorem 3) ---===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Canonical schedules (Theorem 1): from the current heads x_{p_j} (one
// stored value per branch), advance one branch b from x_{p_b} to x_q without
// storing the values in between, store x_q, solve the smaller join (heads
// p with p_b = q) while x_{p_b} stays stored, then backpropagate the segment
// [p_b, q) from x_{p_b} and x̄_q with every other branch's x̄_{p_j} held.
// Theorem 3 in bytes instead of unit slots:
//   Opt(p, m) = min_{b, q} [ sum uf(F_{p_b}..F_{q-1})
//                            + Opt(p[b <- q], m - head(x_{p_b}))
//                            + Opt_0^b(p_b, q, m - head(x_{p_b})
//                                                - sum_{j != b} |x̄_{p_j}|) ]
//   Opt(l, m)  = u_t if the turn fits,
// where Opt_0^b is Butt's chain DP on branch b (PreciseChain.h, thesis
// convention: x_{p_b} outside its budget, x̄_q inside). The paper's unit
// "c - 1" and "c - (k - 1)" are the head and gradient terms above; its base
// cases (the turn; one branch of length 1) are special cases of the
// recursion. Memory is counted in one of two models (JoinModel): the
// Simulator's, or the paper's in-place pebble model, which reproduces
// Theorem 2 (see docs/solver.md for why the two differ).
//
// Table: one row per state p over m from the smallest feasible m up to the
// first m reaching the no-recomputation bound; prod(l_j + 1) states. A row
// is computed action by action over all m at once, only where the action's
// cost bound (it recomputes the segment's interior once more) is below the
// row so far; no argmin is stored: emit() recomputes it.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Join/Join.h"
#include "remat/Solver/Chain/PreciseChain.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Join/JoinStrategies.h"

#include <algorithm>
#include <cmath>
#include <memory>

namespace remat {

namespace {

constexpr double kInf = PreciseChainDP::kInf;

/// Per-branch tables in slots.
struct Branch {
  int len = 0;
  std::vector<int64_t> head;      ///< [0..len] x_i kept as a head.
  std::vector<int64_t> grad;      ///< [0..len] |x̄_i|.
  std::vector<int64_t> stepFirst; ///< [1..len] F_{l-1} from a head.
  std::vector<int64_t> stepMid;   ///< [1..len] F_{l-1} from a dying value.
  std::vector<double> fPre;       ///< [0..len] sum of uf(F_0..F_{l-1}).
  std::vector<double> bPre;       ///< [0..len] sum of ub(F̄_0..F̄_{i-1}).
  std::unique_ptr<PreciseChainDP> opt0;
};

class JoinDP {
public:
  JoinDP(const JoinSpec &spec, JoinModel model, int64_t slotBytes,
         int64_t maxSlots);
  void solve();
  double cost(int64_t s, int64_t m) const {
    if (m < lo_[s] || hi_[s] < lo_[s])
      return kInf;
    return c_[size_t(off_[s] + std::min(m, hi_[s]) - lo_[s])];
  }
  /// Appends the run steps of the optimal plan of (heads p, m).
  void emit(std::vector<int> &p, int64_t m, const JoinView &v,
            Schedule &out) const;

private:
  int64_t slots(int64_t bytes) const {
    return bytes <= 0 ? 0 : (bytes + unit_ - 1) / unit_;
  }
  int64_t index(const std::vector<int> &p) const {
    int64_t s = 0;
    for (int j = 0; j < k_; ++j)
      s += p[j] * stride_[j];
    return s;
  }
  /// Memory held by the heads, the no-recomputation bound of the state and
  /// the memory the turn needs when every head is at its branch's end.
  struct StateInfo {
    int64_t heads = 0, turnNeed = 0;
    double lb = 0;
    bool done = true;
  };
  StateInfo info(const std::vector<int> &p) const;
  /// Slots the other branches' gradients x̄_{p_j} hold (j != b).
  int64_t others(const std::vector<int> &p, int b) const {
    int64_t g = 0;
    for (int j = 0; j < k_; ++j)
      if (j != b)
        g += br_[j].grad[p[j]];
    return g;
  }

  JoinModel model_;
  int k_;
  int64_t unit_, maxSlots_;
  double ut_;
  int64_t turnWork_;
  std::vector<Branch> br_;
  std::vector<int64_t> stride_;
  int64_t numStates_ = 1;
  // Per state: costs for m in [lo, hi] at pool offset off.
  std::vector<int64_t> lo_, hi_, off_;
  std::vector<double> c_;
};

JoinDP::JoinDP(const JoinSpec &spec, JoinModel model, int64_t slotBytes,
               int64_t maxSlots)
    : model_(model), k_(spec.k()), unit_(slotBytes), maxSlots_(maxSlots),
      ut_(spec.ut) {
  const bool sim = model == JoinModel::Simulator;
  turnWork_ = sim ? slots(spec.ot) : 0;
  stride_.resize(k_);
  for (int j = 0; j < k_; ++j) {
    stride_[j] = numStates_;
    numStates_ *= spec.branches[j].length() + 1;
  }
  br_.resize(k_);
  for (int j = 0; j < k_; ++j) {
    const JoinBranch &jb = spec.branches[j];
    Branch &b = br_[j];
    const int len = b.len = jb.length();
    auto xb = [&](int i) { return i == 0 ? jb.x0 : jb.stages[i - 1].x; };
    auto gb = [&](int i) { return i == 0 ? jb.xbar0 : jb.stages[i - 1].xbar; };
    b.head.resize(len + 1);
    b.grad.resize(len + 1);
    b.stepFirst.assign(len + 1, 0);
    b.stepMid.assign(len + 1, 0);
    b.fPre.assign(len + 1, 0);
    b.bPre.assign(len + 1, 0);
    for (int i = 0; i <= len; ++i) {
      // Simulator: graph inputs are never freed; they are background.
      b.head[i] = sim ? (i == 0 ? 0 : slots(xb(i))) : xb(i);
      b.grad[i] = sim ? slots(gb(i)) : gb(i);
    }
    for (int l = 1; l <= len; ++l) {
      const JoinStage &st = jb.stages[l - 1];
      b.stepFirst[l] = sim ? slots(xb(l) + st.of) : xb(l);
      b.stepMid[l] = sim ? slots(xb(l - 1) + xb(l) + st.of)
                         : std::max(xb(l - 1), xb(l));
      b.fPre[l] = b.fPre[l - 1] + st.uf;
      b.bPre[l] = b.bPre[l - 1] + st.ub;
    }
    if (len == 0)
      continue;
    // Opt_0 on this branch: thesis indices f_i = x_i, b_i = x̄_i, L_l = F_{l-1},
    // L'_i = F̄_i, n = len - 1 (b_len = x̄_len comes from the turn).
    const int n = len - 1;
    PreciseChainTables t = PreciseChainTables::zeros(n);
    t.grad.assign(b.grad.begin(), b.grad.end());
    for (int l = 1; l <= n; ++l) {
      t.fwdTime[l] = jb.stages[l - 1].uf;
      t.hold[l] = b.head[l];
      t.stepFirst[l] = b.stepFirst[l];
      t.stepMid[l] = b.stepMid[l];
    }
    for (int i = 0; i <= n; ++i) {
      const JoinStage &st = jb.stages[i];
      t.bwdTime[i] = st.ub;
      // In place, F̄_i's output may take x_i's slot (x_i is outside m).
      t.bwdPeak[i] = sim ? slots(gb(i + 1) + gb(i) + st.ob)
                         : std::max(gb(i + 1), gb(i) - xb(i));
    }
    t.holdNext = t.hold;
    t.stepFirstKeep = t.stepFirst;
    t.stepMidKeep = t.stepMid;
    b.opt0 = std::make_unique<PreciseChainDP>(std::move(t), maxSlots_);
  }
}

JoinDP::StateInfo JoinDP::info(const std::vector<int> &p) const {
  StateInfo in;
  in.lb = ut_;
  int64_t grads = 0;
  for (int j = 0; j < k_; ++j) {
    const Branch &b = br_[j];
    in.heads += b.head[p[j]];
    in.done &= p[j] == b.len;
    in.lb += b.fPre[b.len] - b.fPre[p[j]] + b.bPre[b.len] - b.bPre[p[j]];
    grads += b.grad[b.len];
  }
  // The turn: every x_{l_j} -> x̄_{l_j}; in the paper's model in place.
  in.turnNeed = model_ == JoinModel::Simulator
                    ? in.heads + grads + turnWork_
                    : std::max(in.heads, grads);
  return in;
}

void JoinDP::solve() {
  lo_.assign(numStates_, maxSlots_ + 1);
  hi_.assign(numStates_, -1);
  off_.assign(numStates_, 0);
  const int64_t M = maxSlots_;
  std::vector<double> rowBuf(size_t(std::max<int64_t>(M, 0) + 1));
  double *row = rowBuf.data();
  std::vector<int> p(k_);
  for (int64_t s = numStates_ - 1; s >= 0; --s) {
    for (int j = 0; j < k_; ++j)
      p[j] = static_cast<int>((s / stride_[j]) % (br_[j].len + 1));
    const StateInfo in = info(p);
    off_[s] = static_cast<int64_t>(c_.size());
    if (M < 0)
      continue;
    std::fill(row, row + M + 1, kInf);
    if (in.done) {
      for (int64_t m = std::max<int64_t>(0, in.turnNeed); m <= M; ++m)
        row[m] = ut_;
    }
    for (int bi = 0; bi < k_ && !in.done; ++bi) {
      const Branch &b = br_[bi];
      const int from = p[bi];
      const int64_t head = b.head[from], held = head + others(p, bi);
      int64_t fpeak = 0;
      for (int q = from + 1; q <= b.len; ++q) {
        fpeak = std::max(fpeak, q == from + 1 ? b.stepFirst[q] : b.stepMid[q]);
        if (in.heads + fpeak > M)
          break; // Every longer sweep passes through this step.
        // Action (bi, q) recomputes x_{from+1}..x_{q-1} once more, so it
        // can only improve the prefix of the non-increasing row above bound.
        const double bound = in.lb + (b.fPre[q - 1] - b.fPre[from]);
        int64_t mStar = std::partition_point(row, row + M + 1,
                                             [&](double v) {
                                               return v > bound;
                                             }) -
                        row;
        if (mStar == 0)
          break;
        const int64_t sub = s + int64_t(q - from) * stride_[bi];
        if (hi_[sub] < lo_[sub])
          continue;
        PreciseChainDP::RowView seg = b.opt0->row(from, q);
        if (!seg.c)
          continue;
        const double sweep = b.fPre[q] - b.fPre[from];
        const double *sc = c_.data() + off_[sub], *gc = seg.c;
        const int64_t so = lo_[sub] + head, go = seg.lo + held;
        const double sEnd = sc[hi_[sub] - lo_[sub]], gEnd = gc[seg.hi - seg.lo];
        const int64_t start = std::max({in.heads + fpeak, so, go});
        const int64_t stop = mStar - 1;
        const int64_t sVar = hi_[sub] + head, gVar = seg.hi + held;
        int64_t m = start;
        for (int64_t e = std::min({stop, sVar, gVar}); m <= e; ++m)
          row[m] = std::min(row[m], sweep + sc[m - so] + gc[m - go]);
        for (int64_t e = std::min(stop, sVar); m <= e; ++m)
          row[m] = std::min(row[m], sweep + sc[m - so] + gEnd);
        for (int64_t e = std::min(stop, gVar); m <= e; ++m)
          row[m] = std::min(row[m], sweep + sEnd + gc[m - go]);
        for (; m <= stop; ++m)
          row[m] = std::min(row[m], sweep + sEnd + gEnd);
      }
    }
    // Keep [first feasible m, first m without recomputation].
    int64_t lo = -1, hi = M;
    for (int64_t m = 0; m <= M; ++m) {
      if (lo < 0 && row[m] < kInf)
        lo = m;
      if (lo >= 0 && row[m] <= in.lb + 1e-9 * std::max(1.0, in.lb)) {
        hi = m;
        break;
      }
    }
    if (lo < 0)
      continue;
    lo_[s] = lo;
    hi_[s] = hi;
    c_.insert(c_.end(), row + lo, row + hi + 1);
  }
}

void JoinDP::emit(std::vector<int> &p, int64_t m, const JoinView &v,
                  Schedule &out) const {
  const int64_t s = index(p);
  const StateInfo in = info(p);
  if (in.done) {
    out.run(v.turn);
    return;
  }
  // Recompute the argmin with the expressions solve() used (an exact match;
  // the nearest candidate within rounding is a safety net).
  const double target = cost(s, m);
  int bestB = -1, bestQ = -1;
  double bestDiff = 1e-9 * std::max(1.0, std::fabs(target));
  for (int bi = 0; bi < k_ && bestDiff > 0; ++bi) {
    const Branch &b = br_[bi];
    const int from = p[bi];
    const int64_t head = b.head[from], held = head + others(p, bi);
    int64_t fpeak = 0;
    for (int q = from + 1; q <= b.len && bestDiff > 0; ++q) {
      fpeak = std::max(fpeak, q == from + 1 ? b.stepFirst[q] : b.stepMid[q]);
      if (in.heads + fpeak > m)
        break;
      const int64_t sub = s + int64_t(q - from) * stride_[bi];
      double sv = cost(sub, m - head), gv = b.opt0->cost(from, q, m - held);
      if (sv == kInf || gv == kInf)
        continue;
      const double sweep = b.fPre[q] - b.fPre[from];
      double diff = std::fabs(sweep + sv + gv - target);
      if (diff <= bestDiff) {
        bestDiff = diff;
        bestB = bi;
        bestQ = q;
      }
    }
  }
  if (bestB < 0)
    return; // Unreachable; the Simulator would reject the schedule.
  const Branch &b = br_[bestB];
  const int from = p[bestB];
  const int64_t head = b.head[from], held = head + others(p, bestB);
  for (int i = from; i < bestQ; ++i)
    out.run(v.forward[bestB][i]);
  p[bestB] = bestQ;
  emit(p, m - head, v, out);
  p[bestB] = from;
  std::vector<PreciseChainDP::Op> ops;
  b.opt0->emit(from, bestQ, m - held, ops);
  for (const PreciseChainDP::Op &op : ops)
    out.run(op.forward ? v.forward[bestB][op.index - 1]
                       : v.backward[bestB][op.index]);
}

} // namespace

JoinPlan planJoin(const TrainingGraph &g, const JoinView &view, int64_t budget,
                  const JoinPlanOptions &opts) {
  JoinPlan plan;
  const JoinSpec &spec = view.spec;
  int64_t avail = budget, unit = 1;
  if (opts.model == JoinModel::Simulator) {
    avail = budget - inputBytes(g);
    int64_t slots = std::max(1, opts.slots);
    unit = avail > slots ? (avail + slots - 1) / slots : 1;
  }
  if (avail < 0) {
    plan.reason = "join: the budget does not even hold the graph inputs";
    return plan;
  }
  int64_t states = 1;
  for (const JoinBranch &b : spec.branches) {
    states *= b.length() + 1;
    if (states > opts.maxStates) {
      plan.reason = "join: more than " + std::to_string(opts.maxStates) +
                    " DP states (prod of branch lengths + 1); too many or "
                    "too long branches";
      return plan;
    }
  }
  JoinDP dp(spec, opts.model, unit, avail / unit);
  dp.solve();
  double t = dp.cost(0, avail / unit);
  if (t == kInf) {
    plan.reason = "join: no schedule fits the budget";
    return plan;
  }
  Schedule runs;
  std::vector<int> p(spec.k(), 0);
  dp.emit(p, avail / unit, view, runs);
  plan.feasible = true;
  plan.time = t;
  plan.slotBytes = unit;
  plan.schedule = runs.withEagerFrees(g);
  return plan;
}

StrategyResult solveJoin(const TrainingGraph &g, const SolveOptions &opts) {
  StrategyResult r;
  std::string why;
  std::optional<JoinView> view = recognizeJoin(g, &why);
  if (!view) {
    r.reason = "join: not applicable: " + why;
    return r;
  }
  // Memory beyond the no-remat peak buys nothing; capping the budget keeps
  // the slot discretisation fine.
  int64_t budget =
      std::min(opts.budget, simulate(g, keepEverythingSchedule(g)).peak);
  JoinPlanOptions po;
  po.slots = opts.slots;
  JoinPlan plan = planJoin(g, *view, budget, po);
  if (!plan.feasible) {
    r.reason = plan.reason;
    return r;
  }
  r.feasible = true;
  r.schedule = std::move(plan.schedule);
  return r;
}

} // namespace remat
