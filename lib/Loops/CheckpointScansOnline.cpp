//===- CheckpointScansOnline.cpp - The forward loop of an online reversal -===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The forward scf.while of a scan whose trip count is known only at run
// time (an scf.while's condition, kept as it is, or i < n for an scf.for to
// n): at each step it decides at run time which carries to keep, by the
// rule OnlineCheckpoints counts with (reversal::onlineDrop, emitted here
// through IndexDomain). Positions and slotOf (the
// physical slot of each position) are index tensors; a drop moves indices,
// never carries.
//
//===----------------------------------------------------------------------===//

#include "IndexDomain.h"
#include "ScanRewriter.h"
#include "remat/Solver/Loop/ReversalRules.h"

#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace remat::detail {

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
      b, loc, index(b, 0),
      slotConstant(b, CheckpointedScan::SlotConstant::Slots), index(b, 1),
      ValueRange{slotBuffer(b, 0, {}, b.getIndexType())},
      [&](OpBuilder &nb, Location, Value k, ValueRange t) {
        scf::YieldOp::create(nb, loc,
                             ValueRange{tensor::InsertOp::create(
                                 nb, loc, k, t[0], ValueRange{k})});
      });
  loopInits.push_back(identity.getResult(0));
  loopInits.push_back(index(b, 1)); // slots in use
  loopInits.push_back(index(b, 2)); // repetitions
  SmallVector<Value> keptStacks = keptInits();
  const size_t nKept = keptStacks.size();
  llvm::append_range(loopInits, keptStacks);
  auto loop = scf::WhileOp::create(
      b, loc, TypeRange(ValueRange(loopInits)), loopInits,
      [&](OpBuilder &nb, Location, ValueRange args) {
        if (!original) { // An scf.for to a run-time bound: lower + k < bound.
          Value i = forwardIndexAt(nb, args[0]);
          Value more = arith::CmpIOp::create(
              nb, loc, arith::CmpIPredicate::slt, i,
              asType(nb, scan.tripCount(), nb.getIndexType()));
          scf::ConditionOp::create(nb, loc, more, args);
          return;
        }
        IRMapping map;
        Block *before = original.getBeforeBody();
        map.map(before->getArgument(scan.counter),
                asType(nb, forwardIndexAt(nb, args[0]),
                       scan.index().getType()));
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
        SmallVector<Value> slotState = emitOnlineStore(
            nb, i, carries, args.drop_front(1 + n).drop_back(nKept));
        StepValues s = cloneStep(nb, i, carries, args.take_back(nKept));
        SmallVector<Value> yields{
            arith::AddIOp::create(nb, loc, i, index(nb, 1))};
        llvm::append_range(yields, copiedInto(nb, s.next, carries));
        llvm::append_range(yields, slotState);
        llvm::append_range(yields, s.kept);
        scf::YieldOp::create(nb, loc, yields);
      });
  slotRuns(loop, CheckpointedScan::SlotRuns::OnlineForward);
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
  llvm::append_range(r.kept, loop.getResults().take_back(nKept));
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
            tb, loc, arith::CmpIPredicate::slt, used,
            slotConstant(tb, CheckpointedScan::SlotConstant::Slots));
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
  Value one = index(b, 1);
  Value topAt = slotConstant(b, CheckpointedScan::SlotConstant::SlotsLessOne);
  auto at = [&](OpBuilder &bb, Value t, Value k) {
    return tensor::ExtractOp::create(bb, loc, t, ValueRange{k}).getResult();
  };
  IndexDomain d{b, loc};
  const reversal::OnlineDrop<IndexDomain> drop = reversal::onlineDrop(
      d, [&](IndexDomain &in, Value k) { return at(in.b, positions, k); }, i,
      state[n + 3], slotConstant(b, CheckpointedScan::SlotConstant::Slots));
  Value r = drop.repetitions, j = drop.dropped;
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

} // namespace remat::detail
