//===- CheckpointScans.cpp - Binomial checkpointing of scan loop pairs ---===//
//
// Rewrites a scan (ScanLoops.h) so that it keeps K checkpoints of the
// carried state instead of T stacked rows, as loops whose size does not
// depend on T (LoopReversal.h describes the schedule and its cost):
//
//   forward:  scf.for 0..T-1 (carries, slots, positions, top, next): at
//             i == next the carries go to the next slot and `next` moves
//             on by the optimal split; then the body, minus the stacking.
//   peeled:   step T-1 from the loop's result (the carries the loss needs),
//             and the first backward step from its stacked values.
//   reverse:  scf.for over the interpreter's actions: either advance from
//             the top slot to done-1 and run one backward step (the body's
//             stacked values recomputed from the carries), or advance by the
//             optimal split and fill the next slot.
//
// Values carried by the emitted loops are copied into their iteration
// argument before the yield, so One-Shot Bufferize keeps one buffer per
// carry for the whole loop (no allocation escapes an iteration).
//
//===----------------------------------------------------------------------===//

#include "remat/Transforms/CheckpointScans.h"

#include "remat/Analysis/OpGroups.h"
#include "remat/Dialect/Remat/Remat.h"
#include "remat/Solver/Loop/LoopReversal.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace remat {
namespace {

/// Emits the IR of one reversal; `b` moves along as code is emitted.
class ScanRewriter {
public:
  ScanRewriter(const ScanPair &scan, int64_t slots)
      : scan(scan), fwd(scan.forward), bwd(scan.backward), slots(slots),
        counts(countLoopReversal(scan.steps, slots)), loc(fwd.getLoc()) {}

  void rewrite() {
    OpBuilder b(fwd);
    b.setListener(&created);
    LoopResults forward = emitForwardLoop(b);
    // Step T-1 from the loop's result: the carries the loss reads.
    StepValues last = cloneStep(b, index(b, scan.steps - 1), forward.carries);
    for (auto [k, v] : llvm::zip(scan.carries, last.next))
      fwd.getResult(k).replaceAllUsesWith(v);
    // The first backward step reads the rows step T-1 made.
    b.setInsertionPoint(bwd);
    SmallVector<Value> state =
        cloneBackwardStep(b, index(b, 0), bwd.getInitArgs(), last.rows);
    SmallVector<Value> results =
        emitInterpreter(b, forward, state);
    bwd.replaceAllUsesWith(results);
    SmallVector<Value> stackInits;
    for (unsigned k : scan.stacks)
      stackInits.push_back(fwd.getInitArgs()[k]);
    bwd.erase();
    fwd.erase();
    created.eraseDead();
    for (Value init : stackInits) // The stacks' tensor.empty, say.
      if (Operation *def = init.getDefiningOp(); def && isOpTriviallyDead(def))
        def->erase();
  }

private:
  struct StepValues {
    SmallVector<Value> next; ///< Carries after the step.
    SmallVector<Value> rows; ///< What the step stacks, per stack.
  };
  struct LoopResults {
    SmallVector<Value> carries, slotStacks;
    Value positions, top;
  };

  Value index(OpBuilder &b, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }

  /// The forward body at `iv` from `carries`, without the stacking.
  StepValues cloneStep(OpBuilder &b, Value iv, ValueRange carries) {
    IRMapping map;
    map.map(fwd.getInductionVar(), iv);
    for (auto [k, c] : llvm::zip(scan.carries, carries))
      map.map(fwd.getRegionIterArgs()[k], c);
    for (Operation &op : fwd.getBody()->without_terminator())
      if (!llvm::is_contained(scan.inserts, &op))
        b.clone(op, map);
    auto yield = cast<scf::YieldOp>(fwd.getBody()->getTerminator());
    StepValues s;
    for (unsigned k : scan.carries)
      s.next.push_back(map.lookupOrDefault(yield.getOperand(k)));
    for (tensor::InsertSliceOp insert : scan.inserts)
      s.rows.push_back(map.lookupOrDefault(insert.getSource()));
    return s;
  }

  /// The backward body at `j` from `state`, its stack reads replaced by
  /// `rows`.
  SmallVector<Value> cloneBackwardStep(OpBuilder &b, Value j, ValueRange state,
                                       ValueRange rows) {
    IRMapping map;
    map.map(bwd.getInductionVar(), j);
    map.map(bwd.getRegionIterArgs(), state);
    llvm::SmallPtrSet<Operation *, 4> reads;
    for (auto [s, stackReads] : llvm::enumerate(scan.reads))
      for (tensor::ExtractSliceOp read : stackReads) {
        map.map(read.getResult(), rows[s]);
        reads.insert(read);
      }
    for (Operation &op : bwd.getBody()->without_terminator())
      if (!reads.contains(&op))
        b.clone(op, map);
    SmallVector<Value> out;
    for (Value v : bwd.getBody()->getTerminator()->getOperands())
      out.push_back(map.lookupOrDefault(v));
    return out;
  }

  /// `values` written into the buffers of `into` (the iteration arguments),
  /// so that the yield is in place.
  SmallVector<Value> copiedInto(OpBuilder &b, ValueRange values,
                                ValueRange into) {
    SmallVector<Value> out;
    for (auto [v, arg] : llvm::zip(values, into))
      out.push_back(inPlaceTarget(v) == arg
                        ? v
                        : linalg::CopyOp::create(b, loc, v, arg).getResult(0));
    return out;
  }

  /// Row `at` of a slot stack as the carry's type, and the stack with `row`
  /// stored there.
  Value readRow(OpBuilder &b, Value stack, Value at, Type rowType) {
    auto type = cast<RankedTensorType>(stack.getType());
    auto [offsets, sizes, strides] = rowAccess(b, type, at);
    return tensor::ExtractSliceOp::create(b, loc, cast<RankedTensorType>(rowType),
                                          stack, offsets, sizes, strides);
  }
  Value writeRow(OpBuilder &b, Value row, Value stack, Value at) {
    auto type = cast<RankedTensorType>(stack.getType());
    auto [offsets, sizes, strides] = rowAccess(b, type, at);
    return tensor::InsertSliceOp::create(b, loc, row, stack, offsets, sizes,
                                         strides);
  }
  std::tuple<SmallVector<OpFoldResult>, SmallVector<OpFoldResult>,
             SmallVector<OpFoldResult>>
  rowAccess(OpBuilder &b, RankedTensorType stack, Value at) {
    SmallVector<OpFoldResult> offsets{at}, sizes{b.getIndexAttr(1)},
        strides(stack.getRank(), b.getIndexAttr(1));
    for (int64_t d = 1; d < stack.getRank(); ++d) {
      offsets.push_back(b.getIndexAttr(0));
      sizes.push_back(b.getIndexAttr(stack.getDimSize(d)));
    }
    return {offsets, sizes, strides};
  }

  Type carryType(unsigned c) {
    return fwd.getRegionIterArgs()[scan.carries[c]].getType();
  }

  /// m for `length` steps and c checkpoints (optimalSplit), at run time:
  /// r, beta(c, r), beta(c, r-1), beta(c, r-2) by the recurrence
  /// beta(c, r) = beta(c, r-1) (c + r) / r, then the closed form.
  Value emitSplit(OpBuilder &b, Value length, Value c) {
    Value zero = index(b, 0), one = index(b, 1);
    SmallVector<Type> types(4, b.getIndexType());
    auto loop = scf::WhileOp::create(
        b, loc, types, ValueRange{zero, one, zero, zero},
        [&](OpBuilder &nb, Location l, ValueRange args) {
          Value more = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt,
                                             args[1], length);
          scf::ConditionOp::create(nb, l, more, args);
        },
        [&](OpBuilder &nb, Location l, ValueRange args) {
          Value r = arith::AddIOp::create(nb, l, args[0], one);
          Value cr = arith::AddIOp::create(nb, l, c, r);
          Value grown = arith::MulIOp::create(nb, l, args[1], cr);
          Value beta = arith::DivUIOp::create(nb, l, grown, r);
          scf::YieldOp::create(nb, l, ValueRange{r, beta, args[1], args[2]});
        });
    Value r = loop.getResult(0), beta = loop.getResult(1);
    Value betaPrev = loop.getResult(2), betaPrev2 = loop.getResult(3);
    // beta(c-1, r) = beta(c, r) c / (c + r); beta(c-1, r-1) likewise.
    Value cr = arith::AddIOp::create(b, loc, c, r);
    Value crPrev = arith::SubIOp::create(b, loc, cr, one);
    Value lowerR = arith::DivUIOp::create(
        b, loc, arith::MulIOp::create(b, loc, beta, c), cr);
    Value lowerRPrev = arith::DivUIOp::create(
        b, loc, arith::MulIOp::create(b, loc, betaPrev, c), crPrev);
    Value m = arith::MinSIOp::create(
        b, loc,
        arith::MaxSIOp::create(b, loc, betaPrev2,
                               arith::SubIOp::create(b, loc, length, lowerR)),
        arith::SubIOp::create(b, loc, length, lowerRPrev));
    Value last = arith::SubIOp::create(b, loc, length, one);
    return arith::MaxSIOp::create(b, loc, one,
                                  arith::MinSIOp::create(b, loc, m, last));
  }

  /// Runs `count` steps from position `from` and returns the carries.
  SmallVector<Value> emitAdvance(OpBuilder &b, Value from, Value count,
                                 ValueRange carries, double averageSteps) {
    Value to = arith::AddIOp::create(b, loc, from, count);
    auto loop = scf::ForOp::create(
        b, loc, from, to, index(b, 1), carries,
        [&](OpBuilder &nb, Location, Value iv, ValueRange args) {
          StepValues s = cloneStep(nb, iv, args);
          scf::YieldOp::create(nb, loc, copiedInto(nb, s.next, args));
        });
    setRegionRuns(loop, {averageSteps});
    return SmallVector<Value>(loop.getResults());
  }

  LoopResults emitForwardLoop(OpBuilder &b) {
    SmallVector<Value> inits;
    for (unsigned k : scan.carries)
      inits.push_back(fwd.getInitArgs()[k]);
    Value zero = index(b, 0);
    SmallVector<Value> slotStacks;
    for (auto [c, init] : llvm::enumerate(inits)) {
      auto row = cast<RankedTensorType>(carryType(c));
      SmallVector<int64_t> shape{slots};
      llvm::append_range(shape, row.getShape());
      Value empty = tensor::EmptyOp::create(b, loc, shape, row.getElementType());
      slotStacks.push_back(writeRow(b, init, empty, zero));
    }
    Value positions = tensor::InsertOp::create(
        b, loc, zero,
        tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{slots},
                                b.getIndexType()),
        ValueRange{zero});
    const size_t n = inits.size();
    SmallVector<Value> loopInits(inits);
    llvm::append_range(loopInits, slotStacks);
    loopInits.push_back(positions);
    loopInits.push_back(zero);                                    // top
    loopInits.push_back(index(b, optimalSplit(scan.steps, slots))); // next
    auto loop = scf::ForOp::create(
        b, loc, zero, index(b, scan.steps - 1), index(b, 1), loopInits,
        [&](OpBuilder &nb, Location, Value i, ValueRange args) {
          ValueRange carries = args.take_front(n);
          SmallVector<Value> kept =
              emitFirstSweepStore(nb, i, carries, args.drop_front(n));
          StepValues s = cloneStep(nb, i, carries);
          SmallVector<Value> yields = copiedInto(nb, s.next, carries);
          llvm::append_range(yields, kept);
          scf::YieldOp::create(nb, loc, yields);
        });
    LoopResults r;
    r.carries.assign(loop.getResults().begin(), loop.getResults().begin() + n);
    r.slotStacks.assign(loop.getResults().begin() + n,
                        loop.getResults().begin() + 2 * n);
    r.positions = loop.getResult(2 * n);
    r.top = loop.getResult(2 * n + 1);
    return r;
  }

  /// At i == next: the carries go to slot top+1 and next moves on by the
  /// split of the steps left with the slots left (never again once the
  /// slots are full: the split of one slot is the last step, T-1, beyond
  /// the loop). `state`: slot stacks, positions, top, next.
  SmallVector<Value> emitFirstSweepStore(OpBuilder &b, Value i,
                                         ValueRange carries,
                                         ValueRange state) {
    const size_t n = carries.size();
    Value next = state.back(), top = state[n + 1];
    Value isStore =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, i, next);
    auto branch = scf::IfOp::create(
        b, loc, isStore,
        [&](OpBuilder &tb, Location) {
          Value top1 = arith::AddIOp::create(tb, loc, top, index(tb, 1));
          SmallVector<Value> out;
          for (size_t c = 0; c < n; ++c)
            out.push_back(writeRow(tb, carries[c], state[c], top1));
          out.push_back(
              tensor::InsertOp::create(tb, loc, i, state[n], ValueRange{top1}));
          out.push_back(top1);
          Value left = arith::SubIOp::create(tb, loc, index(tb, scan.steps), i);
          Value c = arith::SubIOp::create(tb, loc, index(tb, slots), top1);
          out.push_back(
              arith::AddIOp::create(tb, loc, i, emitSplit(tb, left, c)));
          scf::YieldOp::create(tb, loc, out);
        },
        [&](OpBuilder &eb, Location) {
          scf::YieldOp::create(eb, loc, SmallVector<Value>(state));
        });
    const double shots =
        ratio(counts.firstSweepShots - 1, std::max<int64_t>(1, scan.steps - 1));
    setRegionRuns(branch, {shots, 1.0 - shots});
    return SmallVector<Value>(branch.getResults());
  }

  /// The loop over the interpreter's actions; returns the backward loop's
  /// results.
  SmallVector<Value> emitInterpreter(OpBuilder &b, const LoopResults &fwdOut,
                                     ValueRange state) {
    const size_t n = fwdOut.carries.size(), nState = state.size();
    const int64_t actions = countLoopReversal(scan.steps, slots).actions;
    SmallVector<Value> inits{index(b, scan.steps - 1), fwdOut.top};
    llvm::append_range(inits, fwdOut.slotStacks);
    inits.push_back(fwdOut.positions);
    llvm::append_range(inits, state);
    auto loop = scf::ForOp::create(
        b, loc, index(b, 0), index(b, actions), index(b, 1), inits,
        [&](OpBuilder &nb, Location, Value, ValueRange args) {
          Value done = args[0], top = args[1];
          ValueRange slotStacks = args.slice(2, n);
          Value positions = args[2 + n];
          ValueRange st = args.take_back(nState);
          Value lo = tensor::ExtractOp::create(nb, loc, positions,
                                               ValueRange{top});
          Value length = arith::SubIOp::create(nb, loc, done, lo);
          Value free = arith::SubIOp::create(
              nb, loc, index(nb, slots - 1), top);
          Value isTurn = arith::OrIOp::create(
              nb, loc,
              arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::eq, length,
                                    index(nb, 1)),
              arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::eq, free,
                                    index(nb, 0)));
          // Each branch reads the top slot itself: the working copy the
          // advance makes of it then dies inside the branch.
          auto topCarries = [&](OpBuilder &bb) {
            SmallVector<Value> carries;
            for (size_t c = 0; c < n; ++c)
              carries.push_back(
                  readRow(bb, slotStacks[c], top, carryType(c)));
            return carries;
          };
          auto branch = scf::IfOp::create(
              nb, loc, isTurn,
              [&](OpBuilder &tb, Location) {
                Value count = arith::SubIOp::create(tb, loc, length,
                                                    index(tb, 1));
                SmallVector<Value> x =
                    emitAdvance(tb, lo, count, topCarries(tb),
                                ratio(counts.turnAdvances, counts.turns));
                Value i = arith::SubIOp::create(tb, loc, done, index(tb, 1));
                Value j = arith::SubIOp::create(
                    tb, loc, index(tb, scan.steps - 1), i);
                StepValues s = cloneStep(tb, i, x);
                SmallVector<Value> after = copiedInto(
                    tb, cloneBackwardStep(tb, j, st, s.rows), st);
                Value pop = arith::AndIOp::create(
                    tb, loc,
                    arith::CmpIOp::create(tb, loc, arith::CmpIPredicate::eq, i,
                                          lo),
                    arith::CmpIOp::create(tb, loc, arith::CmpIPredicate::sgt,
                                          top, index(tb, 0)));
                Value top1 = arith::SelectOp::create(
                    tb, loc, pop,
                    arith::SubIOp::create(tb, loc, top, index(tb, 1)), top);
                SmallVector<Value> out{i, top1};
                llvm::append_range(out, slotStacks);
                out.push_back(positions);
                llvm::append_range(out, after);
                scf::YieldOp::create(tb, loc, out);
              },
              [&](OpBuilder &eb, Location) {
                Value c = arith::AddIOp::create(eb, loc, free, index(eb, 1));
                Value m = emitSplit(eb, length, c);
                SmallVector<Value> x =
                    emitAdvance(eb, lo, m, topCarries(eb),
                                ratio(counts.storeAdvances, counts.stores));
                Value top1 = arith::AddIOp::create(eb, loc, top, index(eb, 1));
                SmallVector<Value> out{done, top1};
                for (size_t k = 0; k < n; ++k)
                  out.push_back(writeRow(eb, x[k], slotStacks[k], top1));
                out.push_back(tensor::InsertOp::create(
                    eb, loc, arith::AddIOp::create(eb, loc, lo, m), positions,
                    ValueRange{top1}));
                llvm::append_range(out, st);
                scf::YieldOp::create(eb, loc, out);
              });
          setRegionRuns(branch, {ratio(counts.turns, counts.actions),
                                 ratio(counts.stores, counts.actions)});
          scf::YieldOp::create(nb, loc, branch.getResults());
        });
    return SmallVector<Value>(loop.getResults().take_back(nState));
  }

  /// The ops the rewrite creates: clones of whole bodies leave some dead
  /// (the next carry of a step run only for its stacked values), and the
  /// peak must not count them.
  struct CreatedOps : OpBuilder::Listener {
    void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
      ops.push_back(op);
    }
    void eraseDead() {
      llvm::DenseSet<Operation *> erased;
      for (bool changed = true; changed;) {
        changed = false;
        for (Operation *op : llvm::reverse(ops)) {
          if (erased.contains(op) || !isOpTriviallyDead(op))
            continue;
          op->walk([&](Operation *nested) { erased.insert(nested); });
          op->erase();
          changed = true;
        }
      }
    }
    std::vector<Operation *> ops;
  } created;

  /// How often each region of `op` runs per execution, on average (the
  /// cost model's time; remat.region_runs).
  void setRegionRuns(Operation *op, ArrayRef<double> runs) {
    Builder b(op->getContext());
    SmallVector<Attribute> attrs;
    for (double r : runs)
      attrs.push_back(b.getF64FloatAttr(r));
    op->setAttr(RematDialect::kRegionRunsAttrName, b.getArrayAttr(attrs));
  }
  static double ratio(int64_t part, int64_t whole) {
    return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole)
                     : 0.0;
  }

  const ScanPair &scan;
  scf::ForOp fwd, bwd;
  int64_t slots;
  LoopReversalCounts counts;
  Location loc;
};

} // namespace

void checkpointScan(const ScanPair &scan, int64_t slots) {
  ScanRewriter(scan, slots).rewrite();
}

} // namespace remat
