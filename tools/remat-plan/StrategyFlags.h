//===- StrategyFlags.h - Command-line flags from the strategies' options --===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// One --<name> flag per option the registered strategies declare
// (allStrategyOptions()): name, help, default and range come from the
// declaration, so remat-plan lists and checks exactly what the solver reads,
// as -remat-rematerialize and -remat-fit do (RematOptionDecls.h).
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_TOOLS_REMAT_PLAN_STRATEGYFLAGS_H
#define REMAT_TOOLS_REMAT_PLAN_STRATEGYFLAGS_H

#include "remat/Solver/Core/StrategyDescriptor.h"

#include "llvm/Support/CommandLine.h"

#include <memory>
#include <string>
#include <vector>

namespace remat {

class StrategyFlags {
public:
  /// Declares the flags in `category`; call before parsing.
  explicit StrategyFlags(llvm::cl::OptionCategory &category);
  ~StrategyFlags();

  /// Sets the bound SolveOptions fields (checkStrategyOptions() says what
  /// is out of range).
  void apply(SolveOptions &o) const;

private:
  struct Flag;
  std::vector<std::unique_ptr<Flag>> flags;
};

} // namespace remat

#endif // REMAT_TOOLS_REMAT_PLAN_STRATEGYFLAGS_H
