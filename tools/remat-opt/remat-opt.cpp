//===- remat-opt.cpp - The remat optimizer driver -------------------------===//
//
// mlir-opt with the upstream dialects and passes the remat pipelines need,
// the remat dialect and passes, and the `--remat-budget=SIZE` shortcut that
// runs the default rematerialization pipeline.
//
//===----------------------------------------------------------------------===//

#include "remat/InitRemat.h"
#include "remat/Pipelines/Pipelines.h"
#include "TestPasses.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

/// `--remat-<option>=<value>` (or `--remat-<option> <value>`) for an option
/// of the -remat-fit pipeline (RematPipelineOptions): removed from `args`
/// and collected, quoted, as that pipeline's options. Every other argument
/// (-remat-rematerialize, -remat-lower-to-cpu, ...) is left alone.
static std::string takeRematFitFlags(std::vector<char *> &args) {
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
    if (!flag.contains('=') && i + 1 < args.size())
      value = args[++i];
    options += (options.empty() ? "" : " ") + name.str() + "={" +
               value.str() + "}";
  }
  args = std::move(rest);
  return options;
}

static void registerUpstream(DialectRegistry &registry) {
  registry.insert<affine::AffineDialect, arith::ArithDialect,
                  bufferization::BufferizationDialect, cf::ControlFlowDialect,
                  complex::ComplexDialect, func::FuncDialect, gpu::GPUDialect,
                  index::IndexDialect, linalg::LinalgDialect,
                  LLVM::LLVMDialect, math::MathDialect, memref::MemRefDialect,
                  NVVM::NVVMDialect, scf::SCFDialect, tensor::TensorDialect,
                  ub::UBDialect, vector::VectorDialect>();
  // Every upstream dialect with its interface models (bufferization,
  // inliner, to-LLVM...), translations to LLVM IR and the NVVM target: what
  // the CPU and GPU pipelines need, and what users' IR may contain.
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
}

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  DialectRegistry registry;
  registerUpstream(registry);
  remat::registerRematDialect(registry);
  registerAllPasses();
  remat::registerRematPasses();
  remat::registerRematTestPasses(); // remat-opt only: -remat-test-*.

  std::vector<char *> args(argv, argv + argc);
  std::string fitOptions = takeRematFitFlags(args);
  std::string helpHeader = registerCLIOptions(
      "remat-opt: fit a training step into a memory budget by "
      "rematerialization (and run any MLIR pass)\n\n"
      "  --remat-budget=SIZE runs the default pipeline -remat-fit (below) "
      "before any other pass; --remat-<option>=VALUE sets another of its "
      "options (--remat-strategy=<name>, --remat-report=<file.json>, "
      "--remat-cost-table=<file.json>, --remat-slots=<int>, "
      "--remat-milp-seconds=<seconds>, --remat-functions=<name,...>)",
      registry);
  // An error names the function and the numbers; the op dump MLIR appends
  // by default would be the whole training step (megabytes for a real
  // model). --mlir-print-op-on-diagnostic brings it back.
  if (auto *opt = static_cast<llvm::cl::opt<bool> *>(
          llvm::cl::getRegisteredOptions().lookup(
              "mlir-print-op-on-diagnostic")))
    opt->setInitialValue(false);
  int count = static_cast<int>(args.size());
  auto [inputFilename, outputFilename] =
      parseCLIOptions(count, args.data(), helpHeader);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  // What MlirOptMain(argc, argv) would answer; this driver calls the
  // overload that writes to a stream (for the atomic output below).
  if (config.shouldShowDialects()) {
    llvm::outs() << "Available Dialects: ";
    llvm::interleaveComma(registry.getDialectNames(), llvm::outs());
    llvm::outs() << "\n";
    return EXIT_SUCCESS;
  }
  if (config.shouldListPasses()) {
    printRegisteredPasses();
    return EXIT_SUCCESS;
  }

  if (!fitOptions.empty()) {
    // Parsed (and checked) before any input is read.
    auto fit = std::make_shared<remat::RematPipelineOptions>();
    std::string error;
    if (failed(fit->parseFromString(fitOptions)))
      return EXIT_FAILURE; // Reported by the parser.
    if (fit->budget.empty()) {
      llvm::errs() << "remat-opt: error: --remat-<option> flags configure "
                      "the default pipeline and need --remat-budget=SIZE\n";
      return EXIT_FAILURE;
    }
    PassManager probe(nullptr, "builtin.module");
    if (failed(remat::buildDefaultRematPipeline(probe, *fit, error))) {
      llvm::errs() << "remat-opt: error: " << error << "\n";
      return EXIT_FAILURE;
    }
    MlirOptMainConfig userPasses = config;
    config.setPassPipelineSetupFn([fit, userPasses](PassManager &pm) {
      std::string error;
      if (failed(remat::buildDefaultRematPipeline(pm, *fit, error)))
        return failure(); // Checked above.
      return userPasses.setupPassPipeline(pm);
    });
  }

  std::string errorMessage;
  auto file = openInputFile(inputFilename, &errorMessage);
  if (!file) {
    llvm::errs() << "remat-opt: error: " << errorMessage << "\n";
    return EXIT_FAILURE;
  }
  // The output goes to a temporary file next to it, renamed over it only
  // when the run succeeds: a failed or interrupted run leaves an existing
  // output untouched, and `-o` may name the input (read, maybe mapped, above).
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
    return EXIT_FAILURE;
  }
  if (written) {
    llvm::errs() << "remat-opt: error: cannot write '" << outputFilename
                 << "': " << llvm::toString(std::move(written)) << "\n";
    return EXIT_FAILURE;
  }
  return EXIT_SUCCESS;
}
