//===- CheckpointScansOnline.cpp - The forward loop of an online reversal -===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The forward scf.while of a scan whose trip count is known only at run
// time (an scf.while's condition, kept as it is, or i < n for an scf.for to
// n): at each step it decides at run time which carries to keep, as OnlineCheckpoints (the solver's mirror,
// lib/Loops/Model/OnlineCheckpointing.cpp) does. Positions and slotOf (the
// physical slot of each position) are index tensors; a drop moves indices,
// never carries.
//
//===----------------------------------------------------------------------===//

#include "ScanRewriter.h"

#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace remat::detail {

Value ScanRewriter::emitBeta(OpBuilder &b, Value c, Value m) {
  Value one = index(b, 1);
  Value cap = index(b, int64_t(1) << 40);
  Value upper = arith::AddIOp::create(b, loc, m, one);
  auto loop = scf::ForOp::create(
      b, loc, one, upper, one, ValueRange{one},
      [&](OpBuilder &nb, Location, Value q, ValueRange args) {
        Value grown = arith::MulIOp::create(
            nb, loc, args[0], arith::AddIOp::create(nb, loc, c, q));
        Value v = arith::DivUIOp::create(nb, loc, grown, q);
        scf::YieldOp::create(
            nb, loc, ValueRange{arith::MinSIOp::create(nb, loc, v, cap)});
      });
  return loop.getResult(0);
}

ScanRewriter::LoopResults ScanRewriter::emitOnlineForwardLoop(OpBuilder &b) {
  auto original = dyn_cast<scf::WhileOp>(scan.forward);
  SmallVector<Value> inits = carryInits();
  const size_t n = inits.size();
  Value zero = index(b, 0);
  SmallVector<Value> loopInits{zero};
  llvm::append_range(loopInits, inits);
  llvm::append_range(loopInits, initialSlots(b));
  loopInits.push_back(initialPositions(b, zero));
  // slotOf starts as the identity (filled by a loop: the IR does not grow
  // with the slots).
  auto identity = scf::ForOp::create(
      b, loc, index(b, 0), index(b, slots), index(b, 1),
      ValueRange{tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{slots},
                                         b.getIndexType())
                     .getResult()},
      [&](OpBuilder &nb, Location, Value k, ValueRange t) {
        scf::YieldOp::create(nb, loc,
                             ValueRange{tensor::InsertOp::create(
                                 nb, loc, k, t[0], ValueRange{k})});
      });
  loopInits.push_back(identity.getResult(0));
  loopInits.push_back(index(b, 1)); // slots in use
  loopInits.push_back(index(b, 2)); // repetitions
  auto loop = scf::WhileOp::create(
      b, loc, TypeRange(ValueRange(loopInits)), loopInits,
      [&](OpBuilder &nb, Location, ValueRange args) {
        if (!original) { // An scf.for to a run-time bound: i < bound.
          Value more = arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::slt,
                                             args[0], scan.tripCount());
          scf::ConditionOp::create(nb, loc, more, args);
          return;
        }
        IRMapping map;
        Block *before = original.getBeforeBody();
        map.map(before->getArgument(scan.counter), args[0]);
        for (auto [c, k] : llvm::enumerate(scan.carries))
          map.map(before->getArgument(k), args[1 + c]);
        for (Operation &op : before->without_terminator())
          nb.clone(op, map);
        Value more =
            map.lookupOrDefault(original.getConditionOp().getCondition());
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
  r.loop = loop;
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

SmallVector<Value> ScanRewriter::emitOnlineStore(OpBuilder &b, Value i,
                                                 ValueRange carries,
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
              out.push_back(arith::AddIOp::create(fb, loc, used, index(fb, 1)));
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

SmallVector<Value> ScanRewriter::storedAt(OpBuilder &b, Value i,
                                          ValueRange carries, ValueRange state,
                                          Value at, Value slotOf) {
  const size_t n = carries.size();
  Value row = rowOf(
      b, tensor::ExtractOp::create(b, loc, slotOf, ValueRange{at}));
  SmallVector<Value> out;
  for (size_t c = 0; c < n; ++c)
    out.push_back(writeRow(b, carries[c], state[c], row));
  out.push_back(tensor::InsertOp::create(b, loc, i, state[n], ValueRange{at}));
  out.push_back(slotOf);
  return out;
}

SmallVector<Value> ScanRewriter::emitOnlineReplace(OpBuilder &b, Value i,
                                                   ValueRange carries,
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
              Value inRange =
                  arith::CmpIOp::create(fb, loc, arith::CmpIPredicate::slt,
                                        jArgs[0], index(fb, slots));
              Value j = arith::MinSIOp::create(fb, loc, jArgs[0], topAt);
              Value prev = arith::SubIOp::create(fb, loc, j, one);
              Value merged = arith::AddIOp::create(fb, loc, segment(fb, prev),
                                                   segment(fb, j));
              Value c = arith::SubIOp::create(fb, loc, index(fb, slots), prev);
              Value fits =
                  arith::CmpIOp::create(fb, loc, arith::CmpIPredicate::sle,
                                        merged, emitBeta(fb, c, rm1));
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
        Value found = arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::sge,
                                            j, index(nb, 0));
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
              Value so = tensor::InsertOp::create(fb, loc, at(fb, t[1], above),
                                                  t[1], ValueRange{k});
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

Value ScanRewriter::trueValue(OpBuilder &b) {
  return arith::ConstantIntOp::create(b, loc, 1, 1);
}

} // namespace remat::detail
