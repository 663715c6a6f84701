//===- GPUPrepareLinalg.cpp - Give every linalg op parallel GPU work ------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// `-remat-gpu-prepare-linalg`: parallel loops first (so no host loop wraps a
// kernel), and full sum reductions as one block-wide parallel reduction
// instead of one thread walking the whole iteration space.
//
//===----------------------------------------------------------------------===//

#include "remat/GPU/Passes.h"

#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace remat {
#define GEN_PASS_DEF_GPUPREPARELINALGPASS
#include "remat/GPU/Passes.h.inc"
} // namespace remat

using namespace mlir;

namespace {

void setMapping(scf::ParallelOp loop, gpu::Processor processor) {
  MLIRContext *ctx = loop.getContext();
  AffineMap id = AffineMap::getMultiDimIdentityMap(1, ctx);
  (void)gpu::setMappingAttr(
      loop, {gpu::ParallelLoopDimMappingAttr::get(ctx, processor, id, id)});
}

/// Interchanges `op` so its parallel loops come first (reductions keep their
/// relative order). Returns whether it changed.
bool parallelFirst(RewriterBase &rewriter, linalg::GenericOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<unsigned> order;
  for (auto [i, it] : llvm::enumerate(iterators))
    if (it == utils::IteratorType::parallel)
      order.push_back(i);
  if (order.empty() || order.size() == iterators.size())
    return false;
  for (auto [i, it] : llvm::enumerate(iterators))
    if (it != utils::IteratorType::parallel)
      order.push_back(i);
  if (llvm::equal(order, llvm::seq<unsigned>(0, order.size())))
    return false;
  rewriter.setInsertionPoint(op);
  return succeeded(linalg::interchangeGenericOp(rewriter, op, order));
}

/// A full reduction `out[] = out[] + f(inputs)` the block reduction handles.
struct SumReduction {
  linalg::LinalgOp op;
  Value output;           // The 0-d buffer.
  arith::AddFOp combiner; // out + f(...) in the body.
  Value term;             // f(...): the combiner operand that is not `out`.
  SmallVector<int64_t> ranges;
};

std::optional<SumReduction> matchSumReduction(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() == 0 ||
      op.getNumReductionLoops() != op.getNumLoops() ||
      op.getNumDpsInits() != 1)
    return std::nullopt;
  OpOperand *init = op.getDpsInitOperand(0);
  auto outType = dyn_cast<MemRefType>(init->get().getType());
  if (!outType || outType.getRank() != 0 ||
      !isa<FloatType>(outType.getElementType()))
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return std::nullopt;
  Block *body = op.getBlock();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  if (yield.getNumOperands() != 1)
    return std::nullopt;
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  BlockArgument acc = op.getMatchingBlockArgument(init);
  if (!add || add->getBlock() != body || !acc.hasOneUse())
    return std::nullopt;
  Value term;
  if (add.getLhs() == acc)
    term = add.getRhs();
  else if (add.getRhs() == acc)
    term = add.getLhs();
  else
    return std::nullopt;
  for (Operation &nested : body->without_terminator())
    if (!isMemoryEffectFree(&nested))
      return std::nullopt;
  return SumReduction{op, init->get(), add, term, ranges};
}

/// Builds the block reduction of `r` in place of its op.
void buildBlockReduction(RewriterBase &rewriter, SumReduction r,
                         int64_t blockSize) {
  linalg::LinalgOp op = r.op;
  Location loc = op.getLoc();
  Type type = r.combiner.getType();
  int64_t total = 1;
  for (int64_t range : r.ranges)
    total *= range;
  int64_t threads = std::min(blockSize, total);

  rewriter.setInsertionPoint(op);
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  Value c0 = index(0), c1 = index(1), cThreads = index(threads);
  Value cTotal = index(total);
  Value zero = arith::ConstantOp::create(rewriter, loc, type,
                                         rewriter.getFloatAttr(type, 0.0));

  auto block = scf::ParallelOp::create(rewriter, loc, ValueRange{c0},
                                       ValueRange{c1}, ValueRange{c1});
  setMapping(block, gpu::Processor::BlockX);
  rewriter.setInsertionPoint(block.getBody()->getTerminator());
  auto lanes = scf::ParallelOp::create(
      rewriter, loc, ValueRange{c0}, ValueRange{cThreads}, ValueRange{c1},
      ValueRange{zero},
      [&](OpBuilder &b, Location loc, ValueRange tid, ValueRange) {
        // This thread's share: linear indices tid, tid + threads, ...
        auto strided = scf::ForOp::create(
            b, loc, tid[0], cTotal, cThreads, ValueRange{zero},
            [&](OpBuilder &b, Location loc, Value linear, ValueRange acc) {
              SmallVector<Value> dims(r.ranges.size());
              Value rest = linear;
              for (int i = static_cast<int>(r.ranges.size()) - 1; i >= 0; --i) {
                Value range = arith::ConstantIndexOp::create(b, loc,
                                                             r.ranges[i]);
                dims[i] = arith::RemUIOp::create(b, loc, rest, range);
                rest = arith::DivUIOp::create(b, loc, rest, range);
              }
              IRMapping map;
              for (OpOperand *in : op.getDpsInputOperands()) {
                Value arg = op.getMatchingBlockArgument(in);
                if (!isa<MemRefType>(in->get().getType())) {
                  map.map(arg, in->get());
                  continue;
                }
                AffineMap m = op.getMatchingIndexingMap(in);
                SmallVector<Value> indices;
                for (AffineExpr e : m.getResults())
                  indices.push_back(affine::AffineApplyOp::create(
                      b, loc, AffineMap::get(m.getNumDims(), 0, e), dims));
                map.map(arg, memref::LoadOp::create(b, loc, in->get(),
                                                    indices));
              }
              for (Operation &nested : op.getBlock()->without_terminator()) {
                if (&nested == r.combiner.getOperation())
                  continue;
                if (auto idx = dyn_cast<linalg::IndexOp>(nested)) {
                  map.map(idx.getResult(), dims[idx.getDim()]);
                  continue;
                }
                b.clone(nested, map);
              }
              Value sum = arith::AddFOp::create(b, loc, acc[0],
                                                map.lookupOrDefault(r.term));
              scf::YieldOp::create(b, loc, sum);
            });
        auto reduce = scf::ReduceOp::create(b, loc, strided.getResult(0));
        Block &combine = reduce.getReductions()[0].front();
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToEnd(&combine);
        Value both = arith::AddFOp::create(b, loc, combine.getArgument(0),
                                           combine.getArgument(1));
        scf::ReduceReturnOp::create(b, loc, both);
      });
  setMapping(lanes, gpu::Processor::ThreadX);

  // Thread 0 adds the block's sum to the output.
  Value tid = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
  Value first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                      tid, c0);
  auto ifFirst = scf::IfOp::create(rewriter, loc, first);
  rewriter.setInsertionPointToStart(ifFirst.thenBlock());
  Value old = memref::LoadOp::create(rewriter, loc, r.output, ValueRange{});
  Value updated =
      arith::AddFOp::create(rewriter, loc, old, lanes.getResult(0));
  memref::StoreOp::create(rewriter, loc, updated, r.output, ValueRange{});
  rewriter.eraseOp(op);
}

struct GPUPrepareLinalgPass
    : public remat::impl::GPUPrepareLinalgPassBase<GPUPrepareLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    if (blockSize < 1 || blockSize > 1024) {
      getOperation().emitError()
          << "remat-gpu-prepare-linalg: block-size must be in [1, 1024], got "
          << static_cast<int64_t>(blockSize);
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) { ops.push_back(op); });
    for (linalg::LinalgOp op : ops) {
      if (std::optional<SumReduction> r = matchSumReduction(op)) {
        buildBlockReduction(rewriter, *r, blockSize);
        continue;
      }
      if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
        if (generic.hasPureBufferSemantics())
          parallelFirst(rewriter, generic);
    }
  }
};

} // namespace
