//===- CheckmateMILP.cpp - Rematerialization as a MILP --------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Variables (t: stage, i/k: positions in the order, x: a computed tensor):
//   R[t][i]     node i runs in stage t (1 on the diagonal, 0 above it and
//               for nodes that run once, off the diagonal);
//   S[t][x]     x is held at the start of stage t (t = n: at the end);
//   FREE[t][x][k]  x is freed right after node k runs in stage t (k: x's
//               producer or a reader);
//   U[t][k]     bytes held while node k runs in stage t (inputs excluded).
// Rows:
//   R[t][j] <= R[t][p] + S[t][x]       j reads x, produced by p (p < j);
//   S[t+1][x] <= S[t][x] + R[t][p]     held only if held or produced;
//   R[t][p] + S[t][x] <= 1             no run stores a live tensor;
//   FREE[t][x][k] <= R[t][k], <= 1 - S[t+1][x], <= 1 - R[t][j] for every
//               reader j of x after k in the stage (only upper bounds: a
//               smaller FREE only overestimates memory);
//   U[t][0] = sum S[t][x] |x| + R[t][0] |out 0|,
//   U[t][k] = U[t][k-1] - sum FREE[t][x][k-1] |x| + R[t][k] |out k|,
//   U[t][k] + R[t][k] ws(k) <= budget - inputs.
// Objective: sum R[t][i] time(i). Memory is scaled by the room left after
// the inputs and times by the base time, for the solver's tolerances.
//
// Sized parts (SizedParts.h): Y[p][c] = 1 when part p takes choice c (one
// per part). The graph is modelled at each sized tensor's fewest bytes and
// each sized node's least time; what choice c adds above them, E_p =
// sum_c Y[p][c] e_c <= e_max, enters every term the tensor or node is in as
// a product with that term's 0/1 quantity q (S, R or FREE), linearised:
//   memory held, time:  P >= E_p - e_max (1 - q), P >= 0 (exact: the model
//                       wants P small);
//   memory freed:       Q <= E_p, Q <= e_max q, Q >= 0 (exact: it wants Q
//                       large).
// A sized node's first run (the diagonal) adds E_p itself.
//
// Host copies (CheckmateOptions::link): boundary t comes before stage t's
// first run. OUT[t][x] offloads x there; its device bytes count in stage t
// until LEFT[t][x][k] says they are gone after run k: the runs so far cover
// all of the boundary's offloads (one in-order stream; big-M rows), or the
// stage's first computation waits for a prefetch at least that long. Stage
// t's compute must cover them all (the Simulator releases them before stage
// t+1). A prefetch at boundary t holds x's bytes from stage t: IN[t][x]
// makes it readable from stage t+1, NOW[t][x] in stage t itself (issued
// first). W[t], a stall in the objective, is at least the NOW copies' link
// time, and at least all of the boundary's prefetches' minus the stage's
// compute. H[t][x] (on the host during stage t) is exact, because the
// Simulator refuses to recompute a tensor that is on the host:
//   H[t] = H[t-1] + OUT[t] - IN[t] - NOW[t], IN + NOW <= H[t-1],
//   IN + NOW + OUT <= 1;
//   S[t+1] + OUT[t+1] <= S[t] + R[t][p] + IN[t] + NOW[t] (persistence);
//   R[t][j] <= R[t][p] + S[t][x] + NOW[t][x]            (dependencies);
//   R[t][p] + H[t] <= 1, R[t][p] + IN[t] <= 1, R[t][p] + NOW[t] <= 1;
//   FREE[t][x] <= 1 - OUT[t+1];
//   sum OUT[t][x] offloadTime(x) <= sum R[t][i] time(i).
// A result that may leave (CheckmateOptions::resultsMayLeave) is on the
// device or on the host from its production to the end, never brought
// back: S[t] + H[t] = 1 (S[n] + H[n-1] = 1), no IN or NOW; its readers
// need S, so it leaves after the last.
// It is a linearisation: per-stage link time instead of the streams'
// timeline, copies issued at stage boundaries only; the Simulator judges
// and times the decoded plan.
//
// Decoding runs each stage's nodes in order and frees eagerly
// (Schedule::withEagerFrees). Every tensor the model holds at a run is live
// there, or freed earlier by the eager frees, which are the lowest for the
// run sequence: the Simulator's peak never exceeds the model's. The
// Simulator still checks every decoded schedule.
//
//===----------------------------------------------------------------------===//

#include "CheckmateFormulation.h"
#include "remat/Solver/MILP/CheckmateMILP.h"
#include "remat/Solver/Core/Simulator.h"

#include <cmath>

namespace remat {

using checkmate::Formulation;

std::vector<NodeId> firstComputationOrder(const TrainingGraph &g,
                                          const Schedule &s) {
  std::vector<NodeId> order;
  std::vector<char> seen(g.numNodes(), 0);
  for (const Step &step : s.steps())
    if (step.isRun() && step.id >= 0 && step.id < g.numNodes() &&
        !seen[step.id]) {
      seen[step.id] = 1;
      order.push_back(step.id);
    }
  return order;
}

CheckmateResult solveCheckmate(const TrainingGraph &g,
                               const CheckmateOptions &options,
                               milp::Backend &backend) {
  CheckmateResult result;
  std::vector<NodeId> order =
      options.order.empty() ? g.defaultOrder() : options.order;
  if (static_cast<int>(order.size()) != g.numNodes())
    return result; // Not a permutation of the nodes.
  static const std::vector<SizedPart> kNoParts;
  const std::vector<SizedPart> &parts =
      options.sized ? *options.sized : kNoParts;
  if (verifySizedParts(g, parts))
    return result; // The caller's parts do not fit the graph.
  Formulation f(g, order, options.budget, parts, options.link,
                options.hostBudget, options.resultsMayLeave);
  SimulatorOptions so; // The Simulator times the plan's copies on the link.
  if (options.link)
    so.link = *options.link;
  result.columns = static_cast<int>(f.model.columns.size());
  result.rows = static_cast<int>(f.model.rows.size());

  // The warm start is the answer to beat, whether or not it fits the model.
  std::optional<Schedule> warm;
  if (options.warmStart &&
      (parts.empty() || options.warmPicks.size() == parts.size())) {
    const std::vector<int> &picks =
        parts.empty() ? std::vector<int>{} : options.warmPicks;
    TrainingGraph at = withSizes(g, parts, picks);
    Schedule w = options.warmStart->withEagerFrees(at);
    SimulationResult sim = simulate(at, w, so);
    if (sim.valid && sim.peak <= options.budget &&
        sim.hostPeak <= options.hostBudget) {
      warm = w;
      result.schedule = w;
      result.picks = picks;
      result.time = sim.time;
    }
  }
  if (!f.feasible) {
    result.status = milp::Status::Infeasible;
    return result;
  }
  milp::Params params;
  params.seconds = options.seconds;
  params.maxNodes = options.maxNodes;
  if (warm)
    params.start = f.encode(*warm, result.picks);
  result.warmStartUsed = !params.start.empty();
  milp::Result r = backend.solve(f.model, params);
  result.status = r.status;
  if (std::isfinite(r.bound))
    result.bound = f.timeOf(r.bound);
  if (r.values.empty())
    return result;
  std::vector<int> picks = f.picks(r.values);
  TrainingGraph at = withSizes(g, parts, picks);
  Schedule s = f.decode(r.values);
  SimulationResult sim = simulate(at, s, so);
  if (!sim.valid || sim.peak > options.budget ||
      sim.hostPeak > options.hostBudget)
    return result; // Numerical slack: never return an invalid schedule.
  if (!result.schedule || sim.time < result.time) {
    result.schedule = std::move(s);
    result.picks = std::move(picks);
    result.time = sim.time;
  }
  return result;
}

} // namespace remat