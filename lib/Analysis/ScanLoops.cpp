//===- ScanLoops.cpp - Forward/reverse loop pairs that stack values -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The proof is one-dimensional affine dependence: every row index is an
// IndexExpr of the loop's iteration number, so "iteration m of the backward
// loop reads what iteration T-1-m of the forward loop wrote" is an equality
// of two affine sums, whatever the spelling, direction or step.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/ScanLoops.h"
#include "remat/Analysis/StackRows.h"
#include "remat/Analysis/OpGroups.h"
#include "remat/Analysis/CostModel.h"
#include "remat/Analysis/IndexExpr.h"
#include "remat/Support/CheckedArithmetic.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <limits>

using namespace mlir;

namespace remat {
namespace {

/// The index bookkeeping of a rewrite (positions, slotOf: one aligned
/// buffer each), counted against what keeping a stack saves.
constexpr int64_t kKeptBookkeeping = 128;

std::optional<int64_t> constantIndex(Value v) {
  return indexExprOf(v).asConstant();
}

/// Whether `a` and `b` hold the same value: the same SSA value, or results
/// of pure ops that compute it alike from such values (a zero state filled
/// once for the stack's row 0 and once for the carry: preparing the step
/// gives each use an initial value of its own). Looks `depth` ops deep;
/// `matched` pairs the arguments of the regions compared (a fill's body).
bool sameValue(Value a, Value b, int depth,
               DenseMap<Value, Value> &matched) {
  if (a == b || matched.lookup(a) == b)
    return true;
  auto x = dyn_cast<OpResult>(a), y = dyn_cast<OpResult>(b);
  if (depth == 0 || !x || !y || x.getResultNumber() != y.getResultNumber() ||
      !isMemoryEffectFree(x.getOwner()) || !isMemoryEffectFree(y.getOwner()))
    return false;
  return OperationEquivalence::isEquivalentTo(
      x.getOwner(), y.getOwner(),
      [&](Value l, Value r) {
        return success(sameValue(l, r, depth - 1, matched));
      },
      [&](Value l, Value r) { matched[l] = r; },
      OperationEquivalence::Flags(OperationEquivalence::IgnoreLocations |
                                  OperationEquivalence::IgnoreDiscardableAttrs));
}
bool sameValue(Value a, Value b) {
  DenseMap<Value, Value> matched;
  return sameValue(a, b, /*depth=*/4, matched);
}

bool isPureBlock(Block *block) {
  bool pure = true;
  block->walk([&](Operation *op) {
    if (!isa<scf::YieldOp, scf::ConditionOp>(op) && !isMemoryEffectFree(op))
      pure = false;
  });
  return pure;
}

/// The after-block argument of `loop` that starts at a constant and is
/// yielded incremented by 1, with that constant, if any: an index, or an
/// integer of 32 bits or more (a narrower one could wrap within the stacks'
/// rows; a wider one is checked once the rows are known).
std::optional<std::pair<unsigned, int64_t>> counterOf(scf::WhileOp loop) {
  auto yield = cast<scf::YieldOp>(loop.getAfterBody()->getTerminator());
  for (auto [k, arg] : llvm::enumerate(loop.getAfterArguments())) {
    Type type = arg.getType();
    std::optional<int64_t> start = constantIndex(loop.getInits()[k]);
    if (!(type.isIndex() ||
          (type.isSignlessInteger() && type.getIntOrFloatBitWidth() >= 32)) ||
        !start)
      continue;
    std::optional<IndexExpr> next =
        indexExprOf(yield.getOperand(k)).minus(IndexExpr::of(arg));
    if (next && next->asConstant() == 1)
      return std::make_pair(unsigned(k), *start);
  }
  return std::nullopt;
}

arith::CmpIPredicate swapPredicate(arith::CmpIPredicate p) {
  using P = arith::CmpIPredicate;
  // clang-format off
  switch (p) {
  case P::slt: return P::sgt;
  case P::sle: return P::sge;
  case P::sgt: return P::slt;
  case P::sge: return P::sle;
  case P::ult: return P::ugt;
  case P::ule: return P::uge;
  case P::ugt: return P::ult;
  case P::uge: return P::ule;
  default: return p;
  }
  // clang-format on
}

} // namespace

std::variant<CountedWhile, std::string>
matchCountedWhile(scf::WhileOp loop, const IndexFacts &facts) {
  if (!passesArgumentsOn(loop))
    return std::string("does not pass its arguments on unchanged to its body");
  auto cmp =
      loop.getConditionOp().getCondition().getDefiningOp<arith::CmpIOp>();
  if (!cmp)
    return std::string("has a condition that is not an arith.cmpi");
  Block *before = loop.getBeforeBody();
  auto argIndex = [&](Value v) -> std::optional<unsigned> {
    auto arg = dyn_cast<BlockArgument>(v);
    if (arg && arg.getOwner() == before)
      return arg.getArgNumber();
    return std::nullopt;
  };
  arith::CmpIPredicate pred = cmp.getPredicate();
  Value counterSide = cmp.getLhs(), bound = cmp.getRhs();
  if (!argIndex(counterSide)) { // bound pred counter: swap the sides.
    std::swap(counterSide, bound);
    pred = swapPredicate(pred);
  }
  std::optional<unsigned> p = argIndex(counterSide);
  if (!p || loop->isAncestor(bound.getParentBlock()->getParentOp()))
    return std::string("compares no counter with a bound defined before it");
  auto yield = cast<scf::YieldOp>(loop.getAfterBody()->getTerminator());
  std::optional<IndexExpr> delta =
      indexExprOf(yield.getOperand(*p))
          .minus(IndexExpr::of(loop.getAfterArguments()[*p]));
  std::optional<int64_t> step = delta ? delta->asConstant() : std::nullopt;
  if (!step || *step == 0 || *step == std::numeric_limits<int64_t>::min())
    return std::string("does not step its counter by a constant");
  CountedWhile w{*p, loop.getInits()[*p], *step, IndexExpr()};
  const IndexExpr init = indexExprOf(w.init, facts),
                  end = indexExprOf(bound, facts);
  // Iterations while `counter pred end` holds, the counter moving by
  // `step` from `init`: over a distance d (from the first value to the
  // last one the condition admits), floor(d / |step|) + 1. Unsigned
  // compares only with a bound the counter cannot wrap below 0 at (rising:
  // a bound >= 1).
  const int64_t by = *step < 0 ? -*step : *step;
  std::optional<IndexExpr> down = init.minus(end), up = end.minus(init);
  using P = arith::CmpIPredicate;
  std::optional<int64_t> endValue = end.asConstant();
  const bool boundPositive = endValue && *endValue >= 1;
  // Falling to the bound: the last value admitted is at most by - 1 above
  // it (>=) or by above it (>), and the next one must not wrap below 0
  // (by 1 past `>`: the bound itself, never below 0).
  const bool noWrapAtOrAbove = endValue && *endValue >= by;
  const bool noWrapAbove = by == 1 || (endValue && *endValue >= by - 1);
  auto count = [&](std::optional<IndexExpr> distance,
                   int64_t short_) -> std::optional<IndexExpr> {
    distance =
        distance ? distance->minus(IndexExpr::constant(short_)) : std::nullopt;
    distance = distance ? distance->floorDivided(by) : std::nullopt;
    return distance ? distance->plus(IndexExpr::constant(1)) : std::nullopt;
  };
  // `ne` stops only on the bound itself: the distance a multiple of the step.
  auto exactly =
      [&](std::optional<IndexExpr> distance) -> std::optional<IndexExpr> {
    if (!distance)
      return std::nullopt;
    if (std::optional<int64_t> c = distance->asConstant(); c && *c % by != 0)
      return std::nullopt;
    return by == 1 ? distance : distance->dividedExactly(by);
  };
  std::optional<IndexExpr> trips;
  if (*step < 0 && (pred == P::sge || (pred == P::uge && noWrapAtOrAbove)))
    trips = count(down, 0);
  else if (*step < 0 && (pred == P::sgt || (pred == P::ugt && noWrapAbove)))
    trips = count(down, 1);
  else if (*step < 0 && pred == P::ne)
    trips = exactly(down);
  else if (*step > 0 && (pred == P::slt || (pred == P::ult && boundPositive)))
    trips = count(up, 1);
  else if (*step > 0 && (pred == P::sle || (pred == P::ule && boundPositive)))
    trips = count(up, 0);
  else if (*step > 0 && pred == P::ne)
    trips = exactly(up);
  else
    return std::string("has a condition that does not bound its counter in "
                       "the direction it moves");
  if (!trips && pred == P::ne)
    return std::string("stops only at its bound (cmpi ne), which its step "
                       "may pass over (the distance is not a multiple of "
                       "the step)");
  if (!trips)
    return std::string("has a trip count not affine in its bounds");
  w.trips = *trips;
  return w;
}

namespace {

class Matcher {
public:
  explicit Matcher(Operation *forward) : forward(forward) {}

  /// The forward loop's index and what it is at iteration k, if `forward`
  /// is a loop the matcher reads a forward loop's rows of.
  std::optional<LoopIteration> iteration() {
    pair.forward = forward;
    if (matchForwardLoop())
      return std::nullopt;
    return LoopIteration{pair.index(), forwardFacts()};
  }

  std::variant<ScanPair, std::string> run() {
    pair.forward = forward;
    if (std::optional<std::string> failed = matchForwardLoop())
      return *failed;
    // What is known after the forward loop: a counted while's counter
    // (T known) is lower + step * T (the bound checked not to overflow).
    if (isa<scf::WhileOp>(forward) && !pair.online())
      after.replaced.push_back(
          {forward->getResult(pair.counter),
           IndexExpr::constant(pair.lower + pair.step * pair.steps)});
    if (!isPureBlock(pair.body()))
      return std::string("its body has side effects");
    std::optional<unsigned> notTensor;
    if (std::optional<std::string> failed = splitIterArgs(notTensor))
      return *failed;
    if (pair.stacks.empty())
      return std::string("it stacks no per-iteration value (no iteration "
                         "argument is written one whole row per iteration, "
                         "at a row affine in the iteration, and yielded)");
    // A carry the checkpoints would hold that is no tensor of a static
    // shape: the slots are rows of tensors.
    if (notTensor) {
      std::string type;
      llvm::raw_string_ostream os(type);
      pair.iterArg(*notTensor).getType().print(os);
      return "its iteration argument #" + std::to_string(*notTensor) + " (" +
             type +
             ") is carried but is not a tensor of a static shape, and only "
             "those are kept in the checkpoints: carry a scalar as a 0-d "
             "tensor (tensor.from_elements before the loop, tensor.extract "
             "in the body)";
    }
    if (isa<scf::WhileOp>(forward) && pair.online() &&
        wrapsIn(pair.index().getType(), pair.lower + pair.steps))
      return std::string("its counter wraps around before the stacks' last "
                         "row is written");
    if (std::optional<std::string> failed = matchReads())
      return *failed;
    if (!pair.backward)
      return std::string("no loop reads its stacks back");
    // A stack kept for a read after the backward loop lives through the
    // backward pass whatever the rewrite does. Where every kept stack is
    // last read before it (a loss over every step, the next layer's input),
    // the rewrite frees them before the backward pass, which then holds
    // slots instead: worth planning even when it drops none, and the
    // pipeline keeps the program as written where that is better.
    if (!keptOutlivesBackward())
      return pair;
    if (llvm::all_of(pair.keptWhole, [](bool k) { return k; }))
      return "its stacks are all also read after the loop (" +
             lastKeptRead->getName().getStringRef().str() +
             "), the last time after the loop reading them back: "
             "checkpointing would drop none of them";
    // Where a kept stack is whole, the rewrite holds two carries more (the
    // last step's, peeled, and the one entering it, for the first backward
    // step): what it drops must outweigh them, or it is worse there.
    if (pair.keptBytes > 0 &&
        pair.stackBytes < 2 * pair.carryBytes + kKeptBookkeeping)
      return "its stacks dropped (" + std::to_string(pair.stackBytes) +
             " B) weigh less than the two carries (" +
             std::to_string(2 * pair.carryBytes) +
             " B) the rewrite holds beside the stacks kept for their reads "
             "after the loop (" +
             lastKeptRead->getName().getStringRef().str() + ")";
    return pair;
  }

private:
  // -- The forward loop ---------------------------------------------------

  std::optional<std::string> matchForwardLoop() {
    if (auto loop = dyn_cast<scf::ForOp>(forward)) {
      std::optional<int64_t> lb = constantIndex(loop.getLowerBound());
      std::optional<int64_t> ub = constantIndex(loop.getUpperBound());
      std::optional<int64_t> step = constantIndex(loop.getStep());
      if (lb && ub && step && *step > 0) {
        if (*ub <= *lb)
          return std::string("it runs no iteration");
        pair.lower = *lb;
        pair.step = *step;
        pair.steps = (*ub - *lb + *step - 1) / *step;
        return std::nullopt;
      }
      // From a constant by 1 to a value known at run time: as many steps
      // as the stacks have rows at most, checkpointed online.
      if (lb && step == 1 && !ub) {
        pair.lower = *lb;
        pair.runTimeSteps = true;
        return std::nullopt;
      }
      return std::string("its bounds are neither constants nor a constant "
                         "to a run-time value by 1");
    }
    auto loop = dyn_cast<scf::WhileOp>(forward);
    if (!loop)
      return std::string("it is not an scf.for or scf.while");
    if (!passesArgumentsOn(loop))
      return std::string("its condition does not pass its arguments on "
                         "unchanged to the body");
    if (!isPureBlock(loop.getBeforeBody()))
      return std::string("its condition has side effects");
    // A counter from a constant by a constant to a constant bound (how a
    // fori_loop or a scan with a static length lowers to a while): T is
    // known, as for an scf.for with constant bounds.
    auto counted = matchCountedWhile(loop);
    if (auto *w = std::get_if<CountedWhile>(&counted)) {
      std::optional<int64_t> trips = w->trips.asConstant();
      std::optional<int64_t> init = constantIndex(w->init);
      if (trips && init) {
        if (*trips <= 0)
          return std::string("it runs no iteration");
        // Its last value, lower + step * T, is what the counter holds after
        // the loop: it must not wrap in the counter's type.
        std::optional<int64_t> travel = checkedMul(w->step, *trips);
        std::optional<int64_t> last =
            travel ? checkedAdd(*init, *travel) : std::nullopt;
        if (!last ||
            wrapsIn(loop.getAfterArguments()[w->counter].getType(), *last))
          return std::string("its counter wraps around before its last "
                             "iteration ends");
        pair.counter = w->counter;
        pair.lower = *init;
        pair.step = w->step;
        pair.steps = *trips;
        return std::nullopt;
      }
    }
    pair.runTimeSteps = true;
    std::optional<std::pair<unsigned, int64_t>> counter = counterOf(loop);
    if (!counter)
      return std::string("it has no counter from a constant by 1 (an index "
                         "or integer argument yielded as itself + 1) to "
                         "stack its values at");
    pair.counter = counter->first;
    pair.lower = counter->second;
    return std::nullopt;
  }

  /// Whether `last` (a counter's value after the last step the loop can
  /// take) is out of the range of the counter's `type` (index: 64 bits).
  static bool wrapsIn(Type type, int64_t last) {
    const unsigned bits = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
    return bits < 64 && (last >= (int64_t(1) << (bits - 1)) ||
                         last < -(int64_t(1) << (bits - 1)));
  }

  /// A forward row in the iteration number k; a backward one in the
  /// backward iteration number m.
  IndexFacts forwardFacts() {
    return iterationFacts(
        pair.index(), IndexExpr::constant(pair.lower), pair.step,
        pair.online() ? std::nullopt : std::optional<int64_t>(pair.steps));
  }
  IndexFacts backwardFacts() {
    std::optional<IndexExpr> T = tripExpr();
    IndexFacts facts = iterationFacts(
        pair.backwardIndex(), indexExprOf(pair.backwardLower, after),
        pair.backwardStep, T ? T->asConstant() : std::nullopt);
    llvm::append_range(facts.replaced, after.replaced);
    return facts;
  }

  /// Stacks: iteration arguments yielded as one whole row written into
  /// themselves, at alpha * k + beta (alpha = +-1), and used nowhere else
  /// in the body (nor in a while's condition). The rest are carries.
  /// `notTensor`: the first carry that is no tensor of a static shape.
  std::optional<std::string> splitIterArgs(std::optional<unsigned> &notTensor) {
    scf::YieldOp yield = pair.yield();
    auto loop = dyn_cast<scf::WhileOp>(forward);
    for (unsigned k = 0; k < yield.getNumOperands(); ++k) {
      if (loop && k == pair.counter)
        continue;
      Value arg = pair.iterArg(k);
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!type || !type.hasStaticShape()) {
        if (!notTensor)
          notTensor = k;
        continue;
      }
      Operation *insert = yield.getOperand(k).getDefiningOp();
      if (!insert || insertDest(insert) != arg) {
        pair.carries.push_back(k);
        pair.carryBytes += typeBytes(type).value_or(0);
        continue;
      }
      if (std::optional<std::string> failed = addStack(k, insert, type))
        return failed;
    }
    return std::nullopt;
  }

  std::optional<std::string> addStack(unsigned k, Operation *insert,
                                      RankedTensorType type) {
    const std::string which =
        "its stack (iteration argument #" + std::to_string(k) + ")";
    if (!pair.iterArg(k).hasOneUse())
      return which + readInBody(k, insert, type);
    if (auto loop = dyn_cast<scf::WhileOp>(forward);
        loop && !llvm::all_of(loop.getBeforeArguments()[k].getUsers(),
                              llvm::IsaPred<scf::ConditionOp>))
      return which + " is read by the loop's condition";
    std::optional<int64_t> axis = rowAxisOf(insert, type);
    std::optional<IndexExpr> row =
        axis ? wholeRow(insert, type, *axis) : std::nullopt;
    if (!row)
      return which + " is written other than one whole row at a time (a "
                     "slice of one index along one axis, whole along the "
                     "others)";
    std::optional<IndexExpr> inK =
        wholeRow(insert, type, *axis, forwardFacts());
    const int64_t alpha = inK ? inK->coefficient(pair.index()) : 0;
    std::optional<IndexExpr> beta = inK ? inK->minus(IndexExpr::of(pair.index())
                                                         .times(alpha)
                                                         .value_or(IndexExpr()))
                                        : std::nullopt;
    if (!beta || !beta->asConstant() || (alpha != 1 && alpha != -1))
      return which + " is written at row " + name(*row) +
             (inK && *inK != *row ? " (" + name(*inK, "k") + " at step k)"
                                  : std::string()) +
             ", not one row further each iteration (i + c or c - i)";
    const int64_t base = *beta->asConstant(), rows = type.getDimSize(*axis);
    if (pair.online()) {
      if (alpha != 1 || base < 0 || base >= rows)
        return which + " is written at row " + name(*row) +
               " in a loop of unknown length: it must rise from a row of "
               "the stack";
      // The loop cannot run past the stacks' rows.
      int64_t most = rows - base;
      pair.steps = pair.stacks.empty() ? most : std::min(pair.steps, most);
    } else {
      int64_t last = base + alpha * (pair.steps - 1);
      if (std::min(base, last) < 0 || std::max(base, last) >= rows)
        return which + " is written at row " + name(*row) + ", outside its " +
               std::to_string(rows) + " rows";
    }
    pair.stacks.push_back(k);
    pair.inserts.push_back(insert);
    pair.stored.push_back(storedValue(insert));
    pair.rowStride.push_back(alpha);
    pair.rowBase.push_back(base);
    pair.rowAxis.push_back(*axis);
    pair.stackBytes += typeBytes(type).value_or(0);
    pair.keptWhole.push_back(false);
    return std::nullopt;
  }

  /// Why a stack read in the forward body is refused, with the read and
  /// the rows as written (the forwarding of ForwardStackReads.h, run
  /// before, carries every read of a row an earlier iteration or the code
  /// before the loop wrote).
  std::string readInBody(unsigned k, Operation *insert, RankedTensorType type) {
    Operation *read = nullptr;
    for (Operation *user : pair.iterArg(k).getUsers())
      if (user != insert && (!read || user->isBeforeInBlock(read)))
        read = user->getBlock() == insert->getBlock() ? user : read;
    std::optional<int64_t> axis = rowAxisOf(insert, type);
    std::optional<IndexExpr> written =
        axis ? wholeRow(insert, type, *axis) : std::nullopt;
    std::optional<IndexExpr> at =
        axis && read ? wholeRow(read, type, *axis) : std::nullopt;
    std::string text = " is read in the body";
    if (read)
      text += " (" + read->getName().getStringRef().str() +
              (at ? " of row " + name(*at) : std::string()) + ")";
    text += " as well as written";
    if (written)
      text += " at row " + name(*written);
    return text + ": only a read of a row an earlier iteration or the code "
                  "before the loop wrote can be carried instead";
  }

  // -- The backward loop and the reads -------------------------------------

  /// T as an IndexExpr: the constant, or the run-time trip count (the
  /// bound less the lower one; nullopt where that overflows).
  std::optional<IndexExpr> tripExpr() {
    if (!pair.online())
      return IndexExpr::constant(pair.steps);
    return indexExprOf(pair.tripCount()).minus(IndexExpr::constant(pair.lower));
  }

  std::optional<std::string> matchReads() {
    // The loops in the forward loop's block that read its stacks. One of
    // them reverses it (the backward loop); others (a loss over every step
    // computed row by row in a loop of its own) read the stacks as a read
    // after the loop does: those stacks are kept. The backward loop is
    // the last that reverses it, tried from the last one up.
    SmallVector<Operation *, 2> readers = readerLoops();
    if (readers.size() < 2)
      return classifyReads();
    const ScanPair before = pair;
    Operation *const lastKeptBefore = lastKeptRead;
    std::optional<std::string> firstFailure;
    for (Operation *backward : llvm::reverse(readers)) {
      keptReaders.clear();
      for (Operation *loop : readers)
        if (loop != backward)
          keptReaders.insert(loop);
      std::optional<std::string> failed = classifyReads();
      if (!failed)
        return std::nullopt;
      if (!firstFailure)
        firstFailure = failed;
      pair = before;
      lastKeptRead = lastKeptBefore;
    }
    keptReaders.clear();
    return firstFailure;
  }

  std::optional<std::string> classifyReads() {
    for (auto [s, k] : llvm::enumerate(pair.stacks)) {
      Value stack = forward->getResult(k);
      for (Operation *user : stack.getUsers())
        if (std::optional<std::string> failed = classify(s, k, user))
          return failed;
    }
    return std::nullopt;
  }

  /// The loops in the forward loop's block holding a read of its stacks,
  /// in program order.
  SmallVector<Operation *, 2> readerLoops() {
    llvm::SetVector<Operation *> loops;
    for (unsigned k : pair.stacks)
      for (Operation *user : forward->getResult(k).getUsers())
        if (Operation *loop = forward->getBlock()->findAncestorOpInBlock(*user);
            loop && loop != user && isa<scf::ForOp, scf::WhileOp>(loop))
          loops.insert(loop);
    SmallVector<Operation *, 2> ordered(loops.begin(), loops.end());
    llvm::sort(ordered, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    return ordered;
  }

  std::optional<std::string> classify(unsigned s, unsigned k, Operation *user) {
    const std::string which = "its stack (result #" + std::to_string(k) + ")";
    auto type = cast<RankedTensorType>(forward->getResult(k).getType());
    std::optional<IndexExpr> row =
        isa<tensor::ExtractSliceOp, tensor::ExtractOp>(user)
            ? wholeRow(user, type, pair.rowAxis[s], after)
            : std::nullopt;
    const bool outside = user->getBlock() == forward->getBlock();
    // A read in a loop other than the backward one: the stack is kept.
    if (Operation *loop = forward->getBlock()->findAncestorOpInBlock(*user);
        loop && keptReaders.contains(loop))
      return keepWhole(s, loop);
    if (!row || rowValueType(user) != rowValueType(pair.inserts[s])) {
      // Read whole (a loss over every step's output), or a slice of it,
      // after the loop: the rewrite keeps writing it, for those reads only.
      if (outside && !isa<scf::ForOp, scf::WhileOp>(user))
        return keepWhole(s, user);
      if (!row)
        return which + " is used other than by a read of one whole row (" +
               user->getName().getStringRef().str() + ")";
      return which + " is read with another type than it was stored";
    }
    if (outside)
      return classifyOutside(s, which, user, *row);
    Operation *loop = user->getParentOp();
    if (!isa<scf::ForOp, scf::WhileOp>(loop) ||
        loop->getBlock() != forward->getBlock() ||
        (isa<scf::WhileOp>(loop) &&
         user->getParentRegion() != &cast<scf::WhileOp>(loop).getAfter()))
      return which + " is read inside something other than the body of a "
                     "loop in the same block";
    if (pair.backward && loop != pair.backward)
      return std::string("its stacks are read by more than one loop");
    if (!pair.backward)
      if (std::optional<std::string> failed = matchBackwardLoop(loop))
        return failed;
    return classifyInside(s, which, user, *row);
  }

  /// A read at a constant row outside the loops: the carry's initial value
  /// or (T known) its final one.
  std::optional<std::string> classifyOutside(unsigned s,
                                             const std::string &which,
                                             Operation *read,
                                             const IndexExpr &row) {
    std::optional<int64_t> r = row.asConstant();
    if (!read->isBeforeInBlock(forward) && r) {
      const int64_t alpha = pair.rowStride[s], beta = pair.rowBase[s];
      if (std::optional<unsigned> c = initialCarryRow(s, *r);
          c && *r == beta - alpha)
        return addRead(read, StackRead::Kind::CarryInit, s, *c);
      if (!pair.online() && *r == beta + alpha * (pair.steps - 1))
        if (std::optional<unsigned> c = yieldedCarry(s))
          return addRead(read, StackRead::Kind::CarryFinal, s, *c);
    }
    // Another row: read from the stack, which the rewrite then keeps.
    return keepWhole(s, read);
  }

  /// Whether a stack kept for a read outside the loops is read after the
  /// backward loop (or inside it, in a loop nested after it).
  bool keptOutlivesBackward() const {
    if (!lastKeptRead)
      return false;
    Operation *read =
        pair.backward->getBlock()->findAncestorOpInBlock(*lastKeptRead);
    return !read || read == pair.backward ||
           pair.backward->isBeforeInBlock(read);
  }

  /// Stack `s` is read after the loop other than at a carry's row: the
  /// rewrite keeps writing it (its reads in the backward loop are still
  /// recomputed, so it dies after its last read outside).
  std::optional<std::string> keepWhole(unsigned s, Operation *read) {
    lastKeptRead = !lastKeptRead || lastKeptRead->isBeforeInBlock(read)
                       ? read
                       : lastKeptRead;
    if (!pair.keptWhole[s]) {
      pair.keptWhole[s] = true;
      const int64_t bytes =
          typeBytes(cast<RankedTensorType>(
                        forward->getResult(pair.stacks[s]).getType()))
              .value_or(0);
      pair.stackBytes -= bytes;
      pair.keptBytes += bytes;
    }
    return std::nullopt;
  }

  std::optional<std::string> classifyInside(unsigned s,
                                            const std::string &which,
                                            Operation *read,
                                            const IndexExpr &row) {
    // Row of the read as a function of the backward iteration m (the index
    // stands for m), and the rows forward iteration T-1-m and the one
    // before it wrote.
    std::optional<IndexExpr> read_m = wholeRow(
        read,
        cast<RankedTensorType>(forward->getResult(pair.stacks[s]).getType()),
        pair.rowAxis[s], backwardFacts());
    std::optional<IndexExpr> reversed =
        tripExpr() ? tripExpr()->minus(IndexExpr::constant(1)) : std::nullopt;
    reversed = reversed ? reversed->minus(IndexExpr::of(pair.backwardIndex()))
                        : std::nullopt;
    std::optional<IndexExpr> own =
        reversed ? reversed->times(pair.rowStride[s]) : std::nullopt;
    own = own ? own->plus(IndexExpr::constant(pair.rowBase[s])) : std::nullopt;
    if (!read_m || !own)
      return which + " is read at a row whose arithmetic overflows";
    if (*read_m == *own)
      return addRead(read, StackRead::Kind::Row, s, 0);
    std::optional<IndexExpr> previous =
        own->minus(IndexExpr::constant(pair.rowStride[s]));
    if (previous && *read_m == *previous) {
      std::optional<unsigned> c = yieldedCarry(s);
      if (!c)
        return which + " is read at row " + name(row) +
               ", written by the forward iteration before the one it "
               "reverses, with a value that is not a carry";
      std::optional<unsigned> init =
          initialCarryRow(s, pair.rowBase[s] - pair.rowStride[s]);
      if (init != c)
        return which + " is read at row " + name(row) +
               " (the carry entering the step it reverses) but row " +
               std::to_string(pair.rowBase[s] - pair.rowStride[s]) +
               " is not the carry's initial value, stored before the loop";
      return addRead(read, StackRead::Kind::CarryEntering, s, *c);
    }
    return which + " is read at row " + name(row) +
           (*read_m != row ? " (" + name(*read_m, "i", "m") + " at step m)"
                           : std::string()) +
           ", which neither the forward iteration it reverses nor the one "
           "before wrote (rows read out of order)";
  }

  std::optional<std::string> addRead(Operation *op, StackRead::Kind kind,
                                     unsigned s, unsigned c) {
    pair.reads.push_back({op, kind, s, c});
    return std::nullopt;
  }

  /// The carry (index into carries) whose next value stack `s` stores.
  std::optional<unsigned> yieldedCarry(unsigned s) {
    for (auto [c, k] : llvm::enumerate(pair.carries))
      if (pair.yield().getOperand(k) == pair.stored[s])
        return c;
    return std::nullopt;
  }

  /// The carry whose initial value stack `s` holds at row `r` when the loop
  /// starts: written there by a chain of row writes before the loop.
  std::optional<unsigned> initialCarryRow(unsigned s, int64_t r) {
    Value v = pair.init(pair.stacks[s]);

    auto type = cast<RankedTensorType>(v.getType());
    while (Operation *def = v.getDefiningOp()) {
      Value dest = insertDest(def);
      if (!dest)
        break;
      std::optional<IndexExpr> row = wholeRow(def, type, pair.rowAxis[s]);
      if (!row || !row->asConstant())
        break;
      if (*row->asConstant() == r) {
        for (auto [c, k] : llvm::enumerate(pair.carries))
          if (sameValue(pair.init(k), storedValue(def)))
            return c;
        return std::nullopt;
      }
      v = dest;
    }
    return std::nullopt;
  }

  /// The loop reading the stacks: in the same block, pure, and running T
  /// iterations (an scf.for, or an scf.while counting by one).
  std::optional<std::string> matchBackwardLoop(Operation *loop) {
    pair.backward = loop;
    std::optional<IndexExpr> tripOrNone = tripExpr();
    if (!tripOrNone)
      return std::string("its trip count overflows");
    const IndexExpr T = *tripOrNone;
    std::optional<IndexExpr> trip;
    if (auto f = dyn_cast<scf::ForOp>(loop)) {
      std::optional<int64_t> step = constantIndex(f.getStep());
      pair.backwardLower = f.getLowerBound();
      pair.backwardStep = step.value_or(0);
      std::optional<IndexExpr> span =
          indexExprOf(f.getUpperBound(), after)
              .minus(indexExprOf(f.getLowerBound(), after));
      if (span && step > 0) {
        if (std::optional<int64_t> c = span->asConstant())
          trip = IndexExpr::constant(
              std::max<int64_t>(0, (*c + *step - 1) / *step));
        else
          trip = span->dividedExactly(*step);
      }
    } else {
      auto counted = matchCountedWhile(cast<scf::WhileOp>(loop), after);
      if (auto *why = std::get_if<std::string>(&counted))
        return "the while loop reading its stacks " + *why;
      const CountedWhile &w = std::get<CountedWhile>(counted);
      if (!loop->getResult(w.counter).use_empty())
        return std::string("the while loop reading its stacks has a "
                           "counter used after it");
      pair.backwardCounter = w.counter;
      pair.backwardLower = w.init;
      pair.backwardStep = w.step;
      trip = w.trips;
    }
    if (!trip || *trip != T)
      return "the loop reading its stacks does not run " + name(T) +
             " iterations (" +
             (trip ? name(*trip)
                   : std::string("a trip count not affine in "
                                 "its bounds")) +
             ")";
    if (!isPureBlock(pair.backwardBody()) ||
        (isa<scf::WhileOp>(loop) &&
         !isPureBlock(cast<scf::WhileOp>(loop).getBeforeBody())))
      return std::string("the loop reading its stacks has side effects");
    return std::nullopt;
  }

  /// A row index as the user wrote it: the forward index is i, the
  /// backward one j, the run-time trip count n.
  std::string name(const IndexExpr &e, StringRef forwardIndex = "i",
                   StringRef backwardIndex = "j") {
    return e.str([&](Value v) -> std::string {
      if (v == pair.index())
        return forwardIndex.str();
      if (pair.backward && v == pair.backwardIndex())
        return backwardIndex.str();
      if (pair.online() && v == pair.tripCount())
        return "n";
      std::string s;
      llvm::raw_string_ostream os(s);
      v.printAsOperand(os, OpPrintingFlags());
      return s;
    });
  }

  Operation *forward;
  ScanPair pair;
  /// What is known after the forward loop (set once it is matched).
  IndexFacts after;
  /// The last read, in the block, of a stack kept (ScanPair::keptWhole).
  Operation *lastKeptRead = nullptr;
  /// The loops reading the stacks that are not the backward one (their
  /// reads keep the stacks they read).
  llvm::SmallPtrSet<Operation *, 2> keptReaders;
};

} // namespace

std::variant<ScanPair, std::string> matchScan(Operation *forward) {
  return Matcher(forward).run();
}

std::optional<LoopIteration> forwardIteration(Operation *loop) {
  return Matcher(loop).iteration();
}

/// The block of one iteration of `loop` (a for's body, a while's after
/// region) and its index (the for's induction variable, else the argument
/// `counter` of that block): the forward and the backward loop alike.
static Block *iterationBlock(Operation *loop) {
  if (auto f = dyn_cast<scf::ForOp>(loop))
    return f.getBody();
  return cast<scf::WhileOp>(loop).getAfterBody();
}
static Value iterationIndex(Operation *loop, unsigned counter) {
  if (auto f = dyn_cast<scf::ForOp>(loop))
    return f.getInductionVar();
  return iterationBlock(loop)->getArgument(counter);
}

Block *ScanPair::body() const { return iterationBlock(forward); }

Value ScanPair::index() const { return iterationIndex(forward, counter); }

Value ScanPair::iterArg(unsigned k) const {
  if (auto loop = dyn_cast<scf::ForOp>(forward))
    return loop.getRegionIterArgs()[k];
  return body()->getArgument(k);
}

Value ScanPair::init(unsigned k) const {
  if (auto loop = dyn_cast<scf::ForOp>(forward))
    return loop.getInitArgs()[k];
  return cast<scf::WhileOp>(forward).getInits()[k];
}

Value ScanPair::result(unsigned k) const { return forward->getResult(k); }

Value ScanPair::tripCount() const {
  if (auto loop = dyn_cast<scf::ForOp>(forward))
    return loop.getUpperBound();
  return forward->getResult(counter);
}

scf::YieldOp ScanPair::yield() const {
  return cast<scf::YieldOp>(body()->getTerminator());
}

Block *ScanPair::backwardBody() const { return iterationBlock(backward); }

Value ScanPair::backwardIndex() const {
  return iterationIndex(backward, backwardCounter.value_or(0));
}

/// The values of `range` but the while's counter.
static SmallVector<Value> withoutCounter(ValueRange range,
                                         std::optional<unsigned> counter) {
  SmallVector<Value> out;
  for (auto [k, v] : llvm::enumerate(range))
    if (k != counter)
      out.push_back(v);
  return out;
}

SmallVector<Value> ScanPair::backwardStateArgs() const {
  if (auto loop = dyn_cast<scf::ForOp>(backward))
    return SmallVector<Value>(loop.getRegionIterArgs());
  return withoutCounter(backwardBody()->getArguments(), backwardCounter);
}

SmallVector<Value> ScanPair::backwardInits() const {
  if (auto loop = dyn_cast<scf::ForOp>(backward))
    return SmallVector<Value>(loop.getInitArgs());
  return withoutCounter(cast<scf::WhileOp>(backward).getInits(),
                        backwardCounter);
}

SmallVector<Value> ScanPair::backwardYields() const {
  return withoutCounter(backwardBody()->getTerminator()->getOperands(),
                        backwardCounter);
}

SmallVector<Value> ScanPair::backwardResults() const {
  return withoutCounter(backward->getResults(), backwardCounter);
}

} // namespace remat
