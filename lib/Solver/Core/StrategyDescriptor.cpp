//===- StrategyDescriptor.cpp - Option declarations, graph measures -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Core/StrategyDescriptor.h"

#include <cmath>
#include <cstdio>
#include <sstream>
#include <type_traits>

namespace remat {

double GraphMeasures::linearCost() const {
  return 1.5e-6 * n * std::log2(n + 2);
}

std::string formatSeconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g s", s);
  return buf;
}

std::string StrategyOption::defaultText() const {
  static const SolveOptions defaults;
  std::ostringstream os;
  std::visit([&](auto f) { os << defaults.*f; }, field);
  return os.str();
}

std::string StrategyOption::rangeText() const {
  std::ostringstream os;
  if (isInteger())
    os << "at least " << static_cast<int64_t>(min);
  else if (minExclusive && min == 0)
    os << "a positive number of " << unit;
  else
    os << "a finite number of " << unit << " >= " << min;
  return os.str();
}

std::string StrategyOption::helpText() const {
  return help + " (default: " + defaultText() + "; " + rangeText() + ")";
}

std::string StrategyOption::checkValue(const SolveOptions &o) const {
  std::ostringstream got;
  bool ok = std::visit(
      [&](auto f) {
        got << o.*f;
        if constexpr (std::is_same_v<decltype(f), double SolveOptions::*>)
          return inRange(o.*f);
        else
          return inRange(static_cast<int64_t>(o.*f));
      },
      field);
  return ok ? "" : name + " must be " + rangeText() + ", got " + got.str();
}

bool StrategyOption::inRange(double v) const {
  if (!std::isfinite(v))
    return false;
  return minExclusive ? v > min : v >= min;
}

void StrategyOption::set(SolveOptions &o, int64_t v) const {
  if (auto *f = std::get_if<int SolveOptions::*>(&field))
    o.**f = static_cast<int>(v);
  else if (auto *f = std::get_if<int64_t SolveOptions::*>(&field))
    o.**f = v;
  else
    set(o, static_cast<double>(v));
}

void StrategyOption::set(SolveOptions &o, double v) const {
  if (auto *f = std::get_if<double SolveOptions::*>(&field))
    o.**f = v;
}

} // namespace remat
