//===- ForwardStackReads.cpp - A loop's reads of its own stack, carried ---===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Why the value read is the one carried: the loop writes row w(k) =
// alpha * k + beta at iteration k (alpha != 0: every row at most once), and
// reads row w(k) - alpha * d of the stack as it entered iteration k. For
// k >= d that row was written by iteration k - d and by no later one; for
// k < d by no iteration, so it holds what was written before the loop.
//
//===----------------------------------------------------------------------===//

#include "remat/Loops/ForwardStackReads.h"
#include "LoopCarries.h"
#include "remat/Analysis/ScanLoops.h"

#include "remat/Analysis/StackRows.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace remat {
namespace {

/// A stack of the loop (its iteration argument `arg`) and the reads of it
/// to forward, each with how many rows back it reads (1: the row the
/// iteration before wrote).
struct StackState {
  unsigned arg = 0;
  Value stored; ///< The value each iteration writes.
  SmallVector<std::pair<Operation *, int64_t>> reads;
  /// The values carried, rows back 1..D: their initial values (the rows
  /// written before the loop).
  SmallVector<Value> initial;
};

/// The loop's pieces for iteration argument k, for and while alike.
struct IterArg {
  Value arg, init, yielded;
};
IterArg iterArgOf(Operation *loop, unsigned k) {
  if (auto f = dyn_cast<scf::ForOp>(loop))
    return {f.getRegionIterArgs()[k], f.getInitArgs()[k],
            f.getBody()->getTerminator()->getOperand(k)};
  auto w = cast<scf::WhileOp>(loop);
  return {w.getAfterArguments()[k], w.getInits()[k],
          w.getAfterBody()->getTerminator()->getOperand(k)};
}
unsigned numIterArgs(Operation *loop) {
  if (auto f = dyn_cast<scf::ForOp>(loop))
    return f.getNumRegionIterArgs();
  return cast<scf::WhileOp>(loop).getAfterArguments().size();
}

/// What `init` (the stack entering the loop) holds at row `row`: the value
/// the last of a chain of row writes before the loop wrote there.
Value writtenBefore(Value init, RankedTensorType type, int64_t axis,
                    int64_t row) {
  for (Value v = init; Operation *def = v.getDefiningOp();) {
    Value dest = insertDest(def);
    std::optional<IndexExpr> at =
        dest ? wholeRow(def, type, axis) : std::nullopt;
    std::optional<int64_t> r = at ? at->asConstant() : std::nullopt;
    if (!r)
      return Value();
    if (*r == row)
      return storedValue(def);
    v = dest;
  }
  return Value();
}

/// Iteration argument k of `loop` as a stack whose reads can all be
/// forwarded, or std::nullopt.
std::optional<StackState> stackState(Operation *loop,
                                     const LoopIteration &it, unsigned k) {
  IterArg a = iterArgOf(loop, k);
  auto type = dyn_cast<RankedTensorType>(a.arg.getType());
  Operation *insert = a.yielded.getDefiningOp();
  if (!type || !type.hasStaticShape() || !insert ||
      insertDest(insert) != a.arg || a.arg.hasOneUse())
    return std::nullopt;
  if (auto w = dyn_cast<scf::WhileOp>(loop);
      w && !llvm::all_of(w.getBeforeArguments()[k].getUsers(),
                         llvm::IsaPred<scf::ConditionOp>))
    return std::nullopt;
  std::optional<int64_t> axis = rowAxisOf(insert, type);
  std::optional<IndexExpr> written =
      axis ? wholeRow(insert, type, *axis, it.facts) : std::nullopt;
  if (!written)
    return std::nullopt;
  // w(k) = alpha * k + beta.
  const int64_t alpha = written->coefficient(it.index);
  auto constantBeyond = [&](const IndexExpr &row) {
    std::optional<IndexExpr> rest =
        row.minus(IndexExpr::of(it.index).times(alpha).value_or(IndexExpr()));
    return rest ? rest->asConstant() : std::nullopt;
  };
  std::optional<int64_t> beta = constantBeyond(*written);
  if (alpha == 0 || !beta)
    return std::nullopt;
  StackState state;
  state.arg = k;
  state.stored = storedValue(insert);
  // A stored iteration argument (h_k stored before the update) would be
  // one of the arguments the grown loop replaces: not forwarded.
  if (auto arg = dyn_cast<BlockArgument>(state.stored);
      arg && arg.getOwner() == insert->getBlock())
    return std::nullopt;
  int64_t most = 0;
  for (Operation *user : a.arg.getUsers()) {
    if (user == insert)
      continue;
    if (!isa<tensor::ExtractSliceOp, tensor::ExtractOp>(user) ||
        user->getBlock() != insert->getBlock() ||
        rowValueType(user) != rowValueType(insert))
      return std::nullopt;
    std::optional<IndexExpr> read = wholeRow(user, type, *axis, it.facts);
    if (!read || read->coefficient(it.index) != alpha)
      return std::nullopt;
    std::optional<int64_t> base = constantBeyond(*read);
    if (!base || (*beta - *base) % alpha != 0)
      return std::nullopt;
    const int64_t back = (*beta - *base) / alpha;
    if (back < 1 || back > kMostRowsForwarded)
      return std::nullopt;
    state.reads.push_back({user, back});
    most = std::max(most, back);
  }
  for (int64_t d = 1; d <= most; ++d) {
    Value v = writtenBefore(a.init, type, *axis, *beta - alpha * d);
    if (!v || v.getType() != state.stored.getType())
      return std::nullopt;
    state.initial.push_back(v);
  }
  return state;
}

/// Forwards the reads of `loop`'s stacks that can be; returns how many.
int forwardLoop(RewriterBase &rewriter, Operation *loop) {
  std::optional<LoopIteration> it = forwardIteration(loop);
  if (!it)
    return 0;
  SmallVector<StackState> states;
  for (unsigned k = 0, e = numIterArgs(loop); k < e; ++k)
    if (std::optional<StackState> s = stackState(loop, *it, k))
      states.push_back(std::move(*s));
  if (states.empty())
    return 0;
  SmallVector<Value> inits;
  for (const StackState &s : states)
    llvm::append_range(inits, s.initial);
  // Per stack, the values carried rows back 1..D: the value stored this
  // iteration is one row back next iteration; each moves one further.
  SmallVector<Value> carried =
      withCarries(rewriter, loop, inits, [&](ValueRange args) {
        SmallVector<Value> next;
        size_t at = 0;
        for (const StackState &s : states) {
          next.push_back(s.stored);
          for (size_t d = 1; d < s.initial.size(); ++d)
            next.push_back(args[at + d - 1]);
          at += s.initial.size();
        }
        return next;
      });
  int forwarded = 0;
  size_t at = 0;
  for (const StackState &s : states) {
    for (auto [read, back] : s.reads) {
      rewriter.replaceOp(read, carried[at + back - 1]);
      ++forwarded;
    }
    at += s.initial.size();
  }
  return forwarded;
}

} // namespace

int forwardStackReads(Operation *root) {
  SmallVector<Operation *> loops;
  root->walk([&](Operation *op) {
    if (isa<scf::ForOp, scf::WhileOp>(op))
      loops.push_back(op);
  });
  IRRewriter rewriter(root->getContext());
  int forwarded = 0;
  for (Operation *loop : loops)
    forwarded += forwardLoop(rewriter, loop);
  return forwarded;
}

} // namespace remat
