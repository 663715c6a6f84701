//===- IndexExpr.h - Index values as affine sums of SSA values --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Frontends spell the same row index many ways: `arith.subi %c63, %j`,
// `affine.apply affine_map<(d0) -> (63 - d0)>(%j)`, `index.sub`, through
// `arith.index_cast`. A loop recognizer that compares spellings misses most
// of them; one that compares the affine sums they denote does not. An
// IndexExpr is c0 + sum(c_k * v_k) over opaque SSA values v_k (induction
// variables, trip counts, anything not a sum, a difference or a product by a
// constant). A division by a constant (floordiv, divui, shrui, ...) is a sum
// too where the sum it divides is one of multiples of the divisor plus a
// constant, which a loop stepping by the divisor makes of its index: with
// `%i` stepping by 2 from 0, `%i floordiv 2` is the iteration number k.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_ANALYSIS_INDEXEXPR_H
#define REMAT_ANALYSIS_INDEXEXPR_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace remat {

class IndexExpr {
public:
  IndexExpr() = default;
  static IndexExpr constant(int64_t c);
  static IndexExpr of(mlir::Value v);

  /// Checked: std::nullopt when a coefficient would overflow.
  std::optional<IndexExpr> plus(const IndexExpr &other) const;
  std::optional<IndexExpr> minus(const IndexExpr &other) const;
  std::optional<IndexExpr> times(int64_t factor) const;
  /// Each coefficient divided by `d` when all divide exactly: the floor
  /// division of the sum, for every value of the terms.
  std::optional<IndexExpr> dividedExactly(int64_t d) const;
  /// floor(this / d) for d > 0 when every coefficient divides by d (the
  /// constant need not): the terms divided, plus floor(constant / d).
  std::optional<IndexExpr> floorDivided(int64_t d) const;
  /// The smallest value over the terms' ranges (`range` of a term: its
  /// smallest and largest value, nullopt if unknown).
  std::optional<int64_t> lowerBound(
      llvm::function_ref<std::optional<std::pair<int64_t, int64_t>>(
          mlir::Value)>
          range) const;

  int64_t constantPart() const { return constantTerm; }
  int64_t coefficient(mlir::Value v) const;
  std::optional<int64_t> asConstant() const;
  /// The value of the one term, or null when there are none or several.
  mlir::Value onlyTerm() const;
  /// Every term's value and coefficient (none zero).
  llvm::ArrayRef<std::pair<mlir::Value, int64_t>> termsWithCoefficients() const {
    return terms;
  }
  bool operator==(const IndexExpr &other) const;
  bool operator!=(const IndexExpr &other) const { return !(*this == other); }

  /// As a reader would write it: "63 - 1*%j", with `names` for the terms
  /// (the loops' induction variables as i, j; others printed as operands).
  std::string str(llvm::function_ref<std::string(mlir::Value)> name) const;

private:
  int64_t constantTerm = 0;
  /// Sorted by value pointer, no zero coefficient.
  llvm::SmallVector<std::pair<mlir::Value, int64_t>, 2> terms;
  void normalize();
};

/// `v` (of index or integer type) as an affine sum, looking through
/// constants, add/sub/mul by a constant (arith and index dialects),
/// affine.apply of a one-result affine map and integer casts; any other
/// value is a term of its own.
/// What decomposition may assume of some values: each replaced by a sum
/// (an induction variable by lower + step * k, the variable itself then
/// standing for k), and the range of such a k ([0, T - 1]), which makes a
/// truncating or unsigned division of a sum known non-negative a floor one.
struct IndexFacts {
  llvm::SmallVector<std::pair<mlir::Value, IndexExpr>, 1> replaced;
  llvm::SmallVector<std::pair<mlir::Value, std::pair<int64_t, int64_t>>, 1>
      ranges;
  /// i1 conditions assumed to hold (true) or not: a select on a condition
  /// the ranges leave open is read once under each assumption, and is a
  /// sum where both branches are the same one.
  llvm::SmallVector<std::pair<mlir::Value, bool>, 1> assumed;
};

/// What a loop's index is at its iteration k: `index` replaced by
/// lower + step * k (the index then stands for k), k in [0, trips - 1]
/// (trips unknown: k >= 0).
IndexFacts iterationFacts(mlir::Value index, const IndexExpr &lower,
                          int64_t step, std::optional<int64_t> trips);

IndexExpr indexExprOf(mlir::Value v, const IndexFacts &facts = {});

} // namespace remat

#endif // REMAT_ANALYSIS_INDEXEXPR_H
