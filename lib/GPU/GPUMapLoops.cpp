//===- GPUMapLoops.cpp - Parallel loops to blocks and threads -------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// `-remat-gpu-map-loops`: tiles each outermost scf.parallel so a block of
// threads covers its innermost dimensions, maps both levels to the GPU
// (innermost dimension to x for coalescing), and puts device work left on the
// host (sequential loop nests) into one-thread kernels. What cannot run on
// the device is reported here, at the op.
//
//===----------------------------------------------------------------------===//

#include "remat/GPU/Passes.h"

#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace remat {
#define GEN_PASS_DEF_GPUMAPLOOPSPASS
#include "remat/GPU/Passes.h.inc"
} // namespace remat

using namespace mlir;
using gpu::Processor;

namespace {

constexpr int64_t kMaxGridYZ = 65535;

std::optional<int64_t> tripCount(scf::ParallelOp loop, unsigned i) {
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()[i]);
  std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound()[i]);
  std::optional<int64_t> step = getConstantIntValue(loop.getStep()[i]);
  if (!lb || !ub || !step || *step <= 0)
    return std::nullopt;
  return std::max<int64_t>(0, llvm::divideCeil(*ub - *lb, *step));
}

SmallVector<std::optional<int64_t>> tripCounts(scf::ParallelOp loop) {
  SmallVector<std::optional<int64_t>> trips;
  for (unsigned i = 0, e = loop.getNumLoops(); i < e; ++i)
    trips.push_back(tripCount(loop, i));
  return trips;
}

/// Maps the dimensions of `loop` (with `trips` iterations) to x, y, z of
/// threads or of blocks, from the innermost dimension with more than one
/// iteration outward; the rest run sequentially.
void setMapping(scf::ParallelOp loop, bool threads,
                ArrayRef<std::optional<int64_t>> trips) {
  MLIRContext *ctx = loop.getContext();
  AffineMap id = AffineMap::getMultiDimIdentityMap(1, ctx);
  unsigned n = loop.getNumLoops();
  SmallVector<Processor> procs(n, Processor::Sequential);
  auto first = static_cast<uint64_t>(threads ? Processor::ThreadX
                                             : Processor::BlockX);
  unsigned next = 0;
  for (int i = static_cast<int>(n) - 1; i >= 0 && next < 3; --i) {
    std::optional<int64_t> trip = trips[i];
    if (trip && *trip <= 1)
      continue;
    if (!threads && next > 0 && (!trip || *trip > kMaxGridYZ))
      continue; // Grid y and z are limited; loop in the kernel instead.
    procs[i] = static_cast<Processor>(first + next++);
  }
  SmallVector<gpu::ParallelLoopDimMappingAttr> mapping;
  for (Processor p : procs)
    mapping.push_back(gpu::ParallelLoopDimMappingAttr::get(ctx, p, id, id));
  (void)gpu::setMappingAttr(loop, mapping);
}

void setSequential(scf::ParallelOp loop) {
  MLIRContext *ctx = loop.getContext();
  AffineMap id = AffineMap::getMultiDimIdentityMap(1, ctx);
  SmallVector<gpu::ParallelLoopDimMappingAttr> mapping(
      loop.getNumLoops(), gpu::ParallelLoopDimMappingAttr::get(
                              ctx, Processor::Sequential, id, id));
  (void)gpu::setMappingAttr(loop, mapping);
}

bool isMapped(scf::ParallelOp loop) {
  return loop->hasAttr(gpu::getMappingAttrName());
}

/// What an op outside any parallel loop needs.
enum class Where { Host, Device, HostRegion, Unknown };

/// A while whose condition passes its arguments on: argument k of either
/// block, and result k, are the buffer of init k. (OpGroups.h has the same
/// test; RematGPU depends on MLIR alone, not on remat's analyses.)
bool passesArgumentsOn(scf::WhileOp loop) {
  return llvm::equal(loop.getConditionOp().getArgs(),
                     loop.getBeforeArguments());
}

/// Whether `v` is a buffer the host allocated (memref.alloc: what
/// -remat-gpu-host-device leaves on the host, the bookkeeping of a reversed
/// scan), seen through views and the iteration arguments of loops.
bool isHostBuffer(Value v) {
  for (int depth = 0; depth < 64; ++depth) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Operation *parent = arg.getOwner()->getParentOp();
      if (auto loop = dyn_cast<scf::WhileOp>(parent);
          loop && passesArgumentsOn(loop)) {
        v = loop.getInits()[arg.getArgNumber()];
        continue;
      }
      auto loop = dyn_cast<scf::ForOp>(parent);
      if (!loop || arg.getArgNumber() == 0)
        return false;
      v = loop.getInitArgs()[arg.getArgNumber() - 1];
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (isa<memref::AllocOp>(def))
      return true;
    if (auto loop = dyn_cast<scf::ForOp>(def)) { // Its init's buffer.
      v = loop.getInitArgs()[cast<OpResult>(v).getResultNumber()];
      continue;
    }
    if (auto loop = dyn_cast<scf::WhileOp>(def); loop && passesArgumentsOn(loop)) {
      v = loop.getInits()[cast<OpResult>(v).getResultNumber()];
      continue;
    }
    if (auto branch = dyn_cast<scf::IfOp>(def)) { // Both yield one buffer.
      v = branch.thenYield().getOperand(cast<OpResult>(v).getResultNumber());
      continue;
    }
    if (auto view = dyn_cast<ViewLikeOpInterface>(def)) {
      v = view.getViewSource();
      continue;
    }
    return false;
  }
  return false;
}

/// Whether `op` itself reads or writes memory through a memref, and so
/// must run where the memref lives (the device).
std::optional<bool> accessesBuffers(Operation *op) {
  if (auto load = dyn_cast<memref::LoadOp>(op); load && isHostBuffer(load.getMemref()))
    return false;
  if (auto store = dyn_cast<memref::StoreOp>(op);
      store && isHostBuffer(store.getMemref()))
    return false;
  if (isa_and_nonnull<gpu::GPUDialect>(op->getDialect()) ||
      isa<memref::AllocOp, memref::DeallocOp, func::CallOp,
          func::ReturnOp>(op))
    return false; // Host-side runtime calls on host or device pointers.
  if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
    return false; // Decided by the nested ops.
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects) {
    bool touchesMemref = llvm::any_of(op->getOperandTypes(), [](Type t) {
      return isa<BaseMemRefType>(t);
    });
    return touchesMemref ? std::nullopt : std::optional<bool>(false);
  }
  SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffects(list);
  return llvm::any_of(list, [](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Read, MemoryEffects::Write>(e.getEffect());
  });
}

Where classify(Operation *op, Operation *&culprit) {
  bool device = false, hostOnly = false, kernels = false;
  WalkResult result = op->walk<WalkOrder::PreOrder>([&](Operation *nested) {
    if (isa<scf::ParallelOp>(nested)) {
      kernels = true;
      return WalkResult::skip();
    }
    if (isa_and_nonnull<gpu::GPUDialect>(nested->getDialect()) ||
        isa<memref::AllocOp, memref::DeallocOp, func::CallOp>(nested))
      hostOnly = true;
    std::optional<bool> access = accessesBuffers(nested);
    if (!access) {
      culprit = nested;
      return WalkResult::interrupt();
    }
    device |= *access;
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return Where::Unknown;
  if (kernels || hostOnly)
    return op->getNumRegions() && (device || kernels) ? Where::HostRegion
                                                      : Where::Host;
  return device ? Where::Device : Where::Host;
}

struct GPUMapLoopsPass : public remat::impl::GPUMapLoopsPassBase<GPUMapLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (blockSize < 1 || blockSize > 1024) {
      getOperation().emitError()
          << "remat-gpu-map-loops: block-size must be in [1, 1024], got "
          << static_cast<int64_t>(blockSize);
      return signalPassFailure();
    }
    for (Block &block : getOperation().getBody())
      if (failed(mapBlock(block)))
        return signalPassFailure();
  }

  LogicalResult mapBlock(Block &block);
  void mapParallel(scf::ParallelOp loop);
  LogicalResult wrap(ArrayRef<Operation *> group);
};

void GPUMapLoopsPass::mapParallel(scf::ParallelOp loop) {
  // Nested parallel loops (none from linalg) run inside each thread.
  loop.getBody()->walk([](scf::ParallelOp nested) {
    if (!isMapped(nested))
      setSequential(nested);
  });
  if (isMapped(loop))
    return;
  unsigned n = loop.getNumLoops();
  SmallVector<int64_t> tiles(n, 1);
  int64_t left = blockSize;
  unsigned used = 0;
  for (int i = static_cast<int>(n) - 1; i >= 0 && used < 3 && left > 1; --i) {
    std::optional<int64_t> trip = tripCount(loop, i);
    if (trip && *trip <= 1)
      continue;
    int64_t t = std::min<int64_t>(trip ? *trip : 32, left);
    // A divisor of the trip count at least half as large leaves no thread
    // of the last block idle.
    if (trip && *trip % t != 0)
      for (int64_t d = t - 1; 2 * d >= t; --d)
        if (*trip % d == 0) {
          t = d;
          break;
        }
    tiles[i] = t;
    left /= t;
    ++used;
  }
  SmallVector<std::optional<int64_t>> trips = tripCounts(loop);
  if (!loop.getInitVals().empty() || llvm::all_of(tiles, [](int64_t t) {
        return t == 1;
      })) {
    setMapping(loop, /*threads=*/false, trips);
    return;
  }
  // Iterations of the tiled loops, known before tiling (the tiled bounds
  // are not folded constants).
  SmallVector<std::optional<int64_t>> outerTrips, innerTrips;
  for (auto [trip, tile] : llvm::zip(trips, tiles)) {
    outerTrips.push_back(trip ? std::optional<int64_t>(
                                    llvm::divideCeil(*trip, tile))
                              : std::nullopt);
    innerTrips.push_back(tile);
  }
  auto [outer, inner] =
      scf::tileParallelLoop(loop, tiles, /*noMinMaxBounds=*/true);
  setMapping(outer, /*threads=*/false, outerTrips);
  setMapping(inner, /*threads=*/true, innerTrips);
}

/// Moves `group` (device ops and the pure ops that use their results, in
/// order) into a one-thread kernel placed after its last op.
LogicalResult GPUMapLoopsPass::wrap(ArrayRef<Operation *> group) {
  llvm::SmallPtrSet<Operation *, 8> members(group.begin(), group.end());
  for (Operation *op : group)
    for (Value result : op->getResults())
      for (Operation *user : result.getUsers())
        if (!members.contains(user) &&
            !members.contains(group.front()->getBlock()->findAncestorOpInBlock(
                *user))) {
          InFlightDiagnostic diag =
              op->emitError()
              << "'" << op->getName()
              << "' has no GPU lowering here: it runs on device memory and "
                 "the host needs its result";
          diag.attachNote(user->getLoc()) << "used on the host here";
          return diag;
        }
  OpBuilder b(group.back()->getContext());
  b.setInsertionPointAfter(group.back());
  Location loc = group.front()->getLoc();
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
  auto kernel = scf::ParallelOp::create(b, loc, ValueRange{c0},
                                        ValueRange{c1}, ValueRange{c1});
  Operation *terminator = kernel.getBody()->getTerminator();
  for (Operation *op : group)
    op->moveBefore(terminator);
  MLIRContext *ctx = kernel.getContext();
  AffineMap id = AffineMap::getMultiDimIdentityMap(1, ctx);
  (void)gpu::setMappingAttr(kernel, {gpu::ParallelLoopDimMappingAttr::get(
                                        ctx, Processor::BlockX, id, id)});
  return success();
}

LogicalResult GPUMapLoopsPass::mapBlock(Block &block) {
  SmallVector<Operation *> group;
  llvm::SmallPtrSet<Operation *, 8> members;
  auto flush = [&]() -> LogicalResult {
    LogicalResult result = group.empty() ? success() : wrap(group);
    group.clear();
    members.clear();
    return result;
  };
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
      if (failed(flush()))
        return failure();
      mapParallel(loop);
      continue;
    }
    if (isa<gpu::LaunchOp>(op)) {
      if (failed(flush()))
        return failure();
      continue; // Already a kernel.
    }
    Operation *culprit = nullptr;
    switch (classify(&op, culprit)) {
    case Where::Device:
      if (isa<linalg::LinalgOp>(op))
        return op.emitError()
               << "'" << op.getName()
               << "' has no GPU lowering: convert-linalg-to-parallel-loops "
                  "left it as it is";
      group.push_back(&op);
      members.insert(&op);
      continue;
    case Where::Host: {
      // A pure op computing from the group's results goes with it.
      bool feedsOnGroup = llvm::any_of(op.getOperands(), [&](Value v) {
        return members.contains(v.getDefiningOp());
      });
      if (feedsOnGroup && isMemoryEffectFree(&op) && op.getNumRegions() == 0 &&
          !op.hasTrait<OpTrait::IsTerminator>()) {
        group.push_back(&op);
        members.insert(&op);
        continue;
      }
      if (!isMemoryEffectFree(&op) && failed(flush()))
        return failure();
      continue;
    }
    case Where::HostRegion:
      if (failed(flush()))
        return failure();
      for (Region &region : op.getRegions())
        for (Block &nested : region)
          if (failed(mapBlock(nested)))
            return failure();
      continue;
    case Where::Unknown:
      return culprit->emitError()
             << "'" << culprit->getName()
             << "' has no GPU lowering: it uses a memref but does not say "
                "how it accesses memory";
    }
  }
  return flush();
}

} // namespace
