//===- LoopCarries.cpp - A loop's iteration arguments, for or while -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "LoopCarries.h"
#include "remat/Analysis/StackRows.h"
#include "remat/Analysis/OpGroups.h"

using namespace mlir;

namespace remat {

std::optional<Carries> carriesOf(Operation *op) {
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return Carries{loop,
                   loop.getInitArgsMutable(),
                   {},
                   loop.getRegionIterArgs(),
                   loop.getBody()->getTerminator(),
                   nullptr};
  auto loop = dyn_cast<scf::WhileOp>(op);
  if (!loop || !passesArgumentsOn(loop))
    return std::nullopt;
  return Carries{loop,
                 loop.getInitsMutable(),
                 loop.getBeforeArguments(),
                 loop.getAfterArguments(),
                 loop.getYieldOp(),
                 loop.getConditionOp()};
}

bool stacksRows(const Carries &loop) {
  for (auto [arg, yielded] : llvm::zip(loop.body, loop.yield->getOperands())) {
    Operation *write = yielded.getDefiningOp();
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!write || !type || insertDest(write) != arg)
      continue;
    std::optional<int64_t> axis = rowAxisOf(write, type);
    std::optional<IndexExpr> row =
        axis ? wholeRow(write, type, *axis) : std::nullopt;
    if (row && !row->asConstant())
      return true;
  }
  return false;
}

} // namespace remat
