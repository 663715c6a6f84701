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
/// Large graphs: lowerset-approx's segments add at most this many forward
/// nodes (SolveOptions::maxLowerSetStep).
constexpr int kLargeGraphStep = 8;
/// auto runs checkmate-milp on graphs of at most this many nodes, exploring
/// at most kAutoMILPSearchNodes branch-and-bound nodes, and for at most
/// kAutoMILPSeconds: on 30-node steps the clock limit is what usually stops
/// it (the root's cuts dominate), so only there may its answer depend on the
/// machine's speed.
constexpr int kAutoMILPMaxNodes = 40;
constexpr int64_t kAutoMILPSearchNodes = 1000;
constexpr double kAutoMILPSeconds = 2;

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
  // Each replay scans the stored values per free: quadratic (0.03 s on the
  // 10,000-op ResNet's 3,456 nodes, 0.45 s on the 40,000-op one's 13,842).
  if (name == "evict-greedy")
    return std::max(1, o.evictionReplays) * (2.5e-9 * n * n + linear);
  // One lower-set DP over the L_v family; the strategy runs 1 + probes.
  // With segments of at most `step` forward nodes its transitions are
  // about nf * step, each walking a front (measured ~2e-5 s per pair on the
  // 40,000-op deep ResNet's 5,385 forward nodes).
  const double dp = o.maxLowerSetStep > 0
                        ? 2e-5 * nf * std::min<double>(nf, o.maxLowerSetStep)
                        : 2.5e-10 * nf * nf * nf;
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

/// One strategy auto may run, with the options tuned for this graph.
struct Run {
  const StrategyInfo *info;
  size_t order; ///< In the registry: ties go to the earlier.
  SolveOptions options;
  double cost = 0; ///< Estimated seconds.
};

bool isMemoryCentric(const std::string &n) {
  return n.size() > 3 && n.compare(n.size() - 3, 3, "-mc") == 0;
}

/// The portfolio run of solveAuto: keeps the fastest valid schedule within
/// budget, and the notes and reasons that explain the choice.
class AutoPlanner {
public:
  AutoPlanner(const TrainingGraph &g, const SolveOptions &opts)
      : g(g), opts(opts) {}

  StrategyResult run() {
    if (keepEverythingFits())
      return std::move(best);
    if (belowTheFloor())
      return std::move(best);
    st = measure(g, opts);
    SolveOptions base = baseOptions();
    for (Run &r : candidates(base)) {
      if (isMemoryCentric(r.info->name) &&
          (best.feasible || !opts.memoryCentricFallback))
        continue; // A schedule within budget exists: -mc cannot be faster.
      if (!afford(r))
        continue;
      tryRun(r);
    }
    refineWithMILP();
    finish();
    return std::move(best);
  }

  /// The runs of run() while no strategy has met the budget: every one of
  /// them is made then, and each depends on the graph only. So auto meets a
  /// budget (without the MILP) exactly when one of these runs does.
  std::vector<PortfolioRun> portfolio() {
    st = measure(g, opts);
    SolveOptions base = baseOptions();
    std::vector<PortfolioRun> runs;
    for (Run &r : candidates(base)) {
      if (isMemoryCentric(r.info->name) && !opts.memoryCentricFallback)
        continue;
      if (afford(r))
        runs.push_back({r.info->name, r.options});
    }
    return runs;
  }

private:
  void say(const std::string &n) { autoNotes.push_back("auto: " + n); }

  /// Nothing is faster than the program itself.
  bool keepEverythingFits() {
    Schedule s = keepEverythingSchedule(g);
    SimulationResult sim = simulate(g, s);
    if (!sim.valid || sim.peak > opts.budget)
      return false;
    best.feasible = true;
    best.schedule = std::move(s);
    best.chosen = "none";
    return true;
  }

  /// No schedule peaks below peakLowerBound(): no strategy need try (a
  /// budget of 1 % took seconds to refuse).
  bool belowTheFloor() {
    const int64_t floor = peakLowerBound(g);
    if (opts.budget >= floor)
      return false;
    best.reason = "no schedule fits: every one peaks at " +
                  std::to_string(floor) +
                  " bytes at least (the inputs with the largest step or the "
                  "required outputs)";
    best.leastPeak = -1;
    return true;
  }

  /// Chain strategies plan on a chain coarsened to 64 stages when it is
  /// longer (they lose almost nothing there, and the search over chain
  /// budgets stays cheap).
  SolveOptions baseOptions() {
    SolveOptions base = opts;
    if (st.chain > kCoarseStages && opts.maxChainStages == 0) {
      base.maxChainStages = kCoarseStages;
      base.chainProbes = std::min(opts.chainProbes, kCoarseProbes);
      say("chain strategies plan on the chain coarsened from " +
          std::to_string(st.chain) + " to " + std::to_string(kCoarseStages) +
          " stages, with at most " + std::to_string(base.chainProbes) +
          " chain budgets");
    }
    return base;
  }

  /// Priority order: the cheap chain planners and the baselines, then the
  /// lower-set DPs (the best on general DAGs), then what they mostly
  /// dominate; memory-centric variants last (they minimise the peak, so they
  /// win only where the time-centric ones miss the budget).
  std::vector<Run> candidates(const SolveOptions &base) const {
    static const char *const kOrder[] = {
        "revolve",           "chain-rotor",       "chen-sqrt",
        "evict-greedy",      "lowerset-approx",   "join",
        "chain-precise",
        "chain-rotor-weak",  "lowerset-exact",    "chen-greedy",
        "lowerset-approx-mc", "lowerset-exact-mc"};
    std::vector<Run> runs;
    const auto &all = allStrategies();
    for (const char *name : kOrder)
      for (size_t i = 0; i < all.size(); ++i)
        if (all[i].name == name)
          runs.push_back({&all[i], i, base});
    return runs;
  }

  /// Fits `r` into what is left of the time allowance, cheapening the
  /// lower-set DP first; false (with a reason or a skip) when it does not.
  bool afford(Run &r) {
    const std::string &name = r.info->name;
    r.cost = estimate(name, st, r.options);
    if (name == "evict-greedy")
      cheapenEviction(r);
    if (name == "lowerset-approx")
      cheapenLowerSetApprox(r);
    if (std::isinf(r.cost)) { // No chain view, or beyond its own limits.
      addReason(name + (st.chain < 0 && name != "join" &&
                                name.rfind("lowerset", 0) != 0 &&
                                name.rfind("chen", 0) != 0
                            ? ": not applicable (no chain view)"
                            : ": skipped (beyond the limits of its "
                              "algorithm)"));
      return false;
    }
    if (spent + r.cost > opts.timeBudget) {
      skipped.push_back(name + " (~" + seconds(r.cost) + ")");
      return false;
    }
    spent += r.cost;
    return true;
  }

  /// evict-greedy replays with fewer weightings only beyond twice the
  /// allowance, and at least once: on graphs of thousands of nodes it is
  /// the best planner auto has, and which weighting wins there depends on
  /// small things (operand order after canonicalization took the 40,000-op
  /// ResNet at 70 % from 0.41 % to 12 % with one weighting; the best of four
  /// is 0.41 % on both forms).
  void cheapenEviction(Run &r) {
    // Small graphs: every weighting, when all of them take under a tenth
    // of the allowance (a few hundred nodes). On the random 29-41-node
    // steps of docs/benchmarks.md they take evict-greedy alone from 11 to
    // 15 of 20 pairs within 2 % of the MILP optimum, and give the MILP a
    // better start.
    SolveOptions all = r.options;
    all.evictionReplays = kEvictionWeightings;
    if (estimate("evict-greedy", st, all) <= 0.1 * opts.timeBudget) {
      r.options = all;
      r.cost = estimate("evict-greedy", st, all);
      return;
    }
    const int replays = r.options.evictionReplays;
    const double allowance =
        std::max(opts.timeBudget - spent, 2 * opts.timeBudget);
    while (r.cost > allowance && r.options.evictionReplays > 1) {
      --r.options.evictionReplays;
      r.cost = estimate("evict-greedy", st, r.options);
    }
    if (r.options.evictionReplays < replays)
      say("evict-greedy replays with " +
          std::to_string(r.options.evictionReplays) + " weighting(s) instead "
          "of " + std::to_string(replays) + " (estimated time)");
    r.cost = std::min(r.cost, std::max(0.0, opts.timeBudget - spent));
  }

  /// The lower-set DP's probes (re-runs at raised budgets) go first when
  /// time is short. On graphs where even one DP over the whole L_v family
  /// does not fit, its segments are limited to kLargeGraphStep forward
  /// nodes (linear time; on deep networks the good segments are short) with
  /// as many probes as fit, and at least one, unless evict-greedy met the
  /// budget: on such graphs only these two get close to the optimum, and a
  /// probe halves the overhead the model's slack costs.
  void cheapenLowerSetApprox(Run &r) {
    const int probes = r.options.lowerSetProbes;
    for (int p : {1, 0})
      if (spent + r.cost > opts.timeBudget && r.options.lowerSetProbes > p) {
        r.options.lowerSetProbes = p;
        r.cost = estimate("lowerset-approx", st, r.options);
        if (spent + r.cost <= opts.timeBudget)
          say("lowerset-approx runs with " + std::to_string(p) +
              " probe(s) instead of " + std::to_string(probes) +
              " (estimated time)");
      }
    if (spent + r.cost <= opts.timeBudget || r.options.maxLowerSetStep > 0)
      return;
    if (best.feasible && best.chosen == "evict-greedy")
      return; // As good or better on deep graphs (docs/benchmarks.md): skip.
    r.options.maxLowerSetStep = kLargeGraphStep;
    int p = probes;
    for (; p > 1; --p) {
      r.options.lowerSetProbes = p;
      if (spent + estimate("lowerset-approx", st, r.options) <=
          opts.timeBudget)
        break;
    }
    r.options.lowerSetProbes = std::min(probes, std::max(p, 1));
    r.cost = std::min(estimate("lowerset-approx", st, r.options),
                      std::max(0.0, opts.timeBudget - spent));
    say("lowerset-approx plans segments of at most " +
        std::to_string(kLargeGraphStep) + " forward nodes with " +
        std::to_string(r.options.lowerSetProbes) +
        " probe(s) (the whole family would take ~" +
        seconds(estimate("lowerset-approx", st, [&] {
          SolveOptions full = r.options;
          full.maxLowerSetStep = 0;
          full.lowerSetProbes = 0;
          return full;
        }())) +
        ")");
  }

  /// Small graphs: the exact MILP, warm-started from the best plan so far
  /// (so never worse than it), also finds schedules that recompute during
  /// the forward pass or more than once, and budgets no structured strategy
  /// meets. A node limit, not the clock, bounds its search: the answer is
  /// the same on every machine (the clock limit is only a safety net).
  void refineWithMILP() {
    if (!autoRunsMILP(g, opts))
      return;
    const auto &all = allStrategies();
    for (size_t i = 0; i < all.size(); ++i) {
      if (all[i].name != "checkmate-milp")
        continue;
      Run r{&all[i], i, autoMILPOptions(opts)};
      if (best.feasible)
        r.options.warmStart = std::make_shared<Schedule>(best.schedule);
      tryRun(r);
    }
  }

  void tryRun(const Run &r) {
    const std::string &name = r.info->name;
    std::vector<std::string> notes;
    SolveOptions o = r.options;
    o.note = [&notes](const std::string &n) { notes.push_back(n); };
    Solution s = solve(g, name, o);
    if (!s.feasible) {
      if (s.leastPeak >= 0 &&
          (best.leastPeak < 0 || s.leastPeak < best.leastPeak))
        best.leastPeak = s.leastPeak;
      addReason(name + ": " + s.reason);
      return;
    }
    bool better = !best.feasible || s.sim.time < bestSim.time ||
                  (s.sim.time == bestSim.time &&
                   (s.sim.peak < bestSim.peak ||
                    (s.sim.peak == bestSim.peak && r.order < bestOrder)));
    if (!better)
      return;
    best.feasible = true;
    best.schedule = std::move(s.schedule);
    best.chosen = s.chosen;
    best.reason = s.reason;
    best.bound = s.bound;
    best.gap = s.gap;
    bestSim = s.sim;
    bestNotes = std::move(notes);
    bestOrder = r.order;
  }

  void addReason(const std::string &r) {
    reasons += (reasons.empty() ? "" : "; ") + r;
  }

  /// Every skipped strategy and every reduction is reported.
  void finish() {
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
        best.reason +=
            "; skipped for time: " + std::to_string(skipped.size());
    }
  }

  const TrainingGraph &g;
  const SolveOptions &opts;
  GraphStats st;
  StrategyResult best;
  SimulationResult bestSim;
  size_t bestOrder = 0;
  double spent = 0;
  std::vector<std::string> bestNotes, autoNotes, skipped;
  std::string reasons;
};

} // namespace

StrategyResult solveAuto(const TrainingGraph &g, const SolveOptions &opts) {
  return AutoPlanner(g, opts).run();
}

bool autoRunsMILP(const TrainingGraph &g, const SolveOptions &opts) {
  return opts.autoMILP && g.numNodes() <= kAutoMILPMaxNodes;
}

SolveOptions autoMILPOptions(const SolveOptions &opts) {
  SolveOptions o = opts;
  o.milpNodes = kAutoMILPSearchNodes;
  o.milpSeconds = std::min(opts.milpSeconds, kAutoMILPSeconds);
  return o;
}

std::vector<PortfolioRun> autoPortfolio(const TrainingGraph &g,
                                        const SolveOptions &opts) {
  SolveOptions quiet = opts;
  quiet.note = nullptr;
  return AutoPlanner(g, quiet).portfolio();
}

} // namespace remat
