//===- RematOptMain.cpp - The remat-opt driver ----------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Upstream's MlirOptMain (stream overload) with remat's flags and an atomic
// output. The `MlirOptMain(argc, argv, ...)` overload is not used because it
// writes through a ToolOutputFile, which replaces the output file even when
// the passes fail.
//
//===----------------------------------------------------------------------===//

#include "remat/Tools/RematOptMain.h"
#include "remat/Pipelines/Pipelines.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

using namespace mlir;

namespace {

/// `--remat-<option>=<value>` (or `--remat-<option> <value>`, or
/// `--remat-<flag>` for a bool) for an option
/// of the -remat-fit pipeline (RematPipelineOptions): removed from `args`
/// and collected, quoted, as that pipeline's options. Every other argument
/// (-remat-rematerialize, -remat-lower-to-cpu, ...) is left alone.
std::string takeRematFitFlags(std::vector<char *> &args) {
  remat::RematPipelineOptions known;
  std::string options;
  std::vector<char *> rest;
  for (size_t i = 0; i < args.size(); ++i) {
    llvm::StringRef arg = args[i];
    llvm::StringRef flag = arg.ltrim('-');
    auto [name, value] = flag.split('=');
    if (i == 0 || arg == flag || !name.consume_front("remat-") ||
        !known.hasOption(name)) {
      rest.push_back(args[i]);
      continue;
    }
    if (!flag.contains('=') && known.isFlag(name))
      value = "true"; // --remat-partition
    else if (!flag.contains('=') && i + 1 < args.size())
      value = args[++i];
    options += (options.empty() ? "" : " ") + name.str() + "={" +
               value.str() + "}";
  }
  args = std::move(rest);
  return options;
}

/// Makes `config` run -remat-fit with `fitOptions` before the passes given
/// on the command line. The options are parsed and checked here, before any
/// input is read; fails after reporting what is wrong.
LogicalResult addRematFit(const std::string &fitOptions,
                          MlirOptMainConfig &config) {
  auto fit = std::make_shared<remat::RematPipelineOptions>();
  std::string error;
  if (failed(fit->parseFromString(fitOptions)))
    return failure(); // Reported by the parser.
  if (fit->decls.budget.empty()) {
    llvm::errs() << "remat-opt: error: --remat-<option> flags configure "
                    "the default pipeline and need --remat-budget=SIZE\n";
    return failure();
  }
  PassManager probe(nullptr, "builtin.module");
  if (failed(remat::buildDefaultRematPipeline(probe, *fit, error))) {
    llvm::errs() << "remat-opt: error: " << error << "\n";
    return failure();
  }
  MlirOptMainConfig userPasses = config;
  config.setPassPipelineSetupFn([fit, userPasses](PassManager &pm) {
    std::string error;
    if (failed(remat::buildDefaultRematPipeline(pm, *fit, error)))
      return failure(); // Checked above.
    return userPasses.setupPassPipeline(pm);
  });
  return success();
}

/// Runs MlirOptMain on `inputFilename` and writes the result to a temporary
/// file next to `outputFilename`, renamed over it only when the run
/// succeeds: a failed or interrupted run leaves an existing output
/// untouched, and the output may be the input (read, maybe mapped, first).
LogicalResult runAtomically(llvm::StringRef inputFilename,
                            llvm::StringRef outputFilename,
                            DialectRegistry &registry,
                            const MlirOptMainConfig &config) {
  std::string errorMessage;
  auto file = openInputFile(inputFilename, &errorMessage);
  if (!file) {
    llvm::errs() << "remat-opt: error: " << errorMessage << "\n";
    return failure();
  }
  bool optFailed = false;
  llvm::Error written = llvm::writeToOutput(
      outputFilename, [&](llvm::raw_ostream &os) -> llvm::Error {
        if (succeeded(MlirOptMain(os, std::move(file), registry, config)))
          return llvm::Error::success();
        optFailed = true; // Diagnosed already.
        return llvm::createStringError("remat-opt failed");
      });
  if (optFailed) {
    llvm::consumeError(std::move(written));
    return failure();
  }
  if (written) {
    llvm::errs() << "remat-opt: error: cannot write '" << outputFilename
                 << "': " << llvm::toString(std::move(written)) << "\n";
    return failure();
  }
  return success();
}

} // namespace

LogicalResult remat::rematOptMain(int argc, char **argv,
                                  DialectRegistry &registry) {
  std::vector<char *> args(argv, argv + argc);
  std::string fitOptions = takeRematFitFlags(args);
  std::string helpHeader = registerCLIOptions(
      "remat-opt: fit a training step into a memory budget by "
      "rematerialization (and run any MLIR pass)\n\n"
      "  --remat-budget=SIZE runs the default pipeline -remat-fit (below) "
      "before any other pass; --remat-<option>=VALUE sets another of its "
      "options, listed under --remat-fit below (--remat-strategy=<name>, "
      "--remat-report=<file.json>, --remat-slots=<S>, ...)",
      registry);
  // An error names the function and the numbers; the op dump MLIR appends
  // by default would be the whole training step (megabytes for a real
  // model). --mlir-print-op-on-diagnostic brings it back.
  if (auto *opt = static_cast<llvm::cl::opt<bool> *>(
          llvm::cl::getRegisteredOptions().lookup(
              "mlir-print-op-on-diagnostic")))
    opt->setInitialValue(false);
  static llvm::cl::opt<bool> printRematOptions(
      "print-remat-options",
      llvm::cl::desc("Print the options of -remat-fit and "
                     "-remat-rematerialize as Markdown (docs/Options.md) "
                     "and exit"));
  int count = static_cast<int>(args.size());
  auto [inputFilename, outputFilename] =
      parseCLIOptions(count, args.data(), helpHeader);
  // Output for IREE: large constants in decimal, not hex (IREE's MLIR
  // reads an i1 tensor's hex as one bit per element, MLIR 22 writes a
  // byte), unless --mlir-print-elementsattrs-with-hex-if-larger says.
  // The printer reads the option only when it occurred. Any spelling asks:
  // --remat-barriers=iree, remat-fit{barriers=iree} in --pass-pipeline,
  // -remat-inline-recompute=barriers=iree.
  auto asksIree = [](llvm::StringRef arg) {
    return arg.contains("barriers=iree") || arg.contains("barriers={iree");
  };
  if (asksIree(fitOptions) ||
      llvm::any_of(args, [&](const char *a) { return a && asksIree(a); }))
    if (llvm::cl::Option *opt = llvm::cl::getRegisteredOptions().lookup(
            "mlir-print-elementsattrs-with-hex-if-larger");
        opt && opt->getNumOccurrences() == 0)
      (void)opt->addOccurrence(0, opt->ArgStr, "-1");
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  // What MlirOptMain(argc, argv) would answer (the stream overload does not).
  if (config.shouldShowDialects()) {
    llvm::outs() << "Available Dialects: ";
    llvm::interleaveComma(registry.getDialectNames(), llvm::outs());
    llvm::outs() << "\n";
    return success();
  }
  if (printRematOptions) {
    remat::printRematOptionsMarkdown(llvm::outs());
    return success();
  }
  if (config.shouldListPasses()) {
    printRegisteredPasses();
    return success();
  }
  if (!fitOptions.empty() && failed(addRematFit(fitOptions, config)))
    return failure();
  return runAtomically(inputFilename, outputFilename, registry, config);
}
