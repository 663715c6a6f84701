//===- RematOptionDecls.h - The options of -remat-rematerialize, once -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// -remat-rematerialize, the -remat-fit pipeline and remat-opt's
// --remat-<option> flags declare their options here and nowhere else: the
// global settings (budget, strategy, report, cost-table, functions,
// dim-bounds, alignment, scan-slots, offload, offload-results,
// link-bandwidth, link-latency, host-budget, offload-blocking) and one option per strategy option the
// registered strategies declare
// (allStrategyOptions(), typed like its SolveOptions field), with the help,
// default and range remat-plan prints for the same option.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_TRANSFORMS_REMATOPTIONDECLS_H
#define REMAT_TRANSFORMS_REMATOPTIONDECLS_H

#include "remat/Solver/Core/Strategy.h"
#include "remat/Transforms/RematSettings.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

#include <memory>
#include <variant>

namespace remat {

/// `Owner` is mlir::Pass (the pass's options) or mlir::detail::PassOptions
/// (a pipeline's): both provide Option<T> and ListOption<T> bound to it.
/// Every instance declares the same options in the same order, which is
/// what copying a pass's option values relies on.
template <typename Owner>
class RematOptionDecls {
  template <typename T>
  using Opt = typename Owner::template Option<T>;
  template <typename T>
  using ListOpt = typename Owner::template ListOption<T>;

public:
  explicit RematOptionDecls(Owner &owner)
      : budgetDesc(budgetHelp()), strategyDesc(strategyHelp()),
        budget(owner, "budget", llvm::cl::desc(budgetDesc),
               llvm::cl::value_desc("size")),
        strategy(owner, "strategy", llvm::cl::desc(strategyDesc),
                 llvm::cl::value_desc("name"), llvm::cl::init("auto")),
        report(owner, "report", llvm::cl::value_desc("file.json"),
               llvm::cl::desc("Write what was kept and recomputed, and the "
                              "peaks before and after, as JSON")),
        costTable(owner, "cost-table", llvm::cl::value_desc("file.json"),
                  llvm::cl::desc("Measured per-op costs (keyed by op name or "
                                 "location) that override the analytic cost "
                                 "model")),
        functions(owner, "functions", llvm::cl::value_desc("name,..."),
                  llvm::cl::desc(
                      "Fit only these functions, each of which must be a "
                      "training step (default: every training step; drivers, "
                      "init and eval functions are skipped with a remark)")),
        dimBounds(owner, "dim-bounds", llvm::cl::value_desc("argK:D=N,..."),
                  llvm::cl::desc(
                      "Upper bounds of dynamic argument dimensions (argument "
                      "K's dimension D is at most N), for every function "
                      "fitted: the plan holds for every size up to them. "
                      "Sizes of other values follow by value-bounds analysis; "
                      "a remat.bounds attribute on an argument does the "
                      "same")),
        alignment(owner, "alignment", llvm::cl::value_desc("bytes"),
                  llvm::cl::init(kDefaultAllocAlignment),
                  llvm::cl::desc(
                      "How the target rounds allocations: every buffer "
                      "counts its size rounded up to this power of two, as "
                      "-remat-lower-to-cpu/-gpu allocate it with the same "
                      "`alignment` (default 64, theirs; 1 counts exact "
                      "tensor bytes; give the lowering the same value)")),
        scanSlots(owner, "scan-slots", llvm::cl::value_desc("K"),
                  llvm::cl::init(0),
                  llvm::cl::desc(
                      "Checkpoint every scan (a loop stacking what its "
                      "reverse reads) with K slots (at most its steps), and "
                      "plan the rest of the function around them (default "
                      "0: the count of the fastest plan within the budget)")),
        offload(owner, "offload", llvm::cl::init(false),
                llvm::cl::desc(
                    "Plan with host memory too: a value may be copied to the "
                    "host after its last use before a long gap and back "
                    "before its next use (remat.offload, remat.prefetch), "
                    "where that meets the budget faster than recomputation "
                    "or below what recomputation alone reaches "
                    "(offload-greedy; checkmate-milp-offload when named), "
                    "and a scan's stacks may stay in host memory, a row "
                    "copied each way per step, where that is faster or "
                    "smaller than checkpointing it; lowered by "
                    "-remat-lower-to-gpu only (default off)")),
        offloadResults(
            owner, "offload-results", llvm::cl::init(false),
            llvm::cl::desc(
                "With offload: a result (a gradient) may also be copied to "
                "the host once nothing reads it again and returned from "
                "host memory, as ZeRO-Offload moves gradients for a host "
                "optimizer; the caller then receives it there (pinned "
                "memory the GPU can read; default off)")),
        linkBandwidth(owner, "link-bandwidth", llvm::cl::value_desc("GB/s"),
                      llvm::cl::init(CopyLinkOptionText::kBandwidthGBps),
                      llvm::cl::desc(CopyLinkOptionText::kBandwidthHelp)),
        linkLatency(owner, "link-latency", llvm::cl::value_desc("us"),
                    llvm::cl::init(CopyLinkOptionText::kLatencyUs),
                    llvm::cl::desc(CopyLinkOptionText::kLatencyHelp)),
        hostBudget(owner, "host-budget", llvm::cl::value_desc("size"),
                   llvm::cl::desc(CopyLinkOptionText::kHostBudgetHelp)),
        offloadBlocking(owner, "offload-blocking", llvm::cl::init(false),
                        llvm::cl::desc(CopyLinkOptionText::kBlockingHelp)),
        strategyDecls(allStrategyOptions()) {
    // cl keeps references to the names and help texts: both live in this
    // object, filled before any option refers to them.
    helps.reserve(strategyDecls.size());
    for (const StrategyOption &decl : strategyDecls)
      helps.push_back(decl.helpText());
    for (size_t i = 0; i < strategyDecls.size(); ++i)
      std::visit(
          [&](auto field) { declare(owner, strategyDecls[i], helps[i], field); },
          strategyDecls[i].field);
  }
  RematOptionDecls(const RematOptionDecls &) = delete;
  RematOptionDecls &operator=(const RematOptionDecls &) = delete;

  /// The values as given (checkRematSettings() says whether they are valid).
  RematSettings settings() const {
    RematSettings s;
    s.budget = budget;
    s.strategy = strategy;
    s.report = report;
    s.costTable = costTable;
    s.functions.assign(functions.begin(), functions.end());
    s.dimBounds.assign(dimBounds.begin(), dimBounds.end());
    s.alignment = alignment;
    s.scanSlots = scanSlots;
    s.offload = offload;
    s.offloadResults = offloadResults;
    s.linkBandwidth = linkBandwidth;
    s.linkLatency = linkLatency;
    s.hostBudget = hostBudget;
    s.offloadBlocking = offloadBlocking;
    for (size_t i = 0; i < strategyDecls.size(); ++i)
      std::visit(
          [&](const auto &opt) {
            strategyDecls[i].set(s.solve, widen(opt->getValue()));
          },
          strategyOptions[i]);
    return s;
  }

  /// Every option, in declaration order (for listings).
  std::vector<const llvm::cl::Option *> all() const {
    std::vector<const llvm::cl::Option *> list;
    list.push_back(&budget);
    list.push_back(&strategy);
    list.push_back(&report);
    list.push_back(&costTable);
    list.push_back(std::addressof(functions)); // cl::list overloads &.
    list.push_back(std::addressof(dimBounds));
    list.push_back(&alignment);
    list.push_back(&scanSlots);
    list.push_back(&offload);
    list.push_back(&offloadResults);
    list.push_back(&linkBandwidth);
    list.push_back(&linkLatency);
    list.push_back(&hostBudget);
    list.push_back(&offloadBlocking);
    for (const auto &opt : strategyOptions)
      std::visit([&](const auto &o) { list.push_back(o.get()); }, opt);
    return list;
  }

  /// Sets every option from `s` (a pass built from a pipeline's settings).
  void assign(const RematSettings &s) {
    budget = s.budget;
    strategy = s.strategy;
    report = s.report;
    costTable = s.costTable;
    functions = llvm::ArrayRef<std::string>(s.functions);
    dimBounds = llvm::ArrayRef<std::string>(s.dimBounds);
    alignment = s.alignment;
    scanSlots = s.scanSlots;
    offload = s.offload;
    offloadResults = s.offloadResults;
    linkBandwidth = s.linkBandwidth;
    linkLatency = s.linkLatency;
    hostBudget = s.hostBudget;
    offloadBlocking = s.offloadBlocking;
    for (size_t i = 0; i < strategyDecls.size(); ++i)
      std::visit(
          [&](auto &opt) { assignOne(*opt, s.solve, strategyDecls[i].field); },
          strategyOptions[i]);
  }

private:
  template <typename T>
  void declare(Owner &owner, const StrategyOption &decl,
               const std::string &help, T SolveOptions::*field) {
    static const SolveOptions defaults;
    strategyOptions.push_back(std::make_unique<Opt<T>>(
        owner, decl.name, llvm::cl::desc(help),
        llvm::cl::value_desc(decl.valueName),
        llvm::cl::init(defaults.*field)));
  }
  template <typename T>
  static void assignOne(Opt<T> &opt, const SolveOptions &o,
                        const StrategyOption::Field &field) {
    std::visit([&](auto f) { opt = static_cast<T>(o.*f); }, field);
  }
  static int64_t widen(int v) { return v; }
  static int64_t widen(int64_t v) { return v; }
  static double widen(double v) { return v; }

  std::string budgetDesc, strategyDesc;

public:
  Opt<std::string> budget;
  Opt<std::string> strategy;
  Opt<std::string> report;
  Opt<std::string> costTable;
  ListOpt<std::string> functions;
  ListOpt<std::string> dimBounds;
  Opt<int64_t> alignment;
  Opt<int64_t> scanSlots;
  Opt<bool> offload;
  Opt<bool> offloadResults;
  Opt<double> linkBandwidth;
  Opt<double> linkLatency;
  Opt<std::string> hostBudget;
  Opt<bool> offloadBlocking;

private:
  std::vector<StrategyOption> strategyDecls;
  std::vector<std::string> helps;
  std::vector<std::variant<std::unique_ptr<Opt<int>>,
                           std::unique_ptr<Opt<int64_t>>,
                           std::unique_ptr<Opt<double>>>>
      strategyOptions;
};

} // namespace remat

#endif // REMAT_TRANSFORMS_REMATOPTIONDECLS_H
