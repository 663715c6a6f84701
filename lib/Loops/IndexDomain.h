//===- IndexDomain.h - ReversalRules.h's domain that emits index ops -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Internal to lib/Loops: the emitter computes the reversal's decisions at
// run time with the rules the model counts (ReversalRules.h), each rule's
// arithmetic emitted as `arith` ops on `index` values, its loop as an
// `scf.while`. What is known when the
// rewrite runs is computed with ReversalRules.h's IntDomain instead.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_LOOPS_INDEXDOMAIN_H
#define REMAT_LIB_LOOPS_INDEXDOMAIN_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

#include <array>

namespace remat::detail {

struct IndexDomain {
  using Int = mlir::Value;
  using Bool = mlir::Value;
  mlir::OpBuilder &b;
  mlir::Location loc;

  Int lit(int64_t v) { return mlir::arith::ConstantIndexOp::create(b, loc, v); }
  Int add(Int x, Int y) { return mlir::arith::AddIOp::create(b, loc, x, y); }
  Int sub(Int x, Int y) { return mlir::arith::SubIOp::create(b, loc, x, y); }
  Int mul(Int x, Int y) { return mlir::arith::MulIOp::create(b, loc, x, y); }
  /// Operands are never negative where the rules divide.
  Int divExact(Int x, Int y) {
    return mlir::arith::DivUIOp::create(b, loc, x, y);
  }
  Int min(Int x, Int y) { return mlir::arith::MinSIOp::create(b, loc, x, y); }
  Int max(Int x, Int y) { return mlir::arith::MaxSIOp::create(b, loc, x, y); }
  Bool eq(Int x, Int y) { return cmp(mlir::arith::CmpIPredicate::eq, x, y); }
  Bool less(Int x, Int y) { return cmp(mlir::arith::CmpIPredicate::slt, x, y); }
  Bool greater(Int x, Int y) {
    return cmp(mlir::arith::CmpIPredicate::sgt, x, y);
  }
  Bool either(Bool x, Bool y) { return mlir::arith::OrIOp::create(b, loc, x, y); }
  Bool both(Bool x, Bool y) { return mlir::arith::AndIOp::create(b, loc, x, y); }
  Bool negate(Bool x) {
    return mlir::arith::XOrIOp::create(
        b, loc, x, mlir::arith::ConstantIntOp::create(b, loc, 1, 1));
  }
  Int select(Bool c, Int x, Int y) {
    return mlir::arith::SelectOp::create(b, loc, c, x, y);
  }

  template <size_t N, typename Cond, typename Body>
  std::array<Int, N> whileLoop(std::array<Int, N> init, Cond cond, Body body) {
    llvm::SmallVector<mlir::Value> inits(init.begin(), init.end());
    llvm::SmallVector<mlir::Type> types(N, b.getIndexType());
    auto loop = mlir::scf::WhileOp::create(
        b, loc, types, inits,
        [&](mlir::OpBuilder &nb, mlir::Location l, mlir::ValueRange args) {
          IndexDomain in{nb, l};
          mlir::Value more = cond(in, toArray<N>(args));
          mlir::scf::ConditionOp::create(nb, l, more, args);
        },
        [&](mlir::OpBuilder &nb, mlir::Location l, mlir::ValueRange args) {
          IndexDomain in{nb, l};
          std::array<Int, N> next = body(in, toArray<N>(args));
          mlir::scf::YieldOp::create(
              nb, l, llvm::SmallVector<mlir::Value>(next.begin(), next.end()));
        });
    return toArray<N>(loop.getResults());
  }

private:
  Bool cmp(mlir::arith::CmpIPredicate p, Int x, Int y) {
    return mlir::arith::CmpIOp::create(b, loc, p, x, y);
  }
  template <size_t N> static std::array<Int, N> toArray(mlir::ValueRange r) {
    std::array<Int, N> a;
    for (size_t i = 0; i < N; ++i)
      a[i] = r[i];
    return a;
  }
};

} // namespace remat::detail

#endif // REMAT_LIB_LOOPS_INDEXDOMAIN_H
