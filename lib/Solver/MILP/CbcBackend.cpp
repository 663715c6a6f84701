//===- CbcBackend.cpp - The MILP backend over COIN-OR CBC -----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// CbcModel over OsiClpSolverInterface with the usual cut generators and
// heuristics, quiet, with a wall-clock limit and a warm start. The only file
// of the project that includes CBC headers.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/MILP/MILPBackend.h"

#include "CbcHeuristic.hpp"
#include "CbcHeuristicFPump.hpp"
#include "CbcHeuristicLocal.hpp"
#include "CbcHeuristicRINS.hpp"
#include "CbcModel.hpp"
#include "CglClique.hpp"
#include "CglFlowCover.hpp"
#include "CglGomory.hpp"
#include "CglKnapsackCover.hpp"
#include "CglMixedIntegerRounding2.hpp"
#include "CglProbing.hpp"
#include "CoinPackedMatrix.hpp"
#include "OsiClpSolverInterface.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace remat {
namespace milp {
namespace {

double finite(double v) {
  if (v == kInfinity)
    return COIN_DBL_MAX;
  if (v == -kInfinity)
    return -COIN_DBL_MAX;
  return v;
}

/// The rows as one row-ordered matrix, built at once: appending rows one by
/// one to a CoinPackedMatrix without spare room copies the whole matrix each
/// time (quadratic: 10 s of a 0.2 s probe on the 90-node ResNet's 33,000
/// rows).
CoinPackedMatrix rowMatrix(const Model &m) {
  std::vector<double> elements;
  std::vector<int> indices, lengths;
  std::vector<CoinBigIndex> starts;
  for (const Row &r : m.rows) {
    starts.push_back(static_cast<CoinBigIndex>(elements.size()));
    lengths.push_back(static_cast<int>(r.index.size()));
    indices.insert(indices.end(), r.index.begin(), r.index.end());
    elements.insert(elements.end(), r.value.begin(), r.value.end());
  }
  starts.push_back(static_cast<CoinBigIndex>(elements.size()));
  return CoinPackedMatrix(/*colordered=*/false,
                          static_cast<int>(m.columns.size()),
                          static_cast<int>(m.rows.size()),
                          static_cast<CoinBigIndex>(elements.size()),
                          elements.data(), indices.data(), starts.data(),
                          lengths.data());
}

void load(OsiClpSolverInterface &solver, const Model &m) {
  const int n = static_cast<int>(m.columns.size());
  CoinPackedMatrix matrix = rowMatrix(m);
  std::vector<double> rowLower, rowUpper;
  for (const Row &r : m.rows) {
    rowLower.push_back(finite(r.lower));
    rowUpper.push_back(finite(r.upper));
  }
  std::vector<double> colLower, colUpper, cost;
  for (const Column &c : m.columns) {
    colLower.push_back(finite(c.lower));
    colUpper.push_back(finite(c.upper));
    cost.push_back(c.cost);
  }
  solver.loadProblem(matrix, colLower.data(), colUpper.data(), cost.data(),
                     rowLower.data(), rowUpper.data());
  for (int i = 0; i < n; ++i)
    if (m.columns[i].integer)
      solver.setInteger(i);
  solver.messageHandler()->setLogLevel(0);
  solver.getModelPtr()->messageHandler()->setLogLevel(0);
}

/// Cuts and heuristics as CBC's own driver would add them by default.
void configure(CbcModel &model) {
  CglProbing probing;
  probing.setUsingObjective(1);
  probing.setMaxPass(1);
  probing.setMaxPassRoot(5);
  probing.setMaxProbe(10);
  probing.setMaxLook(50);
  model.addCutGenerator(&probing, -1, "Probing");
  CglGomory gomory;
  gomory.setLimit(300);
  model.addCutGenerator(&gomory, -1, "Gomory");
  CglKnapsackCover knapsack;
  model.addCutGenerator(&knapsack, -1, "Knapsack");
  CglClique clique;
  clique.setStarCliqueReport(false);
  clique.setRowCliqueReport(false);
  model.addCutGenerator(&clique, -1, "Clique");
  CglMixedIntegerRounding2 mir;
  model.addCutGenerator(&mir, -1, "MIR2");
  CglFlowCover flow;
  model.addCutGenerator(&flow, -1, "FlowCover");
  CbcRounding rounding(model);
  model.addHeuristic(&rounding);
  CbcHeuristicFPump pump(model);
  model.addHeuristic(&pump);
  CbcHeuristicLocal local(model);
  model.addHeuristic(&local);
  CbcHeuristicRINS rins(model);
  model.addHeuristic(&rins);
  // addCutGenerator and addHeuristic copy their arguments.
}

class CbcBackend : public Backend {
public:
  Result solve(const Model &m, const Params &params) override {
    OsiClpSolverInterface solver;
    load(solver, m);
    CbcModel model(solver);
    model.setLogLevel(0);
    model.messageHandler()->setLogLevel(0);
    // Wall-clock seconds, as --milp-seconds promises: CBC counts CPU time by
    // default, which on a loaded machine let a 2 s limit take 8-15 s.
    model.setUseElapsedTime(true);
    model.setMaximumSeconds(std::max(0.01, params.seconds));
    if (params.maxNodes > 0)
      model.setMaximumNodes(static_cast<int>(
          std::min<int64_t>(params.maxNodes, std::numeric_limits<int>::max())));
    configure(model);
    const int n = static_cast<int>(m.columns.size());
    if (static_cast<int>(params.start.size()) == n) {
      double objective = 0;
      for (int i = 0; i < n; ++i)
        objective += m.columns[i].cost * params.start[i];
      model.setBestSolution(params.start.data(), n, objective, true);
    }
    model.branchAndBound();

    Result r;
    if (model.bestSolution()) {
      r.values.assign(model.bestSolution(), model.bestSolution() + n);
      r.objective = model.getObjValue();
    }
    r.bound = model.getBestPossibleObjValue();
    if (model.isProvenOptimal() && !r.values.empty()) {
      r.status = Status::Optimal;
      r.bound = r.objective;
    } else if (model.isProvenInfeasible()) {
      r.status = Status::Infeasible;
    } else {
      r.status = r.values.empty() ? Status::Unknown : Status::Feasible;
    }
    return r;
  }
};

} // namespace

std::unique_ptr<Backend> createCbcBackend() {
  return std::make_unique<CbcBackend>();
}

} // namespace milp
} // namespace remat
