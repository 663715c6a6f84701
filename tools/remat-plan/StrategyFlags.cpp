//===- StrategyFlags.cpp - Command-line flags from the strategies' options ===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "StrategyFlags.h"

#include "remat/Solver/Core/Strategy.h"

#include <variant>

namespace remat {

namespace cl = llvm::cl;

/// The declaration and the cl::opt of the field's type (so a value beyond
/// an int field's range is refused by the parser, as before).
struct StrategyFlags::Flag {
  StrategyOption decl;
  std::string help; ///< cl keeps references to the strings.
  std::variant<std::unique_ptr<cl::opt<int>>, std::unique_ptr<cl::opt<int64_t>>,
               std::unique_ptr<cl::opt<double>>>
      opt;

  Flag(StrategyOption d, cl::OptionCategory &category) : decl(std::move(d)) {
    help = decl.helpText();
    std::visit([&](auto field) { declare(field, category); }, decl.field);
  }

  template <typename T>
  void declare(T SolveOptions::*field, cl::OptionCategory &category) {
    static const SolveOptions defaults;
    opt = std::make_unique<cl::opt<T>>(
        llvm::StringRef(decl.name), cl::desc(help),
        cl::value_desc(decl.valueName),
        cl::init(defaults.*field), cl::cat(category));
  }
};

namespace {

/// Integer values are checked and set as int64_t, reals as double.
int64_t widen(int v) { return v; }
int64_t widen(int64_t v) { return v; }
double widen(double v) { return v; }

} // namespace

StrategyFlags::StrategyFlags(cl::OptionCategory &category) {
  for (StrategyOption &o : allStrategyOptions())
    flags.push_back(std::make_unique<Flag>(std::move(o), category));
}

StrategyFlags::~StrategyFlags() = default;

void StrategyFlags::apply(SolveOptions &o) const {
  for (const auto &f : flags)
    std::visit([&](const auto &opt) { f->decl.set(o, widen(opt->getValue())); },
               f->opt);
}

} // namespace remat
