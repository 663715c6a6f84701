//===- CostModel.h - Time and bytes of ops for the planner ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What one execution of an op costs, from (in order of precedence):
//  1. a `#remat.cost` attribute on the op (`remat.cost`, or `cost` of
//     remat.op);
//  2. a measured cost table (--remat-cost-table), keyed by the op's location
//     name (NameLoc "conv1", or "file:line:col") or by the op name
//     ("linalg.matmul") as a default for every op of that kind;
//  3. the RematCostOpInterface (external models for upstream ops);
//  4. a fallback: one FLOP per result element.
// Result sizes come from result types unless the attribute or table gives
// them, each rounded up to the allocation alignment (what the lowering's
// allocator hands out for a buffer of that size). Values that are not data of their own are 0 bytes: tensor.empty
// (bufferization allocates in its consumer), views (extract_slice,
// expand/collapse_shape, cast: aliases of their source) and scalars.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_ANALYSIS_COSTMODEL_H
#define REMAT_ANALYSIS_COSTMODEL_H

#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringMap.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "remat/Support/AllocAlignment.h"

#include "remat/Analysis/CostInterface.h.inc"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace remat {

struct OpCost {
  double time = 0;
  int64_t workspace = 0;
  llvm::SmallVector<int64_t> resultBytes; ///< One entry per result.
};

/// Measured costs loaded from JSON (see docs/cost-table.md).
struct CostTableEntry {
  double time = 0;
  std::optional<int64_t> bytes;
  int64_t workspace = 0;
};

class CostTable {
public:
  /// Loads a table; on failure returns an explanation in `error`.
  static std::optional<CostTable> load(llvm::StringRef path,
                                       std::string &error);
  /// Parses a table from JSON text (`path` only names it in errors).
  static std::optional<CostTable> parse(llvm::StringRef text,
                                        llvm::StringRef path,
                                        std::string &error);
  /// The table a pass option names: std::nullopt for an empty path,
  /// failure (with the error emitted at `anchor`) when it cannot be read.
  static mlir::FailureOr<std::optional<CostTable>>
  loadOption(llvm::StringRef path, mlir::Operation *anchor);
  const CostTableEntry *lookup(mlir::Operation *op) const;
  size_t size() const { return entries.size(); }

private:
  llvm::StringMap<CostTableEntry> entries;
};

/// What typeBytes() returns for a static type whose size does not fit in
/// int64 (no real size is this large).
constexpr int64_t kTooManyBytes = std::numeric_limits<int64_t>::max();

/// Bytes of a value of type `type`: static tensors and memrefs by element
/// count, everything else 0. std::nullopt for dynamically shaped types,
/// kTooManyBytes when the count overflows int64.
std::optional<int64_t> typeBytes(mlir::Type type);

/// Whether the op's results alias one of its operands after bufferization
/// (views, reshapes, casts): they hold no bytes of their own and keep their
/// source alive. Not a reshape that copies (reshapeCopies).
bool isViewLike(mlir::Operation *op);

/// Whether bufferization copies the op's result into a buffer of its own:
/// a tensor.collapse_shape whose source is a strided view (a slice along an
/// inner dim, PyTorch's chunk then view) whose dims do not merge, which
/// One-Shot Bufferize allocates and copies (memref::CollapseShapeOp::
/// isGuaranteedCollapsible on the source's buffer layout), or a
/// tensor.reshape of a strided view (memref.reshape takes identity layouts).
bool reshapeCopies(mlir::Operation *op);

class CostModel {
public:
  explicit CostModel(const CostTable *table = nullptr,
                     int64_t alignment = kDefaultAllocAlignment)
      : table(table), alignment(alignment) {}

  /// Fails (with a diagnostic on the op) when a result's size is unknown.
  /// Symbols the op refers to (a collective's shard.grid) are looked up
  /// from the op, then from `symbolScope` (the module of a function being
  /// planned on a detached copy).
  mlir::FailureOr<OpCost> cost(mlir::Operation *op,
                               mlir::Operation *symbolScope = nullptr) const;

  /// The bytes a buffer of `type` takes once allocated: typeBytes() rounded
  /// up to the alignment. Same std::nullopt and kTooManyBytes as typeBytes.
  std::optional<int64_t> bufferBytes(mlir::Type type) const;

  /// How the target rounds allocations (bytes, >= 1).
  int64_t allocAlignment() const { return alignment; }

private:
  const CostTable *table = nullptr;
  int64_t alignment = kDefaultAllocAlignment;
};

/// The key under which the cost table looks an op up: its location's name
/// ("conv1" for loc("conv1"), "file.mlir:3:7" for a file location).
std::string costTableKey(mlir::Operation *op);

/// Attaches RematCostOpInterface to upstream ops (linalg structured ops,
/// tensor, arith and math ops).
void registerCostModelExternalModels(mlir::DialectRegistry &registry);

} // namespace remat

#endif // REMAT_ANALYSIS_COSTMODEL_H
