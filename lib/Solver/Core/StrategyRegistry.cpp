//===- StrategyRegistry.cpp - The strategies solve() knows ----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Core/StrategyRegistry.h"

#include <algorithm>

namespace remat {

StrategyRegistry &StrategyRegistry::global() {
  static StrategyRegistry registry = [] {
    StrategyRegistry r;
    registerBuiltinStrategies(r);
    return r;
  }();
  return registry;
}

bool StrategyRegistry::add(StrategyDescriptor d) {
  if (find(d.name))
    return false;
  auto at = std::upper_bound(
      strategies.begin(), strategies.end(), d.rank,
      [](int rank, const StrategyDescriptor &s) { return rank < s.rank; });
  strategies.insert(at, std::move(d));
  return true;
}

bool StrategyRegistry::remove(const std::string &name) {
  auto it = std::find_if(strategies.begin(), strategies.end(),
                         [&](const StrategyDescriptor &s) {
                           return s.name == name;
                         });
  if (it == strategies.end())
    return false;
  strategies.erase(it);
  return true;
}

const StrategyDescriptor *
StrategyRegistry::find(const std::string &name) const {
  for (const StrategyDescriptor &s : strategies)
    if (s.name == name)
      return &s;
  return nullptr;
}

} // namespace remat
