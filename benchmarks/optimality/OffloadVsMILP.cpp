//===- OffloadVsMILP.cpp - offload-greedy against the MILP with offload ---===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The row of docs/benchmarks.md for issue 51's goal "within 1 % of the
// MILP's optimum (three states)": offload-greedy against
// checkmate-milp-offload on the random DAGs of the optimality tests, at
// budgets from the proven floor to the no-remat peak, over a link given in
// bytes per time unit (latency 0 or --latency). Both plans are checked by
// the Simulator (solve() does it). The gap is greedy's time over the MILP
// plan's minus one, where both meet the budget; budgets only the MILP meets
// are counted apart.
//
//   remat-offload-vs-milp [--set=milp|skips|all] [--bandwidth=B]
//                         [--latency=L] [--milp-seconds=S] [--verbose]
//                         [--show=NAME]  (that step alone, both plans printed)
//
// Sets: "milp" is MILPTest.NeverBeatsBruteForceOnRandomDags' 16 steps
// (3-4 forward nodes, chains with skips and branchy DAGs, some with
// workspaces and run-once ops), 4 budget steps each; "skips" is
// MinimumBudgetTest's 12 steps with 60 % skips (4-9 forward nodes).
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/Strategy.h"
#include "remat/Solver/Testing/ModelGraphs.h"
#include "remat/Solver/Testing/RandomGraphs.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace remat;

namespace {

struct Instance {
  std::string name;
  TrainingGraph g;
};

std::vector<Instance> instances(const std::string &set) {
  std::vector<Instance> out;
  if (set != "skips")
    for (uint64_t seed = 1; seed <= 16; ++seed) {
      if (seed % 2) {
        out.push_back({"dag" + std::to_string(seed),
                       randomTrainingDag(seed, 3 + seed % 2)});
      } else {
        RandomBranchyOptions o;
        o.nonRecomputablePercent = seed % 4 == 0 ? 20 : 0;
        o.maxWorkspace = seed % 3 == 0 ? 2 : 0;
        out.push_back({"branchy" + std::to_string(seed),
                       randomBranchyDag(seed, 3 + seed % 2, o)});
      }
    }
  if (set != "milp")
    for (uint64_t seed = 1; seed <= 12; ++seed) {
      RandomDagOptions ro;
      ro.skipPercent = 60;
      out.push_back({"skips" + std::to_string(seed),
                     randomTrainingDag(seed, 4 + seed % 6, ro)});
    }
  return out;
}

/// MILPTest's budgets: the proven floor to the no-remat peak in about
/// `steps` steps.
std::vector<int64_t> budgets(const TrainingGraph &g, int steps = 4) {
  const int64_t lo = peakLowerBound(g);
  const int64_t hi = simulate(g, keepEverythingSchedule(g)).peak;
  std::vector<int64_t> out;
  for (int64_t b = lo; b <= hi; b += std::max<int64_t>(1, (hi - lo) / steps))
    out.push_back(b);
  return out;
}

struct Args {
  std::string set = "all";
  double bandwidth = 4, latency = 0, seconds = 10;
  bool verbose = false;
  std::string show; // An instance whose plans are printed.
};

/// The command line, or false after printing the usage.
bool parseArgs(int argc, char **argv, Args &args) {
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (!std::strncmp(a, "--set=", 6))
      args.set = a + 6;
    else if (!std::strncmp(a, "--bandwidth=", 12))
      args.bandwidth = std::atof(a + 12);
    else if (!std::strncmp(a, "--latency=", 10))
      args.latency = std::atof(a + 10);
    else if (!std::strncmp(a, "--milp-seconds=", 15))
      args.seconds = std::atof(a + 15);
    else if (!std::strcmp(a, "--verbose"))
      args.verbose = true;
    else if (!std::strncmp(a, "--show=", 7))
      args.show = a + 7;
    else {
      std::fprintf(stderr,
                   "usage: %s [--set=milp|skips|all] [--bandwidth=B] "
                   "[--latency=L] [--milp-seconds=S] [--verbose]\n",
                   argv[0]);
      return false;
    }
  }
  return true;
}

/// What the comparisons add up to over all (graph, budget) pairs.
struct Tally {
  std::vector<double> gaps;
  int pairs = 0, onlyMILP = 0, neither = 0, recomputeFails = 0,
      greedyCopies = 0, milpCopies = 0, fromModel = 0;
  double greedySeconds = 0, milpSeconds = 0;

  /// Solves `in` at budget b with offload-greedy and both MILPs and counts
  /// the outcome.
  void compare(const Args &args, const Instance &in, int64_t b,
               const SolveOptions &base) {
    SolveOptions o = base;
    o.budget = b;
    auto t0 = std::chrono::steady_clock::now();
    Solution greedy = solve(in.g, "offload-greedy", o);
    auto t1 = std::chrono::steady_clock::now();
    std::string returned; // checkmate-milp-offload's note names its pick.
    SolveOptions withNote = o;
    withNote.note = [&](const std::string &n) { returned = n; };
    Solution milp = solve(in.g, "checkmate-milp-offload", withNote);
    auto t2 = std::chrono::steady_clock::now();
    greedySeconds += std::chrono::duration<double>(t1 - t0).count();
    milpSeconds += std::chrono::duration<double>(t2 - t1).count();
    ++pairs;
    if (in.name == args.show)
      std::printf("%lld B: greedy (%s):\n%s\nMILP (%s):\n%s\n",
                  static_cast<long long>(b), greedy.reason.c_str(),
                  greedy.schedule.str(in.g).c_str(), milp.reason.c_str(),
                  milp.schedule.str(in.g).c_str());
    recomputeFails += !solve(in.g, "checkmate-milp", o).feasible;
    if (!milp.feasible) {
      ++neither;
      if (greedy.feasible)
        std::printf("%s at %lld B: greedy meets a budget the MILP misses\n",
                    in.name.c_str(), static_cast<long long>(b));
      return;
    }
    milpCopies += milp.schedule.hasCopies();
    fromModel += returned.find("the model's plan") != std::string::npos;
    if (!greedy.feasible) {
      ++onlyMILP;
      if (args.verbose)
        std::printf("%-10s %5lld B: greedy -, MILP %.2f\n", in.name.c_str(),
                    static_cast<long long>(b), milp.sim.time);
      return;
    }
    greedyCopies += greedy.schedule.hasCopies();
    const double gap = greedy.sim.time / milp.sim.time - 1;
    gaps.push_back(gap);
    if (args.verbose || gap > 0.01)
      std::printf("%-10s %5lld B: greedy %.2f, MILP %.2f, gap %.2f %%\n",
                  in.name.c_str(), static_cast<long long>(b), greedy.sim.time,
                  milp.sim.time, 100 * gap);
  }

  /// Prints the counts and the gap's quantiles.
  void report(const Args &args) {
    std::sort(gaps.begin(), gaps.end());
    auto at = [&](double q) {
      return gaps.empty() ? 0.0
                          : gaps[static_cast<size_t>(q * (gaps.size() - 1))];
    };
    const long within = std::count_if(gaps.begin(), gaps.end(),
                                      [](double g) { return g <= 0.01; });
    std::printf("set %s, link %g B/unit, latency %g: %d (graph, budget) "
                "pairs; both meet %zu, only the MILP %d, neither %d; "
                "recompute alone fails %d\n",
                args.set.c_str(), args.bandwidth, args.latency, pairs,
                gaps.size(), onlyMILP, neither, recomputeFails);
    std::printf("gap of offload-greedy: median %.2f %%, 90th %.2f %%, worst "
                "%.2f %%; within 1 %%: %ld of %zu\n",
                100 * at(0.5), 100 * at(0.9), 100 * at(1.0), within,
                gaps.size());
    std::printf("plans with copies: greedy %d, MILP %d; the MILP's answer is "
                "its model's own plan at %d budgets (else the recompute-only "
                "MILP's or greedy's, as fast or faster); seconds: greedy "
                "%.2f, MILP %.2f\n",
                greedyCopies, milpCopies, fromModel, greedySeconds,
                milpSeconds);
  }
};

} // namespace

int main(int argc, char **argv) {
  Args args;
  if (!parseArgs(argc, argv, args))
    return 2;
  SolveOptions base;
  base.link.toHostBytesPerTime = base.link.toDeviceBytesPerTime =
      args.bandwidth;
  base.link.latency = args.latency;
  base.milpSeconds = args.seconds;

  Tally tally;
  for (const Instance &in : instances(args.set)) {
    if (!args.show.empty() && in.name != args.show)
      continue;
    for (int64_t b : budgets(in.g))
      tally.compare(args, in, b, base);
  }
  tally.report(args);
  return 0;
}
