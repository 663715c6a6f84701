//===- RevolveStrategy.cpp - Binomial checkpointing (Griewank-Walther) ---===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Revolve reverses l steps with c checkpoints of the state a (the first one
// holds a^0) and a working state, advancing at most r times per step where
// beta(c, r) = C(c+r, c) >= l; its total number of advances
// t(l, c) = r l - beta(c+1, r-1) is minimal (Griewank 1992; Griewank &
// Walther 2000). Each split puts the next checkpoint m steps ahead, with m
// minimising m + t(l-m, c-1) + t(m, c) (the recursion behind the bound).
//
// On a chain the AD model stores only a and tapes each step right before its
// reversal: B^l is always preceded by its own F_all^l (rotor Sec. 3.3 and
// its "revolve" baseline, after Gruslys et al. 2016, App. C). Sizes are
// ignored when placing checkpoints; the strategy takes the largest number of
// checkpoints whose schedule the Simulator finds within budget (more
// checkpoints never mean more advances), by binary search. Where B^l reads
// only a^{l-1} (no tape: exp's backward moved up a stage by the chain view)
// the taping run before it is dropped, so on such chains the schedule is
// Griewank's for the reversal of states rather than of steps.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Chain/ChainSolvers.h"
#include "remat/Solver/Chain/ChainStrategies.h"
#include "remat/Solver/Loop/LoopReversal.h"

#include <algorithm>

namespace remat {
namespace {

constexpr int64_t kBig = int64_t(1) << 62;

/// t(l, c) (minimalAdvances: the binomial bound the loop reversal shares),
/// with "never" (kBig) for l > 1 without a checkpoint.
int64_t advances(int64_t l, int c) {
  int64_t t = minimalAdvances(l, c);
  return t < 0 ? kBig : t;
}

/// Reverses steps i+1..n from the checkpoint a^i with c checkpoints (a^i's
/// included); appends the operations.
void reverse(int i, int n, int c, ChainOps &ops) {
  while (n > i) {
    if (n == i + 1 || c <= 0) { // Youturn: tape the step and reverse it.
      ops.push_back({ChainOp::FAll, n});
      ops.push_back({ChainOp::Backward, n});
      return;
    }
    const int len = n - i;
    int bestM = len - 1;
    int64_t bestCost = kBig;
    for (int m = 1; m < len; ++m) {
      int64_t right = advances(len - m, c - 1);
      if (right >= kBig)
        continue;
      int64_t cost = m + right + advances(m, c);
      if (cost < bestCost)
        bestCost = cost, bestM = m;
    }
    ops.push_back({ChainOp::FCheck, i + 1});
    for (int j = i + 2; j <= i + bestM; ++j)
      ops.push_back({ChainOp::FNone, j});
    reverse(i + bestM, n, c - 1, ops); // Depth <= c.
    n = i + bestM;
  }
}

} // namespace

int64_t revolveAdvances(int64_t steps, int snapshots) {
  int64_t t = advances(steps, snapshots);
  return t >= kBig ? -1 : t;
}

ChainOps revolveOps(int steps, int snapshots) {
  ChainOps ops;
  if (snapshots >= 1 || steps <= 1)
    reverse(0, steps, std::min(snapshots, steps), ops);
  return ops;
}

/// Revolve's operations with the taping run dropped where B^l reads no value
/// of its own stage (ChainStage::tape): it needs only a^{l-1}, which the
/// taping run read, so it is still live.
static ChainOps revolveOpsFor(const ChainView &view, int snapshots) {
  const int steps = view.length() + 1;
  ChainOps ops = revolveOps(steps, snapshots), out;
  for (size_t i = 0; i < ops.size(); ++i) {
    const ChainStep &st = ops[i];
    if (st.op == ChainOp::FAll && st.stage <= view.length() &&
        !view.spec.stages[st.stage - 1].tape && i + 1 < ops.size() &&
        ops[i + 1] == ChainStep{ChainOp::Backward, st.stage})
      continue;
    out.push_back(st);
  }
  return out;
}

StrategyResult solveRevolve(const TrainingGraph &g, const SolveOptions &opts) {
  return solveViaChain(
      g, opts, "revolve",
      [](const TrainingGraph &graph, const ChainView &view, int64_t budget) {
        ChainPlan plan;
        const int steps = view.length() + 1;
        // The peak grows with the number of checkpoints c (in practice; the
        // sizes are ignored when placing them): binary search for the
        // largest c that fits, one simulation per probe.
        int64_t lowest = -1;
        auto fits = [&](int c, ChainOps &ops) {
          ops = revolveOpsFor(view, c);
          SimulationResult sim =
              simulate(graph, expandChainSchedule(graph, view, ops));
          if (!sim.valid)
            return false;
          lowest = lowest < 0 ? sim.peak : std::min(lowest, sim.peak);
          return sim.peak <= budget;
        };
        ChainOps ops;
        int lo = 0, hi = steps; // fits(lo) or lo = 0; hi: unknown above lo.
        ChainOps best;
        if (fits(steps, ops)) {
          lo = steps;
          best = std::move(ops);
        } else {
          while (hi - lo > 1) {
            int mid = lo + (hi - lo) / 2;
            if (fits(mid, ops))
              lo = mid, best = std::move(ops);
            else
              hi = mid;
          }
        }
        if (lo >= 1) {
          plan.feasible = true;
          plan.ops = std::move(best);
          plan.time = chainOpsTime(view.spec, plan.ops);
          return plan;
        }
        plan.reason = "revolve: no number of checkpoints fits the budget "
                      "(the lowest peak is " +
                      std::to_string(lowest) + " bytes)";
        return plan;
      },
      /*raiseBudget=*/false); // Checked on the graph itself already.
}

} // namespace remat
