//===- CostModel.cpp - Time and bytes of ops for the planner --------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Analysis/CostModel.h"
#include "remat/Analysis/Collectives.h"
#include "remat/Dialect/Remat/Remat.h"
#include "remat/Solver/Core/CopyLink.h"
#include "remat/Support/CheckedArithmetic.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

#include "remat/Analysis/CostInterface.cpp.inc"

namespace remat {

std::optional<int64_t> typeBytes(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !isa<TensorType, MemRefType>(type))
    return 0;
  if (!shaped.hasStaticShape())
    return std::nullopt;
  Type elem = shaped.getElementType();
  // index has no bit width of its own (asking crashes): 64 bits, as the
  // lowering stores it on the hosts this project targets.
  int64_t bits = elem.isIndex()         ? 64
                 : elem.isIntOrFloat() ? elem.getIntOrFloatBitWidth()
                 : isa<ComplexType>(elem)
                     ? 2 * cast<ComplexType>(elem)
                               .getElementType()
                               .getIntOrFloatBitWidth()
                     : 64;
  std::optional<int64_t> bytes = (bits + 7) / 8;
  for (int64_t dim : shaped.getShape())
    if (bytes)
      bytes = checkedMul(*bytes, dim);
  return bytes.value_or(kTooManyBytes);
}

std::optional<int64_t> CostModel::bufferBytes(Type type) const {
  std::optional<int64_t> bytes = typeBytes(type);
  if (!bytes)
    return std::nullopt;
  return roundUpToAlignment(*bytes, alignment);
}

namespace {

/// The memref type One-Shot Bufferize gives `v`'s buffer: its own buffer's
/// (an identity layout, as for function arguments and fresh allocations),
/// or a view's strided layout through slices and reshapes of one.
MemRefType bufferTypeOf(Value v, int depth = 0) {
  auto tensor = cast<RankedTensorType>(v.getType());
  auto own = MemRefType::get(tensor.getShape(), tensor.getElementType());
  Operation *def = v.getDefiningOp();
  if (!def || depth > 64)
    return own;
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(def))
    return memref::SubViewOp::inferRankReducedResultType(
        tensor.getShape(), bufferTypeOf(slice.getSource(), depth + 1),
        slice.getStaticOffsets(), slice.getStaticSizes(),
        slice.getStaticStrides());
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(def)) {
    FailureOr<MemRefType> t = memref::ExpandShapeOp::computeExpandedType(
        bufferTypeOf(expand.getSrc(), depth + 1), tensor.getShape(),
        expand.getReassociationIndices());
    return succeeded(t) ? *t : own;
  }
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(def)) {
    MemRefType src = bufferTypeOf(collapse.getSrc(), depth + 1);
    if (!memref::CollapseShapeOp::isGuaranteedCollapsible(
            src, collapse.getReassociationIndices()))
      return own; // Copied into a buffer of its own.
    return memref::CollapseShapeOp::computeCollapsedType(
        src, collapse.getReassociationIndices());
  }
  return own;
}

} // namespace

bool reshapeCopies(Operation *op) {
  // memref.reshape takes an identity layout only: bufferization copies a
  // strided source first.
  if (auto reshape = dyn_cast<tensor::ReshapeOp>(op))
    return isa<RankedTensorType>(reshape.getSource().getType()) &&
           !bufferTypeOf(reshape.getSource()).getLayout().isIdentity();
  auto collapse = dyn_cast<tensor::CollapseShapeOp>(op);
  if (!collapse || !isa<RankedTensorType>(collapse.getSrc().getType()))
    return false;
  return !memref::CollapseShapeOp::isGuaranteedCollapsible(
      bufferTypeOf(collapse.getSrc()), collapse.getReassociationIndices());
}

bool isViewLike(Operation *op) {
  // A send's result is its input: the lowering copies nothing. A collapse
  // of a strided view whose dims do not merge is a copy (bufferization
  // allocates and copies it), not a view.
  return isa<ViewLikeOpInterface, tensor::ExtractSliceOp,
             tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::CastOp,
             tensor::BitcastOp, tensor::ReshapeOp, shard::SendOp>(op) &&
         !reshapeCopies(op);
}

std::string costTableKey(Operation *op) {
  Location loc = op->getLoc();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    if (!fused.getLocations().empty())
      loc = fused.getLocations().front();
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return (file.getFilename().getValue() + ":" + Twine(file.getLine()) +
            ":" + Twine(file.getColumn()))
        .str();
  return {};
}

namespace {

/// Splits an explicit total over the op's results in proportion to their
/// types' bytes before alignment (evenly when the types say nothing), each
/// share then aligned.
void splitTotal(Operation *op, bool noData, int64_t total, int64_t alignment,
                SmallVectorImpl<int64_t> &resultBytes) {
  SmallVector<int64_t> typeSizes;
  int64_t known = 0;
  bool allKnown = true;
  for (Value r : op->getResults()) {
    std::optional<int64_t> t = noData ? 0 : typeBytes(r.getType());
    allKnown &= t.has_value() && *t != kTooManyBytes;
    typeSizes.push_back(t.value_or(0));
    if (allKnown)
      known = saturatingAdd(known, *t);
  }
  allKnown &= known > 0 && known != std::numeric_limits<int64_t>::max();
  int64_t remaining = total;
  for (unsigned i = 0, e = resultBytes.size(); i < e; ++i) {
    // total * t / known <= total: computed in 128 bits, it cannot wrap.
    int64_t share =
        allKnown ? static_cast<int64_t>(static_cast<__int128>(total) *
                                        typeSizes[i] / known)
                 : total / static_cast<int64_t>(e);
    if (i + 1 == e)
      share = remaining;
    remaining -= share;
    resultBytes[i] = roundUpToAlignment(share, alignment);
  }
}

/// The op's time and workspace: from the cost table, the attribute, the
/// collective or point-to-point model, a host row's copy, the op's
/// interface, or else one operation per result element.
void setTimeAndWorkspace(Operation *op, CostAttr attr,
                         const CostTableEntry *entry,
                         const std::optional<CollectiveInfo> &coll,
                         OpCost &c) {
  if (entry) {
    c.time = entry->time;
    c.workspace = entry->workspace;
  } else if (attr) {
    c.time = attr.getTimeValue();
    c.workspace = attr.getWorkspace();
  } else if (coll) {
    c.time = collectiveTime(*coll);
  } else if (std::optional<double> p2p = pointToPointTime(op)) {
    c.time = *p2p;
  } else if (isa<OffloadRowOp, PrefetchRowOp>(op)) {
    // A row of a host stack crosses the default link (CopyLink.h: PCIe 5
    // x16, in the nanoseconds of this model), in line with the kernels:
    // the host waits for each copy before the next op that touches it.
    auto offload = dyn_cast<OffloadRowOp>(op);
    Value row = offload ? Value(offload.getValue()) : op->getResult(0);
    int64_t bytes = typeBytes(row.getType()).value_or(0);
    c.time = isa<OffloadRowOp>(op) ? CopyLink{}.offloadTime(bytes)
                                   : CopyLink{}.prefetchTime(bytes);
  } else if (auto iface = dyn_cast<RematCostOpInterface>(op)) {
    c.time = iface.getRematTime();
    c.workspace = iface.getRematWorkspace();
  } else {
    // Unknown op: assume one operation per result element.
    for (Value r : op->getResults())
      if (auto shaped = dyn_cast<ShapedType>(r.getType());
          shaped && shaped.hasStaticShape())
        c.time += static_cast<double>(shaped.getNumElements());
  }
}

} // namespace

FailureOr<OpCost> CostModel::cost(Operation *op,
                                  Operation *symbolScope) const {
  OpCost c;
  // Result sizes from types; views and tensor.empty own no bytes, nor
  // does a host stack (host memory, off the device).
  bool noData = isViewLike(op) || isa<tensor::EmptyOp, HostEmptyOp>(op);
  for (Value r : op->getResults()) {
    std::optional<int64_t> bytes = noData ? 0 : bufferBytes(r.getType());
    if (bytes == kTooManyBytes)
      return op->emitError() << "result #" << c.resultBytes.size() << " ("
                             << r.getType()
                             << ") takes more than 2^63 - 1 bytes";
    c.resultBytes.push_back(bytes.value_or(-1));
  }

  CostAttr attr = op->getAttrOfType<CostAttr>(RematDialect::kCostAttrName);
  if (auto generic = dyn_cast<GenericOp>(op))
    attr = generic.getCost();
  const CostTableEntry *entry = table ? table->lookup(op) : nullptr;

  // Explicit totals override the type-derived sizes, split over the results
  // in proportion to their types' bytes before alignment (evenly when the
  // types say nothing), each share then aligned: a total that is the sum of
  // the types' bytes (what -remat-annotate-costs writes) gives every result
  // its type's size exactly. (Split against aligned sizes, a 4 B result
  // beside large ones got 65 B, 128 B aligned.)
  std::optional<int64_t> total;
  if (attr && attr.getBytes() > 0)
    total = attr.getBytes();
  if (entry && entry->bytes)
    total = *entry->bytes;
  if (total && op->getNumResults() > 0)
    splitTotal(op, noData, *total, alignment, c.resultBytes);
  for (auto [i, b] : llvm::enumerate(c.resultBytes))
    if (b < 0)
      return op->emitError() << "result #" << i << " has a dynamic shape ("
                             << op->getResult(i).getType()
                             << "): give its size with a remat.cost attribute "
                                "or a cost table entry";

  std::optional<CollectiveInfo> coll = collectiveInfo(op, symbolScope);
  setTimeAndWorkspace(op, attr, entry, coll, c);
  // A collective's temporaries are what the runtime allocates, whatever a
  // measured time table or attribute says (calibrate_costs.py writes times
  // only): never less.
  if (coll)
    if (int64_t ws = collectiveWorkspace(*coll))
      c.workspace = std::max(c.workspace, roundUpToAlignment(ws, alignment));
  return c;
}

} // namespace remat
