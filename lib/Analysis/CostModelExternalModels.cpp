//===- CostModelExternalModels.cpp - Analytic costs of upstream ops -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// FLOP estimates: a linalg structured op costs its iteration domain times the
// arithmetic in its body (matmul: 2*M*N*K); elementwise arith/math ops on
// tensors cost one (arith) or four (math: transcendentals) operations per
// element; tensor ops cost one per element they write, views and
// tensor.empty nothing.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/CostModel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;

namespace remat {
namespace {

/// Elements written by the op (1 for scalar results).
double resultElements(Operation *op) {
  double n = 0;
  for (Type t : op->getResultTypes()) {
    auto shaped = dyn_cast<ShapedType>(t);
    if (!shaped)
      n += 1;
    else if (shaped.hasStaticShape())
      n += static_cast<double>(shaped.getNumElements());
  }
  return n;
}

template <typename OpT>
struct LinalgCostModel
    : public RematCostOpInterface::ExternalModel<LinalgCostModel<OpT>, OpT> {
  double getRematTime(Operation *op) const {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    double iterations = 1;
    for (int64_t range : linalgOp.getStaticLoopRanges())
      if (!ShapedType::isDynamic(range))
        iterations *= static_cast<double>(range);
    // Arithmetic per iteration: the body's ops except the terminator.
    double perIteration =
        std::max<double>(1, linalgOp.getBlock()->getOperations().size() - 1);
    return iterations * perIteration;
  }
};

template <typename OpT, int OpsPerElement>
struct ElementwiseCostModel
    : public RematCostOpInterface::ExternalModel<
          ElementwiseCostModel<OpT, OpsPerElement>, OpT> {
  double getRematTime(Operation *op) const {
    if (isa<arith::ConstantOp>(op))
      return 0;
    return OpsPerElement * resultElements(op);
  }
};
template <typename OpT> using ArithCostModel = ElementwiseCostModel<OpT, 1>;
template <typename OpT> using MathCostModel = ElementwiseCostModel<OpT, 4>;

template <typename OpT>
struct TensorCostModel
    : public RematCostOpInterface::ExternalModel<TensorCostModel<OpT>, OpT> {
  double getRematTime(Operation *op) const {
    if (isViewLike(op) || isa<tensor::EmptyOp, tensor::DimOp>(op))
      return 0;
    if (auto insert = dyn_cast<tensor::InsertSliceOp>(op))
      return static_cast<double>(insert.getSourceType().getNumElements());
    return resultElements(op);
  }
};

template <template <typename> class Model, typename... OpTs>
void attach(MLIRContext *ctx) {
  (OpTs::template attachInterface<Model<OpTs>>(*ctx), ...);
}

} // namespace

void registerCostModelExternalModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, linalg::LinalgDialect *) {
    attach<LinalgCostModel,
#define GET_OP_LIST
#include "mlir/Dialect/Linalg/IR/LinalgStructuredOps.cpp.inc"
           >(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, arith::ArithDialect *) {
    attach<ArithCostModel,
#define GET_OP_LIST
#include "mlir/Dialect/Arith/IR/ArithOps.cpp.inc"
           >(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, math::MathDialect *) {
    attach<MathCostModel,
#define GET_OP_LIST
#include "mlir/Dialect/Math/IR/MathOps.cpp.inc"
           >(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, tensor::TensorDialect *) {
    attach<TensorCostModel,
#define GET_OP_LIST
#include "mlir/Dialect/Tensor/IR/TensorOps.cpp.inc"
           >(ctx);
  });
}

} // namespace remat
