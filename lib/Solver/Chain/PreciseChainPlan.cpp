//===- PreciseChainPlan.cpp - Butt's precise DP on rotor chains ------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The thesis's PyTorch mapping of a rotor chain onto the precise DP
// (PreciseChain.h): thesis index l = rotor stage l, memory in slots like
// rotor. The strategy chain-precise (Join/ChainPreciseStrategy.cpp) uses it
// on chain views.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Chain/PreciseChain.h"

namespace remat {

ChainPlan preciseChainPlan(const ChainSpec &chain, int64_t budget, int slots) {
  ChainPlan plan;
  SlotChain c = discretiseChain(chain, budget, slots);
  if (c.M < 0) {
    plan.reason = "chain-precise: the budget does not even hold a^0";
    return plan;
  }
  // Thesis index l = rotor stage l (n = L+1 includes the loss);
  // b_i = delta^{i-1}, b_0 a dummy, b_{n+1} = delta^{L+1} = nothing.
  const int n = c.n;
  PreciseChainTables t = PreciseChainTables::zeros(n);
  for (int i = 1; i <= n + 1; ++i)
    t.grad[i] = c.D[i - 1];
  t.bwdPeak[0] = c.D[0];
  for (int l = 1; l <= n; ++l) {
    const int64_t in = l >= 2 ? c.A[l - 1] : 0; // a^0 is outside the budget.
    t.fwdTime[l] = c.UF[l];
    t.bwdTime[l] = c.UB[l];
    t.hold[l] = in + c.Abar[l];
    t.holdNext[l] = c.Abar[l];
    t.stepFirst[l] = c.A[l] + c.OF[l];
    t.stepFirstKeep[l] = c.Abar[l] + c.OF[l];
    t.stepMid[l] = in + c.A[l] + c.OF[l];
    t.stepMidKeep[l] = in + c.Abar[l] + c.OF[l];
    t.bwdPeak[l] = c.D[l] + c.D[l - 1] + c.OB[l];
  }
  PreciseChainDP dp(std::move(t), c.M);
  double time = dp.cost(0, n + 1, c.M);
  if (time == PreciseChainDP::kInf) {
    plan.reason = "chain-precise: no schedule fits the budget";
    return plan;
  }
  std::vector<PreciseChainDP::Op> ops;
  dp.emit(0, n + 1, c.M, ops);
  bool sweepStart = true;
  for (const PreciseChainDP::Op &op : ops) {
    if (!op.forward) {
      if (op.index >= 1)
        plan.ops.push_back({ChainOp::Backward, op.index});
      sweepStart = true;
      continue;
    }
    ChainOp kind = op.keep ? ChainOp::FAll
                   : sweepStart ? ChainOp::FCheck
                                : ChainOp::FNone;
    plan.ops.push_back({kind, op.index});
    sweepStart = op.keep;
  }
  plan.feasible = true;
  plan.time = time;
  return plan;
}

} // namespace remat
