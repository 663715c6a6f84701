//===- ScanLoops.h - Forward/reverse loop pairs that stack values -*- C++ -*-===//
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
  mlir::scf::ForOp forward, backward;
  int64_t steps = 0; ///< T.
  /// Forward iter_arg indices: carried state, and stacks.
  llvm::SmallVector<unsigned> carries, stacks;
  /// Per stack (same order): the insert into it in the forward body.
  llvm::SmallVector<mlir::tensor::InsertSliceOp> inserts;
  /// Per stack: its reads in the backward body.
  llvm::SmallVector<llvm::SmallVector<mlir::tensor::ExtractSliceOp, 1>> reads;
  /// Bytes of one iteration's carried state, and of the stacks in all.
  int64_t carryBytes = 0, stackBytes = 0;
};

/// The scan `forward` begins, or why it is not one (a sentence naming what
/// the pass needs: "its stack %s is read at an index other than T-1-j").
std::variant<ScanPair, std::string> matchScan(mlir::scf::ForOp forward);

} // namespace remat

#endif // REMAT_ANALYSIS_SCANLOOPS_H
