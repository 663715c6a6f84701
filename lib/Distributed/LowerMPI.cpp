//===- LowerMPI.cpp - Upstream mpi dialect ops to MPI calls ---------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A step may pass buffers between ranks with upstream's `mpi` dialect
// (mpi.send / mpi.recv on memrefs, mpi.comm_rank, ...) instead of shard
// ops. Upstream lowers them with conversion patterns only (MLIR 22 has no
// pass); this is that pass, run in -remat-lower-to-cpu before the memref
// lowering, so the MPI calls link against the MPICH that
// libRematMpiRuntime uses (the module's `MPI:Implementation` DLTI entry
// chooses the ABI; MLIR 22's Open MPI lowering is broken).
//
//===----------------------------------------------------------------------===//

#include "remat/Distributed/Passes.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MPIToLLVM/MPIToLLVM.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace remat {
#define GEN_PASS_DEF_LOWERMPIPASS
#include "remat/Distributed/Passes.h.inc"
} // namespace remat

using namespace mlir;

namespace {

struct LowerMPIPass : public remat::impl::LowerMPIPassBase<LowerMPIPass> {
  using LowerMPIPassBase::LowerMPIPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool any = false;
    module.walk([&](Operation *op) {
      any |= isa_and_nonnull<mpi::MPIDialect>(op->getDialect());
    });
    if (!any)
      return;
    // The runtime's MPI is MPICH: say so where the module does not (the
    // lowering asks, and complains at every op when nothing answers).
    MLIRContext *ctx = &getContext();
    if (!module->hasAttr(DLTIDialect::kMapAttrName))
      module->setAttr(DLTIDialect::kMapAttrName,
                      MapAttr::get(ctx, {DataLayoutEntryAttr::get(
                                            StringAttr::get(
                                                ctx, "MPI:Implementation"),
                                            StringAttr::get(ctx, "MPICH"))}));
    // A program that does not start MPI itself has it started by the
    // runtime on entry to each function using it (a no-op once started).
    bool starts = false;
    module.walk([&](mpi::InitOp) { starts = true; });
    if (!starts) {
      SmallVector<func::FuncOp> users;
      for (auto fn : module.getOps<func::FuncOp>()) {
        bool uses = false;
        fn.walk([&](Operation *op) {
          uses |= isa_and_nonnull<mpi::MPIDialect>(op->getDialect());
        });
        if (uses && !fn.isExternal())
          users.push_back(fn);
      }
      if (!users.empty()) {
        OpBuilder b(module.getBodyRegion());
        auto start = module.lookupSymbol<func::FuncOp>("rematStartMpi");
        if (!start) {
          start = func::FuncOp::create(b, module.getLoc(), "rematStartMpi",
                                       b.getFunctionType({}, {}));
          start.setPrivate();
        }
        for (func::FuncOp fn : users) {
          b.setInsertionPointToStart(&fn.getBody().front());
          func::CallOp::create(b, fn.getLoc(), start, ValueRange{});
        }
      }
    }
    LLVMTypeConverter converter(&getContext());
    RewritePatternSet patterns(&getContext());
    mpi::populateMPIToLLVMConversionPatterns(converter, patterns);
    ConversionTarget target(getContext());
    target.addIllegalDialect<mpi::MPIDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    // Read by the lowering only: the entry goes with the ops (an LLVM
    // module's runner need not know the DLTI dialect).
    if (auto map = module->getAttrOfType<MapAttr>(DLTIDialect::kMapAttrName)) {
      SmallVector<DataLayoutEntryInterface> rest;
      for (DataLayoutEntryInterface e : map.getEntries()) {
        auto key = dyn_cast<StringAttr>(e.getKey());
        if (!key || key.getValue() != "MPI:Implementation")
          rest.push_back(e);
      }
      if (rest.empty())
        module->removeAttr(DLTIDialect::kMapAttrName);
      else
        module->setAttr(DLTIDialect::kMapAttrName, MapAttr::get(ctx, rest));
    }
  }
};

} // namespace
