//===- AutoVsMILP.cpp - How far auto is from the proven optimum -----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The table of docs/benchmarks.md ("auto vs the MILP's proven optimum"):
// random training steps (randomTrainingDag with 60 % skips), each at a few
// budgets (percent of the no-remat peak), planned by checkmate-milp alone
// with a long time limit (the reference: its proven optimum, within its
// first-computation order) and by auto with its committed settings. Every
// schedule is checked by the Simulator (solve() does it).
//
// The MILP's answers take minutes; --optima=FILE keeps them between runs
// (one line per (seed, forward nodes, percent): status, time, bound), so
// changes to auto can be measured in seconds.
//
//   remat-auto-vs-milp [--optima=FILE] [--milp-seconds=S]
//                      [--set=small|large|all] [--strategy=auto]
//
// (--strategy: measure another strategy than auto against the optimum.)
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/Strategy.h"
#include "remat/Solver/Testing/RandomGraphs.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

using namespace remat;

namespace {

struct Instance {
  int seed, forward, percent;
};

/// 19-27 nodes at 50/70/90 %, 29-41 nodes at 60/75/90 %.
std::vector<Instance> instances(const std::string &set) {
  std::vector<Instance> out;
  if (set != "large")
    for (int s = 1; s <= 3; ++s)
      for (int nf = 8; nf <= 11; ++nf)
        for (int p : {50, 70, 90})
          out.push_back({100 * s + nf, nf, p});
  if (set != "small")
    for (int s = 1; s <= 2; ++s)
      for (int nf = 12; nf <= 16; ++nf)
        for (int p : {60, 75, 90})
          out.push_back({100 * s + nf, nf, p});
  return out;
}

struct Optimum {
  bool feasible = false, proven = false;
  double time = 0, bound = -1;
};

using Key = std::tuple<int, int, int>;

std::map<Key, Optimum> readOptima(const std::string &file) {
  std::map<Key, Optimum> out;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    int seed, nf, p, feasible, proven;
    Optimum o;
    if (ls >> seed >> nf >> p >> feasible >> proven >> o.time >> o.bound) {
      o.feasible = feasible;
      o.proven = proven;
      out[{seed, nf, p}] = o;
    }
  }
  return out;
}

void appendOptimum(const std::string &file, const Instance &i,
                   const Optimum &o) {
  if (file.empty())
    return;
  std::ofstream out(file, std::ios::app);
  char buf[160];
  std::snprintf(buf, sizeof buf, "%d %d %d %d %d %.17g %.17g\n", i.seed,
                i.forward, i.percent, o.feasible, o.proven, o.time, o.bound);
  out << buf;
}

double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       since)
      .count();
}

} // namespace

int main(int argc, char **argv) {
  std::string optimaFile, set = "all", strategy = "auto";
  double milpSeconds = 60;
  int replays = SolveOptions().evictionReplays;
  for (int a = 1; a < argc; ++a) {
    std::string arg = argv[a];
    auto value = [&](const char *prefix) -> const char * {
      size_t n = std::strlen(prefix);
      return arg.compare(0, n, prefix) == 0 ? argv[a] + n : nullptr;
    };
    if (const char *v = value("--optima="))
      optimaFile = v;
    else if (const char *v = value("--milp-seconds="))
      milpSeconds = std::atof(v);
    else if (const char *v = value("--set="))
      set = v;
    else if (const char *v = value("--strategy="))
      strategy = v;
    else if (const char *v = value("--eviction-replays="))
      replays = std::atoi(v);
    else {
      std::fprintf(stderr,
                   "usage: %s [--optima=FILE] [--milp-seconds=S] "
                   "[--set=small|large|all] [--strategy=auto]\n",
                   argv[0]);
      return 2;
    }
  }
  std::map<Key, Optimum> optima = readOptima(optimaFile);

  std::printf("%-5s %-3s %-5s %-4s | %-12s %-6s | %-12s %-16s %-7s %s\n",
              "seed", "nf", "nodes", "%", "MILP time", "proven", "auto time",
              "chosen", "off %", "auto s");
  int pairs = 0, milpFeasible = 0, autoFeasible = 0, equal = 0, within2 = 0;
  for (const Instance &i : instances(set)) {
    RandomDagOptions ro;
    ro.skipPercent = 60;
    TrainingGraph g = randomTrainingDag(i.seed, i.forward, ro);
    const int64_t peak = simulate(g, keepEverythingSchedule(g)).peak;
    SolveOptions o;
    o.budget = peak * i.percent / 100;
    o.evictionReplays = replays;

    Key key{i.seed, i.forward, i.percent};
    auto cached = optima.find(key);
    Optimum opt;
    if (cached != optima.end()) {
      opt = cached->second;
    } else {
      SolveOptions mo = o;
      mo.milpSeconds = milpSeconds;
      Solution m = solve(g, "checkmate-milp", mo);
      opt.feasible = m.feasible;
      opt.proven = m.feasible && m.gap >= 0 && m.gap < 1e-9;
      opt.time = m.feasible ? m.sim.time : 0;
      opt.bound = m.bound;
      appendOptimum(optimaFile, i, opt);
    }

    auto start = std::chrono::steady_clock::now();
    Solution a = solve(g, strategy, o);
    const double autoSeconds = seconds(start);

    ++pairs;
    milpFeasible += opt.feasible;
    autoFeasible += a.feasible;
    double off = 0;
    if (opt.feasible && opt.proven && a.feasible) {
      off = 100 * (a.sim.time - opt.time) / opt.time;
      equal += off < 1e-9;
      within2 += off <= 2;
    }
    std::printf("%-5d %-3d %-5d %-4d | %-12.6g %-6s | %-12.6g %-16s %-7.2f "
                "%.2f\n",
                i.seed, i.forward, g.numNodes(), i.percent,
                opt.feasible ? opt.time : 0, opt.proven ? "yes" : "no",
                a.feasible ? a.sim.time : 0,
                a.feasible ? a.chosen.c_str() : "infeasible", off,
                autoSeconds);
    std::fflush(stdout);
  }
  std::printf("%d pairs: MILP feasible %d, auto feasible %d, auto equal to "
              "the proven optimum %d, within 2 %% %d\n",
              pairs, milpFeasible, autoFeasible, equal, within2);
  return 0;
}
