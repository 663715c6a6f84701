//===- TestScanMatch.cpp - What the scan recognizer proves (tests) --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Analysis/ScanLoops.h"
#include "TestPasses.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/FormatVariadic.h"

namespace remat {
#define GEN_PASS_DEF_TESTSCANMATCHPASS
#include "TestPasses.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {

std::string operandName(Value v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  v.printAsOperand(os, OpPrintingFlags());
  return s;
}

const char *kindName(StackRead::Kind kind) {
  switch (kind) {
  case StackRead::Kind::Row:
    return "row";
  case StackRead::Kind::CarryEntering:
    return "carry entering";
  case StackRead::Kind::CarryInit:
    return "carry init";
  case StackRead::Kind::CarryFinal:
    return "carry final";
  }
  return "";
}

void describe(const ScanPair &scan) {
  InFlightDiagnostic d = scan.forward->emitRemark();
  d << "scan: T = " << scan.steps << (scan.online() ? " at most" : "")
    << ", index " << scan.lower << " + " << scan.step << "*k";
  for (auto [s, k] : llvm::enumerate(scan.stacks))
    d << "; stack #" << k << " rows " << scan.rowStride[s] << "*k + "
      << scan.rowBase[s]
      << (scan.rowAxis[s] ? " along axis " + std::to_string(scan.rowAxis[s])
                          : std::string())
      << (scan.keptWhole[s] ? ", kept for reads after the loop" : "");
  d << "; backward index " << operandName(scan.backwardLower) << " + "
    << scan.backwardStep << "*m";
  for (const StackRead &read : scan.reads) {
    InFlightDiagnostic r = read.op->emitRemark();
    r << "reads " << kindName(read.kind);
    if (read.kind == StackRead::Kind::Row)
      r << " of stack #" << scan.stacks[read.stack];
    else
      r << " #" << scan.carries[read.carry];
  }
}

/// Inside an scf.for of constant bounds, what the scan matcher assumes of
/// its index: lower + step * k, with k (printed as the index) in
/// [0, T - 1].
IndexFacts loopFacts(Operation *op) {
  IndexFacts facts;
  auto loop = op->getParentOfType<scf::ForOp>();
  if (!loop)
    return facts;
  std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!lower || !upper || !step || *step <= 0 || *upper <= *lower)
    return facts;
  return iterationFacts(loop.getInductionVar(), IndexExpr::constant(*lower),
                        *step, (*upper - *lower + *step - 1) / *step);
}

struct TestScanMatchPass
    : public remat::impl::TestScanMatchPassBase<TestScanMatchPass> {
  using TestScanMatchPassBase::TestScanMatchPassBase;
  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      if (op->hasAttr("test.index") && op->getNumResults() == 1)
        op->emitRemark() << "index = "
                         << indexExprOf(op->getResult(0), loopFacts(op))
                                .str(operandName);
    });
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      llvm::SmallPtrSet<Operation *, 4> backward;
      for (Operation &op : func.getBody().front()) {
        if (!isa<scf::ForOp, scf::WhileOp>(op) || backward.contains(&op))
          continue;
        auto match = matchScan(&op);
        if (auto *why = std::get_if<std::string>(&match)) {
          op.emitRemark() << "not a scan: " << *why;
          continue;
        }
        backward.insert(std::get<ScanPair>(match).backward);
        describe(std::get<ScanPair>(match));
      }
    }
  }
};

} // namespace
