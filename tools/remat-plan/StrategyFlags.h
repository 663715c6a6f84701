//===- StrategyFlags.h - Command-line flags from the strategies' options --===//
//
// One --<name> flag per option the registered strategies declare
// (StrategyDescriptor::options): name, help, default and range come from the
// declaration, so remat-plan lists and checks exactly what the solver reads.
// Strategies that share an option (--slots) share its flag.
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

  /// Why a value is out of range ("--slots must be at least 1"), for the
  /// first such flag; "" when all are in range.
  std::string check() const;
  /// Sets the bound SolveOptions fields.
  void apply(SolveOptions &o) const;

private:
  struct Flag;
  std::vector<std::unique_ptr<Flag>> flags;
};

} // namespace remat

#endif // REMAT_TOOLS_REMAT_PLAN_STRATEGYFLAGS_H
