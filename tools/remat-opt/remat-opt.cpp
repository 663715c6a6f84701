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
namespace cl = llvm::cl;

static cl::OptionCategory rematCategory(
    "remat options",
    "Run the default rematerialization pipeline on the input. The same "
    "settings are options of the remat passes for hand-written pipelines.");

static cl::opt<std::string> budget(
    "remat-budget", cl::cat(rematCategory), cl::value_desc("size"),
    cl::desc("Peak-memory budget of each function; runs the default remat "
             "pipeline. Bytes with a unit (B, KB, KiB, MB, MiB, GB, GiB) or a "
             "percentage of the peak without rematerialization (e.g. 60%)"));
static cl::opt<std::string> strategy(
    "remat-strategy", cl::cat(rematCategory), cl::init("auto"),
    cl::value_desc("name"),
    cl::desc("Strategy that chooses what to keep and what to recompute "
             "(default: auto, the cheapest schedule of all that apply)"));
static cl::opt<std::string> report(
    "remat-report", cl::cat(rematCategory), cl::value_desc("file.json"),
    cl::desc("Write what was kept and recomputed, and the peaks before and "
             "after, as JSON"));
static cl::opt<std::string> costTable(
    "remat-cost-table", cl::cat(rematCategory), cl::value_desc("file.json"),
    cl::desc("Measured per-op costs (keyed by op name or location) that "
             "override the analytic cost model"));
static cl::opt<int> slots(
    "remat-slots", cl::cat(rematCategory), cl::init(500),
    cl::desc("Memory discretisation of the chain dynamic programs"));

static cl::opt<double> milpSeconds(
    "remat-milp-seconds", cl::cat(rematCategory), cl::init(60),
    cl::value_desc("seconds"),
    cl::desc("Time limit of the exact checkmate-milp strategy's solver; the "
             "report gives its proven bound and gap"));

static cl::list<std::string> functions(
    "remat-functions", cl::cat(rematCategory), cl::CommaSeparated,
    cl::value_desc("name,..."),
    cl::desc("Fit only these functions, each of which must be a training "
             "step (default: every training step; drivers, init and eval "
             "functions are skipped with a remark)"));

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

/// Whether any remat option other than --remat-budget was given.
static bool rematSettingsGiven() {
  return strategy.getNumOccurrences() || report.getNumOccurrences() ||
         costTable.getNumOccurrences() || slots.getNumOccurrences() ||
         milpSeconds.getNumOccurrences() || functions.getNumOccurrences();
}

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  DialectRegistry registry;
  registerUpstream(registry);
  remat::registerRematDialect(registry);
  registerAllPasses();
  remat::registerRematPasses();
  remat::registerRematTestPasses(); // remat-opt only: -remat-test-*.

  std::string helpHeader = registerCLIOptions(
      "remat-opt: fit a training step into a memory budget by "
      "rematerialization (and run any MLIR pass)",
      registry);
  // An error names the function and the numbers; the op dump MLIR appends
  // by default would be the whole training step (megabytes for a real
  // model). --mlir-print-op-on-diagnostic brings it back.
  if (auto *opt = static_cast<cl::opt<bool> *>(
          cl::getRegisteredOptions().lookup("mlir-print-op-on-diagnostic")))
    opt->setInitialValue(false);
  auto [inputFilename, outputFilename] =
      parseCLIOptions(argc, argv, helpHeader);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();

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

  if (budget.getNumOccurrences()) {
    remat::RematPipelineSettings settings;
    settings.budget = budget;
    settings.strategy = strategy;
    settings.reportFile = report;
    settings.costTable = costTable;
    settings.slots = slots;
    settings.milpSeconds = milpSeconds;
    settings.functions.assign(functions.begin(), functions.end());
    // Build once up front so a bad setting is reported before parsing input.
    {
      PassManager probe(nullptr, "builtin.module");
      std::string error;
      if (failed(remat::buildDefaultRematPipeline(probe, settings, error))) {
        llvm::errs() << "remat-opt: error: " << error << "\n";
        return EXIT_FAILURE;
      }
    }
    MlirOptMainConfig userPasses = config;
    config.setPassPipelineSetupFn([settings, userPasses](PassManager &pm) {
      std::string error;
      if (failed(remat::buildDefaultRematPipeline(pm, settings, error))) {
        emitError(UnknownLoc::get(pm.getContext())) << error;
        return failure();
      }
      return userPasses.setupPassPipeline(pm);
    });
  } else if (rematSettingsGiven()) {
    llvm::errs() << "remat-opt: error: --remat-strategy, --remat-report, "
                    "--remat-cost-table, --remat-slots, --remat-milp-seconds "
                    "and --remat-functions configure the default pipeline "
                    "and need --remat-budget=SIZE\n";
    return EXIT_FAILURE;
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
