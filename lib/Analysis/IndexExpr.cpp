//===- IndexExpr.cpp - Index values as affine sums of SSA values ----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Analysis/IndexExpr.h"
#include "remat/Support/CheckedArithmetic.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Index/IR/IndexOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"

#include <limits>

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

std::optional<IndexExpr> IndexExpr::floorDivided(int64_t d) const {
  if (d <= 0)
    return std::nullopt;
  // floor(c / d) for any sign of c (C++ division truncates).
  const int64_t floorOfConstant =
      constantTerm / d - (constantTerm % d != 0 && constantTerm < 0 ? 1 : 0);
  IndexExpr terms = *this;
  terms.constantTerm = 0;
  std::optional<IndexExpr> r = terms.dividedExactly(d);
  if (!r)
    return std::nullopt;
  r->constantTerm = floorOfConstant;
  return r;
}

std::optional<int64_t> IndexExpr::lowerBound(
    llvm::function_ref<std::optional<std::pair<int64_t, int64_t>>(Value)>
        range) const {
  int64_t low = constantTerm;
  for (auto [v, k] : terms) {
    std::optional<std::pair<int64_t, int64_t>> r = range(v);
    if (!r)
      return std::nullopt;
    std::optional<int64_t> term = checkedMul(k, k > 0 ? r->first : r->second);
    std::optional<int64_t> sum = term ? checkedAdd(low, *term) : std::nullopt;
    if (!sum)
      return std::nullopt;
    low = *sum;
  }
  return low;
}

int64_t IndexExpr::coefficient(Value v) const {
  for (auto [t, k] : terms)
    if (t == v)
      return k;
  return 0;
}

Value IndexExpr::onlyTerm() const {
  return terms.size() == 1 ? terms.front().first : Value();
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

/// ceil(n / d) = -floor(-n / d).
std::optional<IndexExpr> ceilDivided(const IndexExpr &n, int64_t d) {
  std::optional<IndexExpr> negated = n.times(-1);
  std::optional<IndexExpr> q = negated ? negated->floorDivided(d) : std::nullopt;
  return q ? q->times(-1) : std::nullopt;
}

/// The affine expression `e` of affine.apply, its dims and symbols replaced
/// by the sums of `operands`; nullopt where it is not a sum (a product of
/// two sums, a division of one whose coefficients the divisor does not
/// divide: the caller keeps the value opaque).
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
    return std::nullopt;
  }
  // Affine divisions and mod floor, whatever the sign.
  std::optional<int64_t> d = rhs->asConstant();
  if (!d)
    return std::nullopt;
  if (e.getKind() == AffineExprKind::FloorDiv)
    return lhs->floorDivided(*d);
  if (e.getKind() == AffineExprKind::CeilDiv)
    return ceilDivided(*lhs, *d);
  if (e.getKind() == AffineExprKind::Mod) {
    std::optional<IndexExpr> q = lhs->floorDivided(*d);
    std::optional<IndexExpr> dq = q ? q->times(*d) : std::nullopt;
    return dq ? lhs->minus(*dq) : std::nullopt;
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

/// The range `facts` give a value, if any.
auto rangeIn(const IndexFacts &facts) {
  return [&facts](Value v) -> std::optional<std::pair<int64_t, int64_t>> {
    for (const auto &[value, range] : facts.ranges)
      if (value == v)
        return range;
    return std::nullopt;
  };
}

/// One decomposition: the facts it assumes, and what it found for each
/// value (an index computed once and used many times, or a chain of adds
/// each reading the one before twice, is decomposed once, not once per
/// path to it).
struct Decomposition {
  Decomposition(const IndexFacts &facts, int splitsLeft)
      : facts(facts), splitsLeft(splitsLeft) {}
  const IndexFacts &facts;
  llvm::DenseMap<Value, std::optional<IndexExpr>> found;
  /// Selects read under both assumptions, nested at most this deep (each
  /// doubles the work).
  int splitsLeft;
};

/// lower-affine's floordiv nests two selects on one condition.
constexpr int kSelectSplits = 3;

/// floor(n / d) for any signs, d != 0.
int64_t floorDiv(int64_t n, int64_t d) {
  int64_t q = n / d;
  return (n % d != 0 && ((n < 0) != (d < 0))) ? q - 1 : q;
}

std::optional<IndexExpr> decompose(Value v, int depth, Decomposition &in);

/// The smallest and largest value of `e` over the ranges of `facts`.
std::optional<std::pair<int64_t, int64_t>> bounds(const IndexExpr &e,
                                                  const IndexFacts &facts) {
  std::optional<IndexExpr> negated = e.times(-1);
  std::optional<int64_t> low = e.lowerBound(rangeIn(facts));
  std::optional<int64_t> minusHigh =
      negated ? negated->lowerBound(rangeIn(facts)) : std::nullopt;
  if (!low || !minusHigh ||
      *minusHigh == std::numeric_limits<int64_t>::min()) // -high overflows
    return std::nullopt;
  return std::make_pair(*low, -*minusHigh);
}

/// min(a, b) or max(a, b) where the ranges order the two sums: a clamp of a
/// row into the stack's bounds, as the lowering of StableHLO's dynamic
/// slices writes every index (maxsi with 0, minsi with rows - 1), is the
/// row itself. Unsigned ones only where both sums are non-negative (their
/// order is then the signed one).
std::optional<IndexExpr> ordered(const IndexExpr &a, const IndexExpr &b,
                                 bool isMin, bool isUnsigned,
                                 const IndexFacts &facts) {
  if (isUnsigned) {
    std::optional<int64_t> lowA = a.lowerBound(rangeIn(facts));
    std::optional<int64_t> lowB = b.lowerBound(rangeIn(facts));
    if (!lowA || !lowB || *lowA < 0 || *lowB < 0)
      return std::nullopt;
  }
  std::optional<IndexExpr> d = a.minus(b);
  std::optional<std::pair<int64_t, int64_t>> range =
      d ? bounds(*d, facts) : std::nullopt;
  if (!range)
    return std::nullopt;
  if (range->second <= 0) // a <= b
    return isMin ? a : b;
  if (range->first >= 0) // a >= b
    return isMin ? b : a;
  return std::nullopt;
}

/// lhs - rhs of `cmp`, as a sum.
std::optional<IndexExpr> difference(arith::CmpIOp cmp, int depth,
                                    Decomposition &in) {
  auto sum = [&](Value operand) {
    return decompose(operand, depth + 1, in).value_or(IndexExpr::of(operand));
  };
  return sum(cmp.getLhs()).minus(sum(cmp.getRhs()));
}

/// The value of `condition` (an arith.cmpi of two sums, signed or equality)
/// where the ranges in `facts` decide it: how `lower-affine` spells floordiv
/// (a select on the dividend's sign) is then the division it computes.
std::optional<bool> decided(Value condition, int depth, Decomposition &in) {
  const IndexFacts &facts = in.facts;
  APInt value;
  if (matchPattern(condition, m_ConstantInt(&value)))
    return !value.isZero();
  for (const auto &[assumedCondition, holds] : in.facts.assumed)
    if (assumedCondition == condition)
      return holds;
  auto cmp = condition.getDefiningOp<arith::CmpIOp>();
  if (!cmp)
    return std::nullopt;
  std::optional<IndexExpr> d = difference(cmp, depth, in);
  std::optional<std::pair<int64_t, int64_t>> range =
      d ? bounds(*d, facts) : std::nullopt;
  if (!range)
    return std::nullopt;
  // lhs - rhs lies in [low, high].
  const int64_t low = range->first;
  const int64_t high = range->second;
  using P = arith::CmpIPredicate;
  auto known = [](bool isTrue, bool isFalse) -> std::optional<bool> {
    if (isTrue)
      return true;
    if (isFalse)
      return false;
    return std::nullopt;
  };
  switch (cmp.getPredicate()) {
  case P::slt:
    return known(high < 0, low >= 0);
  case P::sle:
    return known(high <= 0, low > 0);
  case P::sgt:
    return known(low > 0, high <= 0);
  case P::sge:
    return known(low >= 0, high < 0);
  case P::eq:
    return known(low == 0 && high == 0, low > 0 || high < 0);
  case P::ne:
    return known(low > 0 || high < 0, low == 0 && high == 0);
  default:
    return std::nullopt; // Unsigned: not needed by the spellings seen.
  }
}

/// `in`'s facts with `condition` assumed to be `holds`, the range of the
/// one value it bounds (a signed compare of a*v + c with 0, v's range
/// known) narrowed to where it does; std::nullopt when no value of the
/// range satisfies it (the branch assuming it is never taken).
std::optional<IndexFacts> assuming(Value condition, bool holds, int depth,
                                   Decomposition &in) {
  IndexFacts facts = in.facts;
  facts.assumed.push_back({condition, holds});
  auto cmp = condition.getDefiningOp<arith::CmpIOp>();
  if (!cmp)
    return facts;
  std::optional<IndexExpr> d = difference(cmp, depth, in);
  Value v = d && d->constantPart() != std::numeric_limits<int64_t>::min()
                ? d->onlyTerm()
                : Value();
  auto range = llvm::find_if(facts.ranges,
                             [&](const auto &r) { return r.first == v; });
  if (!v || range == facts.ranges.end())
    return facts;
  // d = a*v + c, and d in [low, high] where the condition is `holds`.
  const int64_t a = d->coefficient(v), c = d->constantPart();
  using P = arith::CmpIPredicate;
  P pred = holds ? cmp.getPredicate() : arith::invertPredicate(cmp.getPredicate());
  int64_t low = std::numeric_limits<int64_t>::min() / 4,
          high = std::numeric_limits<int64_t>::max() / 4;
  switch (pred) {
  case P::slt: high = -1; break;
  case P::sle: high = 0; break;
  case P::sgt: low = 1; break;
  case P::sge: low = 0; break;
  case P::eq: low = high = 0; break;
  default: return facts; // ne, unsigned: no interval.
  }
  // low <= a*v + c <= high, solved for v (a != 0).
  std::optional<int64_t> lowMinusC = checkedAdd(low, -c),
                         highMinusC = checkedAdd(high, -c);
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  if (!lowMinusC || !highMinusC || *lowMinusC == kMin || *highMinusC == kMin ||
      a == 0)
    return facts;
  int64_t vLow, vHigh;
  if (a > 0) {
    vLow = -floorDiv(-*lowMinusC, a);
    vHigh = floorDiv(*highMinusC, a);
  } else {
    vLow = -floorDiv(-*highMinusC, a);
    vHigh = floorDiv(*lowMinusC, a);
  }
  auto &[first, last] = range->second;
  first = std::max(first, vLow);
  last = std::min(last, vHigh);
  if (first > last)
    return std::nullopt;
  return facts;
}

/// How a division by a constant rounds.
enum class Rounding { Floor, Ceil, Truncate, Unsigned };

/// A division of `n` by the constant `d`, as a sum: floor and ceil
/// divisions whenever `d` divides every coefficient; truncating and
/// unsigned ones only where they equal the floor division: a truncating
/// one that divides exactly, or either when `n` is known non-negative
/// (`facts`' ranges; an unsigned division of a negative index is not one).
std::optional<IndexExpr> divided(const IndexExpr &n, int64_t d,
                                 Rounding rounding, const IndexFacts &facts) {
  if (d <= 0)
    return std::nullopt;
  if (rounding == Rounding::Ceil)
    return ceilDivided(n, d);
  const bool exact = n.constantPart() % d == 0; // Terms checked below.
  if (rounding == Rounding::Unsigned ||
      (rounding == Rounding::Truncate && !exact)) {
    std::optional<int64_t> low = n.lowerBound(rangeIn(facts));
    if (!low || *low < 0)
      return std::nullopt;
  }
  return n.floorDivided(d);
}

std::optional<IndexExpr> decomposeOnce(Value v, int depth,
                                       Decomposition &in);

/// Depth-limited: index arithmetic is shallow, and a malformed chain of
/// thousands of adds must not overflow the stack.
std::optional<IndexExpr> decompose(Value v, int depth, Decomposition &in) {
  if (auto it = in.found.find(v); it != in.found.end())
    return it->second;
  std::optional<IndexExpr> e = decomposeOnce(v, depth, in);
  in.found[v] = e;
  return e;
}

std::optional<IndexExpr> decomposeOnce(Value v, int depth,
                                       Decomposition &in) {
  const IndexFacts &facts = in.facts;
  for (const auto &[value, with] : facts.replaced)
    if (value == v)
      return with;
  APInt value;
  if (matchPattern(v, m_ConstantInt(&value)))
    return IndexExpr::constant(value.getSExtValue());
  Operation *def = v.getDefiningOp();
  if (!def || depth > 32)
    return std::nullopt;
  auto sub = [&](Value operand) {
    return decompose(operand, depth + 1, in).value_or(IndexExpr::of(operand));
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
  // Divisions and right shifts by a constant.
  std::optional<Rounding> rounding;
  bool shift = false;
  if (isa<arith::FloorDivSIOp, index::FloorDivSOp>(def))
    rounding = Rounding::Floor;
  else if (isa<arith::CeilDivSIOp, index::CeilDivSOp>(def))
    rounding = Rounding::Ceil;
  else if (isa<arith::DivSIOp, index::DivSOp>(def))
    rounding = Rounding::Truncate;
  else if (isa<arith::DivUIOp, index::DivUOp>(def))
    rounding = Rounding::Unsigned;
  else if (isa<arith::ShRSIOp, index::ShrSOp>(def))
    rounding = Rounding::Floor, shift = true;
  else if (isa<arith::ShRUIOp, index::ShrUOp>(def))
    rounding = Rounding::Unsigned, shift = true;
  if (rounding) {
    std::optional<int64_t> d = sub(def->getOperand(1)).asConstant();
    if (!d || (shift && (*d < 0 || *d > 62)))
      return std::nullopt;
    return divided(sub(def->getOperand(0)), shift ? int64_t(1) << *d : *d,
                   *rounding, facts);
  }
  const bool isMin = isa<arith::MinSIOp, arith::MinUIOp, index::MinSOp,
                         index::MinUOp>(def);
  if (isMin || isa<arith::MaxSIOp, arith::MaxUIOp, index::MaxSOp,
                   index::MaxUOp>(def))
    return ordered(sub(def->getOperand(0)), sub(def->getOperand(1)), isMin,
                   isa<arith::MinUIOp, arith::MaxUIOp, index::MinUOp,
                       index::MaxUOp>(def),
                   facts);
  if (auto select = dyn_cast<arith::SelectOp>(def)) {
    std::optional<bool> c = decided(select.getCondition(), depth, in);
    if (c)
      return sub(*c ? select.getTrueValue() : select.getFalseValue());
    if (in.splitsLeft <= 0)
      return std::nullopt;
    // Each branch under its assumption: the same sum from both (as
    // lower-affine's floordiv is, each branch right on its side of 0), or
    // the one branch that can be taken.
    std::optional<IndexExpr> branches[2];
    bool taken[2] = {false, false};
    for (bool holds : {true, false}) {
      std::optional<IndexFacts> facts =
          assuming(select.getCondition(), holds, depth, in);
      if (!facts)
        continue;
      taken[holds] = true;
      Decomposition branch(*facts, in.splitsLeft - 1);
      Value chosen = holds ? select.getTrueValue() : select.getFalseValue();
      branches[holds] = decompose(chosen, depth + 1, branch);
      if (!branches[holds])
        return std::nullopt;
    }
    if (taken[0] && taken[1])
      return *branches[0] == *branches[1] ? branches[0] : std::nullopt;
    return taken[1] ? branches[1] : branches[0];
  }
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

IndexFacts iterationFacts(Value index, const IndexExpr &lower, int64_t step,
                          std::optional<int64_t> trips) {
  IndexFacts facts;
  std::optional<IndexExpr> at = IndexExpr::of(index).times(step);
  at = at ? at->plus(lower) : at;
  if (at)
    facts.replaced.push_back({index, *at});
  facts.ranges.push_back(
      {index, {0, trips ? std::max<int64_t>(0, *trips - 1)
                        : std::numeric_limits<int64_t>::max()}});
  return facts;
}

IndexExpr indexExprOf(Value v, const IndexFacts &facts) {
  Decomposition in(facts, kSelectSplits);
  return decompose(v, 0, in).value_or(IndexExpr::of(v));
}

} // namespace remat
