//===- StashRings.cpp - Rings a loop stashes rows in, and their recomputation //
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// See StashRings.h. A ring is an iteration argument R whose yielded value
// is one row written into R (tensor.insert_slice along axis 0), plain or
// masked: select(mask, v, R[w]) written back at w, the masked iterations
// keeping what the row holds; R is read nowhere else in the body, the
// written ring only as rows of the same shape, and the loop's result of it
// is unused. The branch form: the yielded value is a result of an scf.if
// of the body whose one path yields the row written into R and whose other
// yields R (the rows then computed in that path's block). Rings of one
// loop written at the same row under the same mask
// form a group; within one, a ring whose stored value v is computed, by
// ops of the body without effects, from the stored values of other rings
// and from values defined outside the loop can be dropped.
//
//===----------------------------------------------------------------------===//

#include "remat/Loops/StashRings.h"

#include "remat/Analysis/StackRows.h"
#include "remat/Dialect/Remat/Remat.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;

namespace remat {

namespace {

struct Ring {
  unsigned arg = 0;
  tensor::InsertSliceOp write;
  Value stored;                         ///< v, what a valid iteration writes.
  linalg::GenericOp masked;             ///< select(mask, v, old), or null.
  tensor::ExtractSliceOp old;           ///< The masked form's row read.
  Value mask;                           ///< Null: unmasked.
  bool keepsWhenTrue = false;           ///< select(mask, old, v).
  SmallVector<tensor::ExtractSliceOp> reads; ///< Rows of the written ring.
  int64_t bytes = 0;
  /// The branch form: the row is written on one path of this scf.if of the
  /// body (its result `branchResult` the written ring, the other path
  /// yielding the ring unchanged); its condition is the mask.
  scf::IfOp branch;
  unsigned branchResult = 0;
  /// The written ring as the body sees it: the yielded value.
  Value written;
};

bool sameFold(OpFoldResult a, OpFoldResult b) { return a == b; }

/// Whether `slice` reads or writes the row `write` writes, at `row` (null:
/// any row), with its sizes and strides and offsets beyond axis 0.
template <typename SliceOp>
bool sameRowShape(SliceOp slice, tensor::InsertSliceOp write,
                  OpFoldResult row = {}) {
  SmallVector<OpFoldResult> a = slice.getMixedOffsets(),
                            b = write.getMixedOffsets();
  if (a.size() != b.size() || (row && !sameFold(a[0], row)))
    return false;
  for (size_t i = 1; i < a.size(); ++i)
    if (!sameFold(a[i], b[i]))
      return false;
  return llvm::equal(slice.getMixedSizes(), write.getMixedSizes()) &&
         llvm::equal(slice.getMixedStrides(), write.getMixedStrides());
}

/// The masked form: a generic whose body is select(c, a, b) of its three
/// inputs, elementwise for a and b, b the row `write` overwrites.
bool matchMasked(Ring &r, BlockArgument ring) {
  auto g = r.write.getSource().getDefiningOp<linalg::GenericOp>();
  if (!g || g->getNumResults() != 1 || g.getNumDpsInputs() != 3)
    return false;
  Block &body = g.getRegion().front();
  if (body.getOperations().size() != 2)
    return false;
  auto sel = dyn_cast<arith::SelectOp>(body.front());
  auto yield = dyn_cast<linalg::YieldOp>(body.back());
  if (!sel || !yield || yield->getOperand(0) != sel.getResult())
    return false;
  auto inputOf = [&](Value v) -> int {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner() == &body && arg.getArgNumber() < 3
               ? static_cast<int>(arg.getArgNumber())
               : -1;
  };
  int c = inputOf(sel.getCondition()), a = inputOf(sel.getTrueValue()),
      b = inputOf(sel.getFalseValue());
  if (c < 0 || a < 0 || b < 0 || a == b || a == c || b == c)
    return false;
  SmallVector<AffineMap> maps = g.getIndexingMapsArray();
  if (!maps[a].isIdentity() || !maps[b].isIdentity() || !maps[3].isIdentity())
    return false;
  // The row it overwrites is the false value (select(valid, v, old)) or
  // the true one (select(invalid, old, v)).
  auto oldRowAt = [&](int input) {
    auto old = g.getDpsInputs()[input].getDefiningOp<tensor::ExtractSliceOp>();
    return old && old.getSource() == ring &&
                   sameRowShape(old, r.write, r.write.getMixedOffsets()[0]) &&
                   old.getType() == r.write.getSourceType() && old->hasOneUse()
               ? old
               : tensor::ExtractSliceOp();
  };
  const bool keepsWhenTrue = !oldRowAt(b) && oldRowAt(a);
  const int kept = keepsWhenTrue ? a : b, written = keepsWhenTrue ? b : a;
  tensor::ExtractSliceOp old = oldRowAt(kept);
  Value stored = g.getDpsInputs()[written];
  if (!old || stored.getType() != r.write.getSourceType() ||
      !g->getResult(0).hasOneUse())
    return false;
  r.masked = g;
  r.old = old;
  r.stored = stored;
  r.mask = g.getDpsInputs()[c];
  r.keepsWhenTrue = keepsWhenTrue;
  return true;
}

std::optional<Ring> matchRing(scf::ForOp loop, unsigned arg) {
  Block *body = loop.getBody();
  BlockArgument ring = loop.getRegionIterArgs()[arg];
  // Rows along axis 0; their count may be dynamic (a 1F1B stage's ring
  // sized by the stage index), a row's shape not.
  auto type = dyn_cast<RankedTensorType>(ring.getType());
  if (!type || type.getRank() < 1 || !loop->getResult(arg).use_empty() ||
      llvm::any_of(type.getShape().drop_front(), ShapedType::isDynamic))
    return std::nullopt;
  Ring r;
  r.arg = arg;
  Value yielded = loop.getYieldedValues()[arg];
  r.written = yielded;
  Operation *keepsRing = nullptr; // The branch form's other path's yield.
  if (auto branch = yielded.getDefiningOp<scf::IfOp>();
      branch && branch->getBlock() == body && branch.elseBlock()) {
    // scf.if %c { insert the row into R; yield } else { yield R }, or the
    // paths swapped (the row written when %c is false).
    unsigned k = cast<OpResult>(yielded).getResultNumber();
    scf::YieldOp paths[2] = {branch.thenYield(), branch.elseYield()};
    for (int written = 0; written < 2 && !r.branch; ++written) {
      auto w = paths[written].getOperand(k).getDefiningOp<tensor::InsertSliceOp>();
      if (w && w->getBlock() == paths[written]->getBlock() &&
          paths[1 - written].getOperand(k) == ring) {
        r.write = w;
        r.branch = branch;
        r.branchResult = k;
        r.mask = branch.getCondition();
        r.keepsWhenTrue = written == 1;
        keepsRing = paths[1 - written];
      }
    }
  } else {
    r.write = yielded.getDefiningOp<tensor::InsertSliceOp>();
  }
  Block *writeBlock = r.branch ? r.write->getBlock() : body;
  if (!r.write || r.write->getBlock() != writeBlock ||
      r.write.getDest() != ring || !wholeRow(r.write, type, 0))
    return std::nullopt;
  if (r.branch || !matchMasked(r, ring))
    r.stored = r.write.getSource();
  Operation *def = r.stored.getDefiningOp();
  if (!def || (def->getBlock() != writeBlock && def->getBlock() != body))
    return std::nullopt; // Written from outside the body: nothing to save.
  for (OpOperand &use : ring.getUses())
    if (use.getOwner() != r.write && use.getOwner() != r.old &&
        use.getOwner() != keepsRing)
      return std::nullopt;
  // The branch form's written ring inside the branch is only yielded.
  if (r.branch && !r.write->hasOneUse())
    return std::nullopt;
  for (OpOperand &use : yielded.getUses()) {
    if (isa<scf::YieldOp>(use.getOwner()) && use.getOperandNumber() == arg)
      continue;
    auto read = dyn_cast<tensor::ExtractSliceOp>(use.getOwner());
    if (!read || !loop->isAncestor(read) || !sameRowShape(read, r.write) ||
        read.getType() != r.write.getSourceType())
      return std::nullopt;
    r.reads.push_back(read);
  }
  if (r.reads.empty())
    return std::nullopt;
  // Bytes the remark names; a dynamic ring's are its bound's, not known
  // here (0).
  r.bytes = type.hasStaticShape() ? type.getNumElements() *
                                        ((type.getElementTypeBitWidth() + 7) / 8)
                                  : 0;
  return r;
}

/// The ops of the loop's body and of `body` (the branch of it the rows are
/// written in, or the loop's body itself) that compute `v` from `stops`
/// and values defined outside the loop, the loop body's first, each
/// block's in order; the stops reached go to `reached`.
/// False when `v` depends on anything else (an iteration argument, the
/// induction variable, an op with effects, a collective).
bool computedFrom(scf::ForOp loop, Block *body, Value v,
                  const DenseSet<Value> &stops,
                  SmallVectorImpl<Operation *> &ops,
                  llvm::SetVector<Value> &reached) {
  Block *loopBody = loop.getBody();
  llvm::SetVector<Operation *> seen;
  SmallVector<Value> work{v};
  while (!work.empty()) {
    Value u = work.pop_back_val();
    if (stops.contains(u)) {
      reached.insert(u);
      continue;
    }
    Operation *def = u.getDefiningOp();
    if (!def) {
      auto arg = cast<BlockArgument>(u);
      if (loop->isAncestor(arg.getOwner()->getParentOp()))
        return false;
      continue; // Defined outside the loop.
    }
    if (!loop->isAncestor(def))
      continue;
    if ((def->getBlock() != body && def->getBlock() != loopBody) ||
        !isMemoryEffectFree(def) ||
        def->getDialect()->getNamespace() == "shard")
      return false;
    if (!seen.insert(def))
      continue;
    llvm::append_range(work, def->getOperands());
    llvm::SetVector<Value> above;
    getUsedValuesDefinedAbove(def->getRegions(), above);
    llvm::append_range(work, above);
  }
  ops.assign(seen.begin(), seen.end());
  llvm::sort(ops, [&](Operation *a, Operation *b) {
    if (a->getBlock() != b->getBlock())
      return a->getBlock() == loopBody; // It holds the branch: first.
    return a->isBeforeInBlock(b);
  });
  return !reached.empty();
}

/// The rings of `loop`, grouped by row and mask.
SmallVector<SmallVector<Ring>> ringGroups(scf::ForOp loop) {
  SmallVector<SmallVector<Ring>> groups;
  for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i) {
    std::optional<Ring> r = matchRing(loop, i);
    if (!r)
      continue;
    auto sameGroup = [&](SmallVector<Ring> &g) {
      Ring &f = g.front();
      return f.mask == r->mask && f.keepsWhenTrue == r->keepsWhenTrue &&
             f.branch == r->branch &&
             sameFold(f.write.getMixedOffsets()[0],
                      r->write.getMixedOffsets()[0]) &&
             f.write.getDestType().getDimSize(0) ==
                 r->write.getDestType().getDimSize(0);
    };
    auto it = llvm::find_if(groups, sameGroup);
    if (it == groups.end())
      groups.push_back({*r});
    else
      it->push_back(*r);
  }
  return groups;
}

/// Splits a group into the rings derived from others (dropped) and the
/// rest (kept).
/// Whether every ring of `group` is written before each read of `r` is
/// used: the rows recomputed there read the other rings as written.
bool othersWrittenBefore(scf::ForOp loop, ArrayRef<Ring> group,
                         const Ring &r) {
  Block *body = loop.getBody();
  for (tensor::ExtractSliceOp read : r.reads) {
    Operation *at = body->findAncestorOpInBlock(*read);
    for (Operation *user : read->getUsers())
      if (Operation *u = body->findAncestorOpInBlock(*user))
        at = u->isBeforeInBlock(at) ? u : at;
    for (const Ring &o : group) {
      Operation *w = body->findAncestorOpInBlock(*o.write);
      if (!at || !w || !w->isBeforeInBlock(at))
        return false;
    }
  }
  return true;
}

void classify(scf::ForOp loop, MutableArrayRef<Ring> group,
              SmallVectorImpl<Ring *> &kept,
              SmallVectorImpl<Ring *> &dropped) {
  for (Ring &r : group) {
    DenseSet<Value> others;
    for (Ring &o : group)
      if (&o != &r)
        others.insert(o.stored);
    SmallVector<Operation *> ops;
    llvm::SetVector<Value> reached;
    bool derived =
        othersWrittenBefore(loop, group, r) &&
        computedFrom(loop, r.write->getBlock(), r.stored, others, ops, reached);
    (derived ? dropped : kept).push_back(&r);
  }
  if (kept.empty())
    dropped.clear(); // Each derived from another: nothing to derive from.
}

} // namespace

StashRings findStashRings(scf::ForOp loop) {
  StashRings result;
  for (SmallVector<Ring> &group : ringGroups(loop)) {
    SmallVector<Ring *> kept, dropped;
    classify(loop, group, kept, dropped);
    for (Ring *r : kept)
      result.kept.push_back(r->arg);
    for (Ring *r : dropped) {
      result.dropped.push_back(r->arg);
      result.droppedProducers.push_back(r->stored.getDefiningOp());
      result.droppedBytes += r->bytes;
    }
  }
  return result;
}

/// The loop without the iteration arguments marked in `drop` (each of
/// which the body no longer changes and whose result is unused).
static scf::ForOp withoutArgs(RewriterBase &rewriter, scf::ForOp loop,
                              const llvm::SmallBitVector &drop) {
  SmallVector<Value> inits;
  for (auto [i, init] : llvm::enumerate(loop.getInitArgs()))
    if (!drop[i])
      inits.push_back(init);
  rewriter.setInsertionPoint(loop);
  auto next = scf::ForOp::create(rewriter, loop.getLoc(), loop.getLowerBound(),
                                 loop.getUpperBound(), loop.getStep(), inits);
  // Its cost as -remat-annotate-costs recorded it counts the dropped
  // results' bytes: the cost model derives the new one.
  next->setDiscardableAttrs(loop->getDiscardableAttrDictionary());
  next->removeAttr(RematDialect::kCostAttrName);
  Block *body = next.getBody();
  SmallVector<Value> args{body->getArgument(0)};
  unsigned k = 1;
  for (auto [i, init] : llvm::enumerate(loop.getInitArgs()))
    args.push_back(drop[i] ? init : body->getArgument(k++));
  rewriter.mergeBlocks(loop.getBody(), body, args);
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  SmallVector<Value> yielded;
  for (auto [i, v] : llvm::enumerate(yield.getOperands()))
    if (!drop[i])
      yielded.push_back(v);
  rewriter.modifyOpInPlace(yield, [&] { yield->setOperands(yielded); });
  SmallVector<Value> results;
  k = 0;
  for (auto [i, init] : llvm::enumerate(loop.getInitArgs()))
    results.push_back(drop[i] ? init : next->getResult(k++));
  rewriter.replaceOp(loop, results);
  return next;
}

/// Where a recomputed row goes: right before the first op of the read's
/// block that uses it, so that the row lives no longer than the read did.
static Operation *firstUse(tensor::ExtractSliceOp read) {
  Block *block = read->getBlock();
  Operation *first = nullptr;
  for (Operation *user : read->getUsers())
    if (Operation *op = block->findAncestorOpInBlock(*user))
      if (!first || op->isBeforeInBlock(first))
        first = op;
  return first ? first : read.getOperation();
}

/// The row `row` of the kept ring `k` as the body sees it written: what a
/// dropped ring's recomputation starts from.
static Value readRow(RewriterBase &rewriter, Location loc, Ring &k,
                     OpFoldResult row) {
  tensor::InsertSliceOp w = k.write;
  SmallVector<OpFoldResult> offsets = w.getMixedOffsets();
  offsets[0] = row;
  return tensor::ExtractSliceOp::create(rewriter, loc, w.getSourceType(),
                                        k.written, offsets, w.getMixedSizes(),
                                        w.getMixedStrides())
      .getResult();
}

/// `branch` without the results in `drop` (each yielding the ring unchanged
/// on both paths, no longer used).
static void withoutBranchResults(RewriterBase &rewriter, scf::IfOp branch,
                                 ArrayRef<unsigned> drop) {
  SmallVector<Type> types;
  for (auto [i, r] : llvm::enumerate(branch->getResults()))
    if (!llvm::is_contained(drop, i))
      types.push_back(r.getType());
  rewriter.setInsertionPoint(branch);
  auto next = scf::IfOp::create(rewriter, branch.getLoc(), types,
                                branch.getCondition(), /*withElse=*/true);
  next->setDiscardableAttrs(branch->getDiscardableAttrDictionary());
  for (auto [from, to] : llvm::zip(branch->getRegions(), next->getRegions())) {
    rewriter.eraseBlock(&to.front());
    rewriter.inlineRegionBefore(from, to, to.end());
    Operation *yield = to.front().getTerminator();
    SmallVector<Value> kept;
    for (auto [i, v] : llvm::enumerate(yield->getOperands()))
      if (!llvm::is_contained(drop, i))
        kept.push_back(v);
    rewriter.modifyOpInPlace(yield, [&] { yield->setOperands(kept); });
  }
  // The dropped results have no uses left: their rows' reads were
  // recomputed, the loop's yield reads the ring.
  unsigned k = 0;
  for (auto [i, r] : llvm::enumerate(branch->getResults()))
    if (!llvm::is_contained(drop, i))
      rewriter.replaceAllUsesWith(r, next->getResult(k++));
  rewriter.eraseOp(branch);
}

scf::ForOp recomputeStashRings(RewriterBase &rewriter, scf::ForOp loop,
                               ArrayRef<unsigned> only, bool share) {
  llvm::SmallBitVector drop(loop.getNumRegionIterArgs());
  llvm::MapVector<scf::IfOp, SmallVector<unsigned>> branchResultsToDrop;
  for (SmallVector<Ring> &group : ringGroups(loop)) {
    SmallVector<Ring *> kept, dropped;
    classify(loop, group, kept, dropped);
    if (!only.empty()) {
      // The rings not asked for are kept: their rows are read, not
      // recomputed.
      SmallVector<Ring *> asked;
      for (Ring *r : dropped)
        (llvm::is_contained(only, r->arg) ? asked : kept).push_back(r);
      dropped = std::move(asked);
    }
    DenseMap<Value, Ring *> keptByStored;
    DenseSet<Value> stops;
    for (Ring *r : kept) {
      keptByStored[r->stored] = r;
      stops.insert(r->stored);
    }
    // One recomputation per read, placed before its first use; with
    // `share`, reads of the same row in one block share what they
    // recompute (ring j's row is recomputed on the way to ring j+1's), so
    // they go in block order.
    struct Read {
      tensor::ExtractSliceOp op;
      Ring *ring;
      Operation *at;
      SmallVector<Operation *> chain;
      llvm::SetVector<Value> from;
    };
    SmallVector<Read> reads;
    for (Ring *r : dropped) {
      SmallVector<Operation *> chain;
      llvm::SetVector<Value> from;
      if (!computedFrom(loop, r->write->getBlock(), r->stored, stops, chain,
                        from))
        continue; // Derived only through rings that are not kept.
      for (tensor::ExtractSliceOp read : r->reads)
        reads.push_back({read, r, firstUse(read), chain, from});
      drop.set(r->arg);
    }
    llvm::stable_sort(reads, [](const Read &a, const Read &b) {
      Block *x = a.at->getBlock(), *y = b.at->getBlock();
      return x != y ? std::less<Block *>()(x, y)
                    : a.at != b.at && a.at->isBeforeInBlock(b.at);
    });
    DenseMap<std::pair<Block *, void *>, IRMapping> shared;
    for (Read &read : reads) {
      OpFoldResult row = read.op.getMixedOffsets()[0];
      IRMapping alone;
      IRMapping &map =
          share ? shared[{read.at->getBlock(), row.getOpaqueValue()}] : alone;
      rewriter.setInsertionPoint(read.at);
      for (Value stop : read.from) {
        if (map.contains(stop))
          continue;
        map.map(stop, readRow(rewriter, read.op.getLoc(), *keptByStored[stop],
                              row));
      }
      for (Operation *op : read.chain)
        if (!map.contains(op->getResult(0)))
          rewriter.clone(*op, map);
      rewriter.replaceOp(read.op, map.lookup(read.ring->stored));
    }
    // The dropped rings no longer change: their row writes (and the masked
    // form's select and read of the old row) go, then their arguments.
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    for (Ring *r : dropped) {
      if (!drop[r->arg])
        continue;
      Value ring = loop.getRegionIterArgs()[r->arg];
      rewriter.modifyOpInPlace(yield, [&] { yield->setOperand(r->arg, ring); });
      if (r->branch) {
        // Both paths yield the ring unchanged; the branch's result goes
        // with the loop's argument (withoutBranchResults).
        Operation *path = r->write->getBlock()->getTerminator();
        rewriter.modifyOpInPlace(
            path, [&] { path->setOperand(r->branchResult, ring); });
        branchResultsToDrop[r->branch].push_back(r->branchResult);
      }
      rewriter.eraseOp(r->write);
      if (r->masked) {
        rewriter.eraseOp(r->masked);
        rewriter.eraseOp(r->old);
      }
    }
  }
  for (auto &[branch, results] : branchResultsToDrop)
    withoutBranchResults(rewriter, branch, results);
  if (drop.none())
    return loop;
  return withoutArgs(rewriter, loop, drop);
}

} // namespace remat

namespace remat {

/// The tensor.empty a ring's initial value is made from (through fills),
/// when its one dynamic size is the row count; null otherwise.
static tensor::EmptyOp ringEmpty(scf::ForOp loop, unsigned arg) {
  Value init = loop.getInitArgs()[arg];
  while (auto fill = init.getDefiningOp<linalg::FillOp>())
    init = fill.getOutputs()[0];
  auto empty = init.getDefiningOp<tensor::EmptyOp>();
  if (!empty || empty.getDynamicSizes().size() != 1 ||
      !empty.getType().isDynamicDim(0))
    return {};
  return empty;
}

/// Moves a ring's row write right after the op computing the row (with the
/// pure ops computing its offsets, when they come later): guarded by the
/// stage, the write would otherwise keep the row's buffer alive up to it
/// on the stages where it writes nothing, longer than each device's model
/// of the step (the branch not taken) has it. The ring is read nowhere
/// between (matchRing), so the write may move.
static void writeRowEarly(RewriterBase &rewriter, tensor::InsertSliceOp write) {
  Block *block = write->getBlock();
  Operation *rowDef = write.getSource().getDefiningOp();
  if (!rowDef || rowDef->getBlock() != block)
    return;
  llvm::SetVector<Operation *> chain;
  std::function<bool(Value)> collect = [&](Value v) {
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != block || !rowDef->isBeforeInBlock(def))
      return true;
    if (!isPure(def) || def->getNumRegions() != 0)
      return false;
    for (Value operand : def->getOperands())
      if (!collect(operand))
        return false;
    chain.insert(def);
    return true;
  };
  for (Value operand : write->getOperands())
    if (operand != write.getSource() && !collect(operand))
      return;
  SmallVector<Operation *> ordered(chain.begin(), chain.end());
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  Operation *after = rowDef;
  for (Operation *op : ordered) {
    rewriter.moveOpAfter(op, after);
    after = op;
  }
  rewriter.moveOpAfter(write, after);
}

namespace {

/// A ring to drop: the ops computing its row from the kept rings' rows (in
/// `from`), and the kept rings by what they store.
struct Derived {
  Ring *ring;
  SmallVector<Operation *> chain;
  llvm::SetVector<Value> from;
  DenseMap<Value, Ring *> keptByStored;
};

/// A read of a dropped ring's row.
struct Read {
  tensor::ExtractSliceOp op;
  Derived *ring;
};

} // namespace

/// Every ring asked for must be the branch form, sized by its one dynamic
/// row count, and derived from the kept rings: checked before anything
/// changes.
static LogicalResult
collectDerived(scf::ForOp loop, SmallVector<SmallVector<Ring>> &groups,
               ArrayRef<unsigned> only, SmallVector<Derived> &derived) {
  for (SmallVector<Ring> &group : groups) {
    SmallVector<Ring *> kept, dropped;
    classify(loop, group, kept, dropped);
    SmallVector<Ring *> asked;
    for (Ring *r : dropped)
      (llvm::is_contained(only, r->arg) ? asked : kept).push_back(r);
    DenseMap<Value, Ring *> keptByStored;
    DenseSet<Value> stops;
    for (Ring *r : kept) {
      keptByStored[r->stored] = r;
      stops.insert(r->stored);
    }
    for (Ring *r : asked) {
      Derived d{r, {}, {}, keptByStored};
      if (!r->branch || !ringEmpty(loop, r->arg) ||
          !computedFrom(loop, r->write->getBlock(), r->stored, stops, d.chain,
                        d.from))
        return failure();
      derived.push_back(std::move(d));
    }
  }
  return success();
}

/// Sizes the ring to no rows where it recomputes, and writes its row only
/// where it is kept, as soon as it is computed.
static void guardRingWrite(RewriterBase &rewriter, scf::ForOp loop, Ring *r,
                           Value recompute) {
  // No rows where it recomputes: select(recompute, 0, rows).
  tensor::EmptyOp empty = ringEmpty(loop, r->arg);
  rewriter.setInsertionPoint(empty);
  Value zero = arith::ConstantIndexOp::create(rewriter, empty.getLoc(), 0);
  Value rows = arith::SelectOp::create(rewriter, empty.getLoc(), recompute,
                                       zero, empty.getDynamicSizes()[0]);
  rewriter.modifyOpInPlace(
      empty, [&] { empty.getDynamicSizesMutable().assign(rows); });
  // The row is written only where it is kept, as soon as it is computed.
  tensor::InsertSliceOp write = r->write;
  writeRowEarly(rewriter, write);
  rewriter.setInsertionPoint(write);
  auto guard = scf::IfOp::create(rewriter, write.getLoc(),
                                 TypeRange{write.getType()}, recompute,
                                 /*withElse=*/true);
  rewriter.setInsertionPointToStart(guard.thenBlock());
  scf::YieldOp::create(rewriter, write.getLoc(), write.getDest());
  rewriter.setInsertionPointToStart(guard.elseBlock());
  Operation *written = rewriter.clone(*write);
  scf::YieldOp::create(rewriter, write.getLoc(), written->getResult(0));
  rewriter.replaceOp(write, guard.getResults());
}

/// The ops of d's chain its row needs, given what `map` already holds.
static DenseSet<Operation *> neededOps(const Derived &d, const IRMapping &map) {
  DenseSet<Operation *> needed;
  SmallVector<Value> todo{d.ring->stored};
  DenseSet<Operation *> inChain(d.chain.begin(), d.chain.end());
  while (!todo.empty()) {
    Value v = todo.pop_back_val();
    Operation *op = v.getDefiningOp();
    if (map.contains(v) || !op || !inChain.contains(op) ||
        !needed.insert(op).second)
      continue;
    for (Value operand : op->getOperands())
      todo.push_back(operand);
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        todo.push_back(operand);
    });
  }
  return needed;
}

/// Replaces one read by an scf.if that recomputes the row where the stage
/// recomputes (from the kept rows, and shared, from what `chosen` maps) and
/// reads it back elsewhere.
static void recomputeRead(RewriterBase &rewriter, Read &read, Operation *at,
                          bool share, Value recompute, IRMapping &chosen) {
  Derived &d = *read.ring;
  rewriter.setInsertionPoint(share ? at : firstUse(read.op));
  auto choice = scf::IfOp::create(rewriter, read.op.getLoc(),
                                  TypeRange{read.op.getType()}, recompute,
                                  /*withElse=*/true);
  OpFoldResult row = read.op.getMixedOffsets()[0];
  rewriter.setInsertionPointToStart(choice.thenBlock());
  IRMapping map = share ? chosen : IRMapping();
  for (Value stop : d.from) {
    if (map.contains(stop))
      continue;
    if (Ring *k = d.keptByStored.lookup(stop))
      map.map(stop, readRow(rewriter, read.op.getLoc(), *k, row));
  }
  // Only the ops the row needs given what is mapped.
  DenseSet<Operation *> needed = neededOps(d, map);
  for (Operation *op : d.chain)
    if (needed.contains(op))
      rewriter.clone(*op, map);
  scf::YieldOp::create(rewriter, read.op.getLoc(),
                       map.lookup(d.ring->stored));
  rewriter.setInsertionPointToStart(choice.elseBlock());
  Operation *readBack = rewriter.clone(*read.op);
  scf::YieldOp::create(rewriter, read.op.getLoc(), readBack->getResult(0));
  chosen.map(d.ring->stored, choice.getResult(0));
  rewriter.replaceOp(read.op, choice.getResults());
}

LogicalResult recomputeStashRingsWhere(RewriterBase &rewriter,
                                       scf::ForOp loop,
                                       ArrayRef<unsigned> only,
                                       Value recompute, bool share) {
  auto groups = ringGroups(loop);
  SmallVector<Derived> derived;
  if (failed(collectDerived(loop, groups, only, derived)))
    return failure();
  for (Derived &d : derived)
    guardRingWrite(rewriter, loop, d.ring, recompute);
  // The reads: one scf.if per ring and block, recomputing the row where the
  // stage recomputes and reading it back elsewhere. Shared, the rings read
  // in one block go in the order they are computed, all before the first
  // use of any, and each recomputes from the kept rows and the rows the
  // branches before it chose (ring j+1's row from ring j's, as the uniform
  // rewrite shares them); else each goes before its own first use and
  // recomputes from the kept rows alone.
  llvm::MapVector<std::pair<Block *, void *>, SmallVector<Read>> byBlock;
  for (Derived &d : derived)
    for (tensor::ExtractSliceOp read : d.ring->reads)
      byBlock[{read->getBlock(), read.getMixedOffsets()[0].getOpaqueValue()}]
          .push_back({read, &d});
  for (auto &[key, reads] : byBlock) {
    llvm::stable_sort(reads, [](const Read &a, const Read &b) {
      Operation *x = a.ring->ring->stored.getDefiningOp();
      Operation *y = b.ring->ring->stored.getDefiningOp();
      return x != y && x->isBeforeInBlock(y);
    });
    Operation *at = nullptr;
    for (Read &read : reads) {
      Operation *use = firstUse(read.op);
      if (!at || use->isBeforeInBlock(at))
        at = use;
    }
    IRMapping chosen; // ring's stored value -> the branch's result
    for (Read &read : reads)
      recomputeRead(rewriter, read, at, share, recompute, chosen);
  }
  return success();
}

} // namespace remat
