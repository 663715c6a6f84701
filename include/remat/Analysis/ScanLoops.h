//===- ScanLoops.h - Forward/reverse loop pairs that stack values -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A scan: a forward loop whose iterations store per-iteration values into
// stacked tensors, and a backward loop that reads them back in reverse. It is
// recognised by what it reads and writes, not by how it is spelled:
//
// - the forward loop is an `scf.for` with constant bounds and any step, an
//   `scf.while` counting from a constant by a constant to a constant bound
//   (T known, as a fori_loop lowers), one to a bound known at run time (a
//   constant to %n by 1), or an `scf.while` with a counter from a constant
//   by 1 (online: its trip count is known only at run time; a counter held
//   in a 0-d tensor is made a scalar first, ScalarCounters.h);
// - a stack is an iteration argument the body writes once per iteration,
//   a whole row along one axis (`tensor.insert_slice` of one index on that
//   axis and whole on the others: [1, dims...], or [B, 1, H] batch-first;
//   or `tensor.insert` into a 1-D stack) at a row that is an affine
//   function of the iteration,
//   rising or falling by one row (`i`, `i + 1`, `T - 1 - i`, however the
//   index is spelled: IndexExpr.h); rows may have been written before the
//   loop (h_0 at row 0, as `torch.stack([h0, ..., hT])` stores states);
// - the backward loop is an `scf.for` or an `scf.while` counting up or down
//   whose iterations run as many times, and its iteration m provably reads
//   only rows that forward iteration T-1-m wrote (the stacked values
//   recomputed from the carries entering it), or rows that iteration T-2-m
//   wrote if they hold the carry it yielded (the carry entering T-1-m; for
//   m = T-1, a row written before the loop with the carry's initial value).
//   Reads at a constant row outside the loops get the carry's initial or
//   final value the same way; a stack read otherwise after the loop (whole,
//   by a loss over every step's output, or at another row) is kept for
//   those reads, written by the rewritten forward loop as before.
//
// Both bodies are pure. Such a pair is a chain of T identical stages: every
// value read from a stack is a function of the carries entering one step,
// so the backward pass can get it back from a checkpoint of the carries
// instead of from the stack.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_ANALYSIS_SCANLOOPS_H
#define REMAT_ANALYSIS_SCANLOOPS_H

#include "remat/Analysis/IndexExpr.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <string>
#include <variant>

namespace remat {

/// What a stack read gets back, in terms of one forward step.
struct StackRead {
  enum class Kind {
    Row,           ///< What the step being reversed stacks into `stack`.
    CarryEntering, ///< The carry entering that step (`carry`).
    CarryInit,     ///< Outside the loops: the carry's initial value.
    CarryFinal,    ///< Outside the loops: the carry's value after the loop.
  };
  mlir::Operation *op = nullptr; ///< tensor.extract_slice or tensor.extract.
  Kind kind = Kind::Row;
  unsigned stack = 0; ///< Index into ScanPair::stacks.
  unsigned carry = 0; ///< Index into ScanPair::carries (Carry* kinds).
};

struct ScanPair {
  /// The forward loop: an scf.for with constant bounds or an scf.while
  /// counting to a constant (its counter: `counter`), or (online()) one
  /// whose trip count is known only at run time: an scf.for from a constant
  /// to a value by 1, or an scf.while (a counter from a constant by 1).
  mlir::Operation *forward = nullptr;
  /// T for an scf.for; online, the most steps the stacks have rows for (the
  /// nominal T of the time model).
  int64_t steps = 0;
  /// The forward loop's index at iteration k is lower + k * step.
  int64_t lower = 0, step = 1;
  /// Forward iteration-argument indices (of the for's iter_args, of the
  /// while's operands = after-block arguments = results): carried state,
  /// and stacks. The while's counter is in neither.
  llvm::SmallVector<unsigned> carries, stacks;
  unsigned counter = 0; ///< The forward while's counter.
  /// Per stack (same order): the write into it in the forward body
  /// (tensor.insert_slice or tensor.insert), and the value it stores.
  llvm::SmallVector<mlir::Operation *> inserts;
  llvm::SmallVector<mlir::Value> stored;
  /// Per stack: forward iteration k writes row rowStride * k + rowBase
  /// (rowStride = +-1) along the axis rowAxis (0: [T, ...], as torch.stack
  /// and JAX's scan stack; 1: a batch-first [B, T, ...]).
  llvm::SmallVector<int64_t> rowStride, rowBase, rowAxis;
  /// Every read of every stack, in the backward body or outside the loops.
  llvm::SmallVector<StackRead> reads;
  /// Per stack: also read after the loop other than at a carry's row (read
  /// whole by a loss over every step, or at another row): the rewrite keeps
  /// writing it, for those reads; its reads in the backward loop are still
  /// recomputed.
  llvm::SmallVector<bool> keptWhole;
  /// Bytes of one iteration's carried state, of the stacks dropped, and of
  /// those kept.
  int64_t carryBytes = 0, stackBytes = 0, keptBytes = 0;

  /// The backward loop (an scf.for or scf.while) in the forward loop's
  /// block; its index at iteration m is backwardLower + m * backwardStep,
  /// and iteration m reverses forward iteration T-1-m.
  mlir::Operation *backward = nullptr;
  mlir::Value backwardLower;
  int64_t backwardStep = 1;
  /// The while's counter among its arguments (a for: none).
  std::optional<unsigned> backwardCounter;

  bool online() const { return runTimeSteps; }
  bool runTimeSteps = false;
  /// The trip count as a value (online() only): the for's upper bound, or
  /// the while counter's result.
  mlir::Value tripCount() const;
  /// The block of one forward iteration (the for's body, the while's after
  /// region), its index, its k-th iteration argument, initial value and
  /// result, and its terminator.
  mlir::Block *body() const;
  mlir::Value index() const;
  mlir::Value iterArg(unsigned k) const;
  mlir::Value init(unsigned k) const;
  mlir::Value result(unsigned k) const;
  mlir::scf::YieldOp yield() const;

  /// The backward loop's body, index, and its iteration state (its
  /// arguments, inits, yielded values and results, the counter left out).
  mlir::Block *backwardBody() const;
  mlir::Value backwardIndex() const;
  llvm::SmallVector<mlir::Value> backwardStateArgs() const;
  llvm::SmallVector<mlir::Value> backwardInits() const;
  llvm::SmallVector<mlir::Value> backwardYields() const;
  llvm::SmallVector<mlir::Value> backwardResults() const;
};

/// An scf.while that counts: its condition passes its arguments on and
/// compares the argument `counter`, which moves by the constant `step` from
/// `init`,
/// with a bound defined before the loop; it runs `trips` iterations.
struct CountedWhile {
  unsigned counter = 0;
  mlir::Value init;
  int64_t step = 1;
  IndexExpr trips;
};
/// `loop` as a CountedWhile, or why it is not one ("does not step its
/// counter by a constant"); its bounds read with `facts`.
std::variant<CountedWhile, std::string>
matchCountedWhile(mlir::scf::WhileOp loop, const IndexFacts &facts = {});

/// The scan `forward` (an scf.for or scf.while) begins, or why it is not
/// one: a sentence naming the first condition that failed and the value
/// and row it saw ("its stack (result #1) is read at row 62 - j, which
/// neither forward iteration 63 - j nor the one before wrote").
std::variant<ScanPair, std::string> matchScan(mlir::Operation *forward);

/// A forward loop's index (an scf.for's induction variable, a while's
/// counter) and the facts under which indexExprOf reads it as the
/// iteration number k; for a loop matchScan accepts as a forward loop (its
/// bounds, not its stacks), else std::nullopt.
struct LoopIteration {
  mlir::Value index;
  IndexFacts facts;
};
std::optional<LoopIteration> forwardIteration(mlir::Operation *loop);

} // namespace remat

#endif // REMAT_ANALYSIS_SCANLOOPS_H
