//===- Pipelines.h - remat pass pipelines -----------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef REMAT_PIPELINES_PIPELINES_H
#define REMAT_PIPELINES_PIPELINES_H

#include "remat/Transforms/RematOptionDecls.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <string>
#include <vector>

namespace remat {

/// Options of the default rematerialization pipeline `-remat-fit`: those of
/// -remat-rematerialize (RematOptionDecls.h, declared once for both).
/// `remat-opt --remat-<option>=<value>` fills it (--remat-budget=60% is
/// -remat-fit='budget=60%' run first).
struct RematPipelineOptions
    : public mlir::PassPipelineOptions<RematPipelineOptions> {
  RematOptionDecls<mlir::detail::PassOptions> decls{*this};

  /// The pipeline's own: what runs before -remat-rematerialize.
  Option<bool> partition{
      *this, "partition",
      llvm::cl::desc(
          "-remat-fit only: partition a fully annotated step (shard.shard "
          "ops on a shard.grid) into the program each device runs first, "
          "with upstream convert-elementwise-to-linalg, "
          "sharding-propagation and shard-partition; the budget is then per "
          "device (docs/distributed.md)"),
      llvm::cl::init(false)};

  Option<bool> fuseElementwise{
      *this, "fuse-elementwise",
      llvm::cl::desc(
          "-remat-fit only: fuse each elementwise linalg.generic into the "
          "linalg.generic that alone reads it before planning "
          "(-remat-fuse-elementwise-chains), as IREE forms its dispatches, so that "
          "remat's model counts the buffers such a compiler allocates; with "
          "--remat-barriers=iree-ordered IREE then measures remat's plan "
          "(docs/frontends.md)"),
      llvm::cl::init(false)};

  Option<std::string> barriers{
      *this, "barriers", llvm::cl::value_desc("none|iree|iree-ordered"),
      llvm::cl::desc(
          "-remat-fit only: what the output is for. none (default): "
          "remat.recompute regions kept (-remat-lower-to-cpu/-gpu inline "
          "them after their last CSE); iree: for a downstream compiler that "
          "runs CSE (IREE): regions inlined with every input and result "
          "behind util.optimization_barrier (one value each, generic form), "
          "reads at reversed indices rewritten with positive maps "
          "(-remat-reversed-maps-to-select), tensors of index as i64 "
          "(-remat-index-tensors-to-i64) and remat.* attributes dropped; "
          "iree-ordered: as iree, and where the plan recomputes, every "
          "linalg op's result but a fill's fenced too, so that IREE keeps "
          "remat's order and frees each buffer after its last use, at the "
          "cost of its fusion (docs/frontends.md)"),
      llvm::cl::init("none")};

  /// Whether `name` is one of the options above.
  bool hasOption(llvm::StringRef name) const { return OptionsMap.count(name); }
  /// Whether option `name` may be given without a value (a bool).
  bool isFlag(llvm::StringRef name) const {
    const llvm::cl::Option *o = OptionsMap.lookup(name);
    return o && o->getValueExpectedFlag() != llvm::cl::ValueRequired;
  }
};

/// Adds the default tensor-level rematerialization pipeline to `pm`; fails
/// with what is wrong in `error` (bad budget syntax, unknown strategy...).
mlir::LogicalResult
buildDefaultRematPipeline(mlir::OpPassManager &pm,
                          const RematPipelineOptions &options,
                          std::string &error);

/// Writes the options of -remat-fit and -remat-rematerialize as the Markdown
/// page docs/Options.md (`remat-opt --print-remat-options`).
void printRematOptionsMarkdown(llvm::raw_ostream &os);

/// Registers `-remat-fit`, the default pipeline.
void registerDefaultRematPipeline();

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
      *this, "alignment", llvm::cl::init(remat::kDefaultAllocAlignment),
      llvm::cl::desc("Alignment of every buffer in bytes (a power of two); "
                     "allocations request their size rounded up to it, as "
                     "the planner counts them with the same `alignment` "
                     "(default 64 in both); 1 makes the runtime count exact "
                     "tensor bytes")};
  Option<bool> fpContract{
      *this, "fp-contract", llvm::cl::init(true),
      llvm::cl::desc("Let LLVM fuse a float multiply and the add it feeds "
                     "into one fused multiply-add, rounded once, as "
                     "PyTorch's CPU kernels and the NVPTX back end do "
                     "(default true; false rounds every product and sum "
                     "apart)")};
};

/// Adds `-remat-lower-to-cpu` to `pm` (on builtin.module): tensor IR after
/// rematerialization to the LLVM dialect, runnable with mlir-runner and
/// libRematRuntime (allocations go through the runtime's tracked
/// functions).
void buildLowerToCPUPipeline(mlir::OpPassManager &pm,
                             const LowerToCPUOptions &options);

/// Registers `-remat-lower-to-cpu` and the buffer planning passes it uses.
void registerLowerToCPUPipeline();

/// Options of the `-remat-lower-to-gpu` pipeline.
struct LowerToGPUOptions : public mlir::PassPipelineOptions<LowerToGPUOptions> {
  Option<std::string> chip{
      *this, "chip", llvm::cl::init("sm_90"),
      llvm::cl::desc("Target GPU (sm_<N>; checked against LLVM's NVPTX back "
                     "end and, for bin/fatbin, the toolkit's ptxas)")};
  Option<std::string> format{
      *this, "format", llvm::cl::init("fatbin"),
      llvm::cl::desc("What gpu.binary holds: isa (PTX text, compiled by the "
                     "driver at load time), bin (cubin from ptxas) or fatbin "
                     "(cubin and PTX)")};
  Option<std::string> toolkit{
      *this, "toolkit", llvm::cl::init(""),
      llvm::cl::desc("CUDA toolkit root for ptxas, fatbinary and libdevice "
                     "(default: $CUDA_HOME, $CUDA_PATH, /usr/local/cuda)")};
  Option<unsigned> optLevel{
      *this, "opt-level", llvm::cl::init(3),
      llvm::cl::desc("Optimization level of the NVPTX back end and ptxas")};
  Option<BufferMode> buffers{
      *this, "buffers", llvm::cl::init(BufferMode::Early),
      llvm::cl::desc("How device buffers are freed (upstream's ownership-"
                     "based deallocation keeps its bookkeeping in buffers the "
                     "host reads, so it is CPU-only)"),
      llvm::cl::values(
          clEnumValN(BufferMode::Early, "early",
                     "free each buffer after its last use (default)"),
          clEnumValN(BufferMode::Arena, "arena",
                     "one device arena per function at static offsets"))};
  Option<int64_t> alignment{
      *this, "alignment", llvm::cl::init(remat::kDefaultAllocAlignment),
      llvm::cl::desc("Alignment of every device buffer in bytes (a power of "
                     "two); a static buffer is requested at its size rounded "
                     "up to it, as the planner counts it with the same "
                     "`alignment` (default 64 in both)")};
  Option<int64_t> blockSize{
      *this, "block-size", llvm::cl::init(256),
      llvm::cl::desc("Most threads per block (1 to 1024)")};
  Option<bool> emulate{
      *this, "emulate", llvm::cl::init(false),
      llvm::cl::desc("Testing without a GPU: stop after mapping loops to "
                     "blocks and threads and lower for the CPU "
                     "(-remat-gpu-emulate-on-cpu): the mapped loops run "
                     "sequentially, device buffers come from "
                     "libRematCudaEmulation (host memory, counted as device "
                     "memory)")};
  Option<bool> copyStream{
      *this, "copy-stream", llvm::cl::init(true),
      llvm::cl::desc("Run host copies (--remat-offload's gpu.memcpy to and "
                     "from pinned host buffers) of at least "
                     "copy-stream-min-bytes on streams of their own, so "
                     "that a prefetch overlaps the kernels before its reader "
                     "(-remat-gpu-copy-stream); false: every copy in order "
                     "with the kernels on their stream. The emulation always "
                     "runs every copy on its own stream")};
  Option<uint64_t> copyStreamMinBytes{
      *this, "copy-stream-min-bytes", llvm::cl::init(2u << 20),
      llvm::cl::desc("Host copies smaller than this stay in order with the "
                     "kernels: on an H100 a stream of its own cost about 30 "
                     "us a copy, what a 2 MiB copy takes at PCIe 5's 64 GB/s "
                     "(default 2 MiB; 0: every copy on its own stream)")};
  Option<std::string> dumpBinary{
      *this, "dump-binary", llvm::cl::init(""),
      llvm::cl::desc("Also write the kernels' gpu.binary object to this file "
                     "(PTX with format=isa, e.g. for ptxas)")};
};

/// Adds `-remat-lower-to-gpu` to `pm` (on builtin.module): tensor IR after
/// rematerialization to the LLVM dialect with a gpu.binary of NVVM kernels.
/// Every function keeps its buffers in device memory (gpu.alloc/dealloc
/// where the buffer planner frees them) and takes and returns host memrefs,
/// copied explicitly; run it with mlir-runner, libRematCudaRuntime and
/// libRematRuntime.
void buildLowerToGPUPipeline(mlir::OpPassManager &pm,
                             const LowerToGPUOptions &options);

/// Registers `-remat-lower-to-gpu` and the passes it is made of.
void registerLowerToGPUPipeline();

} // namespace remat

#endif // REMAT_PIPELINES_PIPELINES_H
