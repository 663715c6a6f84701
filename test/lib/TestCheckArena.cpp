//===- TestCheckArena.cpp - Arena views live together never overlap -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Re-derives the lifetimes of the views of an arena from the IR and hands
// them, with the offsets found in the IR, to the packer's own checker. Only
// the offsets come from the planner's output, so a wrong offset, a wrong
// lifetime or a wrong in-place decision shows up here.
//
//===----------------------------------------------------------------------===//

#include "remat/BufferPlanning/ArenaAllocation.h"
#include "TestPasses.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"

namespace remat {
#define GEN_PASS_DEF_TESTCHECKARENAPASS
#include "TestPasses.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {

/// The views at constant offsets carved out of `alloc`, in program order,
/// if `alloc` is an arena (a static i8 buffer used only by such views and
/// deallocs).
std::optional<SmallVector<std::pair<memref::ViewOp, int64_t>>>
arenaViews(FunctionOpInterface func, memref::AllocOp alloc) {
  MemRefType type = alloc.getType();
  if (type.getRank() != 1 || !type.hasStaticShape() ||
      !type.getElementType().isInteger(8))
    return std::nullopt;
  for (Operation *user : alloc->getUsers()) {
    auto view = dyn_cast<memref::ViewOp>(user);
    if (!isa<memref::DeallocOp>(user) &&
        (!view || view.getSource() != alloc.getResult() ||
         !view.getSizes().empty() ||
         !matchPattern(view.getByteShift(), m_Constant())))
      return std::nullopt;
  }
  SmallVector<std::pair<memref::ViewOp, int64_t>> views;
  func->walk<WalkOrder::PreOrder>([&](memref::ViewOp view) {
    APInt offset;
    if (view.getSource() == alloc.getResult() &&
        matchPattern(view.getByteShift(), m_ConstantInt(&offset)))
      views.push_back({view, offset.getSExtValue()});
  });
  if (views.empty())
    return std::nullopt;
  return views;
}

struct TestCheckArenaPass
    : public remat::impl::TestCheckArenaPassBase<TestCheckArenaPass> {
  using Base::Base;

  void runOnOperation() override {
    CallSummaries calls;
    bool failed = false;
    getOperation()->walk([&](FunctionOpInterface func) {
      if (func.isExternal())
        return;
      func->walk([&](memref::AllocOp alloc) {
        if (auto views = arenaViews(func, alloc))
          failed |= mlir::failed(check(func, alloc, *views, calls));
      });
    });
    if (failed)
      signalPassFailure();
  }

  LogicalResult check(FunctionOpInterface func, memref::AllocOp alloc,
                      ArrayRef<std::pair<memref::ViewOp, int64_t>> views,
                      CallSummaries &calls) {
    const BufferAliases &aliases = calls.aliases(func);
    SmallVector<BufferInfo> infos;
    for (auto [view, offset] : views) {
      infos.push_back(analyzeBuffer(view.getResult(), aliases, calls));
      if (infos.back().escapes())
        return view.emitError()
               << "arena view is " << describe(infos.back().escape);
      if (!func.getFunctionBody().front().findAncestorOpInBlock(*view))
        return view.emitError() << "arena view outside the entry block";
    }
    std::vector<arena::Buffer> problem = buildPackingProblem(func, infos);

    arena::Plan plan;
    plan.arenaSize = alloc.getType().getNumElements();
    std::vector<bool> takenOver(views.size(), false);
    for (auto [i, entry] : llvm::enumerate(views)) {
      plan.offsets.push_back(entry.second);
      int64_t x = problem[i].inPlaceOf;
      bool inPlace = x >= 0 && !takenOver[x] &&
                     views[x].second == entry.second &&
                     problem[x].end == problem[i].start &&
                     problem[x].size == problem[i].size;
      if (inPlace)
        takenOver[x] = true;
      plan.inPlace.push_back(inPlace);
    }

    if (std::optional<arena::Violation> v =
            arena::verify(problem, plan, alignment)) {
      Operation *first = views[std::max<int64_t>(v->first, 0)].first;
      InFlightDiagnostic diag = first->emitError()
                                << "arena plan is wrong: " << v->message;
      if (v->second >= 0)
        diag.attachNote(views[v->second].first->getLoc()) << "the other buffer";
      return failure();
    }
    alloc.emitRemark() << "arena checked: " << views.size()
                       << " views, no overlap between buffers live together";
    return success();
  }
};

} // namespace
