//===- Pipelines.h - remat pass pipelines -----------------------*- C++ -*-===//
#ifndef REMAT_PIPELINES_PIPELINES_H
#define REMAT_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <string>

namespace remat {

/// The settings of `remat-opt --remat-budget=...`, shared with the pass
/// options of the pipeline so hand-written pipelines see the same knobs.
struct RematPipelineSettings {
  std::string budget;   ///< "2GiB", "512MB", "60%", ...
  std::string strategy = "auto";
  std::string reportFile;
  std::string costTable;
  int slots = 500;
};

/// Adds the default tensor-level rematerialization pipeline to `pm`. Fails
/// with a diagnostic on `loc`-less errors (bad budget syntax...).
mlir::LogicalResult
buildDefaultRematPipeline(mlir::OpPassManager &pm,
                          const RematPipelineSettings &settings,
                          std::string &error);

/// How `-remat-lower-to-cpu` frees buffers after bufferization.
enum class BufferMode {
  Early,   ///< -remat-plan-buffers: free after the last use.
  Arena,   ///< -remat-plan-buffers{arena=true}: one arena per function.
  Upstream ///< buffer-deallocation-pipeline: free at the end of the block.
};

/// Options of the `-remat-lower-to-cpu` pipeline.
struct LowerToCPUOptions : public mlir::PassPipelineOptions<LowerToCPUOptions> {
  Option<BufferMode> buffers{
      *this, "buffers", llvm::cl::init(BufferMode::Early),
      llvm::cl::desc("How buffers are freed"),
      llvm::cl::values(
          clEnumValN(BufferMode::Early, "early",
                     "free each buffer after its last use (default)"),
          clEnumValN(BufferMode::Arena, "arena",
                     "one arena per function at static offsets"),
          clEnumValN(BufferMode::Upstream, "upstream",
                     "upstream buffer-deallocation-pipeline (frees at the "
                     "end of the block; for comparison)"))};
  Option<int64_t> alignment{
      *this, "alignment", llvm::cl::init(64),
      llvm::cl::desc("Alignment of every buffer in bytes (a power of two); "
                     "allocations request their size rounded up to it, so "
                     "1 makes the runtime count exact tensor bytes")};
};

/// Adds `-remat-lower-to-cpu` to `pm` (on builtin.module): tensor IR after
/// rematerialization to the LLVM dialect, runnable with mlir-runner and
/// libRematRuntime (allocations go through the runtime's tracked
/// functions).
void buildLowerToCPUPipeline(mlir::OpPassManager &pm,
                             const LowerToCPUOptions &options);

/// Registers `-remat-lower-to-cpu` and the buffer planning passes it uses.
void registerLowerToCPUPipeline();

} // namespace remat

#endif // REMAT_PIPELINES_PIPELINES_H
