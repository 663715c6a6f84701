//===- PartStacks.cpp - Stacks written in several parts per iteration -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// See PartStacks.h. Each loop is checked whole before anything changes: a
// stack with any access that is not within one part is left as written.
// Part 0 keeps the argument's slot (retyped); the other parts are new
// iteration arguments appended to the loop.
//
//===----------------------------------------------------------------------===//

#include "remat/Loops/PartStacks.h"
#include "LoopCarries.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

namespace remat {
namespace {

/// The range `slice` covers along `axis`, when it is a constant one.
struct Range {
  int64_t offset = 0, size = 0;
  bool within(Range outer) const {
    return offset >= outer.offset && offset + size <= outer.offset + outer.size;
  }
};
std::optional<Range> constantRange(OffsetSizeAndStrideOpInterface slice,
                                   int64_t axis) {
  if (axis >= static_cast<int64_t>(slice.getMixedOffsets().size()))
    return std::nullopt;
  std::optional<int64_t> offset =
      getConstantIntValue(slice.getMixedOffsets()[axis]);
  std::optional<int64_t> size =
      getConstantIntValue(slice.getMixedSizes()[axis]);
  std::optional<int64_t> stride =
      getConstantIntValue(slice.getMixedStrides()[axis]);
  if (!offset || !size || !stride || (*stride != 1 && *size != 1))
    return std::nullopt;
  return Range{*offset, *size};
}

/// A read of a part in the loop, and whether it reads the stack after the
/// part's write this iteration (a value later in the chain of writes).
struct BodyRead {
  tensor::ExtractSliceOp read;
  bool afterWrite = false;
};

/// One part of a stack: its range along the part axis, its write in the
/// loop, and the reads of it.
struct Part {
  Range range;
  tensor::InsertSliceOp write;
  SmallVector<BodyRead> bodyReads;
  SmallVector<tensor::ExtractSliceOp> afterReads;
  Value init; ///< Set when rewriting.
};

struct PartStack {
  unsigned slot = 0;
  int64_t axis = 0;
  bool dropAxis = false;
  SmallVector<Part, 4> parts;
  /// The writes as chained in the loop, the last one yielded.
  SmallVector<tensor::InsertSliceOp> chain;
};

/// The writes yielded for `arg`: a chain of inserts, each into the one
/// before, the first into `arg`.
SmallVector<tensor::InsertSliceOp> writeChain(Value yielded, Value arg) {
  SmallVector<tensor::InsertSliceOp> chain;
  Value v = yielded;
  while (v != arg) {
    auto write = v.getDefiningOp<tensor::InsertSliceOp>();
    if (!write)
      return {};
    chain.push_back(write);
    v = write.getDest();
  }
  std::reverse(chain.begin(), chain.end());
  return chain;
}

bool movesWithIteration(tensor::InsertSliceOp write) {
  return llvm::any_of(write.getMixedOffsets(), [](OpFoldResult offset) {
    return !getConstantIntValue(offset);
  });
}

/// The axis the chain's writes are parts of: constant, disjoint ranges.
std::optional<int64_t> partAxis(ArrayRef<tensor::InsertSliceOp> chain,
                                int64_t rank) {
  for (int64_t axis = 0; axis < rank; ++axis) {
    SmallVector<Range> ranges;
    for (tensor::InsertSliceOp write : chain)
      if (std::optional<Range> r = constantRange(write, axis))
        ranges.push_back(*r);
    if (ranges.size() != chain.size())
      continue;
    llvm::sort(ranges, [](Range a, Range b) { return a.offset < b.offset; });
    bool disjoint = true;
    for (size_t i = 1; i < ranges.size(); ++i)
      disjoint &= ranges[i - 1].offset + ranges[i - 1].size <= ranges[i].offset;
    if (disjoint)
      return axis;
  }
  return std::nullopt;
}

/// Files each use of `stack` (but `except`) as a read of the part it lies
/// within: in the loop, `written` writes of the chain after its start
/// (after the loop, none: `written` < 0). False when some use is not such
/// a read.
bool fileReads(Value stack, Operation *except, PartStack &s, int written) {
  for (OpOperand &use : stack.getUses()) {
    if (use.getOwner() == except)
      continue;
    auto read = dyn_cast<tensor::ExtractSliceOp>(use.getOwner());
    std::optional<Range> r = read ? constantRange(read, s.axis) : std::nullopt;
    auto part = llvm::find_if(
        s.parts, [&](const Part &p) { return r && r->within(p.range); });
    if (part == s.parts.end())
      return false;
    // Parts are in chain order: part i is the chain's write i.
    bool afterWrite = part - s.parts.begin() < written;
    if (written < 0)
      part->afterReads.push_back(read);
    else
      part->bodyReads.push_back({read, afterWrite});
  }
  return true;
}

/// A part's stack drops the part axis when the part is one index of it
/// and every access of it reads or writes a slice without that axis
/// (rank-reduced): it is then the stack its twin writes.
bool dropsPartAxis(const PartStack &s) {
  auto fits = [&](OffsetSizeAndStrideOpInterface slice, ShapedType accessed) {
    SmallVector<int64_t> sizes;
    for (auto [d, size] : llvm::enumerate(slice.getMixedSizes())) {
      std::optional<int64_t> n = getConstantIntValue(size);
      if (!n)
        return false;
      if (static_cast<int64_t>(d) != s.axis)
        sizes.push_back(*n);
    }
    auto reduced = RankedTensorType::get(sizes, accessed.getElementType());
    return isRankReducedType(reduced, accessed) ==
           SliceVerificationResult::Success;
  };
  for (const Part &part : s.parts) {
    tensor::InsertSliceOp write = part.write;
    if (part.range.size != 1 || !fits(write, write.getSourceType()))
      return false;
    for (const BodyRead &in : part.bodyReads)
      if (tensor::ExtractSliceOp read = in.read; !fits(read, read.getType()))
        return false;
    for (tensor::ExtractSliceOp read : part.afterReads)
      if (!fits(read, read.getType()))
        return false;
  }
  return true;
}

std::optional<PartStack> partStackAt(const Carries &loop, unsigned k) {
  auto type = dyn_cast<RankedTensorType>(loop.body[k].getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  SmallVector<tensor::InsertSliceOp> chain =
      writeChain(loop.yield->getOperand(k), loop.body[k]);
  if (chain.size() < 2 || !llvm::all_of(chain, movesWithIteration))
    return std::nullopt;
  std::optional<int64_t> axis = partAxis(chain, type.getRank());
  if (!axis)
    return std::nullopt;
  // The last write is yielded for this argument alone (yielded for another
  // too, that one would carry the packed stack on).
  if (llvm::count_if(chain.back()->getUses(), [&](OpOperand &use) {
        return use.getOwner() == loop.yield;
      }) != 1)
    return std::nullopt;
  if (!beforeOnlyPassesOn(loop, k))
    return std::nullopt;
  PartStack s{k, *axis, false, {}, chain};
  for (tensor::InsertSliceOp write : chain)
    s.parts.push_back({*constantRange(write, *axis), write, {}, {}, {}});
  // Reads of the stack before any write, and after each (the last one's
  // value is also yielded).
  for (int written = 0, n = chain.size(); written <= n; ++written) {
    Value value = written == 0 ? Value(loop.body[k]) : chain[written - 1];
    Operation *next = written < n ? chain[written].getOperation() : loop.yield;
    if (!fileReads(value, next, s, written))
      return std::nullopt;
  }
  if (!fileReads(loop.loop->getResult(k), nullptr, s, /*written=*/-1))
    return std::nullopt;
  s.dropAxis = dropsPartAxis(s);
  return s;
}

RankedTensorType partType(RankedTensorType whole, const PartStack &s,
                          Range range) {
  SmallVector<int64_t> shape(whole.getShape());
  shape[s.axis] = range.size;
  if (s.dropAxis)
    shape.erase(shape.begin() + s.axis);
  return RankedTensorType::get(shape, whole.getElementType());
}

/// `slice`'s offsets, sizes and strides in the part's stack: the part
/// axis' offset made relative to `range`, or the axis dropped.
struct Access {
  SmallVector<OpFoldResult> offsets, sizes, strides;
};
Access accessInPart(RewriterBase &rewriter,
                    OffsetSizeAndStrideOpInterface slice, const PartStack &s,
                    Range range) {
  Access at{slice.getMixedOffsets(), slice.getMixedSizes(),
            slice.getMixedStrides()};
  at.offsets[s.axis] = rewriter.getIndexAttr(
      *getConstantIntValue(at.offsets[s.axis]) - range.offset);
  if (s.dropAxis)
    for (SmallVector<OpFoldResult> *v : {&at.offsets, &at.sizes, &at.strides})
      v->erase(v->begin() + s.axis);
  return at;
}

Value writePart(RewriterBase &rewriter, const PartStack &s, const Part &part,
                Value into) {
  OpBuilder::InsertionGuard guard(rewriter);
  tensor::InsertSliceOp write = part.write;
  rewriter.setInsertionPoint(write);
  Access at = accessInPart(rewriter, write, s, part.range);
  return tensor::InsertSliceOp::create(rewriter, write.getLoc(),
                                       write.getSource(), into, at.offsets,
                                       at.sizes, at.strides);
}

/// Whether `at` covers the whole of `part`.
bool coversWhole(const Access &at, Value part) {
  auto type = cast<RankedTensorType>(part.getType());
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (getConstantIntValue(at.offsets[d]) != 0 ||
        getConstantIntValue(at.sizes[d]) != type.getDimSize(d) ||
        getConstantIntValue(at.strides[d]) != 1)
      return false;
  return true;
}

/// `read` of the whole stack as a read of `part`: the part itself when it
/// reads all of it, at its type.
void readFromPart(RewriterBase &rewriter, tensor::ExtractSliceOp read,
                  const PartStack &s, Range range, Value part) {
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(read);
  Access at = accessInPart(rewriter, read, s, range);
  if (read.getType() == part.getType() && coversWhole(at, part)) {
    rewriter.replaceOp(read, part);
    return;
  }
  rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
      read, read.getType(), part, at.offsets, at.sizes, at.strides);
}

/// How the stack's initial value was built, when it can be rebuilt per
/// part: a tensor.empty, filled with `fill` when set, then `writes` at
/// constant part indices (rows stored before the loop, as layouts holding
/// T + 1 rows write them), first to last.
struct InitRecipe {
  Value fill;
  SmallVector<tensor::InsertSliceOp> writes;
};
std::optional<InitRecipe> initRecipe(Value init, const PartStack &s) {
  InitRecipe recipe;
  Value base = init;
  while (auto write = base.getDefiningOp<tensor::InsertSliceOp>()) {
    std::optional<Range> r = constantRange(write, s.axis);
    if (!r || !base.hasOneUse() || llvm::none_of(s.parts, [&](const Part &p) {
          return r->within(p.range);
        }))
      return std::nullopt;
    recipe.writes.push_back(write);
    base = write.getDest();
  }
  if (auto fill = base.getDefiningOp<linalg::FillOp>()) {
    if (!base.hasOneUse() || !fill.getOutputs()[0].hasOneUse())
      return std::nullopt;
    recipe.fill = fill.getInputs()[0];
    base = fill.getOutputs()[0];
  }
  if (!base.getDefiningOp<tensor::EmptyOp>() ||
      (base != init && !base.hasOneUse()))
    return std::nullopt;
  std::reverse(recipe.writes.begin(), recipe.writes.end());
  return recipe;
}

/// `part` of the stack's initial value `init`: built anew as `init` was
/// when it can be (initRecipe), else a slice of it.
Value partInit(RewriterBase &rewriter, Value init, const PartStack &s,
               const Part &part) {
  auto whole = cast<RankedTensorType>(init.getType());
  RankedTensorType type = partType(whole, s, part.range);
  Location loc = init.getLoc();
  std::optional<InitRecipe> recipe = initRecipe(init, s);
  if (!recipe) {
    SmallVector<OpFoldResult> offsets(whole.getRank(),
                                      rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes,
        strides(whole.getRank(), rewriter.getIndexAttr(1));
    for (int64_t size : whole.getShape())
      sizes.push_back(rewriter.getIndexAttr(size));
    offsets[s.axis] = rewriter.getIndexAttr(part.range.offset);
    sizes[s.axis] = rewriter.getIndexAttr(part.range.size);
    return tensor::ExtractSliceOp::create(rewriter, loc, type, init, offsets,
                                          sizes, strides);
  }
  Value result = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                         type.getElementType());
  if (recipe->fill)
    result = linalg::FillOp::create(rewriter, loc, recipe->fill, result)
                 .getResult(0);
  for (tensor::InsertSliceOp write : recipe->writes) {
    if (!constantRange(write, s.axis)->within(part.range))
      continue;
    Access at = accessInPart(rewriter, write, s, part.range);
    result = tensor::InsertSliceOp::create(rewriter, write.getLoc(),
                                           write.getSource(), result,
                                           at.offsets, at.sizes, at.strides);
  }
  return result;
}

/// The part's reads in the loop, of its argument `arg` or, after its write
/// this iteration, of `written`.
void readsInLoop(RewriterBase &rewriter, const PartStack &s, const Part &part,
                 Value arg, Value written) {
  for (const BodyRead &in : part.bodyReads)
    readFromPart(rewriter, in.read, s, part.range,
                 in.afterWrite ? written : arg);
}

/// Splits `stacks`, all of `loop`.
void split(RewriterBase &rewriter, const Carries &loop,
           MutableArrayRef<PartStack> stacks) {
  OpBuilder::InsertionGuard guard(rewriter);
  const unsigned before = loop.loop->getNumResults();
  rewriter.setInsertionPoint(loop.loop);
  SmallVector<Value> extraInits;
  SmallVector<Operation *> oldInits;
  for (PartStack &s : stacks) {
    Value init = loop.inits[s.slot].get();
    oldInits.push_back(init.getDefiningOp());
    for (Part &part : s.parts)
      part.init = partInit(rewriter, init, s, part);
    for (Part &part : llvm::drop_begin(s.parts))
      extraInits.push_back(part.init);
  }
  // Parts 1.. as new arguments, written and read in the grown loop.
  SmallVector<Value> extra =
      withCarries(rewriter, loop.loop, extraInits, [&](ValueRange args) {
        SmallVector<Value> next;
        size_t a = 0;
        for (PartStack &s : stacks)
          for (Part &part : llvm::drop_begin(s.parts)) {
            Value arg = args[a++];
            next.push_back(writePart(rewriter, s, part, arg));
            readsInLoop(rewriter, s, part, arg, next.back());
          }
        return next;
      });
  Operation *grown =
      cast<BlockArgument>(extra.front()).getOwner()->getParentOp();
  Carries c = *carriesOf(grown);
  // Part 0 in the stack's own slot, retyped.
  for (PartStack &s : stacks) {
    Part &first = s.parts.front();
    Type type = first.init.getType();
    rewriter.modifyOpInPlace(grown, [&] {
      c.inits[s.slot].set(first.init);
      if (!c.before.empty())
        c.before[s.slot].setType(type);
      c.body[s.slot].setType(type);
      grown->getResult(s.slot).setType(type);
    });
    Value written = writePart(rewriter, s, first, c.body[s.slot]);
    rewriter.modifyOpInPlace(c.yield,
                             [&] { c.yield->setOperand(s.slot, written); });
    readsInLoop(rewriter, s, first, c.body[s.slot], written);
    for (tensor::InsertSliceOp write : llvm::reverse(s.chain))
      rewriter.eraseOp(write);
  }
  // The reads after the loop, of each part's result.
  unsigned extraResult = before;
  for (PartStack &s : stacks)
    for (auto [i, part] : llvm::enumerate(s.parts)) {
      Value result = grown->getResult(i == 0 ? s.slot : extraResult++);
      for (tensor::ExtractSliceOp read : part.afterReads)
        readFromPart(rewriter, read, s, part.range, result);
    }
  for (Operation *init : oldInits)
    eraseUnusedChain(rewriter, init);
}

} // namespace

int splitPartStacks(Operation *root) {
  SmallVector<Operation *> loops;
  root->walk([&](Operation *op) {
    if (carriesOf(op))
      loops.push_back(op);
  });
  IRRewriter rewriter(root->getContext());
  int count = 0;
  for (Operation *op : loops) {
    Carries loop = *carriesOf(op);
    SmallVector<PartStack, 2> stacks;
    for (unsigned k = 0; k < loop.body.size(); ++k)
      if (std::optional<PartStack> s = partStackAt(loop, k))
        stacks.push_back(std::move(*s));
    if (stacks.empty())
      continue;
    split(rewriter, loop, stacks);
    count += static_cast<int>(stacks.size());
  }
  return count;
}

} // namespace remat
