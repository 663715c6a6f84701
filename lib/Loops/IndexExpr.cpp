//===- IndexExpr.cpp - Index values as affine sums of SSA values ----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Loops/IndexExpr.h"
#include "remat/Support/CheckedArithmetic.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Index/IR/IndexOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace remat {

IndexExpr IndexExpr::constant(int64_t c) {
  IndexExpr e;
  e.constantTerm = c;
  return e;
}

IndexExpr IndexExpr::of(Value v) {
  IndexExpr e;
  e.terms.push_back({v, 1});
  return e;
}

void IndexExpr::normalize() {
  llvm::sort(terms, [](const auto &a, const auto &b) {
    return a.first.getAsOpaquePointer() < b.first.getAsOpaquePointer();
  });
  SmallVector<std::pair<Value, int64_t>, 2> merged;
  for (auto &[v, c] : terms) {
    if (!merged.empty() && merged.back().first == v)
      merged.back().second += c; // Callers checked the sum.
    else
      merged.push_back({v, c});
  }
  llvm::erase_if(merged, [](const auto &t) { return t.second == 0; });
  terms = std::move(merged);
}

std::optional<IndexExpr> IndexExpr::plus(const IndexExpr &other) const {
  IndexExpr r = *this;
  std::optional<int64_t> c = checkedAdd(constantTerm, other.constantTerm);
  if (!c)
    return std::nullopt;
  r.constantTerm = *c;
  for (auto [v, k] : other.terms) {
    int64_t mine = coefficient(v);
    if (!checkedAdd(mine, k))
      return std::nullopt;
    r.terms.push_back({v, k});
  }
  r.normalize();
  return r;
}

std::optional<IndexExpr> IndexExpr::minus(const IndexExpr &other) const {
  std::optional<IndexExpr> negated = other.times(-1);
  return negated ? plus(*negated) : std::nullopt;
}

std::optional<IndexExpr> IndexExpr::times(int64_t factor) const {
  IndexExpr r;
  std::optional<int64_t> c = checkedMul(constantTerm, factor);
  if (!c)
    return std::nullopt;
  r.constantTerm = *c;
  for (auto [v, k] : terms) {
    std::optional<int64_t> m = checkedMul(k, factor);
    if (!m)
      return std::nullopt;
    r.terms.push_back({v, *m});
  }
  r.normalize();
  return r;
}

std::optional<IndexExpr> IndexExpr::substitute(Value v,
                                               const IndexExpr &with) const {
  IndexExpr rest = *this;
  llvm::erase_if(rest.terms, [&](const auto &t) { return t.first == v; });
  std::optional<IndexExpr> scaled = with.times(coefficient(v));
  return scaled ? rest.plus(*scaled) : std::nullopt;
}

std::optional<IndexExpr> IndexExpr::dividedExactly(int64_t d) const {
  if (d == 0 || constantTerm % d != 0)
    return std::nullopt;
  IndexExpr r;
  r.constantTerm = constantTerm / d;
  for (auto [v, k] : terms) {
    if (k % d != 0)
      return std::nullopt;
    r.terms.push_back({v, k / d});
  }
  return r;
}

int64_t IndexExpr::coefficient(Value v) const {
  for (auto [t, k] : terms)
    if (t == v)
      return k;
  return 0;
}

std::optional<int64_t> IndexExpr::asConstant() const {
  if (!terms.empty())
    return std::nullopt;
  return constantTerm;
}

bool IndexExpr::operator==(const IndexExpr &other) const {
  return constantTerm == other.constantTerm && terms == other.terms;
}

std::string
IndexExpr::str(llvm::function_ref<std::string(Value)> name) const {
  // Terms added first, then subtracted, each by name: the same text on
  // every run (the terms themselves are ordered by address).
  SmallVector<std::tuple<bool, std::string, int64_t>, 2> named;
  for (auto [v, k] : terms)
    named.push_back({k < 0, name(v), k});
  llvm::sort(named);
  std::string s;
  for (auto &[negative, text, k] : named) {
    if (!s.empty())
      s += k < 0 ? " - " : " + ";
    else if (k < 0)
      s += "-";
    int64_t magnitude = k < 0 ? -k : k;
    if (magnitude != 1)
      s += std::to_string(magnitude) + "*";
    s += text;
  }
  if (s.empty())
    return std::to_string(constantTerm);
  if (constantTerm != 0)
    s += (constantTerm < 0 ? " - " : " + ") +
         std::to_string(constantTerm < 0 ? -constantTerm : constantTerm);
  return s;
}

namespace {

/// The affine expression `e` of affine.apply, its dims and symbols replaced
/// by the sums of `operands`; nullopt for floordiv, mod, ceildiv (the
/// caller keeps the value opaque).
std::optional<IndexExpr> fromAffine(AffineExpr e, ArrayRef<IndexExpr> dims,
                                    ArrayRef<IndexExpr> symbols) {
  if (auto c = dyn_cast<AffineConstantExpr>(e))
    return IndexExpr::constant(c.getValue());
  if (auto d = dyn_cast<AffineDimExpr>(e))
    return dims[d.getPosition()];
  if (auto s = dyn_cast<AffineSymbolExpr>(e))
    return symbols[s.getPosition()];
  auto bin = dyn_cast<AffineBinaryOpExpr>(e);
  if (!bin)
    return std::nullopt;
  std::optional<IndexExpr> lhs = fromAffine(bin.getLHS(), dims, symbols);
  std::optional<IndexExpr> rhs = fromAffine(bin.getRHS(), dims, symbols);
  if (!lhs || !rhs)
    return std::nullopt;
  if (e.getKind() == AffineExprKind::Add)
    return lhs->plus(*rhs);
  if (e.getKind() == AffineExprKind::Mul) {
    if (std::optional<int64_t> k = rhs->asConstant())
      return lhs->times(*k);
    if (std::optional<int64_t> k = lhs->asConstant())
      return rhs->times(*k);
  }
  return std::nullopt;
}

std::optional<IndexExpr> product(const IndexExpr &a, const IndexExpr &b) {
  if (std::optional<int64_t> k = b.asConstant())
    return a.times(*k);
  if (std::optional<int64_t> k = a.asConstant())
    return b.times(*k);
  return std::nullopt;
}

/// Depth-limited: index arithmetic is shallow, and a malformed chain of
/// thousands of adds must not overflow the stack.
std::optional<IndexExpr> decompose(Value v, int depth) {
  APInt value;
  if (matchPattern(v, m_ConstantInt(&value)))
    return IndexExpr::constant(value.getSExtValue());
  Operation *def = v.getDefiningOp();
  if (!def || depth > 32)
    return std::nullopt;
  auto sub = [&](Value operand) {
    return decompose(operand, depth + 1).value_or(IndexExpr::of(operand));
  };
  if (isa<arith::AddIOp, index::AddOp>(def))
    return sub(def->getOperand(0)).plus(sub(def->getOperand(1)));
  if (isa<arith::SubIOp, index::SubOp>(def))
    return sub(def->getOperand(0)).minus(sub(def->getOperand(1)));
  if (isa<arith::MulIOp, index::MulOp>(def))
    return product(sub(def->getOperand(0)), sub(def->getOperand(1)));
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, index::CastSOp,
          index::CastUOp>(def))
    return sub(def->getOperand(0));
  if (auto apply = dyn_cast<affine::AffineApplyOp>(def)) {
    AffineMap map = apply.getAffineMap();
    SmallVector<IndexExpr> dims, symbols;
    for (Value operand : apply.getDimOperands())
      dims.push_back(sub(operand));
    for (Value operand : apply.getSymbolOperands())
      symbols.push_back(sub(operand));
    return fromAffine(map.getResult(0), dims, symbols);
  }
  return std::nullopt;
}

} // namespace

IndexExpr indexExprOf(Value v) {
  return decompose(v, 0).value_or(IndexExpr::of(v));
}

} // namespace remat
