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
#include "remat/Solver/Loop/OnlineCheckpointing.h"

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
      : scan(scan), bwd(scan.backward), slots(slots),
        counts(scan.online() ? countOnlineReversal(scan.steps, slots)
                             : countLoopReversal(scan.steps, slots)),
        loc(scan.forward->getLoc()) {}

  void rewrite() {
    OpBuilder b(scan.forward);
    b.setListener(&created);
    SmallVector<Value> results;
    if (scan.online()) {
      LoopResults forward = emitOnlineForwardLoop(b);
      for (auto [k, v] : llvm::zip(scan.carries, forward.carries))
        scan.result(k).replaceAllUsesWith(v);
      scan.result(scan.counter).replaceAllUsesWith(forward.trip);
      b.setInsertionPoint(bwd);
      // Nothing at hand: the interpreter reverses all T steps.
      results = emitInterpreter(b, forward, forward.trip, bwd.getInitArgs());
    } else {
      LoopResults forward = emitForwardLoop(b);
      // Step T-1 from the loop's result: the carries the loss reads.
      StepValues last =
          cloneStep(b, index(b, scan.steps - 1), forward.carries);
      for (auto [k, v] : llvm::zip(scan.carries, last.next))
        scan.result(k).replaceAllUsesWith(v);
      // The first backward step reads the rows step T-1 made.
      b.setInsertionPoint(bwd);
      forward.trip = index(b, scan.steps);
      SmallVector<Value> state =
          cloneBackwardStep(b, index(b, 0), forward.trip,
                            bwd.getInitArgs(), last.rows);
      results = emitInterpreter(b, forward, index(b, scan.steps - 1), state);
    }
    bwd.replaceAllUsesWith(results);
    SmallVector<Value> stackInits;
    for (unsigned k : scan.stacks)
      stackInits.push_back(scan.init(k));
    bwd.erase();
    scan.forward->erase();
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
    /// Online only: the physical slot of each position (a permutation; the
    /// entries above the top are the free slots), and the trip count.
    Value slotOf, trip;
  };

  Value index(OpBuilder &b, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }

  /// The forward body at `iv` from `carries`, without the stacking.
  StepValues cloneStep(OpBuilder &b, Value iv, ValueRange carries) {
    IRMapping map;
    map.map(scan.index(), iv);
    for (auto [k, c] : llvm::zip(scan.carries, carries))
      map.map(scan.iterArg(k), c);
    for (Operation &op : scan.body()->without_terminator())
      if (!llvm::is_contained(scan.inserts, &op))
        b.clone(op, map);
    scf::YieldOp yield = scan.yield();
    StepValues s;
    for (unsigned k : scan.carries)
      s.next.push_back(map.lookupOrDefault(yield.getOperand(k)));
    for (tensor::InsertSliceOp insert : scan.inserts)
      s.rows.push_back(map.lookupOrDefault(insert.getSource()));
    return s;
  }

  /// The backward body at `j` from `state`, its stack reads replaced by
  /// `rows`; `trip` stands for the loop's bound (the forward's trip count,
  /// which the online form's body may read).
  SmallVector<Value> cloneBackwardStep(OpBuilder &b, Value j, Value trip,
                                       ValueRange state, ValueRange rows) {
    IRMapping map;
    map.map(bwd.getInductionVar(), j);
    if (scan.online())
      map.map(bwd.getUpperBound(), trip);
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

  Type carryType(unsigned c) { return scan.iterArg(scan.carries[c]).getType(); }

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

  SmallVector<Value> carryInits() {
    SmallVector<Value> inits;
    for (unsigned k : scan.carries)
      inits.push_back(scan.init(k));
    return inits;
  }

  /// A slot stack per carry, slot 0 holding its initial value.
  SmallVector<Value> initialSlots(OpBuilder &b, ValueRange inits, Value zero) {
    SmallVector<Value> slotStacks;
    for (auto [c, init] : llvm::enumerate(inits)) {
      auto row = cast<RankedTensorType>(carryType(c));
      SmallVector<int64_t> shape{slots};
      llvm::append_range(shape, row.getShape());
      Value empty = tensor::EmptyOp::create(b, loc, shape, row.getElementType());
      slotStacks.push_back(writeRow(b, init, empty, zero));
    }
    return slotStacks;
  }

  /// The slots' positions, slot 0 at position 0.
  Value initialPositions(OpBuilder &b, Value zero) {
    return tensor::InsertOp::create(
        b, loc, zero,
        tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{slots},
                                b.getIndexType()),
        ValueRange{zero});
  }

  /// beta(c, m) = C(c + m, m) at run time, saturating at 2^40 (a segment
  /// is never that long; OnlineCheckpoints saturates later, at 2^62, and
  /// compares the same below it).
  Value emitBeta(OpBuilder &b, Value c, Value m) {
    Value one = index(b, 1);
    Value cap = index(b, int64_t(1) << 40);
    Value upper = arith::AddIOp::create(b, loc, m, one);
    auto loop = scf::ForOp::create(
        b, loc, one, upper, one, ValueRange{one},
        [&](OpBuilder &nb, Location, Value q, ValueRange args) {
          Value grown = arith::MulIOp::create(
              nb, loc, args[0], arith::AddIOp::create(nb, loc, c, q));
          Value v = arith::DivUIOp::create(nb, loc, grown, q);
          scf::YieldOp::create(nb, loc,
                               ValueRange{arith::MinSIOp::create(nb, loc, v, cap)});
        });
    return loop.getResult(0);
  }

  /// The forward scf.while of the online form: the original condition on
  /// the counter and carries; at each step, the store OnlineCheckpoints
  /// decides, then the body minus its stacking. Iteration arguments: the
  /// counter, the carries, the slot stacks, positions, slotOf, the slots in
  /// use and the repetitions r.
  LoopResults emitOnlineForwardLoop(OpBuilder &b) {
    auto original = cast<scf::WhileOp>(scan.forward);
    SmallVector<Value> inits = carryInits();
    const size_t n = inits.size();
    Value zero = index(b, 0);
    SmallVector<Value> loopInits{zero};
    llvm::append_range(loopInits, inits);
    llvm::append_range(loopInits, initialSlots(b, inits, zero));
    loopInits.push_back(initialPositions(b, zero));
    // slotOf starts as the identity (filled by a loop: the IR does not grow
    // with the slots).
    auto identity = scf::ForOp::create(
        b, loc, index(b, 0), index(b, slots), index(b, 1),
        ValueRange{tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{slots},
                                           b.getIndexType())
                       .getResult()},
        [&](OpBuilder &nb, Location, Value k, ValueRange t) {
          scf::YieldOp::create(
              nb, loc,
              ValueRange{tensor::InsertOp::create(nb, loc, k, t[0],
                                                  ValueRange{k})});
        });
    loopInits.push_back(identity.getResult(0));
    loopInits.push_back(index(b, 1)); // slots in use
    loopInits.push_back(index(b, 2)); // repetitions
    auto loop = scf::WhileOp::create(
        b, loc, TypeRange(ValueRange(loopInits)), loopInits,
        [&](OpBuilder &nb, Location, ValueRange args) {
          IRMapping map;
          Block *before = original.getBeforeBody();
          map.map(before->getArgument(scan.counter), args[0]);
          for (auto [c, k] : llvm::enumerate(scan.carries))
            map.map(before->getArgument(k), args[1 + c]);
          for (Operation &op : before->without_terminator())
            nb.clone(op, map);
          Value more = map.lookupOrDefault(original.getConditionOp().getCondition());
          scf::ConditionOp::create(nb, loc, more, args);
        },
        [&](OpBuilder &nb, Location, ValueRange args) {
          Value i = args[0];
          ValueRange carries = args.slice(1, n);
          SmallVector<Value> kept =
              emitOnlineStore(nb, i, carries, args.drop_front(1 + n));
          StepValues s = cloneStep(nb, i, carries);
          SmallVector<Value> yields{
              arith::AddIOp::create(nb, loc, i, index(nb, 1))};
          llvm::append_range(yields, copiedInto(nb, s.next, carries));
          llvm::append_range(yields, kept);
          scf::YieldOp::create(nb, loc, yields);
        });
    setRegionRuns(loop, {double(scan.steps + 1), double(scan.steps)});
    LoopResults r;
    r.trip = loop.getResult(0);
    r.carries.assign(loop.getResults().begin() + 1,
                     loop.getResults().begin() + 1 + n);
    r.slotStacks.assign(loop.getResults().begin() + 1 + n,
                        loop.getResults().begin() + 1 + 2 * n);
    r.positions = loop.getResult(1 + 2 * n);
    r.slotOf = loop.getResult(2 + 2 * n);
    r.top = arith::SubIOp::create(b, loc, loop.getResult(3 + 2 * n), index(b, 1));
    return r;
  }

  /// OnlineCheckpoints::offer at run time, for i > 0. `state`: the slot
  /// stacks, positions, slotOf, the slots in use, r; returns them updated.
  SmallVector<Value> emitOnlineStore(OpBuilder &b, Value i, ValueRange carries,
                                     ValueRange state) {
    const size_t n = carries.size();
    auto unchanged = [&](OpBuilder &eb, Location) {
      scf::YieldOp::create(eb, loc, SmallVector<Value>(state));
    };
    Value later =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, i, index(b, 0));
    auto branch = scf::IfOp::create(
        b, loc, later,
        [&](OpBuilder &tb, Location) {
          Value used = state[n + 2];
          Value notFull = arith::CmpIOp::create(
              tb, loc, arith::CmpIPredicate::slt, used, index(tb, slots));
          auto fill = scf::IfOp::create(
              tb, loc, notFull,
              [&](OpBuilder &fb, Location) {
                SmallVector<Value> out =
                    storedAt(fb, i, carries, state, used, state[n + 1]);
                out.push_back(
                    arith::AddIOp::create(fb, loc, used, index(fb, 1)));
                out.push_back(state[n + 3]);
                scf::YieldOp::create(fb, loc, out);
              },
              [&](OpBuilder &fb, Location) {
                scf::YieldOp::create(fb, loc,
                                     emitOnlineReplace(fb, i, carries, state));
              });
          scf::YieldOp::create(tb, loc, fill.getResults());
        },
        unchanged);
    return SmallVector<Value>(branch.getResults());
  }

  /// The carries stored into physical slot slotOf[at], at position i: the
  /// slot stacks, positions and `slotOf` (n + 2 values).
  SmallVector<Value> storedAt(OpBuilder &b, Value i, ValueRange carries,
                              ValueRange state, Value at, Value slotOf) {
    const size_t n = carries.size();
    Value slot = tensor::ExtractOp::create(b, loc, slotOf, ValueRange{at});
    SmallVector<Value> out;
    for (size_t c = 0; c < n; ++c)
      out.push_back(writeRow(b, carries[c], state[c], slot));
    out.push_back(tensor::InsertOp::create(b, loc, i, state[n], ValueRange{at}));
    out.push_back(slotOf);
    return out;
  }

  /// All slots in use: the lowest j whose two segments fit beta(K-j+1, r-1)
  /// together, r raised while none does and the top segment outgrows r;
  /// then position j dropped (those above move down, slotOf with them) and
  /// carry_i stored on top in j's physical slot.
  SmallVector<Value> emitOnlineReplace(OpBuilder &b, Value i, ValueRange carries,
                                       ValueRange state) {
    const size_t n = carries.size();
    Value positions = state[n], slotOf = state[n + 1];
    Value one = index(b, 1), none = index(b, -1);
    Value topAt = index(b, slots - 1);
    auto at = [&](OpBuilder &bb, Value t, Value k) {
      return tensor::ExtractOp::create(bb, loc, t, ValueRange{k}).getResult();
    };
    // The segment from position k to the next (the top one ends at i).
    auto segment = [&](OpBuilder &bb, Value k) {
      Value above = arith::AddIOp::create(bb, loc, k, one);
      Value isTop =
          arith::CmpIOp::create(bb, loc, arith::CmpIPredicate::eq, k, topAt);
      Value next = arith::SelectOp::create(
          bb, loc, isTop, i,
          at(bb, positions, arith::MinSIOp::create(bb, loc, above, topAt)));
      return arith::SubIOp::create(bb, loc, next, at(bb, positions, k))
          .getResult();
    };
    auto search = scf::WhileOp::create(
        b, loc, TypeRange{b.getIndexType(), b.getIndexType()},
        ValueRange{state[n + 3]},
        [&](OpBuilder &nb, Location, ValueRange args) {
          Value r = args[0];
          Value rm1 = arith::SubIOp::create(nb, loc, r, one);
          // The lowest j in [1, K) whose merge fits; K when none does. It
          // stops at the first fit: the segments below it are full.
          auto scanJ = scf::WhileOp::create(
              nb, loc, TypeRange{nb.getIndexType()}, ValueRange{one},
              [&](OpBuilder &fb, Location, ValueRange jArgs) {
                Value inRange = arith::CmpIOp::create(
                    fb, loc, arith::CmpIPredicate::slt, jArgs[0],
                    index(fb, slots));
                Value j = arith::MinSIOp::create(fb, loc, jArgs[0], topAt);
                Value prev = arith::SubIOp::create(fb, loc, j, one);
                Value merged = arith::AddIOp::create(fb, loc, segment(fb, prev),
                                                     segment(fb, j));
                Value c = arith::SubIOp::create(fb, loc, index(fb, slots), prev);
                Value fits = arith::CmpIOp::create(
                    fb, loc, arith::CmpIPredicate::sle, merged,
                    emitBeta(fb, c, rm1));
                Value more = arith::AndIOp::create(
                    fb, loc, inRange,
                    arith::XOrIOp::create(fb, loc, fits, trueValue(fb)));
                scf::ConditionOp::create(fb, loc, more, jArgs);
              },
              [&](OpBuilder &fb, Location, ValueRange jArgs) {
                scf::YieldOp::create(
                    fb, loc,
                    ValueRange{arith::AddIOp::create(fb, loc, jArgs[0], one)});
              });
          Value j = arith::SelectOp::create(
              nb, loc,
              arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::slt,
                                    scanJ.getResult(0), index(nb, slots)),
              scanJ.getResult(0), none);
          Value top = arith::SubIOp::create(
              nb, loc, arith::AddIOp::create(nb, loc, i, one),
              at(nb, positions, topAt));
          Value waits =
              arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::sle, top, r);
          Value found =
              arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::sge, j,
                                    index(nb, 0));
          Value again = arith::AndIOp::create(
              nb, loc, arith::XOrIOp::create(nb, loc, found, trueValue(nb)),
              arith::XOrIOp::create(nb, loc, waits, trueValue(nb)));
          scf::ConditionOp::create(nb, loc, again, ValueRange{r, j});
        },
        [&](OpBuilder &nb, Location, ValueRange args) {
          scf::YieldOp::create(
              nb, loc, ValueRange{arith::AddIOp::create(nb, loc, args[0], one)});
        });
    Value r = search.getResult(0), j = search.getResult(1);
    Value found =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, j, index(b, 0));
    auto branch = scf::IfOp::create(
        b, loc, found,
        [&](OpBuilder &tb, Location) {
          Value freed = at(tb, slotOf, j);
          auto shift = scf::ForOp::create(
              tb, loc, j, topAt, one, ValueRange{positions, slotOf},
              [&](OpBuilder &fb, Location, Value k, ValueRange t) {
                Value above = arith::AddIOp::create(fb, loc, k, one);
                Value p = tensor::InsertOp::create(fb, loc, at(fb, t[0], above),
                                                   t[0], ValueRange{k});
                Value so = tensor::InsertOp::create(
                    fb, loc, at(fb, t[1], above), t[1], ValueRange{k});
                scf::YieldOp::create(fb, loc, ValueRange{p, so});
              });
          Value so = tensor::InsertOp::create(tb, loc, freed, shift.getResult(1),
                                              ValueRange{topAt});
          SmallVector<Value> moved(state.take_front(n));
          moved.push_back(shift.getResult(0));
          SmallVector<Value> out = storedAt(tb, i, carries, moved, topAt, so);
          out.push_back(state[n + 2]);
          out.push_back(r);
          scf::YieldOp::create(tb, loc, out);
        },
        [&](OpBuilder &eb, Location) {
          SmallVector<Value> out(state.take_front(n + 3));
          out.push_back(r);
          scf::YieldOp::create(eb, loc, out);
        });
    return SmallVector<Value>(branch.getResults());
  }

  Value trueValue(OpBuilder &b) {
    return arith::ConstantIntOp::create(b, loc, 1, 1);
  }

  LoopResults emitForwardLoop(OpBuilder &b) {
    SmallVector<Value> inits = carryInits();
    Value zero = index(b, 0);
    SmallVector<Value> slotStacks = initialSlots(b, inits, zero);
    Value positions = initialPositions(b, zero);
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

  /// The loop over the interpreter's actions, from `done` steps still to
  /// reverse and the backward loop's iteration state `state`; returns the
  /// backward loop's results. Offline: an scf.for over the actions, counted
  /// at compile time; online: an scf.while until done is 0.
  SmallVector<Value> emitInterpreter(OpBuilder &b, const LoopResults &fwdOut,
                                     Value done, ValueRange state) {
    const size_t n = fwdOut.carries.size(), nState = state.size();
    SmallVector<Value> inits{done, fwdOut.top};
    llvm::append_range(inits, fwdOut.slotStacks);
    inits.push_back(fwdOut.positions);
    llvm::append_range(inits, state);
    // The last step's index, T-1, from which j = T-1-i.
    Value last = scan.online()
                     ? arith::SubIOp::create(b, loc, fwdOut.trip, index(b, 1))
                           .getResult()
                     : Value();
    auto step = [&](OpBuilder &nb, ValueRange args) {
      return interpreterStep(nb, args, n, nState, fwdOut, last);
    };
    if (!scan.online()) {
      auto loop = scf::ForOp::create(
          b, loc, index(b, 0), index(b, counts.actions), index(b, 1), inits,
          [&](OpBuilder &nb, Location, Value, ValueRange args) {
            scf::YieldOp::create(nb, loc, step(nb, args));
          });
      return SmallVector<Value>(loop.getResults().take_back(nState));
    }
    auto loop = scf::WhileOp::create(
        b, loc, TypeRange(ValueRange(inits)), inits,
        [&](OpBuilder &nb, Location, ValueRange args) {
          Value more = arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::sgt,
                                             args[0], index(nb, 0));
          scf::ConditionOp::create(nb, loc, more, args);
        },
        [&](OpBuilder &nb, Location, ValueRange args) {
          scf::YieldOp::create(nb, loc, step(nb, args));
        });
    setRegionRuns(loop, {double(counts.actions + 1), double(counts.actions)});
    return SmallVector<Value>(loop.getResults().take_back(nState));
  }

  /// The physical slot of logical slot `at` (online: through slotOf).
  Value physicalSlot(OpBuilder &b, const LoopResults &fwdOut, Value at) {
    if (!fwdOut.slotOf)
      return at;
    return tensor::ExtractOp::create(b, loc, fwdOut.slotOf, ValueRange{at});
  }

  /// One interpreter action; `args`: done, top, slot stacks, positions,
  /// the backward loop's state.
  SmallVector<Value> interpreterStep(OpBuilder &nb, ValueRange args, size_t n,
                                     size_t nState, const LoopResults &fwdOut,
                                     Value last) {
    Value done = args[0], top = args[1];
    ValueRange slotStacks = args.slice(2, n);
    Value positions = args[2 + n];
    ValueRange st = args.take_back(nState);
    Value lo = tensor::ExtractOp::create(nb, loc, positions, ValueRange{top});
    Value length = arith::SubIOp::create(nb, loc, done, lo);
    Value free = arith::SubIOp::create(nb, loc, index(nb, slots - 1), top);
    Value isTurn = arith::OrIOp::create(
        nb, loc,
        arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::eq, length,
                              index(nb, 1)),
        arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::eq, free,
                              index(nb, 0)));
    // Each branch reads the top slot itself: the working copy the advance
    // makes of it then dies inside the branch.
    auto topCarries = [&](OpBuilder &bb) {
      Value slot = physicalSlot(bb, fwdOut, top);
      SmallVector<Value> carries;
      for (size_t c = 0; c < n; ++c)
        carries.push_back(readRow(bb, slotStacks[c], slot, carryType(c)));
      return carries;
    };
    auto branch = scf::IfOp::create(
        nb, loc, isTurn,
        [&](OpBuilder &tb, Location) {
          Value count = arith::SubIOp::create(tb, loc, length, index(tb, 1));
          SmallVector<Value> x =
              emitAdvance(tb, lo, count, topCarries(tb),
                          ratio(counts.turnAdvances, counts.turns));
          Value i = arith::SubIOp::create(tb, loc, done, index(tb, 1));
          Value j = arith::SubIOp::create(
              tb, loc, last ? last : index(tb, scan.steps - 1), i);
          StepValues s = cloneStep(tb, i, x);
          SmallVector<Value> after = copiedInto(
              tb, cloneBackwardStep(tb, j, fwdOut.trip, st, s.rows), st);
          Value pop = arith::AndIOp::create(
              tb, loc,
              arith::CmpIOp::create(tb, loc, arith::CmpIPredicate::eq, i, lo),
              arith::CmpIOp::create(tb, loc, arith::CmpIPredicate::sgt, top,
                                    index(tb, 0)));
          Value top1 = arith::SelectOp::create(
              tb, loc, pop, arith::SubIOp::create(tb, loc, top, index(tb, 1)),
              top);
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
          Value slot = physicalSlot(eb, fwdOut, top1);
          SmallVector<Value> out{done, top1};
          for (size_t k = 0; k < n; ++k)
            out.push_back(writeRow(eb, x[k], slotStacks[k], slot));
          out.push_back(tensor::InsertOp::create(
              eb, loc, arith::AddIOp::create(eb, loc, lo, m), positions,
              ValueRange{top1}));
          llvm::append_range(out, st);
          scf::YieldOp::create(eb, loc, out);
        });
    setRegionRuns(branch, {ratio(counts.turns, counts.actions),
                           ratio(counts.stores, counts.actions)});
    return SmallVector<Value>(branch.getResults());
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
  scf::ForOp bwd;
  int64_t slots;
  LoopReversalCounts counts;
  Location loc;
};

} // namespace

void checkpointScan(const ScanPair &scan, int64_t slots) {
  ScanRewriter(scan, slots).rewrite();
}

} // namespace remat
