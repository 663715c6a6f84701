//===- CheckpointScans.cpp - Binomial checkpointing of scan loop pairs ---===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
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
//             optimal split and fill the next slot. An advance starts from
//             a copy of the slot in a working buffer the loop carries.
//
// Slot 0 is the carries' inits where they are: they are read again at the
// end, so the forward loop no longer writes into them, but the slot stacks
// lose a row (an unrolled program, too, reads the step's input where it is).
// The online form (CheckpointScansOnline.cpp) never drops position 0 either.
//
// A stack also read after the loops other than at a carry's row
// (ScanPair::keptWhole) is still written, by the forward loop and the
// peeled step, for those reads; the backward loop's reads of it are
// recomputed as the others'.
//
// Values carried by the emitted loops are copied into their iteration
// argument before the yield, so One-Shot Bufferize keeps one buffer per
// carry for the whole loop (no allocation escapes an iteration).
//
//===----------------------------------------------------------------------===//

#include "remat/Loops/CheckpointScans.h"
#include "IndexDomain.h"
#include "ScanRewriter.h"

#include "remat/Analysis/OpGroups.h"
#include "remat/Solver/Loop/ReversalRules.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;

namespace remat {
namespace detail {

CheckpointedScan ScanRewriter::rewrite() {
  OpBuilder::InsertionGuard guard(rewriter);
  // Records what is emitted (to erase the clones' dead ops), and still
  // tells the caller's listener.
  RecordedOps created(rewriter.getListener());
  rewriter.setListener(&created);
  rewriter.setInsertionPoint(scan.forward);
  OpBuilder &b = rewriter;
  CheckpointedScan out;
  out.slots = slots;
  out.counts = counts;
  out.steps = scan.steps;
  out.online = scan.online();
  SmallVector<Value> results, finalCarries, finalKept;
  // A while's counter after the loop, before anything reads it: offline
  // its final value lower + step * T; online what the emitted loop counts.
  if (!scan.online() && isa<scf::WhileOp>(scan.forward)) {
    counterAfter = asType(b, index(b, scan.lower + scan.step * scan.steps),
                          scan.index().getType());
    rewriter.replaceAllUsesWith(scan.result(scan.counter), counterAfter);
  }
  LoopResults forward =
      scan.online() ? emitOnlineForwardLoop(b) : emitForwardLoop(b);
  out.forward = forward.loop;
  if (scan.online()) {
    finalCarries = forward.carries;
    finalKept = forward.kept;
    // Before the backward bodies are cloned: they read the new count.
    if (isa<scf::WhileOp>(scan.forward)) {
      counterAfter =
          asType(b, forwardIndexAt(b, forward.trip), scan.index().getType());
      rewriter.replaceAllUsesWith(scan.result(scan.counter), counterAfter);
    }
    b.setInsertionPoint(scan.backward);
    // Nothing at hand: the interpreter reverses all T steps.
    results = emitInterpreter(b, forward, forward.trip, scan.backwardInits());
  } else {
    // Step T-1 from the loop's result: the carries the loss reads.
    StepValues last = cloneStep(b, index(b, scan.steps - 1), forward.carries,
                                forward.kept);
    finalCarries = last.next;
    finalKept = last.kept;
    // The first backward step reads the rows step T-1 made.
    b.setInsertionPoint(scan.backward);
    SmallVector<Value> state = cloneBackwardStep(
        b, index(b, 0), scan.backwardInits(), last, forward.carries);
    results = emitInterpreter(b, forward, index(b, scan.steps - 1), state);
  }
  out.interpreter = interpreterLoop;
  // The forward loop's results that hold slots: the slot stacks (a row per
  // slot but slot 0), the positions and (online) the slot of each.
  auto slotResult = [&](Value v, int64_t rowsOffset) {
    out.slotResults.push_back(
        {cast<OpResult>(v).getResultNumber(), rowsOffset});
  };
  for (Value stack : forward.slotStacks)
    slotResult(stack, -1);
  slotResult(forward.positions, 0);
  if (forward.slotOf)
    slotResult(forward.slotOf, 0);
  replaceLoops(finalCarries, results, finalKept, created);
  rewriter.setListener(created.next);
  // What depends on the slot count, of what is still there.
  auto alive = [&](auto &entries) {
    llvm::erase_if(
        entries, [&](const auto &e) { return !created.ops.contains(e.first); });
  };
  alive(sized.buffers);
  alive(sized.constants);
  alive(sized.runs);
  out.sized = std::move(sized);
  return out;
}

/// The tensor a row write writes into, by its defining op.
static Operation *writtenInto(Operation *write) {
  if (auto slice = dyn_cast<tensor::InsertSliceOp>(write))
    return slice.getDest().getDefiningOp();
  if (auto scalar = dyn_cast<tensor::InsertOp>(write))
    return scalar.getDest().getDefiningOp();
  return nullptr;
}

void ScanRewriter::replaceLoops(ValueRange finalCarries,
                                ValueRange backwardResults,
                                ValueRange finalKept, RecordedOps &created) {
  for (const StackRead &read : scan.reads) {
    Value carry;
    if (read.kind == StackRead::Kind::CarryInit)
      carry = scan.init(scan.carries[read.carry]);
    else if (read.kind == StackRead::Kind::CarryFinal)
      carry = finalCarries[read.carry];
    if (carry)
      rewriter.replaceAllUsesWith(read.op->getResult(0), carry);
  }
  for (auto [k, v] : llvm::zip(scan.carries, finalCarries))
    rewriter.replaceAllUsesWith(scan.result(k), v);
  size_t kept = 0;
  for (auto [s, k] : llvm::enumerate(scan.stacks))
    if (scan.keptWhole[s])
      rewriter.replaceAllUsesWith(scan.result(k), finalKept[kept++]);
  for (auto [old, v] : llvm::zip(scan.backwardResults(), backwardResults))
    rewriter.replaceAllUsesWith(old, v);
  // The initial values' ops, taken before anything is erased: stacks may
  // share one (JAX starts every stack of a scan from the same constant).
  llvm::SetVector<Operation *> stackInits;
  for (auto [s, k] : llvm::enumerate(scan.stacks))
    if (!scan.keptWhole[s])
      if (Operation *def = scan.init(k).getDefiningOp())
        stackInits.insert(def);
  for (const StackRead &read : scan.reads)
    if (read.op->getBlock() == scan.forward->getBlock())
      rewriter.eraseOp(read.op);
  rewriter.eraseOp(scan.backward);
  rewriter.eraseOp(scan.forward);
  created.eraseDead(rewriter);
  // The stacks' initial values (a tensor.empty, rows written before the
  // loop): erased down the chain while nothing else reads them.
  llvm::SmallPtrSet<Operation *, 8> erased;
  for (Operation *def : stackInits)
    while (def && !erased.contains(def) && isOpTriviallyDead(def)) {
      Operation *next = writtenInto(def);
      erased.insert(def);
      rewriter.eraseOp(def);
      def = next;
    }
}

Value ScanRewriter::asType(OpBuilder &b, Value v, Type type) {
  if (v.getType() == type)
    return v;
  // Folded where `v` is a constant (the peeled step's index), so that the
  // step's index arithmetic folds too (cloneFolded).
  return b.createOrFold<arith::IndexCastOp>(loc, type, v);
}

Value ScanRewriter::affineIndex(OpBuilder &b, Value lower, Value k,
                                int64_t step) {
  Value scaled = step == 1 ? k
                           : arith::MulIOp::create(b, loc, k, index(b, step))
                                 .getResult();
  if (std::optional<int64_t> c = getConstantIntValue(lower); c == 0)
    return scaled;
  return arith::AddIOp::create(b, loc, lower, scaled);
}

Value ScanRewriter::forwardIndexAt(OpBuilder &b, Value k) {
  return scan.lower == 0 && scan.step == 1
             ? k
             : affineIndex(b, index(b, scan.lower), k, scan.step);
}

/// `op` cloned through `map`, or, where every operand is a constant (a
/// step at a constant index: the peeled one), folded: what the lowering's
/// canonicalization would fold is then not a buffer of the step's model
/// (a row index JAX stacks, `tensor.from_elements` of the counter, would
/// count 64 B that the program never allocates).
static void cloneFolded(OpBuilder &b, Operation &op, IRMapping &map) {
  auto isConstant = [&](Value v) {
    Operation *def = map.lookupOrDefault(v).getDefiningOp();
    return def && def->hasTrait<OpTrait::ConstantLike>();
  };
  if (op.getNumOperands() == 0 || op.getNumRegions() != 0 ||
      !llvm::all_of(op.getOperands(), isConstant)) {
    b.clone(op, map);
    return;
  }
  Operation *clone = op.clone(map);
  SmallVector<Value> folded;
  if (succeeded(b.tryFold(clone, folded)) && !folded.empty()) {
    map.map(op.getResults(), folded);
    clone->destroy();
    return;
  }
  b.insert(clone);
}

ScanRewriter::StepValues ScanRewriter::cloneStep(OpBuilder &b, Value k,
                                                 ValueRange carries,
                                                 ValueRange kept) {
  IRMapping map;
  map.map(scan.index(),
          asType(b, forwardIndexAt(b, k), scan.index().getType()));
  for (auto [kk, c] : llvm::zip(scan.carries, carries))
    map.map(scan.iterArg(kk), c);
  // The kept stacks' writes, into `kept`, in order.
  llvm::SmallDenseMap<Operation *, Value> keptWrite;
  size_t at = 0;
  for (auto [st, insert] : llvm::enumerate(scan.inserts))
    if (scan.keptWhole[st] && !kept.empty()) {
      map.map(scan.iterArg(scan.stacks[st]), kept[at]);
      keptWrite[insert] = kept[at++];
    }
  StepValues s;
  for (Operation &op : scan.body()->without_terminator()) {
    if (!llvm::is_contained(scan.inserts, &op))
      cloneFolded(b, op, map);
    else if (keptWrite.count(&op))
      s.kept.push_back(b.clone(op, map)->getResult(0));
  }
  scf::YieldOp yield = scan.yield();
  for (unsigned kk : scan.carries)
    s.next.push_back(map.lookupOrDefault(yield.getOperand(kk)));
  for (Value stored : scan.stored)
    s.rows.push_back(map.lookupOrDefault(stored));
  return s;
}

SmallVector<Value> ScanRewriter::cloneBackwardStep(OpBuilder &b, Value m,
                                                   ValueRange state,
                                                   const StepValues &step,
                                                   ValueRange entering) {
  IRMapping map;
  // The backward loop's bounds may be the counter itself (replaced above).
  Value lower = counterAfter && scan.backwardLower == scan.result(scan.counter)
                    ? counterAfter
                    : scan.backwardLower;
  map.map(scan.backwardIndex(),
          asType(b,
                 affineIndex(b, asType(b, lower, b.getIndexType()), m,
                             scan.backwardStep),
                 scan.backwardIndex().getType()));
  map.map(scan.backwardStateArgs(), state);
  llvm::SmallPtrSet<Operation *, 4> reads;
  for (const StackRead &read : scan.reads) {
    if (read.kind == StackRead::Kind::Row)
      map.map(read.op->getResult(0), step.rows[read.stack]);
    else if (read.kind == StackRead::Kind::CarryEntering)
      map.map(read.op->getResult(0), entering[read.carry]);
    else
      continue;
    reads.insert(read.op);
  }
  for (Operation &op : scan.backwardBody()->without_terminator())
    if (!reads.contains(&op))
      b.clone(op, map);
  SmallVector<Value> out;
  for (Value v : scan.backwardYields())
    out.push_back(map.lookupOrDefault(v));
  return out;
}

SmallVector<Value> ScanRewriter::copiedInto(OpBuilder &b, ValueRange values,
                                            ValueRange into) {
  SmallVector<Value> out;
  for (auto [v, arg] : llvm::zip(values, into))
    out.push_back(
        inPlaceTarget(v) == arg
            ? v
            : linalg::CopyOp::create(
                  b, bookkeepingLoc(ScanBookkeeping::Copy, v.getType()), v,
                  arg)
                  .getResult(0));
  return out;
}

Value ScanRewriter::readRow(OpBuilder &b, Value stack, Value at, Type rowType) {
  auto type = cast<RankedTensorType>(stack.getType());
  auto [offsets, sizes, strides] = rowAccess(b, type, at);
  return tensor::ExtractSliceOp::create(b, loc, cast<RankedTensorType>(rowType),
                                        stack, offsets, sizes, strides);
}

Value ScanRewriter::writeRow(OpBuilder &b, Value row, Value stack, Value at) {
  auto type = cast<RankedTensorType>(stack.getType());
  auto [offsets, sizes, strides] = rowAccess(b, type, at);
  return tensor::InsertSliceOp::create(
      b, bookkeepingLoc(ScanBookkeeping::Store, row.getType()), row, stack,
      offsets, sizes, strides);
}

std::tuple<SmallVector<OpFoldResult>, SmallVector<OpFoldResult>,
           SmallVector<OpFoldResult>>
ScanRewriter::rowAccess(OpBuilder &b, RankedTensorType stack, Value at) {
  SmallVector<OpFoldResult> offsets{at}, sizes{b.getIndexAttr(1)},
      strides(stack.getRank(), b.getIndexAttr(1));
  for (int64_t d = 1; d < stack.getRank(); ++d) {
    offsets.push_back(b.getIndexAttr(0));
    sizes.push_back(b.getIndexAttr(stack.getDimSize(d)));
  }
  return {offsets, sizes, strides};
}

SmallVector<Value> ScanRewriter::emitAdvance(OpBuilder &b, Value from,
                                             Value count, ValueRange carries,
                                             CheckpointedScan::SlotRuns runs) {
  Value to = arith::AddIOp::create(b, loc, from, count);
  auto loop = scf::ForOp::create(
      b, loc, from, to, index(b, 1), carries,
      [&](OpBuilder &nb, Location, Value iv, ValueRange args) {
        StepValues s = cloneStep(nb, iv, args);
        scf::YieldOp::create(nb, loc, copiedInto(nb, s.next, args));
      });
  slotRuns(loop, runs);
  return SmallVector<Value>(loop.getResults());
}

SmallVector<Value> ScanRewriter::initialSlots(OpBuilder &b) {
  SmallVector<Value> slotStacks;
  for (unsigned c = 0; c < scan.carries.size(); ++c) {
    auto row = cast<RankedTensorType>(carryType(c));
    slotStacks.push_back(
        slotBuffer(b, -1, row.getShape(), row.getElementType()));
  }
  return slotStacks;
}

Value ScanRewriter::rowOf(OpBuilder &b, Value slot) {
  return arith::SubIOp::create(b, loc, slot, index(b, 1));
}

SmallVector<Value> ScanRewriter::restoreSlot(OpBuilder &b,
                                             ValueRange slotStacks, Value slot,
                                             ValueRange work) {
  auto fromRows = [&](OpBuilder &rb) {
    Value row = rowOf(rb, slot);
    SmallVector<Value> carries;
    for (auto [c, stack] : llvm::enumerate(slotStacks))
      carries.push_back(readRow(rb, stack, row, carryType(c)));
    return copiedInto(rb, carries, work);
  };
  Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, slot,
                                        index(b, 0));
  auto branch = scf::IfOp::create(
      b, loc, isFirst,
      [&](OpBuilder &tb, Location) {
        scf::YieldOp::create(tb, loc, copiedInto(tb, carryInits(), work));
      },
      [&](OpBuilder &eb, Location) {
        scf::YieldOp::create(eb, loc, fromRows(eb));
      });
  return SmallVector<Value>(branch.getResults());
}

Value ScanRewriter::initialPositions(OpBuilder &b, Value zero) {
  return tensor::InsertOp::create(b, loc, zero,
                                  slotBuffer(b, 0, {}, b.getIndexType()),
                                  ValueRange{zero});
}

ScanRewriter::LoopResults ScanRewriter::emitForwardLoop(OpBuilder &b) {
  SmallVector<Value> inits = carryInits();
  Value zero = index(b, 0);
  SmallVector<Value> slotStacks = initialSlots(b);
  Value positions = initialPositions(b, zero);
  const size_t n = inits.size();
  SmallVector<Value> loopInits(inits);
  llvm::append_range(loopInits, slotStacks);
  loopInits.push_back(positions);
  loopInits.push_back(zero);                                      // top
  loopInits.push_back(
      slotConstant(b, CheckpointedScan::SlotConstant::FirstSplit)); // next
  SmallVector<Value> keptStacks = keptInits();
  const size_t nKept = keptStacks.size();
  llvm::append_range(loopInits, keptStacks);
  auto loop = scf::ForOp::create(
      b, loc, zero, index(b, scan.steps - 1), index(b, 1), loopInits,
      [&](OpBuilder &nb, Location, Value i, ValueRange args) {
        ValueRange carries = args.take_front(n);
        SmallVector<Value> slotState = emitFirstSweepStore(
            nb, i, carries, args.drop_front(n).drop_back(nKept));
        StepValues s = cloneStep(nb, i, carries, args.take_back(nKept));
        SmallVector<Value> yields = copiedInto(nb, s.next, carries);
        llvm::append_range(yields, slotState);
        llvm::append_range(yields, s.kept);
        scf::YieldOp::create(nb, loc, yields);
      });
  LoopResults r;
  r.loop = loop;
  r.carries.assign(loop.getResults().begin(), loop.getResults().begin() + n);
  r.slotStacks.assign(loop.getResults().begin() + n,
                      loop.getResults().begin() + 2 * n);
  r.positions = loop.getResult(2 * n);
  r.top = loop.getResult(2 * n + 1);
  llvm::append_range(r.kept, loop.getResults().take_back(nKept));
  return r;
}

SmallVector<Value> ScanRewriter::emitFirstSweepStore(OpBuilder &b, Value i,
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
        Value row = rowOf(tb, top1);
        for (size_t c = 0; c < n; ++c)
          out.push_back(writeRow(tb, carries[c], state[c], row));
        out.push_back(
            tensor::InsertOp::create(tb, loc, i, state[n], ValueRange{top1}));
        out.push_back(top1);
        IndexDomain d{tb, loc};
        out.push_back(reversal::nextFirstSweepStore(
            d, i, top1, index(tb, scan.steps),
            slotConstant(tb, CheckpointedScan::SlotConstant::Slots)));
        scf::YieldOp::create(tb, loc, out);
      },
      [&](OpBuilder &eb, Location) {
        scf::YieldOp::create(eb, loc, SmallVector<Value>(state));
      });
  slotRuns(branch, CheckpointedScan::SlotRuns::FirstSweepStore);
  return SmallVector<Value>(branch.getResults());
}

SmallVector<Value> ScanRewriter::emitInterpreter(OpBuilder &b,
                                                 const LoopResults &fwdOut,
                                                 Value done, ValueRange state) {
  const size_t n = fwdOut.carries.size(), nState = state.size();
  SmallVector<Value> inits{done, fwdOut.top};
  llvm::append_range(inits, fwdOut.slotStacks);
  inits.push_back(fwdOut.positions);
  for (size_t c = 0; c < n; ++c) { // The working buffers.
    auto type = cast<RankedTensorType>(carryType(c));
    inits.push_back(tensor::EmptyOp::create(b, loc, type.getShape(),
                                            type.getElementType()));
  }
  llvm::append_range(inits, state);
  // The last step's index, T-1, from which j = T-1-i.
  Value last =
      scan.online()
          ? arith::SubIOp::create(b, loc, fwdOut.trip, index(b, 1)).getResult()
          : Value();
  auto step = [&](OpBuilder &nb, ValueRange args) {
    return interpreterStep(nb, args, n, nState, fwdOut, last);
  };
  if (!scan.online()) {
    auto loop = scf::ForOp::create(
        b, loc, index(b, 0),
        slotConstant(b, CheckpointedScan::SlotConstant::Actions), index(b, 1),
        inits,
        [&](OpBuilder &nb, Location, Value, ValueRange args) {
          scf::YieldOp::create(nb, loc, step(nb, args));
        });
    interpreterLoop = loop;
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
  slotRuns(loop, CheckpointedScan::SlotRuns::OnlineActions);
  interpreterLoop = loop;
  return SmallVector<Value>(loop.getResults().take_back(nState));
}

SmallVector<Value> ScanRewriter::interpreterStep(OpBuilder &nb, ValueRange args,
                                                 size_t n, size_t nState,
                                                 const LoopResults &fwdOut,
                                                 Value last) {
  Value done = args[0], top = args[1];
  ValueRange slotStacks = args.slice(2, n);
  Value positions = args[2 + n];
  ValueRange work = args.slice(3 + n, n);
  ValueRange st = args.take_back(nState);
  Value lo = tensor::ExtractOp::create(nb, loc, positions, ValueRange{top});
  IndexDomain d{nb, loc};
  const reversal::Action<IndexDomain> action =
      reversal::nextAction(
          d, done, lo, top,
          slotConstant(nb, CheckpointedScan::SlotConstant::Slots));
  auto topCarries = [&](OpBuilder &bb) {
    return restoreSlot(bb, slotStacks, physicalSlot(bb, fwdOut, top), work);
  };
  auto branch = scf::IfOp::create(
      nb, loc, action.turn,
      [&](OpBuilder &tb, Location) {
        IndexDomain td{tb, loc};
        const reversal::Turn<IndexDomain> t =
            reversal::turn(td, action, done, lo, top);
        SmallVector<Value> x =
            emitAdvance(tb, lo, t.advance, topCarries(tb),
                        CheckpointedScan::SlotRuns::TurnAdvance);
        Value j = arith::SubIOp::create(
            tb, loc, last ? last : index(tb, scan.steps - 1), t.step);
        StepValues s = cloneStep(tb, t.step, x);
        SmallVector<Value> after = copiedInto(
            tb, cloneBackwardStep(tb, j, st, s, x), st);
        SmallVector<Value> out{t.step, t.top};
        llvm::append_range(out, slotStacks);
        out.push_back(positions);
        llvm::append_range(out, x);
        llvm::append_range(out, after);
        scf::YieldOp::create(tb, loc, out);
      },
      [&](OpBuilder &eb, Location) {
        IndexDomain ed{eb, loc};
        const reversal::Store<IndexDomain> s =
            reversal::store(ed, action, lo, top);
        SmallVector<Value> x =
            emitAdvance(eb, lo, s.advance, topCarries(eb),
                        CheckpointedScan::SlotRuns::StoreAdvance);
        Value slot = rowOf(eb, physicalSlot(eb, fwdOut, s.top));
        SmallVector<Value> out{done, s.top};
        for (size_t k = 0; k < n; ++k)
          out.push_back(writeRow(eb, x[k], slotStacks[k], slot));
        out.push_back(tensor::InsertOp::create(eb, loc, s.position, positions,
                                               ValueRange{s.top}));
        llvm::append_range(out, x);
        llvm::append_range(out, st);
        scf::YieldOp::create(eb, loc, out);
      });
  slotRuns(branch, CheckpointedScan::SlotRuns::Action);
  return SmallVector<Value>(branch.getResults());
}

} // namespace detail

static double ratio(int64_t part, int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole)
                   : 0.0;
}

LoopReversalCounts reversalCounts(bool online, int64_t steps, int64_t slots) {
  return online ? countOnlineReversal(steps, slots)
                : countLoopReversal(steps, slots);
}

int64_t slotConstantValue(CheckpointedScan::SlotConstant kind, int64_t steps,
                          int64_t slots, const LoopReversalCounts &counts) {
  switch (kind) {
  case CheckpointedScan::SlotConstant::Slots:
    return slots;
  case CheckpointedScan::SlotConstant::SlotsLessOne:
    return slots - 1;
  case CheckpointedScan::SlotConstant::FirstSplit:
    return optimalSplit(steps, slots);
  case CheckpointedScan::SlotConstant::Actions:
    return counts.actions;
  }
  llvm_unreachable("a slot constant of no kind");
}

SmallVector<double> slotRegionRuns(CheckpointedScan::SlotRuns kind,
                                   int64_t steps,
                                   const LoopReversalCounts &counts) {
  switch (kind) {
  case CheckpointedScan::SlotRuns::FirstSweepStore: {
    const double shots = ratio(counts.firstSweepShots - 1,
                               std::max<int64_t>(1, steps - 1));
    return {shots, 1.0 - shots};
  }
  case CheckpointedScan::SlotRuns::Action:
    return {ratio(counts.turns, counts.actions),
            ratio(counts.stores, counts.actions)};
  case CheckpointedScan::SlotRuns::TurnAdvance:
    return {ratio(counts.turnAdvances, counts.turns)};
  case CheckpointedScan::SlotRuns::StoreAdvance:
    return {ratio(counts.storeAdvances, counts.stores)};
  case CheckpointedScan::SlotRuns::OnlineActions:
    return {double(counts.actions + 1), double(counts.actions)};
  case CheckpointedScan::SlotRuns::OnlineForward:
    return {double(steps + 1), double(steps)};
  }
  llvm_unreachable("region runs of no kind");
}

void addRegionRuns(const CheckpointedScan &scan, RegionRuns &runs,
                   const IRMapping *copy) {
  for (auto [op, kind] : scan.sized.runs) {
    SmallVector<double> r = slotRegionRuns(kind, scan.steps, scan.counts);
    runs[copy ? copy->lookup(op) : op].assign(r.begin(), r.end());
  }
}

std::string scanBookkeepingKey(ScanBookkeeping kind, Type carry) {
  std::string key = kind == ScanBookkeeping::Copy ? "remat.scan.copy "
                                                  : "remat.scan.store ";
  llvm::raw_string_ostream os(key);
  carry.print(os);
  return key;
}

CheckpointedScan checkpointScan(RewriterBase &rewriter, const ScanPair &scan,
                                int64_t slots) {
  return detail::ScanRewriter(rewriter, scan, slots).rewrite();
}

} // namespace remat
