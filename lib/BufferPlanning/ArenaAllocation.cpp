//===- ArenaAllocation.cpp - One arena per function -----------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/BufferPlanning/ArenaAllocation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

using namespace mlir;
using namespace remat;

std::optional<int64_t> remat::staticByteSize(MemRefType type,
                                             Operation *scope) {
  if (!type.hasStaticShape())
    return std::nullopt;
  DataLayout layout = DataLayout::closest(scope);
  return type.getNumElements() *
         static_cast<int64_t>(layout.getTypeSize(type.getElementType()));
}

bool remat::isArenaCandidate(const BufferInfo &info, FunctionOpInterface func) {
  auto alloc = info.root.getDefiningOp<memref::AllocOp>();
  if (!alloc || info.escapes())
    return false;
  // A host copy's buffer (remat.host, RematDialect::kHostAttrName; this
  // layer includes no dialect) lives in host memory, not in the arena.
  if (alloc->hasAttr("remat.host"))
    return false;
  MemRefType type = alloc.getType();
  if (!type.hasStaticShape() || !type.getLayout().isIdentity())
    return false;
  if (Attribute space = type.getMemorySpace()) {
    auto integer = dyn_cast<IntegerAttr>(space);
    if (!integer || integer.getInt() != 0)
      return false;
  }
  // The arena is a value of the entry block: reachable from here only if no
  // isolated region lies in between.
  if (alloc->getParentWithTrait<OpTrait::IsIsolatedFromAbove>() != func)
    return false;
  return func.getFunctionBody().front().findAncestorOpInBlock(*alloc);
}

std::vector<arena::Buffer>
remat::buildPackingProblem(FunctionOpInterface func,
                           ArrayRef<BufferInfo> buffers) {
  Block &entry = func.getFunctionBody().front();
  DenseMap<Operation *, int64_t> position;
  for (auto [i, op] : llvm::enumerate(entry))
    position[&op] = static_cast<int64_t>(i);
  auto at = [&](Operation *op) {
    return position.lookup(entry.findAncestorOpInBlock(*op));
  };

  DenseMap<Value, size_t> indexOf;
  std::vector<arena::Buffer> problem(buffers.size());
  for (auto [i, info] : llvm::enumerate(buffers)) {
    indexOf[info.root] = i;
    Operation *def = info.root.getDefiningOp();
    problem[i].start = at(info.firstUse ? info.firstUse : def);
    problem[i].end = at(info.lastUse ? info.lastUse : def);
    problem[i].size =
        staticByteSize(cast<MemRefType>(info.root.getType()), func).value_or(0);
  }

  // In place: the op that first uses buffer i reads buffer j for the last
  // time, element by element at the positions it writes i.
  for (auto [i, info] : llvm::enumerate(buffers)) {
    Operation *op = info.firstUse;
    if (!op || op->getBlock() != &entry || info.block != &entry)
      continue;
    for (Value operand : op->getOperands()) {
      auto it = indexOf.find(operand);
      if (it == indexOf.end() || it->second == i)
        continue;
      const BufferInfo &input = buffers[it->second];
      if (input.block == &entry && input.lastUse == op &&
          mayReuseInPlace(op, input.root, info.root, input.aliases,
                          info.aliases)) {
        problem[i].inPlaceOf = static_cast<int64_t>(it->second);
        break;
      }
    }
  }
  return problem;
}

FailureOr<ArenaSummary> remat::placeInArena(FunctionOpInterface func,
                                            ArrayRef<BufferInfo> buffers,
                                            int64_t alignment) {
  ArenaSummary summary;
  std::vector<arena::Buffer> problem = buildPackingProblem(func, buffers);
  summary.plan = arena::pack(problem, alignment);
  if (std::optional<arena::Violation> violation =
          arena::verify(problem, summary.plan, alignment))
    return func.emitError()
           << "internal error: invalid arena plan: " << violation->message;
  if (buffers.empty())
    return summary;

  Block &entry = func.getFunctionBody().front();
  OpBuilder builder(func.getContext());
  builder.setInsertionPointToStart(&entry);
  Location loc = func.getLoc();
  auto arenaType =
      MemRefType::get({summary.plan.arenaSize}, builder.getI8Type());
  auto arenaAlloc = memref::AllocOp::create(
      builder, loc, arenaType, builder.getI64IntegerAttr(alignment));
  summary.arenaAlloc = arenaAlloc;

  Operation *lastUse = nullptr;
  for (auto [i, info] : llvm::enumerate(buffers)) {
    auto alloc = cast<memref::AllocOp>(info.root.getDefiningOp());
    builder.setInsertionPoint(alloc);
    Value offset = arith::ConstantIndexOp::create(builder, alloc.getLoc(),
                                                  summary.plan.offsets[i])
                       .getResult();
    auto view = memref::ViewOp::create(builder, alloc.getLoc(), alloc.getType(),
                                       arenaAlloc, offset, ValueRange{});
    alloc.replaceAllUsesWith(view.getResult());
    alloc.erase();
    // The arena lives until the last use of its last buffer.
    Operation *last = entry.findAncestorOpInBlock(
        info.lastUse ? *info.lastUse : *view.getOperation());
    if (!lastUse || lastUse->isBeforeInBlock(last))
      lastUse = last;
  }
  builder.setInsertionPointAfter(lastUse);
  memref::DeallocOp::create(builder, loc, arenaAlloc);
  return summary;
}
