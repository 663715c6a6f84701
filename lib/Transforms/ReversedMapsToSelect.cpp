//===- ReversedMapsToSelect.cpp - Reads at c - d as a select over a loop --===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A linalg.generic input read at `... + c - d` (a flipped kernel) becomes a
// read at `... + r`, r a new reduction loop over [0, c], whose body's
// results count only where d + r == c (Passes.td has the why).
//
//===----------------------------------------------------------------------===//

#include "remat/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace remat {
#define GEN_PASS_DEF_REVERSEDMAPSTOSELECTPASS
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;

namespace {
/// An affine expression as sum(coeff * d_i) + constant; nullopt when it is
/// not of that form (mod, floordiv, symbols).
struct Linear {
  llvm::SmallDenseMap<unsigned, int64_t> coeffs;
  int64_t constant = 0;
};

bool addTerms(AffineExpr e, int64_t scale, Linear &out) {
  if (auto d = dyn_cast<AffineDimExpr>(e)) {
    out.coeffs[d.getPosition()] += scale;
    return true;
  }
  if (auto c = dyn_cast<AffineConstantExpr>(e)) {
    out.constant += scale * c.getValue();
    return true;
  }
  auto bin = dyn_cast<AffineBinaryOpExpr>(e);
  if (!bin)
    return false;
  if (bin.getKind() == AffineExprKind::Add)
    return addTerms(bin.getLHS(), scale, out) &&
           addTerms(bin.getRHS(), scale, out);
  if (bin.getKind() == AffineExprKind::Mul)
    if (auto c = dyn_cast<AffineConstantExpr>(bin.getRHS()))
      return addTerms(bin.getLHS(), scale * c.getValue(), out);
  return false;
}

/// A read at `rest + c - d`, rewritten as `rest + r` with d + r == c.
struct Reversal {
  unsigned dim;      // d
  int64_t constant;  // c
  unsigned newDim;   // r
};

/// The reversals of `op`'s input maps, or nothing when one cannot be
/// rewritten exactly (a result other than c - d alone, or c below d's
/// largest value: r would be negative).
std::optional<SmallVector<Reversal>> findReversals(linalg::GenericOp op) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<Reversal> found;
  for (OpOperand *in : op.getDpsInputOperands())
    for (AffineExpr e : op.getMatchingIndexingMap(in).getResults()) {
      Linear lin;
      if (!addTerms(e, 1, lin))
        continue;
      SmallVector<unsigned> negative;
      for (auto [d, k] : lin.coeffs)
        if (k < 0)
          negative.push_back(d);
      if (negative.empty())
        continue;
      // Only `c - d` alone: r must appear alone in some map, or linalg
      // cannot infer its range (x + c - d, a convolution's, stays).
      unsigned d = negative.front();
      bool alone = llvm::count_if(lin.coeffs, [](auto &dk) {
                     return dk.second != 0;
                   }) == 1;
      if (negative.size() != 1 || lin.coeffs[d] != -1 || !alone ||
          ShapedType::isDynamic(ranges[d]) || lin.constant < ranges[d] - 1)
        return std::nullopt;
      if (!llvm::any_of(found, [&](const Reversal &r) {
            return r.dim == d && r.constant == lin.constant;
          }))
        found.push_back({d, lin.constant, unsigned(ranges.size() + found.size())});
    }
  return found;
}

AffineExpr rewriteResult(AffineExpr e, ArrayRef<Reversal> reversals,
                         MLIRContext *ctx) {
  Linear lin;
  if (!addTerms(e, 1, lin))
    return e;
  for (const Reversal &r : reversals) {
    auto it = lin.coeffs.find(r.dim);
    if (it == lin.coeffs.end() || it->second != -1 ||
        lin.constant != r.constant)
      continue;
    AffineExpr out = getAffineDimExpr(r.newDim, ctx);
    for (auto [d, k] : lin.coeffs)
      if (d != r.dim && k != 0)
        out = out + getAffineDimExpr(d, ctx) * k;
    return out;
  }
  return e;
}

LogicalResult rewrite(RewriterBase &rewriter, linalg::GenericOp op,
                      ArrayRef<Reversal> reversals) {
  MLIRContext *ctx = op.getContext();
  const unsigned numLoops = op.getNumLoops() + reversals.size();
  SmallVector<AffineMap> maps;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap m = op.getMatchingIndexingMap(&operand);
    SmallVector<AffineExpr> results;
    for (AffineExpr e : m.getResults())
      results.push_back(op.isDpsInput(&operand)
                            ? rewriteResult(e, reversals, ctx)
                            : e);
    maps.push_back(AffineMap::get(numLoops, 0, results, ctx));
  }
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  iterators.append(reversals.size(), utils::IteratorType::reduction);

  rewriter.setInsertionPoint(op);
  Block &body = op.getRegion().front();
  const unsigned numInputs = op.getNumDpsInputs();
  // The select keeps the output's old value where r does not match: an
  // output the body never read (a flip into tensor.empty) is filled with
  // zeros first, so nothing reads an uninitialized element.
  SmallVector<Value> inits(op.getDpsInits());
  for (auto [k, init] : llvm::enumerate(inits))
    if (body.getArgument(numInputs + k).use_empty()) {
      Type element = getElementTypeOrSelf(init.getType());
      Value zero = arith::ConstantOp::create(
          rewriter, op.getLoc(), cast<TypedAttr>(rewriter.getZeroAttr(element)));
      init = linalg::FillOp::create(rewriter, op.getLoc(), zero, init)
                 .getResult(0);
    }
  auto generic = linalg::GenericOp::create(
      rewriter, op.getLoc(), op.getResultTypes(), op.getDpsInputs(), inits,
      maps, iterators,
      [&](OpBuilder &b, Location loc, ValueRange args) {
        IRMapping map;
        map.map(body.getArguments(), args);
        for (Operation &inner : body.without_terminator())
          b.clone(inner, map);
        Value keep;
        for (const Reversal &r : reversals) {
          Value d = linalg::IndexOp::create(b, loc, r.dim);
          Value n = linalg::IndexOp::create(b, loc, r.newDim);
          Value sum = arith::AddIOp::create(b, loc, d, n);
          Value c = arith::ConstantIndexOp::create(b, loc, r.constant);
          Value eq = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           sum, c);
          keep = keep ? arith::AndIOp::create(b, loc, keep, eq) : eq;
        }
        SmallVector<Value> yields;
        for (auto [k, v] : llvm::enumerate(body.getTerminator()->getOperands()))
          yields.push_back(arith::SelectOp::create(
              b, loc, keep, map.lookupOrDefault(v), args[numInputs + k]));
        linalg::YieldOp::create(b, loc, yields);
      },
      llvm::to_vector(op->getDiscardableAttrs()));
  rewriter.replaceOp(op, generic->getResults());
  return success();
}

struct ReversedMapsToSelectPass
    : public remat::impl::ReversedMapsToSelectPassBase<
          ReversedMapsToSelectPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> ops;
    getOperation()->walk([&](linalg::GenericOp op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : ops) {
      std::optional<SmallVector<Reversal>> reversals = findReversals(op);
      if (!reversals) {
        op.emitWarning("reads at a reversed index that cannot be rewritten "
                       "with positive maps; a downstream compiler may not "
                       "tile it");
        continue;
      }
      if (!reversals->empty())
        (void)rewrite(rewriter, op, *reversals);
    }
  }
};
} // namespace
