//===- ChainPreciseStrategy.cpp - Butt's precise DP on chains --------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Two kinds of chains reach the thesis's DP (PreciseChain.h):
//  - the thesis's own model (Sec. 3.1.1): L'_i reads f_i and b_{i+1} only.
//    As a TrainingGraph this is a join with one branch (Join.h), the turn
//    being the loss backward L'_n with b_{n+1} = nothing. The DP is exact
//    there (the tests compare it with the brute force);
//  - rotor chains (Chain.h, through helper ChainView / solveViaChain), with
//    the thesis's PyTorch redefinition of f_k (preciseChainPlan, in Chain/).
// It lives in Join/ because the first needs the join recogniser and Chain/
// must not depend on Join/.
// Both run in the Simulator's memory model (the thesis's is the same:
// a step holds its inputs and outputs, Eq. 2.19), with sizes in slots like
// rotor (budget cut into `slots` slots, sizes rounded up).
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Join/Join.h"
#include "remat/Solver/Chain/ChainSolvers.h"
#include "remat/Solver/Chain/PreciseChain.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Join/JoinStrategies.h"

#include <algorithm>

namespace remat {

namespace {

/// The thesis model on a one-branch join: f_i = x_i, b_i = x̄_i,
/// L_l = F_{l-1}, L'_i = F̄_i (i < n), L'_n = the turn, n = branch length.
StrategyResult solveThesisChain(const TrainingGraph &g, const JoinView &v,
                                const SolveOptions &opts) {
  StrategyResult r;
  const JoinBranch &b = v.spec.branches[0];
  const int n = b.length();
  int64_t budget =
      std::min(opts.budget, simulate(g, keepEverythingSchedule(g)).peak);
  int64_t avail = budget - inputBytes(g);
  if (avail < 0) {
    r.reason = "chain-precise: the budget does not even hold the inputs";
    return r;
  }
  const int64_t S = std::max(1, opts.slots);
  const int64_t unit = avail > S ? (avail + S - 1) / S : 1;
  auto sl = [&](int64_t bytes) {
    return bytes <= 0 ? int64_t(0) : (bytes + unit - 1) / unit;
  };
  auto xb = [&](int i) { return i == 0 ? b.x0 : b.stages[i - 1].x; };
  auto gb = [&](int i) { return i == 0 ? b.xbar0 : b.stages[i - 1].xbar; };

  PreciseChainTables t = PreciseChainTables::zeros(n);
  for (int i = 0; i <= n; ++i)
    t.grad[i] = sl(gb(i));
  for (int l = 1; l <= n; ++l) {
    const JoinStage &st = b.stages[l - 1];
    t.fwdTime[l] = st.uf;
    t.hold[l] = sl(xb(l));
    t.stepFirst[l] = sl(xb(l) + st.of);
    t.stepMid[l] = sl(xb(l - 1) + xb(l) + st.of);
  }
  for (int i = 0; i < n; ++i) {
    t.bwdTime[i] = b.stages[i].ub;
    t.bwdPeak[i] = sl(gb(i + 1) + gb(i) + b.stages[i].ob);
  }
  t.bwdTime[n] = v.spec.ut;
  t.bwdPeak[n] = sl(gb(n) + v.spec.ot);
  t.holdNext = t.hold;
  t.stepFirstKeep = t.stepFirst;
  t.stepMidKeep = t.stepMid;

  const int64_t M = avail / unit;
  PreciseChainDP dp(std::move(t), M);
  if (dp.cost(0, n + 1, M) == PreciseChainDP::kInf) {
    r.reason = "chain-precise: no schedule fits the budget";
    return r;
  }
  std::vector<PreciseChainDP::Op> ops;
  dp.emit(0, n + 1, M, ops);
  Schedule runs;
  for (const PreciseChainDP::Op &op : ops)
    runs.run(op.forward ? v.forward[0][op.index - 1]
                        : (op.index < n ? v.backward[0][op.index] : v.turn));
  r.feasible = true;
  r.schedule = runs.withEagerFrees(g);
  return r;
}

} // namespace

/// The thesis model's schedules are no chain-view expansions: no claim there.
static bool usesThesisModel(const std::optional<JoinView> &join) {
  return join && join->spec.k() == 1;
}

StrategyResult solveChainPrecise(const TrainingGraph &g,
                                 const SolveOptions &opts) {
  std::optional<JoinView> join = recognizeJoin(g);
  if (usesThesisModel(join))
    return solveThesisChain(g, *join, opts);
  return solveViaChain(
      g, opts, "chain-precise",
      [&](const TrainingGraph &, const ChainView &view, int64_t budget) {
        return preciseChainPlan(view.spec, budget, opts.slots);
      });
}

int64_t chainPreciseFloor(const TrainingGraph &g, const SolveOptions &opts) {
  return usesThesisModel(recognizeJoin(g)) ? 0 : viaChainFloor(g, opts);
}

} // namespace remat
