//===- MILPBackend.h - A small interface to a MILP solver -------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The exact planner states its problem as a plain mixed-integer linear
// program (columns with bounds, costs and an integer flag; sparse rows with
// bounds) and hands it to a Backend. COIN-OR CBC is the one implementation
// (CbcBackend.cpp, the only file that includes CBC headers); another solver
// replaces it by implementing Backend.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_MILP_MILPBACKEND_H
#define REMAT_SOLVER_MILP_MILPBACKEND_H

#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

namespace remat {
namespace milp {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

struct Column {
  double lower = 0, upper = 1, cost = 0;
  bool integer = true;
};

/// lower <= sum value[i] * x[index[i]] <= upper.
struct Row {
  std::vector<int> index;
  std::vector<double> value;
  double lower = -kInfinity, upper = kInfinity;
};

/// Minimise the sum of cost * x over the columns, subject to the rows.
struct Model {
  std::vector<Column> columns;
  std::vector<Row> rows;
  int addColumn(double lower, double upper, double cost, bool integer) {
    columns.push_back({lower, upper, cost, integer});
    return static_cast<int>(columns.size()) - 1;
  }
};

struct Params {
  double seconds = 60; ///< Wall-clock limit of the search.
  /// Branch-and-bound nodes the search may explore (0: no limit). Unlike
  /// the clock, the same limit gives the same answer on every machine.
  int64_t maxNodes = 0;
  /// A feasible assignment to start from (empty: none). An infeasible one
  /// is ignored.
  std::vector<double> start;
};

enum class Status {
  Optimal,    ///< Proven optimal.
  Feasible,   ///< A solution, not proven optimal (time limit).
  Infeasible, ///< Proven to have no solution.
  Unknown,    ///< No solution found within the time limit.
};

struct Result {
  Status status = Status::Unknown;
  double objective = kInfinity; ///< Of the best solution found.
  double bound = -kInfinity;    ///< Proven lower bound on the optimum.
  std::vector<double> values;   ///< The best solution, when one was found.
};

class Backend {
public:
  virtual ~Backend() = default;
  virtual Result solve(const Model &model, const Params &params) = 0;
};

/// COIN-OR CBC through its C++ library.
std::unique_ptr<Backend> createCbcBackend();

} // namespace milp
} // namespace remat

#endif // REMAT_SOLVER_MILP_MILPBACKEND_H
