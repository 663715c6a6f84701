//===- StrategyRegistry.h - The strategies solve() knows ------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Each family registers its descriptors through its own function
// (registerChainStrategies, ... in <Family>/<Family>Strategies.h), called
// from registerBuiltinStrategies; an embedder or a test may add more. The
// solver is a static library, so registration is explicit: a static
// initializer in an unreferenced object file would be dropped by the linker.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_CORE_STRATEGYREGISTRY_H
#define REMAT_SOLVER_CORE_STRATEGYREGISTRY_H

#include "remat/Solver/Core/StrategyDescriptor.h"

#include <string>
#include <vector>

namespace remat {

class StrategyRegistry {
public:
  /// The registry solve() uses, with the built-in strategies registered on
  /// first use. Register before solving: adding or removing moves the
  /// descriptors (pointers from find() are then stale).
  static StrategyRegistry &global();

  /// Adds `d`, kept in rank order (equal ranks: registration order); false
  /// when its name is taken.
  bool add(StrategyDescriptor d);
  /// Removes the strategy `name`; false when unknown.
  bool remove(const std::string &name);
  const StrategyDescriptor *find(const std::string &name) const;
  const std::vector<StrategyDescriptor> &all() const { return strategies; }

private:
  std::vector<StrategyDescriptor> strategies;
};

/// Registers every family's strategies and auto. Defined by the portfolio
/// layer (lib/Solver/Portfolio), the one place that knows every family.
void registerBuiltinStrategies(StrategyRegistry &registry);

} // namespace remat

#endif // REMAT_SOLVER_CORE_STRATEGYREGISTRY_H
