//===- ScanLoops.cpp - Forward/reverse loop pairs that stack values -------===//

#include "remat/Analysis/ScanLoops.h"
#include "remat/Analysis/CostModel.h"

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

bool isPureBody(scf::ForOp loop) {
  bool pure = true;
  loop.getBody()->walk([&](Operation *op) {
    if (!isa<scf::YieldOp>(op) && !isMemoryEffectFree(op))
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

/// `v` is T-1-j for the backward loop's induction variable j.
bool isReversedIndex(Value v, Value iv, int64_t steps) {
  auto sub = v.getDefiningOp<arith::SubIOp>();
  return sub && sub.getRhs() == iv && constantIndex(sub.getLhs()) == steps - 1;
}

class Matcher {
public:
  explicit Matcher(scf::ForOp forward) : forward(forward) {}

  std::variant<ScanPair, std::string> run() {
    std::optional<int64_t> steps = unitTripCount(forward);
    if (!steps)
      return std::string("its bounds are not 0 to a constant with step 1");
    pair.forward = forward;
    pair.steps = *steps;
    if (!isPureBody(forward))
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
  /// Stacks: iter_args yielded as an insert of one row at %i into
  /// themselves, and read nowhere else in the body.
  std::optional<std::string> splitIterArgs() {
    auto yield = cast<scf::YieldOp>(forward.getBody()->getTerminator());
    for (auto [k, arg] : llvm::enumerate(forward.getRegionIterArgs())) {
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!type || !type.hasStaticShape())
        return std::string("iter_arg #") + std::to_string(k) +
               " is not a statically shaped tensor";
      auto insert = yield.getOperand(k).getDefiningOp<tensor::InsertSliceOp>();
      if (insert && insert.getDest() == arg && arg.hasOneUse() &&
          isRowAccess(insert, type, forward.getInductionVar()) &&
          type.getDimSize(0) == pair.steps) {
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
    for (auto [s, k] : llvm::enumerate(pair.stacks)) {
      Value stack = forward.getResult(k);
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
                             pair.steps)) {
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
    if (!bwd || unitTripCount(bwd) != pair.steps) {
      why = "the loop reading its stacks does not run from 0 to the same T "
            "with step 1";
      return false;
    }
    if (bwd->getBlock() != forward->getBlock()) {
      why = "the loop reading its stacks is in another block";
      return false;
    }
    if (!isPureBody(bwd)) {
      why = "the loop reading its stacks has side effects";
      return false;
    }
    return true;
  }

  scf::ForOp forward;
  ScanPair pair;
  std::string why;
};

} // namespace

std::variant<ScanPair, std::string> matchScan(scf::ForOp forward) {
  return Matcher(forward).run();
}

} // namespace remat
