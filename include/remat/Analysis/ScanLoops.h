//===- ScanLoops.h - Forward/reverse loop pairs that stack values -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A scan, as scan-based frontends emit it (JAX lax.scan, StableHLO while
// lowered to scf): a forward `scf.for %i = 0 to T step 1` whose iterations
// store per-iteration values into stacked tensors
//   %s' = tensor.insert_slice %v into %s[%i, 0, ...] [1, ...] [1, ...]
// (the stacks are iter_args; the other iter_args are the carried state), and
// a backward `scf.for %j = 0 to T step 1` that reads every stack only at
// T-1-j with tensor.extract_slice. Both bodies are pure. Such a pair is a
// chain of T identical stages: every stacked value of iteration i is a
// function of the carries entering it, so the backward pass can get it back
// from a checkpoint of the carries (ScanPair) instead of the stack.
//
// The forward loop may also be an `scf.while` whose condition is known only
// at run time (a loop run until convergence, or for a number of steps given
// as an argument): its iterations stack at a counter from 0 by 1, into
// stacks of as many rows as it may run, and the backward loop runs from 0 to
// the counter's result reading row (count-1)-j.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_ANALYSIS_SCANLOOPS_H
#define REMAT_ANALYSIS_SCANLOOPS_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <string>
#include <variant>

namespace remat {

struct ScanPair {
  /// The forward loop: an scf.for from 0 to T, or (online()) one whose trip
  /// count is known only at run time: an scf.for from 0 to a value, or an
  /// scf.while (a counter from 0 by 1 indexes the stacks, the backward loop
  /// runs to the counter's result).
  mlir::Operation *forward = nullptr;
  mlir::scf::ForOp backward;
  /// T for an scf.for; for an scf.while, the stacks' rows (the most steps
  /// it can take, the nominal T of the time model).
  int64_t steps = 0;
  /// Forward iteration-argument indices (of the for's iter_args, of the
  /// while's operands = after-block arguments = results): carried state,
  /// and stacks. The while's counter is in neither.
  llvm::SmallVector<unsigned> carries, stacks;
  unsigned counter = 0; ///< The while's counter (online() only).
  /// Per stack (same order): the insert into it in the forward body.
  llvm::SmallVector<mlir::tensor::InsertSliceOp> inserts;
  /// Per stack: its reads in the backward body.
  llvm::SmallVector<llvm::SmallVector<mlir::tensor::ExtractSliceOp, 1>> reads;
  /// Bytes of one iteration's carried state, and of the stacks in all.
  int64_t carryBytes = 0, stackBytes = 0;

  bool online() const { return runTimeSteps; }
  bool runTimeSteps = false;
  /// The trip count as a value (online() only): the for's upper bound, or
  /// the while counter's result.
  mlir::Value tripCount() const;
  /// The block of one forward iteration (the for's body, the while's after
  /// region), its index i, its k-th iteration argument, initial value and
  /// result, and its terminator.
  mlir::Block *body() const;
  mlir::Value index() const;
  mlir::Value iterArg(unsigned k) const;
  mlir::Value init(unsigned k) const;
  mlir::Value result(unsigned k) const;
  mlir::scf::YieldOp yield() const;
};

/// The scan `forward` (an scf.for or scf.while) begins, or why it is not
/// one (a sentence naming what the pass needs: "its stack %s is read at an
/// index other than T-1-j").
std::variant<ScanPair, std::string> matchScan(mlir::Operation *forward);

} // namespace remat

#endif // REMAT_ANALYSIS_SCANLOOPS_H
