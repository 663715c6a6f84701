//===- LowerSetDP.cpp - The DP over lower-set sequences (Sec. 4.2) --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// State: a lower set L with the Pareto front of (c, m) over the sequences
// ending at L that fit the budget, c the objective so far (the overhead, or
// minus it) and m = M(U), the cache: the paper's table opt[L, t], kept
// sparse (only non-dominated pairs). Sets are processed in an order
// extending inclusion; from L, a depth-first search along the family's
// edges visits the supersets L' and relaxes their fronts.
//
// Pruning, all exact:
//  - memory: the step's memory M(i) - M(U) never shrinks as L' grows (a
//    value leaving X(L') enters V' or Mb), so once the smallest m plus it
//    exceeds the budget, no superset of L' fits;
//  - time (MinOverhead): T(V' \ D(L')) never shrinks as L' grows (a node
//    whose successors are all in L' stays inside), so once c + it reaches
//    the bound no superset but V can beat the bound; V itself is tried
//    first from every state (its step costs no overhead);
//  - a fractional-knapsack lower bound on the overhead still to come;
//  - the bound: for MinOverhead an iterative deepening on the incumbent's
//    overhead: runs with bounds G, 1.25 G, ... keep only entries with c < G;
//    the first run that completes a plan has found the optimum (nothing
//    below G was pruned), and runs below the optimum are cheap. (Doubling
//    G costs 12x on a GoogLeNet-shaped graph's exact DP: a run's work grows
//    steeply with its bound above the optimum.)
// Most relaxations are dominated by the target's front; one walk along it
// discards them. Without an incumbent, a pass with coarse fronts provides
// one. On the L_v family with integral times (the paper's T_v = 1 or 10),
// a pull variant builds each set's front from all its subsets through a
// dense table indexed by the overhead: no merging, 3-10x faster there.
// MinPeak over all lower sets is the same DP with c the peak so far: a step
// from (c, m) ends at max(c, m + its peak), and a smaller m keeps every
// later step lower, so the (c, m) fronts stay exact. On the L_v family it
// bisects the budget with a feasibility-only DP (fronts of one entry: the
// smallest cache) to 0.1 % of the peak.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/LowerSet/LowerSet.h"
#include "remat/Solver/Core/Strategy.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace remat {

namespace {

struct Entry {
  double c;     ///< Objective so far.
  int64_t m;    ///< M(U).
  int32_t pset; ///< Parent: a processed set (its front no longer changes)
  int32_t pidx; ///< and the entry's index in that front.
};

enum class Mode { MinOverhead, MaxOverhead, Feasible, MinPeak };

class DP {
public:
  DP(const LowerSetModel &m, const LowerSetFamily &fam, Mode mode,
     int64_t cap, int64_t granularity, int64_t *workLeft = nullptr)
      : m_(m), fam_(fam), mode_(mode), cap_(cap),
        gran_(std::max<int64_t>(1, granularity)), left_(workLeft) {}

  /// Whether a run stopped because the transition allowance ran out.
  bool exhausted() const { return exhausted_; }

  /// Runs the DP keeping only entries with c < bound (MinOverhead, MinPeak:
  /// a peak above the base bytes), or stopping at the first complete plan
  /// (Feasible). Returns whether a complete plan was found; plan() then
  /// rebuilds it.
  bool run(double bound);
  /// The same for MinOverhead with integral times, pulling into each set
  /// from its subsets through a dense table indexed by the overhead.
  bool runPull(int64_t bound);
  LowerSetPlan plan() const;

private:
  // No division in the common exact case: merges call this per entry.
  int64_t key(int64_t m) const { return gran_ == 1 ? m : m / gran_; }
  void insert(std::vector<Entry> &front, const Entry &e) const;
  void merge(std::vector<Entry> &front);
  void pruneByKnapsack(const uint64_t *set, const LowerSetInfo &info,
                       std::vector<Entry> &F);
  /// Offers the best the entries of set s complete to V by `last`.
  void tryLastStep(int s, const LowerSetStep &last);
  /// Pushes the entries of set s that fit through step `st` into set x's
  /// front; false once the allowance is spent.
  bool pushInto(int s, int x, const LowerSetStep &st);

  /// Counts work (transitions tried, front entries scanned or merged)
  /// against the allowance; false once it is spent.
  bool spend(int64_t units = 1) {
    if (!left_)
      return true;
    if (*left_ < units) {
      *left_ = 0;
      exhausted_ = true;
      return false;
    }
    *left_ -= units;
    return true;
  }

  const LowerSetModel &m_;
  const LowerSetFamily &fam_;
  Mode mode_;
  int64_t cap_, gran_;
  int64_t *left_ = nullptr;
  bool exhausted_ = false;
  std::vector<std::vector<Entry>> front_;
  double best_ = 0;
  int32_t bestSet_ = -1, bestIdx_ = -1;
  std::vector<Entry> moved_, add_, tmp_;
  std::vector<int> ratioOrder_; ///< Recomputable nodes, time/byte descending.
  double totalTime_ = 0;
  std::vector<int64_t> cumMem_;
  std::vector<double> cumTime_;
  struct Cell {
    int64_t m;
    int32_t set, idx;
  };
  std::vector<Cell> dense_;
};

/// Fronts are sorted by c ascending with key(m) strictly descending.
void DP::insert(std::vector<Entry> &front, const Entry &e) const {
  auto firstAbove = std::upper_bound(
      front.begin(), front.end(), e.c,
      [](double x, const Entry &f) { return x < f.c; });
  if (firstAbove != front.begin() && key((firstAbove - 1)->m) <= key(e.m))
    return; // Dominated by an entry with c' <= c, m' <= m.
  auto first = std::lower_bound(
      front.begin(), front.end(), e.c,
      [](const Entry &f, double x) { return f.c < x; });
  auto last = first;
  while (last != front.end() && key(last->m) >= key(e.m))
    ++last;
  if (first == last) {
    front.insert(first, e);
  } else {
    *first = e;
    front.erase(first + 1, last);
  }
}

/// Merges the chain add_ (same order as a front) into `front`.
void DP::merge(std::vector<Entry> &front) {
  if (add_.size() <= 8) {
    for (const Entry &e : add_)
      insert(front, e);
    return;
  }
  tmp_.clear();
  int64_t minKey = std::numeric_limits<int64_t>::max();
  size_t i = 0, j = 0;
  while (i < front.size() || j < add_.size()) {
    bool takeFront =
        j == add_.size() ||
        (i < front.size() &&
         (front[i].c < add_[j].c ||
          (front[i].c == add_[j].c && front[i].m <= add_[j].m)));
    const Entry &e = takeFront ? front[i++] : add_[j++];
    if (key(e.m) < minKey) {
      tmp_.push_back(e);
      minKey = key(e.m);
    }
  }
  front.swap(tmp_);
}

// Every node of V \ L that is never recomputed is held at the last step
// (cached, or in V_k), so with cache m the nodes kept free fit in the
// budget minus m; the others are recomputed. A fractional knapsack over time
// per byte bounds the free time from above, the overhead to come from below.
void DP::pruneByKnapsack(const uint64_t *set, const LowerSetInfo &info,
                         std::vector<Entry> &F) {
  if (ratioOrder_.empty() && m_.size() > 0) {
    for (int v = 0; v < m_.size(); ++v) {
      totalTime_ += m_.time(v);
      if (m_.recomputable(v))
        ratioOrder_.push_back(v);
    }
    std::stable_sort(ratioOrder_.begin(), ratioOrder_.end(), [&](int a, int b) {
      return m_.time(a) * double(m_.mem(b)) > m_.time(b) * double(m_.mem(a));
    });
  }
  int64_t forcedMem = 0;
  double forcedTime = 0;
  for (int v = 0; v < m_.size(); ++v)
    if (!m_.recomputable(v) && !setHas(set, v)) {
      forcedMem += m_.mem(v);
      forcedTime += m_.time(v);
    }
  cumMem_.clear();
  cumTime_.clear();
  int64_t cm = 0;
  double ct = 0;
  for (int v : ratioOrder_)
    if (!setHas(set, v)) {
      cm += m_.mem(v);
      ct += m_.time(v);
      cumMem_.push_back(cm);
      cumTime_.push_back(ct);
    }
  const double rest = totalTime_ - info.time;
  const double slack = 1e-9 * (1 + std::abs(best_));
  size_t out = 0;
  for (size_t i = 0; i < F.size(); ++i) {
    int64_t cap = cap_ - F[i].m - forcedMem;
    bool keep = cap >= 0;
    if (keep) {
      size_t k = std::upper_bound(cumMem_.begin(), cumMem_.end(), cap) -
                 cumMem_.begin();
      double freeTime = forcedTime + (k ? cumTime_[k - 1] : 0);
      if (k < cumMem_.size()) {
        int64_t prevMem = k ? cumMem_[k - 1] : 0;
        double prevTime = k ? cumTime_[k - 1] : 0;
        freeTime += (cumTime_[k] - prevTime) * double(cap - prevMem) /
                    double(cumMem_[k] - prevMem);
      }
      keep = F[i].c + (rest - freeTime) < best_ + slack;
    }
    if (keep)
      F[out++] = F[i];
  }
  F.resize(out);
}

bool DP::run(double bound) {
  const bool minOverhead = mode_ == Mode::MinOverhead;
  const bool minPeak = mode_ == Mode::MinPeak;
  const bool feasible = mode_ == Mode::Feasible;
  best_ = bound;
  bestSet_ = bestIdx_ = -1;
  front_.assign(fam_.size(), {});
  front_[0].push_back(Entry{0, 0, -1, -1});
  if (fam_.fullId == 0) { // The empty graph: V is the empty set.
    bestSet_ = bestIdx_ = 0;
    best_ = 0;
    return true;
  }
  std::vector<int> stamp(fam_.size(), -1), stack;
  const LowerSetInfo &fullInfo = fam_.info[fam_.fullId];
  const uint64_t *fullSet = fam_.set(fam_.fullId);

  for (int s = 0; s < fam_.size(); ++s) {
    if (s == fam_.fullId)
      continue;
    std::vector<Entry> &F = front_[s];
    if (minOverhead || minPeak)
      while (!F.empty() && F.back().c >= best_)
        F.pop_back();
    if (minOverhead && !F.empty())
      pruneByKnapsack(fam_.set(s), fam_.info[s], F);
    if (F.empty())
      continue;
    const uint64_t *S = fam_.set(s);
    const LowerSetInfo &si = fam_.info[s];

    // The last step to V: no overhead, so every state tries it first.
    tryLastStep(s, m_.step(S, si, fullSet, fullInfo));
    if (feasible && bestSet_ >= 0)
      return true;

    const int64_t mMin = F.back().m;
    const double cMin = F.front().c;
    stamp[s] = s;
    stack.assign(fam_.children.begin() + fam_.childStart[s],
                 fam_.children.begin() + fam_.childStart[s + 1]);
    while (!stack.empty()) {
      int x = stack.back();
      stack.pop_back();
      if (stamp[x] == s)
        continue;
      stamp[x] = s;
      if (x == fam_.fullId)
        continue;
      const LowerSetInfo &xi = fam_.info[x];
      if (fam_.maxStep > 0 && xi.size - si.size > fam_.maxStep)
        continue; // Nor does any superset.
      if (!spend())
        return false;
      LowerSetStep st = m_.step(S, si, fam_.set(x), xi);
      if (mMin + st.peak > cap_ || (minPeak && mMin + st.peak >= best_))
        continue; // Nor does any superset fit (or peak lower).
      if (minOverhead && cMin + st.overhead >= best_)
        continue; // Nor can any superset but V beat the bound.
      for (int i = fam_.childStart[x]; i < fam_.childStart[x + 1]; ++i)
        if (stamp[fam_.children[i]] != s)
          stack.push_back(fam_.children[i]);
      if (!pushInto(s, x, st))
        return false;
    }
  }
  return bestSet_ >= 0;
}

void DP::tryLastStep(int s, const LowerSetStep &last) {
  const bool minOverhead = mode_ == Mode::MinOverhead;
  const bool minPeak = mode_ == Mode::MinPeak;
  const std::vector<Entry> &F = front_[s];
  for (size_t i = 0; i < F.size(); ++i)
    if (F[i].m + last.peak <= cap_) {
      double c = minPeak       ? std::max(F[i].c, double(F[i].m + last.peak))
                 : minOverhead ? F[i].c
                               : F[i].c - last.overhead;
      if (c < best_ || (bestSet_ < 0 && !minPeak)) {
        best_ = c;
        bestSet_ = s;
        bestIdx_ = static_cast<int32_t>(i);
      }
    }
}

bool DP::pushInto(int s, int x, const LowerSetStep &st) {
  const bool minOverhead = mode_ == Mode::MinOverhead;
  const bool minPeak = mode_ == Mode::MinPeak;
  const bool exactKeys = gran_ == 1;
  const std::vector<Entry> &F = front_[s];
  // Entries that fit: m <= cap - peak, a suffix (m descends); for MinPeak
  // also below the best peak so far.
  int64_t room = cap_ - st.peak;
  if (minPeak && best_ < double(cap_))
    room = std::min(room, static_cast<int64_t>(best_) - 1 - st.peak);
  size_t lo = std::partition_point(F.begin(), F.end(),
                                   [&](const Entry &e) {
                                     return e.m > room;
                                   }) -
              F.begin();
  std::vector<Entry> &T = front_[x];
  if (!spend(static_cast<int64_t>(F.size() - lo + T.size())))
    return false;
  const double shift = mode_ == Mode::Feasible ? 0
                       : minOverhead           ? st.overhead
                                               : -st.overhead;
  // The shifted entries form a chain (c ascending); those dominated by T
  // (nearly all) are discarded by one walk along T. MinPeak's entries,
  // max(c, m + peak), are sorted into a chain first.
  const Entry *begin = F.data() + lo, *end = F.data() + F.size();
  if (minPeak) {
    moved_.clear();
    for (size_t i = lo; i < F.size(); ++i)
      moved_.push_back(Entry{std::max(F[i].c, double(F[i].m + st.peak)),
                             F[i].m, F[i].pset, static_cast<int32_t>(i)});
    std::sort(moved_.begin(), moved_.end(),
              [](const Entry &a, const Entry &b) {
                return a.c < b.c || (a.c == b.c && a.m < b.m);
              });
    begin = moved_.data();
    end = begin + moved_.size();
  }
  add_.clear();
  size_t p = 0;
  const size_t tn = T.size();
  for (const Entry *e = begin; e != end; ++e) {
    double c = minPeak ? e->c : e->c + shift;
    if (minOverhead && c >= best_)
      break; // c grows along the front.
    int64_t mu = e->m + st.cached;
    while (p + 1 < tn && T[p + 1].c <= c)
      ++p;
    if (p < tn && T[p].c <= c &&
        (exactKeys ? T[p].m <= mu : key(T[p].m) <= key(mu)))
      continue;
    if (!add_.empty() && (exactKeys ? add_.back().m <= mu
                                    : key(add_.back().m) <= key(mu)))
      continue;
    add_.push_back(Entry{c, mu, s,
                         minPeak ? e->pidx
                                 : static_cast<int32_t>(e - F.data())});
  }
  if (!add_.empty())
    merge(T);
  return true;
}

bool DP::runPull(int64_t bound) {
  best_ = static_cast<double>(bound);
  bestSet_ = bestIdx_ = -1;
  front_.assign(fam_.size(), {});
  front_[0].push_back(Entry{0, 0, -1, -1});
  if (fam_.fullId == 0) {
    bestSet_ = bestIdx_ = 0;
    best_ = 0;
    return true;
  }
  const int64_t none = std::numeric_limits<int64_t>::max();
  dense_.assign(bound, Cell{none, -1, -1});
  std::vector<int> stamp(fam_.size(), -1), stack;
  for (int x = 1; x < fam_.size(); ++x) {
    const bool last = x == fam_.fullId;
    const uint64_t *X = fam_.set(x);
    const LowerSetInfo &xi = fam_.info[x];
    int64_t lo = bound, hi = -1;
    stamp[x] = x;
    stack.assign(fam_.parents.begin() + fam_.parentStart[x],
                 fam_.parents.begin() + fam_.parentStart[x + 1]);
    while (!stack.empty()) {
      int s = stack.back();
      stack.pop_back();
      if (stamp[s] == x)
        continue;
      stamp[s] = x;
      if (!last && fam_.maxStep > 0 &&
          xi.size - fam_.info[s].size > fam_.maxStep)
        continue; // Nor does any subset of s.
      // Smaller sources make larger steps: prune by the step alone.
      if (!spend())
        return false;
      LowerSetStep st = m_.step(fam_.set(s), fam_.info[s], X, xi);
      int64_t dt = std::llround(st.overhead);
      if (st.peak > cap_ || dt >= bound)
        continue;
      for (int i = fam_.parentStart[s]; i < fam_.parentStart[s + 1]; ++i)
        if (stamp[fam_.parents[i]] != x)
          stack.push_back(fam_.parents[i]);
      const std::vector<Entry> &F = front_[s];
      const int64_t room = cap_ - st.peak;
      size_t i = std::partition_point(F.begin(), F.end(),
                                      [&](const Entry &e) {
                                        return e.m > room;
                                      }) -
                 F.begin();
      if (!spend(static_cast<int64_t>(F.size() - i)))
        return false;
      for (; i < F.size(); ++i) {
        int64_t t = static_cast<int64_t>(F[i].c) + dt;
        if (t >= bound)
          break;
        int64_t mu = F[i].m + st.cached;
        Cell &cell = dense_[t];
        if (mu < cell.m) {
          cell = Cell{mu, s, static_cast<int32_t>(i)};
          lo = std::min(lo, t);
          hi = std::max(hi, t);
        }
      }
    }
    std::vector<Entry> &T = front_[x];
    int64_t minM = none;
    for (int64_t t = lo; t <= hi; ++t) {
      Cell &cell = dense_[t];
      if (cell.m < minM) {
        minM = cell.m;
        T.push_back(Entry{static_cast<double>(t), minM, cell.set, cell.idx});
      }
      cell.m = none;
    }
    if (last) {
      if (!T.empty()) {
        best_ = T.front().c;
        bestSet_ = T.front().pset;
        bestIdx_ = T.front().pidx;
      }
      break;
    }
    if (!T.empty())
      pruneByKnapsack(X, xi, T);
  }
  return bestSet_ >= 0;
}

LowerSetPlan DP::plan() const {
  LowerSetPlan p;
  p.feasible = true;
  const uint64_t *full = fam_.set(fam_.fullId);
  p.sets.emplace_back(full, full + fam_.words);
  for (int32_t s = bestSet_, i = bestIdx_; s > 0;) {
    const uint64_t *b = fam_.set(s);
    p.sets.emplace_back(b, b + fam_.words);
    const Entry &e = front_[s][i];
    s = e.pset;
    i = e.pidx;
  }
  std::reverse(p.sets.begin(), p.sets.end());
  LowerSetModel::Cost cost = m_.evaluate(p.sets);
  p.overhead = cost.overhead;
  p.peak = cost.peak;
  return p;
}

int64_t capOf(const LowerSetModel &m, int64_t budget) {
  return budget >= kUnlimitedBudget - m.baseBytes()
             ? std::numeric_limits<int64_t>::max() / 4
             : budget - m.baseBytes();
}

/// Out of transitions: the incumbent (or nothing), marked as such.
LowerSetPlan gaveUp(const LowerSetPlan *incumbent) {
  LowerSetPlan p = incumbent && incumbent->feasible ? *incumbent
                                                    : LowerSetPlan();
  p.exhausted = true;
  return p;
}

/// What a DP run that completed no plan leaves: the incumbent or nothing,
/// marked when the allowance ran out.
LowerSetPlan noPlan(const DP &dp, const LowerSetPlan *incumbent) {
  const bool haveInc = incumbent && incumbent->feasible;
  return dp.exhausted() ? gaveUp(incumbent)
         : haveInc      ? *incumbent
                        : LowerSetPlan();
}

/// The incumbent if feasible, else the one-segment plan (always canonical).
LowerSetPlan incumbentOrOneSegment(const LowerSetModel &m,
                                   const LowerSetPlan *incumbent) {
  if (incumbent && incumbent->feasible)
    return *incumbent;
  LowerSetPlan p;
  p.feasible = true;
  p.sets.push_back(m.fullSet());
  LowerSetModel::Cost c = m.evaluate(p.sets);
  p.overhead = c.overhead;
  p.peak = c.peak;
  return p;
}

/// MinPeak: bisects the budget with feasibility DPs, from the incumbent's
/// peak (or the one-segment plan's).
LowerSetPlan bisectPeak(const LowerSetModel &m, const LowerSetFamily &fam,
                        int64_t budget, const LowerSetPlan *incumbent,
                        int64_t granularity, int64_t *workLeft) {
  const double inf = std::numeric_limits<double>::infinity();
  // Feasible at hi, infeasible at lo.
  LowerSetPlan best = incumbentOrOneSegment(m, incumbent);
  // To 0.1% of the peak (exactly below 1000 bytes): each step is a full
  // feasibility DP.
  int64_t lo = m.baseBytes() - 1, hi = best.peak;
  while (hi - lo > std::max<int64_t>(1, hi / 1000)) {
    int64_t mid = lo + (hi - lo) / 2;
    DP dp(m, fam, Mode::Feasible, capOf(m, mid), granularity, workLeft);
    if (dp.run(inf)) {
      best = dp.plan();
      hi = best.peak; // <= mid.
    } else if (dp.exhausted()) {
      best.exhausted = true;
      break;
    } else {
      lo = mid;
    }
  }
  return best.peak <= budget ? best : LowerSetPlan();
}

/// MinPeak over all lower sets: one MinPeak DP under the incumbent's peak
/// (or the one-segment plan's). On the L_v family, bisection by feasibility
/// DPs: their one-entry fronts are far cheaper there, where the MinPeak
/// DP's fronts grow with the graph (2.6x slower on a 2000-node GoogLeNet
/// shape); over all lower sets, one MinPeak run costs about one
/// feasibility run (4.8x faster on the 4-rank GPipe step).
LowerSetPlan leastPeak(const LowerSetModel &m, const LowerSetFamily &fam,
                       int64_t budget, const LowerSetPlan *incumbent,
                       int64_t granularity, int64_t *workLeft) {
  if (fam.pruned)
    return bisectPeak(m, fam, budget, incumbent, granularity, workLeft);
  LowerSetPlan best = incumbentOrOneSegment(m, incumbent);
  DP dp(m, fam, Mode::MinPeak, capOf(m, kUnlimitedBudget), granularity,
        workLeft);
  if (dp.run(double(best.peak - m.baseBytes())))
    best = dp.plan();
  else if (dp.exhausted())
    best.exhausted = true;
  return best.peak <= budget ? best : LowerSetPlan();
}

/// Whether the dense pull DP applies: exact keys on the L_v family with
/// integral times that sum (into `total`) to a table of modest size.
bool pullApplies(const LowerSetModel &m, const LowerSetFamily &fam,
                 int64_t granularity, double &total) {
  // On the L_v family, integral times (the paper's model) allow the dense
  // pull DP. Over all lower sets the push DP prunes better.
  total = 0;
  bool integral = granularity == 1 && fam.pruned;
  for (int v = 0; v < m.size() && integral; ++v) {
    total += m.time(v);
    integral = m.time(v) >= 0 && m.time(v) == std::floor(m.time(v));
  }
  // The dense table has one cell per unit of overhead: FLOP-sized times
  // (exported graphs) would allocate and touch ~100 MB per DP.
  return integral && total < double(1 << 20);
}

/// MinOverhead by the pull DP, deepening from a fraction of `total` where
/// there is no incumbent.
LowerSetPlan pullMinOverhead(DP &dp, double total,
                             const LowerSetPlan *incumbent) {
  const bool haveInc = incumbent && incumbent->feasible;
  // Without an incumbent, iterative deepening from 1/16 of the total
  // time: fronts hold only entries below the bound, and the first run that
  // completes a plan has found the optimum (1.7x faster on 1000-node
  // U-Nets, 5x on ResNets, whose optima lie far below the total). With
  // one (the probes), its overhead bounds a single run: probes rarely
  // improve on it, and deepening below it then only adds runs.
  if (haveInc && incumbent->overhead <= 0)
    return *incumbent;
  if (!haveInc)
    for (double g = std::max(1.0, std::floor(total / 16)); g < total;
         g = std::max(g + 1, std::floor(g * 1.5))) {
      if (dp.runPull(static_cast<int64_t>(g)))
        return dp.plan();
      if (dp.exhausted())
        return gaveUp(incumbent);
    }
  double bound = haveInc ? incumbent->overhead : total + 1;
  if (dp.runPull(static_cast<int64_t>(std::ceil(bound))))
    return dp.plan();
  return noPlan(dp, incumbent);
}

/// MinOverhead by the push DP under the incumbent's overhead, deepening
/// from 1/16 of it.
LowerSetPlan pushMinOverhead(DP &dp, const LowerSetModel &m,
                             const LowerSetPlan *incumbent) {
  const double inf = std::numeric_limits<double>::infinity();
  const bool haveInc = incumbent && incumbent->feasible;
  double bound = haveInc ? incumbent->overhead : inf;
  if (bound < inf) {
    if (bound <= 0)
      return *incumbent; // Nothing beats no overhead.
    double minTime = inf;
    for (int v = 0; v < m.size(); ++v)
      if (m.time(v) > 0)
        minTime = std::min(minTime, m.time(v));
    for (double g = std::max(minTime, bound / 16); g < bound; g *= 1.25) {
      if (dp.run(g))
        return dp.plan();
      if (dp.exhausted())
        return gaveUp(incumbent);
    }
  }
  if (dp.run(bound))
    return dp.plan();
  return noPlan(dp, incumbent);
}

} // namespace

LowerSetPlan solveLowerSetDP(const LowerSetModel &m,
                             const LowerSetFamily &fam,
                             LowerSetObjective objective, int64_t budget,
                             const LowerSetPlan *incumbent,
                             int64_t granularity, int64_t *workLeft) {
  const double inf = std::numeric_limits<double>::infinity();
  const bool haveInc = incumbent && incumbent->feasible;
  if (fam.fullId < 0 || budget < m.baseBytes())
    return haveInc ? *incumbent : LowerSetPlan();

  if (objective == LowerSetObjective::MinPeak)
    return leastPeak(m, fam, budget, incumbent, granularity, workLeft);

  const int64_t cap = capOf(m, budget);
  if (objective == LowerSetObjective::MaxOverhead) {
    DP dp(m, fam, Mode::MaxOverhead, cap, granularity, workLeft);
    if (dp.run(inf))
      return dp.plan();
    return noPlan(dp, incumbent);
  }

  double total;
  bool integral = pullApplies(m, fam, granularity, total);
  DP dp(m, fam, Mode::MinOverhead, cap, granularity, workLeft);
  if (integral)
    return pullMinOverhead(dp, total, incumbent);
  // Otherwise, without an incumbent, a coarse pass (caches compared in
  // 1/32nds of the budget) finds a near-optimal plan cheaply; it bounds the
  // exact search.
  LowerSetPlan seed;
  if (!haveInc && granularity == 1 &&
      cap < std::numeric_limits<int64_t>::max() / 4 && cap >= 256) {
    seed = solveLowerSetDP(m, fam, objective, budget, nullptr, cap / 32,
                           workLeft);
    if (seed.exhausted)
      return seed;
    if (seed.feasible)
      return solveLowerSetDP(m, fam, objective, budget, &seed, 1,
                             workLeft);
  }
  return pushMinOverhead(dp, m, incumbent);
}

} // namespace remat
