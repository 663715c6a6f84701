//===- AutoStrategy.cpp - Cheapest schedule over the affordable strategies ===//
//
// Runs the other registered strategies through solve() (so each schedule is
// checked by the Simulator against the budget) and keeps the fastest one;
// ties go to the lower peak, then to the earlier strategy in the registry.
//
// Running all of them is fine on the corpus (tens of nodes) and hopeless on
// a 10,000-op function: the lower-set DPs grow like the cube of the forward
// nodes, the exact one like the number of lower sets squared, the chain DPs
// like L^3 S. So auto first measures the graph (forward nodes, chain length,
// lower sets up to a cap), estimates each strategy's run time with formulas
// fitted on this project's model graphs (docs/solver.md, "auto"), and runs
// them in a fixed priority order, each only if the estimates so far add up
// to at most SolveOptions::timeBudget (lowerset-approx first drops its
// probes). Chain strategies plan on a chain coarsened to
// 64 stages when it is longer (they lose almost nothing there, and the
// search over chain budgets stays cheap). Every skipped strategy and every
// reduction is reported through SolveOptions::note. Decisions depend on the
// graph only, never on the clock, so results are reproducible.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Chain/ChainView.h"
#include "remat/Solver/Join/Join.h"
#include "remat/Solver/LowerSet/LowerSet.h"
#include "remat/Solver/Core/Strategies.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace remat {

namespace {

struct GraphStats {
  double n = 0, nf = 0; ///< Nodes, forward nodes.
  int chain = -1;       ///< Chain length (stages), -1: no chain view.
  double lowerSets = -1; ///< -1: more than the cap (or not counted).
  bool join = false;
};

constexpr int kCoarseStages = 64;
constexpr int kCoarseProbes = 6;
constexpr int64_t kLowerSetCountCap = 20000;

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g s", s);
  return buf;
}

/// Estimated CPU seconds of one strategy call (Release build on the 2-core
/// build machine, fitted on ResNet/U-Net/GoogLeNet-like graphs of 300 to
/// 10,000 nodes and the exported deep ResNet; within 2-4x). Infinity: not
/// applicable or beyond the strategy's own limits.
double estimate(const std::string &name, const GraphStats &st,
                const SolveOptions &o) {
  const double inf = INFINITY, n = st.n, nf = st.nf;
  const double L = st.chain < 0 ? 0 : std::min(st.chain, kCoarseStages);
  const double S = std::max(1, o.slots), probes = std::max(1, o.chainProbes);
  // Extraction, expansion and simulations: about n log n.
  const double linear = 1.5e-6 * n * std::log2(n + 2);
  if (name == "none")
    return 0;
  if (name == "revolve")
    return st.chain < 0 ? inf : linear;
  // Chain DPs: each chain budget tried is one DP over the (coarsened)
  // chain, on two views (solveViaChain).
  if (name == "chain-rotor")
    return st.chain < 0 ? inf
                        : 2 * (0.5 * linear + probes * 3e-11 * L * L * L * S);
  if (name == "chain-precise")
    return st.chain < 0 ? inf
                        : 2 * (0.5 * linear + probes * 5e-11 * L * L * L * S);
  if (name == "chain-rotor-weak") {
    // Its own refusal threshold is 1.5e9 operations (Graph model: 4 tables).
    const double Lw = st.chain + 1.0;
    const double work = 4 * std::pow(Lw, 5) / 12 * (S + 1);
    return st.chain < 0 || work > 1.5e9 ? inf : linear + probes * 2e-9 * work;
  }
  if (name == "join")
    return st.join ? 0.05 + linear : 1e-6 * n;
  if (name == "chen-sqrt")
    return 0.3 * linear;
  if (name == "chen-greedy")
    return 1.5e-7 * nf * nf + linear;
  // One lower-set DP over the L_v family; the strategy runs 1 + probes.
  const double dp = 2.5e-10 * nf * nf * nf;
  const double approx = dp * (1 + 0.8 * o.lowerSetProbes) + linear;
  if (name == "lowerset-approx")
    return approx;
  if (name == "lowerset-approx-mc")
    return 26 * dp + linear;
  // Exact: its DP visits pairs of lower sets; measured up to ~5e-6 s per
  // (set x forward node) on U-Net shapes. Unknown counts: do not try.
  const double exact =
      st.lowerSets < 0 ? inf : approx + 5e-6 * st.lowerSets * nf;
  if (name == "lowerset-exact")
    return exact;
  if (name == "lowerset-exact-mc")
    return 4 * exact;
  return inf;
}

GraphStats measure(const TrainingGraph &g, const SolveOptions &o) {
  GraphStats st;
  st.n = g.numNodes();
  for (NodeId v = 0; v < g.numNodes(); ++v)
    st.nf += g.isForward(v);
  if (auto view = extractChain(g))
    st.chain = view->length();
  st.join = recognizeJoin(g).has_value();
  // Counting lower sets is itself exponential: only up to a small cap.
  const int64_t cap = std::min(o.maxLowerSets, kLowerSetCountCap);
  if (st.nf <= 4096) {
    LowerSetModel m(g);
    LowerSetFamily all = allLowerSets(m, cap);
    if (all.complete)
      st.lowerSets = all.size();
  }
  return st;
}

} // namespace

StrategyResult solveAuto(const TrainingGraph &g, const SolveOptions &opts) {
  StrategyResult best;
  SimulationResult bestSim;
  std::vector<std::string> bestNotes, autoNotes;
  std::string reasons;
  auto say = [&](const std::string &n) { autoNotes.push_back("auto: " + n); };

  // Nothing is faster than the program itself.
  {
    Schedule s = keepEverythingSchedule(g);
    SimulationResult sim = simulate(g, s);
    if (sim.valid && sim.peak <= opts.budget) {
      best.feasible = true;
      best.schedule = std::move(s);
      best.chosen = "none";
      return best;
    }
  }

  const GraphStats st = measure(g, opts);
  SolveOptions base = opts;
  if (st.chain > kCoarseStages && opts.maxChainStages == 0) {
    base.maxChainStages = kCoarseStages;
    base.chainProbes = std::min(opts.chainProbes, kCoarseProbes);
    say("chain strategies plan on the chain coarsened from " +
        std::to_string(st.chain) + " to " + std::to_string(kCoarseStages) +
        " stages, with at most " + std::to_string(base.chainProbes) +
        " chain budgets");
  }

  // Priority order: the cheap chain planners and the baselines, then the
  // lower-set DPs (the best on general DAGs), then what they mostly
  // dominate; memory-centric variants last (they minimise the peak, so they
  // win only where the time-centric ones miss the budget).
  static const char *const kOrder[] = {
      "revolve",           "chain-rotor",       "chen-sqrt",
      "lowerset-approx",   "join",              "chain-precise",
      "chain-rotor-weak",  "lowerset-exact",    "chen-greedy",
      "lowerset-approx-mc", "lowerset-exact-mc"};
  struct Run {
    const StrategyInfo *info;
    size_t order; ///< In the registry: ties go to the earlier.
  };
  std::vector<Run> runs;
  const auto &all = allStrategies();
  for (const char *name : kOrder)
    for (size_t i = 0; i < all.size(); ++i)
      if (all[i].name == name)
        runs.push_back({&all[i], i});
  auto mc = [](const Run &r) {
    const std::string &n = r.info->name;
    return n.size() > 3 && n.compare(n.size() - 3, 3, "-mc") == 0;
  };

  double spent = 0;
  std::vector<std::string> skipped;
  size_t bestOrder = 0;
  for (const Run &r : runs) {
    const std::string &name = r.info->name;
    if (mc(r) && (best.feasible || !opts.memoryCentricFallback))
      continue; // A schedule within budget exists: -mc cannot be faster.
    SolveOptions tuned = base;
    double cost = estimate(name, st, tuned);
    // The lower-set DP's probes (re-runs at raised budgets) go first when
    // time is short.
    for (int p : {1, 0})
      if (name == "lowerset-approx" && spent + cost > opts.timeBudget &&
          tuned.lowerSetProbes > p) {
        tuned.lowerSetProbes = p;
        cost = estimate(name, st, tuned);
        if (spent + cost <= opts.timeBudget)
          say("lowerset-approx runs with " + std::to_string(p) +
              " probe(s) instead of " + std::to_string(base.lowerSetProbes) +
              " (estimated time)");
      }
    if (std::isinf(cost)) { // No chain view, or beyond its own limits.
      reasons += (reasons.empty() ? "" : "; ") + name +
                 (st.chain < 0 && name != "join" &&
                          name.rfind("lowerset", 0) != 0 &&
                          name.rfind("chen", 0) != 0
                      ? ": not applicable (no chain view)"
                      : ": skipped (beyond the limits of its algorithm)");
      continue;
    }
    if (spent + cost > opts.timeBudget) {
      skipped.push_back(name + " (~" + seconds(cost) + ")");
      continue;
    }
    spent += cost;
    std::vector<std::string> notes;
    SolveOptions o = tuned;
    o.note = [&notes](const std::string &n) { notes.push_back(n); };
    Solution s = solve(g, name, o);
    if (!s.feasible) {
      if (s.leastPeak >= 0 &&
          (best.leastPeak < 0 || s.leastPeak < best.leastPeak))
        best.leastPeak = s.leastPeak;
      reasons += (reasons.empty() ? "" : "; ") + name + ": " + s.reason;
      continue;
    }
    bool better = !best.feasible || s.sim.time < bestSim.time ||
                  (s.sim.time == bestSim.time &&
                   (s.sim.peak < bestSim.peak ||
                    (s.sim.peak == bestSim.peak && r.order < bestOrder)));
    if (!better)
      continue;
    best.feasible = true;
    best.schedule = std::move(s.schedule);
    best.chosen = s.chosen;
    best.reason = s.reason;
    bestSim = s.sim;
    bestNotes = std::move(notes);
    bestOrder = r.order;
  }
  if (!skipped.empty()) {
    std::string list;
    for (const std::string &s : skipped)
      list += (list.empty() ? "" : ", ") + s;
    say("skipped " + list + ": estimated time beyond the budget of " +
        seconds(opts.timeBudget) + " (SolveOptions::timeBudget)");
  }
  if (opts.note) {
    for (const std::string &n : autoNotes)
      opts.note(n);
    if (best.feasible)
      for (const std::string &n : bestNotes)
        opts.note(n);
  }
  if (!best.feasible) {
    best.reason = "no strategy meets the budget (" + reasons + ")";
    if (!skipped.empty())
      best.reason += "; skipped for time: " + std::to_string(skipped.size());
  }
  return best;
}

} // namespace remat
