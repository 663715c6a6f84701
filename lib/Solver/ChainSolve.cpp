//===- ChainSolve.cpp - Memory slots and the chain-strategy glue ----------===//

#include "remat/Solver/ChainSolvers.h"

#include <algorithm>

namespace remat {

SlotChain discretiseChain(const ChainSpec &chain, int64_t budget, int slots) {
  SlotChain c;
  const int L = chain.length();
  c.n = L + 1;
  int64_t avail = budget - chain.a0;
  if (avail < 0)
    return c;
  int64_t S = std::max(1, slots);
  c.q = std::max<int64_t>(1, avail / S + (avail % S != 0));
  c.M = static_cast<int>(avail / c.q);
  // Round up: the sum of rounded sizes bounds the sum of real sizes.
  auto up = [&](int64_t bytes) {
    bytes = std::max<int64_t>(0, bytes);
    int64_t s = bytes / c.q + (bytes % c.q != 0);
    return static_cast<int>(std::min<int64_t>(s, int64_t(1) << 29));
  };
  c.A.assign(c.n + 1, 0);
  c.Abar.assign(c.n + 1, 0);
  c.D.assign(c.n + 1, 0);
  c.OF.assign(c.n + 1, 0);
  c.OB.assign(c.n + 1, 0);
  c.UF.assign(c.n + 1, 0);
  c.UB.assign(c.n + 1, 0);
  c.A[0] = up(chain.a0);
  c.D[0] = up(chain.delta0);
  for (int l = 1; l <= c.n; ++l) {
    const ChainStage &st = l <= L ? chain.stages[l - 1] : chain.loss;
    c.A[l] = l <= L ? up(st.a) : 0;
    // buildChainGraph stores a^l and r^l = max(0, abar - a): abar >= a.
    c.Abar[l] = up(std::max(st.a, st.abar));
    c.D[l] = l <= L ? up(st.delta) : 0;
    c.OF[l] = up(st.of);
    c.OB[l] = up(st.ob);
    c.UF[l] = st.uf;
    c.UB[l] = st.ub;
  }
  return c;
}

StrategyResult solveViaChain(const TrainingGraph &g, const SolveOptions &opts,
                             const std::string &name,
                             const ChainPlanner &planner, bool raiseBudget) {
  StrategyResult res;
  std::string why;
  std::optional<ChainView> view = extractChain(g, &why);
  if (!view) {
    res.reason = name + " is not applicable: " + why;
    return res;
  }
  // More memory than the chain model needs without rematerialization only
  // coarsens the slots: plan with the model's no-remat peak at most.
  ChainGraph cg = buildChainGraph(view->spec);
  int64_t modelPeak = simulate(cg.graph, keepEverythingSchedule(cg.graph)).peak;
  int64_t budget = std::min(opts.budget, modelPeak);
  // First a plan that fits: lower the chain budget by the excess if the
  // model under-estimated (a safety net: tests find it never does).
  ChainPlan plan;
  SimulationResult sim;
  Schedule sched;
  bool fits = false;
  for (int attempt = 0; attempt < 4 && !fits; ++attempt) {
    plan = planner(g, *view, budget);
    if (!plan.note.empty() && opts.note)
      opts.note(name + ": " + plan.note);
    if (!plan.feasible) {
      res.reason = plan.reason;
      if (attempt > 0)
        res.reason += " (after lowering the chain budget to " +
                      std::to_string(budget) + " bytes)";
      return res;
    }
    sched = expandChainSchedule(g, *view, plan.ops);
    sim = simulate(g, sched);
    if (!sim.valid) { // A bug; solve() reports it loudly.
      res.feasible = true;
      res.schedule = std::move(sched);
      return res;
    }
    fits = sim.peak <= opts.budget;
    if (!fits) {
      budget -= sim.peak - opts.budget;
      if (opts.note)
        opts.note(name + ": the chain model under-estimated the peak (" +
                  std::to_string(sim.peak) + " bytes); planning again with " +
                  std::to_string(budget) + " bytes");
    }
  }
  if (!fits) {
    res.reason = name + ": no plan within budget after lowering the chain "
                        "budget four times";
    return res;
  }
  // Op-level graphs: the model over-estimates (conservative stage peaks), so
  // the real peak may leave much of the budget unused. Raise the chain
  // budget by the slack (halving the step on overshoot) twice, keeping
  // the fastest schedule that fits.
  int64_t good = budget, step = opts.budget - sim.peak;
  for (int round = 0;
       raiseBudget && round < 2 && step > opts.budget / 50 && good < modelPeak;
       ++round) {
    const int64_t tryBudget = std::min(modelPeak, good + step);
    ChainPlan p = planner(g, *view, tryBudget);
    if (!p.feasible)
      break;
    Schedule s = expandChainSchedule(g, *view, p.ops);
    SimulationResult r = simulate(g, s);
    if (r.valid && r.peak <= opts.budget) {
      good = tryBudget;
      step = opts.budget - r.peak;
      if (r.time < sim.time)
        sched = std::move(s), sim = r;
    } else {
      step /= 2;
    }
  }
  res.feasible = true;
  res.schedule = std::move(sched);
  return res;
}

} // namespace remat
