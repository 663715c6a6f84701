//===- BufferLiveness.h - Lifetimes and escapes of buffers -------*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What the buffer planner knows about one buffer after bufferization: every
// value that may alias it (views, casts, reshapes, values carried through
// regions and calls; upstream's BufferViewFlowAnalysis refined by what the
// callees in the module do), its first and last use lifted to the block that
// defines it (a use inside a nested region counts at the op of that block
// containing it), and whether it escapes that block.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_BUFFERPLANNING_BUFFERLIVENESS_H
#define REMAT_BUFFERPLANNING_BUFFERLIVENESS_H

#include "mlir/Dialect/Bufferization/Transforms/BufferViewFlowAnalysis.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"

#include <memory>
#include <optional>

namespace remat {

/// Why a buffer must outlive the last use the planner can see, or must not
/// be freed by the planner at all.
enum class Escape {
  None,
  Returned,         ///< Returned by its function: the caller owns it.
  Yielded,          ///< Passed out of its block by a terminator.
  Stored,           ///< Stored into memory as a value.
  Captured,         ///< Handed to an op or callee that may keep it.
  UsedOutsideBlock, ///< An alias is used outside the defining block.
  Freed,            ///< The IR already frees it.
};

/// Short human-readable reason ("returned", "stored", ...).
llvm::StringRef describe(Escape escape);

/// What each function of a module does with its memref arguments and
/// results, as seen from a call site.
struct CallSummary {
  /// Per argument: the callee may keep it beyond the call.
  llvm::SmallVector<bool> argCaptured;
  /// Per argument: results that may alias it.
  llvm::SmallVector<llvm::SmallVector<unsigned, 1>> argReturnedAt;
  /// Per result: a new allocation, distinct from everything else the callee
  /// returns, that the caller owns (and the planner may free).
  llvm::SmallVector<bool> resultFresh;
};

class BufferAliases;

/// Lazily computed summaries of the functions of a module. Callees that
/// recurse or cannot be resolved get no summary (calls to them capture).
class CallSummaries {
public:
  CallSummaries();
  ~CallSummaries();

  /// The summary of the function `call` calls; nullptr when the callee is
  /// unknown (indirect call, recursion) or a declaration.
  const CallSummary *lookup(mlir::CallOpInterface call);
  /// Whether `call` calls a function declaration (no body). By the MLIR
  /// convention that upstream deallocation also relies on, such callees
  /// neither keep nor free their memref arguments.
  bool callsDeclaration(mlir::CallOpInterface call);

  /// Alias analysis of `func` (cached).
  const BufferAliases &aliases(mlir::FunctionOpInterface func);

private:
  mlir::FunctionOpInterface resolve(mlir::CallOpInterface call);

  mlir::SymbolTableCollection symbols;
  llvm::DenseMap<mlir::Operation *, std::unique_ptr<CallSummary>> summaries;
  llvm::DenseMap<mlir::Operation *, std::unique_ptr<BufferAliases>> analyses;
  llvm::SmallPtrSet<mlir::Operation *, 4> inProgress;
};

/// May-alias sets of the memref values of one function.
class BufferAliases {
public:
  BufferAliases(mlir::FunctionOpInterface func, CallSummaries &calls);

  /// Every value that may alias `root` and is derived from it (views,
  /// region and call results, block arguments), `root` included.
  llvm::SmallVector<mlir::Value> resolve(mlir::Value root) const;

private:
  mlir::BufferViewFlowAnalysis flow;
  CallSummaries &calls;
};

/// Liveness of one buffer.
struct BufferInfo {
  mlir::Value root;   ///< An allocation (or a value owning a buffer).
  mlir::Block *block; ///< Where `root` is defined.
  llvm::SmallVector<mlir::Value> aliases;
  /// Ops of `block` containing the first and last use of any alias;
  /// nullptr when the buffer is never used.
  mlir::Operation *firstUse = nullptr;
  mlir::Operation *lastUse = nullptr;
  /// The first reason it escapes (None if it does not), and the op.
  Escape escape = Escape::None;
  mlir::Operation *escapeOp = nullptr;
  /// Also set when it is returned besides escaping otherwise.
  bool returned = false;

  bool escapes() const { return escape != Escape::None; }
};

/// Computes the liveness of the buffer `root` (defined in a function).
BufferInfo analyzeBuffer(mlir::Value root, const BufferAliases &aliases,
                         CallSummaries &calls);

/// Whether `op`, the last reader of buffer `input` and the first writer of
/// buffer `output`, may write `output` into the storage of `input`: a linalg
/// op with parallel loops only that reads each element of `input` at the
/// position it writes in `output` (same permutation map, same shape and
/// element size, no other operand aliasing either).
bool mayReuseInPlace(mlir::Operation *op, mlir::Value input, mlir::Value output,
                     llvm::ArrayRef<mlir::Value> inputAliases,
                     llvm::ArrayRef<mlir::Value> outputAliases);

} // namespace remat

#endif // REMAT_BUFFERPLANNING_BUFFERLIVENESS_H
