//===- ShapeBounds.cpp - Plan dynamic shapes at their upper bounds --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Analysis/ShapeBounds.h"
#include "remat/Dialect/Remat/Remat.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace remat {
namespace {

bool isDynamicTensor(Type type) {
  auto tensor = dyn_cast<TensorType>(type);
  return tensor && !tensor.hasStaticShape();
}

const char *kHowToBound =
    "give the arguments it depends on upper bounds: --remat-dim-bounds="
    "argK:D=N (remat-opt; dim-bounds= of the passes) or a remat.bounds = "
    "array<i64: ...> attribute on the argument";

/// Pairs every op and value of `copy` with `original`'s (same structure).
void mapBack(Operation *copy, Operation *original, BoundedCopy &out) {
  out.originalOps[copy] = original;
  for (auto [c, o] : llvm::zip_equal(copy->getResults(), original->getResults()))
    out.originalValues[c] = o;
  for (auto [cr, orr] :
       llvm::zip_equal(copy->getRegions(), original->getRegions()))
    for (auto [cb, ob] : llvm::zip_equal(cr, orr)) {
      for (auto [c, o] :
           llvm::zip_equal(cb.getArguments(), ob.getArguments()))
        out.originalValues[c] = o;
      for (auto [c, o] : llvm::zip_equal(cb, ob))
        mapBack(&c, &o, out);
    }
}

/// What a value is, for a diagnostic: "argument #0" or "result #1 of
/// linalg.matmul".
std::string describe(Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v))
    return llvm::formatv("block argument #{0}", arg.getArgNumber()).str();
  auto r = cast<OpResult>(v);
  return llvm::formatv("result #{0} of {1}", r.getResultNumber(),
                       r.getOwner()->getName().getStringRef())
      .str();
}

/// The upper bound of dimension `dim` of a tensor value: the value-bounds
/// analysis's, else the one the structure of the IR gives where that
/// analysis gives none (it does not carry a size through nested scf.if
/// results whose branches yield different values into a loop's carry): a
/// destination-passing result (tensor.insert, insert_slice, linalg) has
/// its destination's size, a cast its source's, an scf.if result at most
/// the larger of what its branches yield, an scf.for's result its carry's,
/// and a carry its initial value's bound when, that bound assumed, what
/// the body yields is bounded by it too (an induction on the iterations).
class SizeBound {
public:
  /// `symbolScope`: where the grids of device indexes are found when the
  /// function is a detached copy.
  explicit SizeBound(Operation *symbolScope = nullptr)
      : symbolScope(symbolScope) {}

  std::optional<int64_t> of(Value v, unsigned dim) {
    auto tensor = dyn_cast<RankedTensorType>(v.getType());
    if (!tensor || dim >= tensor.getRank())
      return std::nullopt;
    if (!tensor.isDynamicDim(dim))
      return tensor.getDimSize(dim);
    if (auto it = assumed.find({v, dim}); it != assumed.end())
      return it->second;
    FailureOr<int64_t> ub = ValueBoundsConstraintSet::computeConstantBound(
        presburger::BoundType::UB, ValueBoundsConstraintSet::Variable(v, dim),
        /*stopCondition=*/nullptr, /*closedUB=*/true);
    if (succeeded(ub))
      return std::max<int64_t>(0, *ub);
    if (Value same = sameAsInRecompute(v))
      return of(same, dim);
    if (auto arg = dyn_cast<BlockArgument>(v))
      return ofCarry(arg, dim);
    auto result = cast<OpResult>(v);
    Operation *op = result.getOwner();
    if (auto dps = dyn_cast<DestinationStyleOpInterface>(op))
      return of(dps.getTiedOpOperand(result)->get(), dim);
    if (auto cast = dyn_cast<tensor::CastOp>(op))
      return of(cast.getSource(), dim);
    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      if (branch.getElseRegion().empty())
        return std::nullopt;
      const unsigned n = result.getResultNumber();
      std::optional<int64_t> then = of(branch.thenYield().getOperand(n), dim);
      std::optional<int64_t> other = of(branch.elseYield().getOperand(n), dim);
      if (!then || !other)
        return std::nullopt;
      return std::max(*then, *other);
    }
    if (auto loop = dyn_cast<scf::ForOp>(op))
      return of(loop.getRegionIterArgs()[result.getResultNumber()], dim);
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op))
      return ofSize(sliceSize(slice, dim));
    if (auto empty = dyn_cast<tensor::EmptyOp>(op))
      return ofSize(empty.getMixedSizes()[dim]);
    return std::nullopt;
  }

  /// An upper bound of an index value (ofIndex).
  std::optional<int64_t> ofIndexValue(Value v) { return ofIndex(v); }

private:
  /// The size of `slice` that becomes its result's dimension `dim`.
  static OpFoldResult sliceSize(tensor::ExtractSliceOp slice, unsigned dim) {
    llvm::SmallBitVector dropped = slice.getDroppedDims();
    SmallVector<OpFoldResult> sizes = slice.getMixedSizes();
    for (unsigned i = 0, kept = 0; i < sizes.size(); ++i) {
      if (dropped.test(i))
        continue;
      if (kept++ == dim)
        return sizes[i];
    }
    llvm_unreachable("a slice's result has one size per dimension kept");
  }

  std::optional<int64_t> ofSize(OpFoldResult size) {
    if (std::optional<int64_t> c = getConstantIntValue(size))
      return std::max<int64_t>(0, *c);
    return ofIndex(cast<Value>(size));
  }

  /// An upper bound of an index value: the analysis's, else the one its
  /// arithmetic gives. `-lower-affine` turns an `affine.min` into
  /// `arith.minsi` or a compare-and-select, which the analysis bounds by
  /// neither operand (the tiling form `min(%n, 48)`, %n unbounded).
  std::optional<int64_t> ofIndex(Value v) {
    if (!v.getType().isIndex() && !v.getType().isSignlessInteger())
      return std::nullopt;
    if (v.getType().isIndex()) {
      FailureOr<int64_t> ub = ValueBoundsConstraintSet::computeConstantBound(
          presburger::BoundType::UB, ValueBoundsConstraintSet::Variable(v),
          /*stopCondition=*/nullptr, /*closedUB=*/true);
      if (succeeded(ub))
        return *ub;
    }
    if (std::optional<int64_t> c = getConstantIntValue(v))
      return *c;
    if (Value same = sameAsInRecompute(v))
      return ofIndex(same);
    Operation *op = v.getDefiningOp();
    if (!op)
      return std::nullopt;
    if (isa<arith::MinSIOp, arith::MinUIOp>(op))
      return smaller(ofIndex(op->getOperand(0)), ofIndex(op->getOperand(1)));
    if (isa<arith::MaxSIOp, arith::MaxUIOp, arith::AddIOp>(op)) {
      std::optional<int64_t> a = ofIndex(op->getOperand(0));
      std::optional<int64_t> b = ofIndex(op->getOperand(1));
      if (!a || !b)
        return std::nullopt;
      if (isa<arith::AddIOp>(op))
        return *a + *b; // Bounds of sizes: far below overflow.
      return std::max(*a, *b);
    }
    if (auto cast = dyn_cast<arith::IndexCastOp>(op))
      return ofIndex(cast.getIn());
    // a - b, when never negative: a size the stage index shrinks (a 1F1B
    // stage's ring, 2 (P - s) - 1 rows).
    if (auto sub = dyn_cast<arith::SubIOp>(op)) {
      std::optional<int64_t> ua = ofIndex(sub.getLhs()),
                             la = lowerIndex(sub.getLhs()),
                             ub = ofIndex(sub.getRhs()),
                             lb = lowerIndex(sub.getRhs());
      if (!ua || !la || !ub || !lb || *la - *ub < 0)
        return std::nullopt;
      return *ua - *lb;
    }
    if (std::optional<int64_t> devices = deviceIndexEnd(op, v))
      return *devices - 1;
    if (auto dim = dyn_cast<tensor::DimOp>(op)) {
      std::optional<int64_t> d = dim.getConstantIndex();
      if (!d)
        return std::nullopt;
      return of(dim.getSource(), *d);
    }
    if (auto select = dyn_cast<arith::SelectOp>(op)) {
      std::optional<int64_t> a = ofIndex(select.getTrueValue());
      std::optional<int64_t> b = ofIndex(select.getFalseValue());
      if (selectsTheSmaller(select))
        return smaller(a, b);
      if (!a || !b)
        return std::nullopt;
      return std::max(*a, *b);
    }
    return std::nullopt;
  }

  /// A lower bound of an index value, by its arithmetic (the analysis's
  /// where it has one).
  std::optional<int64_t> lowerIndex(Value v) {
    if (!v.getType().isIndex() && !v.getType().isSignlessInteger())
      return std::nullopt;
    if (std::optional<int64_t> c = getConstantIntValue(v))
      return *c;
    if (v.getType().isIndex()) {
      FailureOr<int64_t> lb = ValueBoundsConstraintSet::computeConstantBound(
          presburger::BoundType::LB, ValueBoundsConstraintSet::Variable(v),
          /*stopCondition=*/nullptr);
      if (succeeded(lb))
        return *lb;
    }
    if (Value same = sameAsInRecompute(v))
      return lowerIndex(same);
    Operation *op = v.getDefiningOp();
    if (!op)
      return std::nullopt;
    if (deviceIndexEnd(op, v) || isa<tensor::DimOp>(op))
      return 0;
    if (auto cast = dyn_cast<arith::IndexCastOp>(op))
      return lowerIndex(cast.getIn());
    if (isa<arith::AddIOp, arith::MinSIOp, arith::MinUIOp, arith::MaxSIOp,
            arith::MaxUIOp>(op)) {
      std::optional<int64_t> a = lowerIndex(op->getOperand(0));
      std::optional<int64_t> b = lowerIndex(op->getOperand(1));
      if (!a || !b)
        return std::nullopt;
      if (isa<arith::AddIOp>(op))
        return *a + *b;
      return isa<arith::MinSIOp, arith::MinUIOp>(op) ? std::min(*a, *b)
                                                    : std::max(*a, *b);
    }
    if (auto select = dyn_cast<arith::SelectOp>(op)) {
      std::optional<int64_t> a = lowerIndex(select.getTrueValue());
      std::optional<int64_t> b = lowerIndex(select.getFalseValue());
      if (!a || !b)
        return std::nullopt;
      return std::min(*a, *b);
    }
    return std::nullopt;
  }

  /// A device index (`shard.process_linear_index`, a result of
  /// `shard.process_multi_index`) ranges over 0 .. devices - 1: the devices
  /// of its grid, or of the grid axis it reads; std::nullopt for any other
  /// value or a grid whose size is not known.
  std::optional<int64_t> deviceIndexEnd(Operation *op, Value v) {
    if (!isa<shard::ProcessLinearIndexOp, shard::ProcessMultiIndexOp>(op))
      return std::nullopt;
    auto ref = op->getAttrOfType<FlatSymbolRefAttr>("grid");
    if (!ref)
      return std::nullopt;
    auto grid = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(op, ref);
    if (!grid && symbolScope)
      grid = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(symbolScope,
                                                                 ref);
    if (!grid)
      return std::nullopt;
    ArrayRef<int64_t> shape = grid.getShape();
    SmallVector<int64_t> axes;
    if (auto multi = dyn_cast<shard::ProcessMultiIndexOp>(op)) {
      ArrayRef<int16_t> read = multi.getAxes();
      const unsigned n = cast<OpResult>(v).getResultNumber();
      axes.push_back(read.empty() ? n : read[n]);
    } else {
      for (size_t a = 0; a < shape.size(); ++a)
        axes.push_back(a);
    }
    int64_t devices = 1;
    for (int64_t a : axes) {
      if (a < 0 || a >= static_cast<int64_t>(shape.size()) || shape[a] <= 0)
        return std::nullopt;
      devices *= shape[a];
    }
    return devices;
  }

  /// What a recomputation's body argument or result stands for (its
  /// operand, its yielded value); null for any other value.
  static Value sameAsInRecompute(Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (auto recompute =
              dyn_cast<RecomputeOp>(arg.getOwner()->getParentOp()))
        return recompute.getInputs()[arg.getArgNumber()];
      return Value();
    }
    if (auto recompute = v.getDefiningOp<RecomputeOp>())
      return recompute.getYield()
          .getValues()[cast<OpResult>(v).getResultNumber()];
    return Value();
  }

  /// `select(x < y, x, y)` (or `y > x`, `<=`, unsigned): min(x, y).
  static bool selectsTheSmaller(arith::SelectOp select) {
    auto cmp = select.getCondition().getDefiningOp<arith::CmpIOp>();
    if (!cmp)
      return false;
    Value t = select.getTrueValue(), f = select.getFalseValue();
    using P = arith::CmpIPredicate;
    switch (cmp.getPredicate()) {
    case P::slt:
    case P::sle:
    case P::ult:
    case P::ule:
      return cmp.getLhs() == t && cmp.getRhs() == f;
    case P::sgt:
    case P::sge:
    case P::ugt:
    case P::uge:
      return cmp.getLhs() == f && cmp.getRhs() == t;
    default:
      return false;
    }
  }

  Operation *symbolScope;

  static std::optional<int64_t> smaller(std::optional<int64_t> a,
                                        std::optional<int64_t> b) {
    if (a && b)
      return std::min(*a, *b);
    return a ? a : b;
  }

  std::optional<int64_t> ofCarry(BlockArgument arg, unsigned dim) {
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    OpOperand *init = loop ? loop.getTiedLoopInit(arg) : nullptr;
    if (!init)
      return std::nullopt;
    std::optional<int64_t> bound = of(init->get(), dim);
    if (!bound)
      return std::nullopt;
    assumed[{arg, dim}] = *bound;
    std::optional<int64_t> next =
        of(loop.getTiedLoopYieldedValue(arg)->get(), dim);
    assumed.erase({arg, dim});
    if (!next || *next > *bound)
      return std::nullopt;
    return bound;
  }

  /// The carries whose bound is being proved, at the bound assumed.
  llvm::DenseMap<std::pair<Value, unsigned>, int64_t> assumed;
};

} // namespace

bool hasDynamicShapes(func::FuncOp func) {
  if (llvm::any_of(func.getArgumentTypes(), isDynamicTensor) ||
      llvm::any_of(func.getResultTypes(), isDynamicTensor))
    return true;
  WalkResult found = func.getBody().walk([](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        if (llvm::any_of(block.getArgumentTypes(), isDynamicTensor))
          return WalkResult::interrupt();
    return llvm::any_of(op->getResultTypes(), isDynamicTensor)
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return found.wasInterrupted();
}

FailureOr<BoundedCopy> boundedCopy(func::FuncOp func, Operation *symbolScope) {
  BoundedCopy out;
  out.copy = func.clone();
  func::FuncOp copy = *out.copy;
  mapBack(copy, func, out);

  // Arguments: their remat.bounds.
  for (BlockArgument arg : copy.getArguments()) {
    if (!isDynamicTensor(arg.getType()))
      continue;
    auto tensor = dyn_cast<RankedTensorType>(arg.getType());
    auto bounds = func.getArgAttrOfType<DenseI64ArrayAttr>(
        arg.getArgNumber(), RematDialect::kBoundsAttrName);
    if (!tensor || !bounds) {
      unsigned dim = 0;
      while (tensor && !tensor.isDynamicDim(dim))
        ++dim;
      return func.emitError()
             << "argument #" << arg.getArgNumber() << " has a dynamic shape ("
             << arg.getType() << ") without an upper bound: bound it with "
             << (tensor ? llvm::formatv("--remat-dim-bounds=arg{0}:{1}=N",
                                        arg.getArgNumber(), dim)
                              .str()
                        : std::string("a ranked type"))
             << " (remat-opt; dim-bounds= of the passes) or a remat.bounds "
                "attribute on the argument";
    }
    arg.setType(RankedTensorType::get(bounds.asArrayRef(),
                                      tensor.getElementType(),
                                      tensor.getEncoding()));
  }

  // Every other value: its bound by the value-bounds analysis, computed
  // with the arguments bounded and before any other type changes.
  SmallVector<std::pair<Value, Type>> bounded;
  SizeBound sizeBound(symbolScope);
  auto bound = [&](Value v) -> LogicalResult {
    if (!isDynamicTensor(v.getType()))
      return success();
    auto tensor = dyn_cast<RankedTensorType>(v.getType());
    Location loc = out.originalValues.lookup(v).getLoc();
    if (!tensor)
      return emitError(loc) << describe(v) << " is unranked ("
                            << v.getType() << "): remat needs ranked tensors";
    SmallVector<int64_t> shape(tensor.getShape());
    for (auto [dim, size] : llvm::enumerate(shape)) {
      if (!ShapedType::isDynamic(size))
        continue;
      std::optional<int64_t> ub = sizeBound.of(v, dim);
      if (!ub)
        return emitError(loc)
               << describe(v) << " (" << v.getType() << ") has no upper bound "
               << "remat can derive for dimension " << dim << ": "
               << kHowToBound;
      size = *ub;
    }
    bounded.emplace_back(v, RankedTensorType::get(shape,
                                                  tensor.getElementType(),
                                                  tensor.getEncoding()));
    return success();
  };
  WalkResult walk = copy.getBody().walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (failed(bound(arg)))
            return WalkResult::interrupt();
    for (Value r : op->getResults())
      if (failed(bound(r)))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  for (auto &[v, type] : bounded)
    v.setType(type);
  return out;
}

std::optional<int64_t> indexUpperBound(Value v, Operation *symbolScope) {
  return SizeBound(symbolScope).ofIndexValue(v);
}

std::string describeBounds(func::FuncOp func) {
  std::string text;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    auto tensor = dyn_cast<RankedTensorType>(func.getArgumentTypes()[i]);
    auto bounds =
        func.getArgAttrOfType<DenseI64ArrayAttr>(i, RematDialect::kBoundsAttrName);
    if (!tensor || !bounds || tensor.hasStaticShape())
      continue;
    for (auto [dim, b] : llvm::enumerate(bounds.asArrayRef()))
      if (tensor.isDynamicDim(dim))
        text += llvm::formatv("{0}arg{1}:{2}<={3}", text.empty() ? "" : ", ",
                              i, dim, b)
                    .str();
  }
  return text;
}

namespace {
struct DimBound {
  unsigned arg = 0, dim = 0;
  int64_t bound = 0;
};

FailureOr<DimBound> parseDimBound(StringRef spec, std::string &why) {
  DimBound b;
  StringRef rest = spec.trim();
  auto [where, value] = rest.split('=');
  auto [arg, dim] = where.split(':');
  if (!arg.consume_front("arg") || arg.getAsInteger(10, b.arg) ||
      dim.getAsInteger(10, b.dim) || value.getAsInteger(10, b.bound) ||
      b.bound < 0) {
    why = ("dim-bounds: '" + spec +
           "' is not argK:D=N (argument K's dimension D is at most N >= 0, "
           "e.g. arg0:0=64)")
              .str();
    return failure();
  }
  return b;
}
} // namespace

std::optional<std::string> checkDimBound(StringRef spec) {
  std::string why;
  if (failed(parseDimBound(spec, why)))
    return why;
  return std::nullopt;
}

LogicalResult applyDimBounds(func::FuncOp func, ArrayRef<std::string> specs) {
  // Argument -> its shape with the bounds given so far.
  llvm::MapVector<unsigned, SmallVector<int64_t>> shapes;
  for (const std::string &spec : specs) {
    std::string why;
    FailureOr<DimBound> b = parseDimBound(spec, why);
    if (failed(b))
      return func.emitError() << why;
    if (b->arg >= func.getNumArguments())
      return func.emitError() << "dim-bounds: '" << spec << "' names argument #"
                              << b->arg << " of @" << func.getSymName()
                              << ", which has " << func.getNumArguments();
    auto tensor =
        dyn_cast<RankedTensorType>(func.getArgumentTypes()[b->arg]);
    if (!tensor || b->dim >= tensor.getRank() ||
        !tensor.isDynamicDim(b->dim))
      return func.emitError()
             << "dim-bounds: '" << spec << "': dimension " << b->dim
             << " of argument #" << b->arg << " ("
             << func.getArgumentTypes()[b->arg] << ") is not dynamic";
    auto [it, fresh] = shapes.try_emplace(b->arg);
    if (fresh) {
      auto old = func.getArgAttrOfType<DenseI64ArrayAttr>(
          b->arg, RematDialect::kBoundsAttrName);
      it->second.assign(old ? old.asArrayRef() : tensor.getShape());
    }
    it->second[b->dim] = b->bound;
  }
  for (auto &[arg, shape] : shapes) {
    for (auto [dim, size] : llvm::enumerate(shape))
      if (ShapedType::isDynamic(size))
        return func.emitError()
               << "dim-bounds: dimension " << dim << " of argument #" << arg
               << " (" << func.getArgumentTypes()[arg]
               << ") has no bound: add arg" << arg << ":" << dim << "=N";
    func.setArgAttr(arg, RematDialect::kBoundsAttrName,
                    DenseI64ArrayAttr::get(func.getContext(), shape));
  }
  return success();
}

} // namespace remat
