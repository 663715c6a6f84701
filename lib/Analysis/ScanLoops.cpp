//===- ScanLoops.cpp - Forward/reverse loop pairs that stack values -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Analysis/ScanLoops.h"
#include "remat/Analysis/CostModel.h"
#include "remat/Analysis/OpGroups.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace remat {
namespace {

std::optional<int64_t> constantIndex(Value v) {
  APInt value;
  if (matchPattern(v, m_ConstantInt(&value)))
    return value.getSExtValue();
  return std::nullopt;
}

/// `loop` runs from 0 to a constant T with step 1: T, else nullopt.
std::optional<int64_t> unitTripCount(scf::ForOp loop) {
  std::optional<int64_t> lb = constantIndex(loop.getLowerBound());
  std::optional<int64_t> ub = constantIndex(loop.getUpperBound());
  std::optional<int64_t> step = constantIndex(loop.getStep());
  if (lb != 0 || !ub || step != 1 || *ub < 1)
    return std::nullopt;
  return *ub;
}

bool isPureBlock(Block *block) {
  bool pure = true;
  block->walk([&](Operation *op) {
    if (!isa<scf::YieldOp, scf::ConditionOp>(op) && !isMemoryEffectFree(op))
      pure = false;
  });
  return pure;
}

/// A whole slice of one stack row: offsets [%index, 0...], sizes [1, full
/// dims of the row], strides 1.
bool isRowAccess(OffsetSizeAndStrideOpInterface slice, RankedTensorType stack,
                 Value index) {
  if (slice.getMixedOffsets().size() != static_cast<size_t>(stack.getRank()))
    return false;
  for (auto [d, ofr] : llvm::enumerate(slice.getMixedOffsets())) {
    if (d == 0) {
      if (ofr.dyn_cast<Value>() != index)
        return false;
    } else if (getConstantIntValue(ofr) != 0) {
      return false;
    }
  }
  for (auto [d, ofr] : llvm::enumerate(slice.getMixedSizes()))
    if (getConstantIntValue(ofr) != (d == 0 ? 1 : stack.getDimSize(d)))
      return false;
  return llvm::all_of(slice.getMixedStrides(), [](OpFoldResult s) {
    return getConstantIntValue(s) == 1;
  });
}

/// `v` is last - j for the backward loop's induction variable j, where
/// `last` is T-1: the constant steps - 1, or tripCount - 1 (online).
bool isReversedIndex(Value v, Value iv, int64_t steps, Value tripCount) {
  auto sub = v.getDefiningOp<arith::SubIOp>();
  if (!sub || sub.getRhs() != iv)
    return false;
  if (!tripCount)
    return constantIndex(sub.getLhs()) == steps - 1;
  auto last = sub.getLhs().getDefiningOp<arith::SubIOp>();
  return last && last.getLhs() == tripCount &&
         constantIndex(last.getRhs()) == 1;
}

/// The after-block argument of `loop` that starts at 0 and is yielded
/// incremented by 1, if any.
std::optional<unsigned> counterOf(scf::WhileOp loop) {
  auto yield = cast<scf::YieldOp>(loop.getAfterBody()->getTerminator());
  for (auto [k, arg] : llvm::enumerate(loop.getAfterArguments())) {
    if (!arg.getType().isIndex() || constantIndex(loop.getInits()[k]) != 0)
      continue;
    auto add = yield.getOperand(k).getDefiningOp<arith::AddIOp>();
    if (add && ((add.getLhs() == arg && constantIndex(add.getRhs()) == 1) ||
                (add.getRhs() == arg && constantIndex(add.getLhs()) == 1)))
      return k;
  }
  return std::nullopt;
}

class Matcher {
public:
  explicit Matcher(Operation *forward) : forward(forward) {}

  std::variant<ScanPair, std::string> run() {
    pair.forward = forward;
    if (auto loop = dyn_cast<scf::ForOp>(forward)) {
      std::optional<int64_t> steps = unitTripCount(loop);
      // From 0 by 1 to a value known at run time: as many steps as the
      // stacks have rows at most, checkpointed online.
      pair.runTimeSteps = !steps &&
                          constantIndex(loop.getLowerBound()) == 0 &&
                          constantIndex(loop.getStep()) == 1 &&
                          !constantIndex(loop.getUpperBound());
      if (!steps && !pair.runTimeSteps)
        return std::string("its bounds are not 0 to T with step 1");
      pair.steps = steps.value_or(0);
    } else if (auto loop = dyn_cast<scf::WhileOp>(forward)) {
      pair.runTimeSteps = true;
      if (std::optional<std::string> why = matchWhile(loop))
        return *why;
    } else {
      return std::string("it is not an scf.for or scf.while");
    }
    if (!isPureBlock(pair.body()))
      return std::string("its body has side effects");
    if (std::optional<std::string> why = splitIterArgs())
      return *why;
    if (pair.stacks.empty())
      return std::string("it stacks no per-iteration value (no iter_arg is "
                         "filled with tensor.insert_slice at the induction "
                         "variable)");
    return matchBackward() ? std::variant<ScanPair, std::string>(pair)
                           : std::variant<ScanPair, std::string>(why);
  }

private:
  /// An scf.while whose condition passes its arguments on unchanged, pure,
  /// with a counter from 0 by 1 (the stacks' index) and rows enough for the
  /// most steps (the stacks' leading size, checked in splitIterArgs).
  std::optional<std::string> matchWhile(scf::WhileOp loop) {
    if (!passesArgumentsOn(loop) ||
        TypeRange(ValueRange(loop.getBeforeArguments())) !=
            TypeRange(ValueRange(loop.getAfterArguments())))
      return std::string("its condition does not pass its arguments on "
                         "unchanged to the body");
    if (!isPureBlock(loop.getBeforeBody()))
      return std::string("its condition has side effects");
    std::optional<unsigned> counter = counterOf(loop);
    if (!counter)
      return std::string("it has no counter from 0 by 1 (an index argument "
                         "yielded as itself + 1) to stack its values at");
    pair.counter = *counter;
    return std::nullopt;
  }

private:
  /// Stacks: iter_args yielded as an insert of one row at %i into
  /// themselves, and read nowhere else in the body (nor in a while's
  /// condition); a while's stacks have one row per step it may take.
  std::optional<std::string> splitIterArgs() {
    scf::YieldOp yield = pair.yield();
    const unsigned n = yield.getNumOperands();
    auto loop = dyn_cast<scf::WhileOp>(forward);
    for (unsigned k = 0; k < n; ++k) {
      if (loop && k == pair.counter)
        continue;
      Value arg = pair.iterArg(k);
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!type || !type.hasStaticShape())
        return std::string("iter_arg #") + std::to_string(k) +
               " is not a statically shaped tensor";
      auto insert = yield.getOperand(k).getDefiningOp<tensor::InsertSliceOp>();
      if (insert && insert.getDest() == arg && arg.hasOneUse() &&
          isRowAccess(insert, type, pair.index()) &&
          (!loop || llvm::all_of(loop.getBeforeArguments()[k].getUsers(),
                                 llvm::IsaPred<scf::ConditionOp>)) &&
          (pair.online() && pair.stacks.empty()
               ? type.getDimSize(0) >= 1
               : type.getDimSize(0) == pair.steps)) {
        if (pair.online())
          pair.steps = type.getDimSize(0);
        pair.stacks.push_back(k);
        pair.inserts.push_back(insert);
        pair.stackBytes += typeBytes(type).value_or(0);
        continue;
      }
      pair.carries.push_back(k);
      pair.carryBytes += typeBytes(type).value_or(0);
    }
    return std::nullopt;
  }

  /// The one loop reading the stacks, each row at T-1-j.
  bool matchBackward() {
    pair.reads.resize(pair.stacks.size());
    Value tripCount = pair.online() ? pair.tripCount() : Value();
    for (auto [s, k] : llvm::enumerate(pair.stacks)) {
      Value stack = forward->getResult(k);
      for (Operation *user : stack.getUsers()) {
        auto read = dyn_cast<tensor::ExtractSliceOp>(user);
        auto loop = read ? read->getParentOfType<scf::ForOp>() : nullptr;
        if (!read || !loop || read->getParentOp() != loop.getOperation()) {
          why = "its stack (result #" + std::to_string(k) +
                ") is used other than by extract_slice in a loop body";
          return false;
        }
        if (pair.backward && loop != pair.backward) {
          why = "its stacks are read by more than one loop";
          return false;
        }
        pair.backward = loop;
        if (!isRowAccess(read, cast<RankedTensorType>(stack.getType()),
                         read.getOffsets().empty() ? Value()
                                                   : read.getOffsets()[0]) ||
            !isReversedIndex(read.getOffsets()[0], loop.getInductionVar(),
                             pair.steps, tripCount)) {
          why = "its stack (result #" + std::to_string(k) +
                ") is read at an index other than T-1-j of the backward "
                "loop's j (rows read out of order)";
          return false;
        }
        if (read.getType() != pair.inserts[s].getSourceType()) {
          why = "a stack row is read with another type than it was stored";
          return false;
        }
        pair.reads[s].push_back(read);
      }
    }
    scf::ForOp bwd = pair.backward;
    const bool sameSteps =
        bwd && (tripCount ? constantIndex(bwd.getLowerBound()) == 0 &&
                                bwd.getUpperBound() == tripCount &&
                                constantIndex(bwd.getStep()) == 1
                          : unitTripCount(bwd) == pair.steps);
    if (!sameSteps) {
      why = "the loop reading its stacks does not run from 0 to the same T "
            "with step 1";
      return false;
    }
    if (bwd->getBlock() != forward->getBlock()) {
      why = "the loop reading its stacks is in another block";
      return false;
    }
    if (!isPureBlock(bwd.getBody())) {
      why = "the loop reading its stacks has side effects";
      return false;
    }
    return true;
  }

  Operation *forward;
  ScanPair pair;
  std::string why;
};

} // namespace

std::variant<ScanPair, std::string> matchScan(Operation *forward) {
  return Matcher(forward).run();
}

Block *ScanPair::body() const {
  if (auto loop = dyn_cast<scf::ForOp>(forward))
    return loop.getBody();
  return cast<scf::WhileOp>(forward).getAfterBody();
}

Value ScanPair::index() const {
  if (auto loop = dyn_cast<scf::ForOp>(forward))
    return loop.getInductionVar();
  return body()->getArgument(counter);
}

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

} // namespace remat
