//===- HeldDiagnostics.h - Diagnostics of a plan maybe dropped --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// -remat-fit plans some functions more than one way (HostStackChoice.h,
// RowsRecomputedChoice.h) and keeps one plan: only that plan's diagnostics
// reach the user.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_TRANSFORMS_HELDDIAGNOSTICS_H
#define REMAT_TRANSFORMS_HELDDIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <vector>

namespace remat {

/// Holds the diagnostics emitted while it listens, to emit them later (the
/// plan kept) or never (the plan dropped).
class HeldDiagnostics {
public:
  explicit HeldDiagnostics(mlir::MLIRContext *ctx) : ctx(ctx) {}

  /// Runs `body` with its diagnostics held.
  template <typename Fn> auto hold(Fn &&body) {
    mlir::ScopedDiagnosticHandler handler(ctx, [&](mlir::Diagnostic &d) {
      held.push_back(std::move(d));
      return mlir::success();
    });
    return body();
  }

  /// The first error held, or null.
  mlir::Diagnostic *firstError() {
    for (mlir::Diagnostic &d : held)
      if (d.getSeverity() == mlir::DiagnosticSeverity::Error)
        return &d;
    return nullptr;
  }

  /// Emits what was held, but the remarks `drop` names.
  void emit(llvm::function_ref<bool(const mlir::Diagnostic &)> drop = nullptr) {
    for (mlir::Diagnostic &d : held)
      if (!drop || !drop(d))
        ctx->getDiagEngine().emit(std::move(d));
    held.clear();
  }

private:
  mlir::MLIRContext *ctx;
  std::vector<mlir::Diagnostic> held;
};

} // namespace remat

#endif // REMAT_TRANSFORMS_HELDDIAGNOSTICS_H
