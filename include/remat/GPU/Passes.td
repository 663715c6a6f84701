//===- Passes.td - Passes of the GPU lowering --------------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The remat-specific steps of `-remat-lower-to-gpu`; everything else in that
// pipeline is upstream MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_GPU_PASSES_TD
#define REMAT_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def GPUCheckTargetPass : Pass<"remat-gpu-check-target", "mlir::ModuleOp"> {
  let summary = "Check that the NVPTX back end and the CUDA toolkit can "
                "target a chip";
  let description = [{
    Runs first in `-remat-lower-to-gpu`, so that a chip nobody can compile
    for is reported before any lowering, naming the option: `chip` must be
    an `sm_<N>[a|f]` processor that LLVM's NVPTX back end knows, and for
    `format=bin` or `fatbin` the toolkit's `ptxas` must accept it (CUDA 13
    dropped sm_50 to sm_72, for instance). `format=isa` (PTX) needs no
    toolkit. The IR is not changed.
  }];
  let options = [
    Option<"chip", "chip", "std::string", [{"sm_90"}], "Target GPU">,
    Option<"format", "format", "std::string", [{"fatbin"}],
           "isa (PTX), bin (cubin) or fatbin">,
    Option<"toolkit", "toolkit", "std::string", [{""}],
           "CUDA toolkit root (default: $CUDA_HOME, $CUDA_PATH, "
           "/usr/local/cuda)">,
  ];
}

def GPUHostDevicePass : Pass<"remat-gpu-host-device", "mlir::ModuleOp"> {
  let summary = "Put the buffers of every function in device memory, with "
                "explicit copies at function boundaries";
  let description = [{
    Runs after bufferization and buffer planning (memrefs with identity
    layouts at function boundaries). Function boundaries stay in host memory
    (callers, harnesses and `printMemrefF32` see host buffers); everything a
    function computes lives on the device:

    - each memref argument that is used is copied into a fresh `gpu.alloc`
      at entry (`gpu.memcpy`), and that copy is used instead;
    - `memref.alloc`/`memref.dealloc` become `gpu.alloc`/`gpu.dealloc`, so
      the frees the planner placed after each buffer's last use (or the
      arena) now free device memory;
    - each memref a `func.return` returns is copied into a fresh host
      `memref.alloc` (the caller owns it);
    - around a `func.call`, memref operands are copied to fresh host
      buffers (freed after the call; device buffers whose last use was the
      call are freed before it) and memref results are copied to the device
      (the host result is freed when the callee is in the module);
    - `memref.copy` between device buffers becomes `linalg.copy`, a kernel;
    - a `memref.alloc` marked `remat.host` (a host copy of an offloaded
      value, what `remat.offload` bufferizes to) becomes a
      `gpu.alloc host_shared`: pinned host memory the device can address,
      which libRematCudaRuntime allocates with `cuMemHostAlloc` and counts
      apart from device memory; copies to and from it are `gpu.memcpy`;
    - `memref.get_global` (tensor constants) is copied to the device;
    - device buffers nothing frees (returned ones, argument copies) are
      freed before the return, after their host copies.

    Non-contiguous values crossing a boundary go through a contiguous device
    temporary. Unranked memrefs cross only as `memref.cast`s of ranked ones.

    With `alignment` > 1, a static device buffer (a buffer, an argument's or
    a constant's copy) whose size is not a multiple of it is allocated at
    its size rounded up (an i8 `gpu.alloc` viewed by `memref.view`), as the
    CPU's aligned allocations are: the device peak is the one the planner
    counts with the same alignment.
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", /*default=*/"1",
           "Request static device buffers at their size rounded up to this "
           "many bytes (1: exact sizes)">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::gpu::GPUDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::memref::MemRefDialect"];
}

def GPUPrepareLinalgPass : Pass<"remat-gpu-prepare-linalg", "mlir::func::FuncOp"> {
  let summary = "Reorder loops and parallelize full reductions for the GPU";
  let description = [{
    Runs on `linalg` ops on buffers before `convert-linalg-to-parallel-loops`,
    so that every op gives the GPU parallel work:

    - a `linalg.generic` whose parallel loops are not outermost (a bias
      gradient `sum over n, h, w` is `[reduction, parallel, reduction,
      reduction]`) is interchanged so they are; otherwise the leading
      reduction would become a host loop launching one kernel per
      iteration. The reduction loops keep their order, so each output
      element is accumulated in the same order as before.
    - an op whose loops are all reductions (a loss, a sum of squares) has no
      parallel dimension at all. When it writes a 0-d buffer and its body is
      `out = out + f(inputs)` (`arith.addf`), it becomes one block of
      `block-size` threads: each thread sums a strided share of the
      iteration space, the block combines the partial sums (`scf.reduce`,
      then `gpu.all_reduce`), and thread 0 adds the total to the output. The
      sum is reassociated (fp32 rounding differs from the sequential order).
      Other full reductions stay sequential (a one-thread kernel).
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads of a full-reduction block">,
  ];
  let dependentDialects = ["mlir::affine::AffineDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::gpu::GPUDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect"];
}

def GPUMapLoopsPass : Pass<"remat-gpu-map-loops", "mlir::func::FuncOp"> {
  let summary = "Map parallel loops to blocks and threads";
  let description = [{
    After `convert-linalg-to-parallel-loops` (and on device buffers): each
    outermost `scf.parallel` without a mapping is tiled so that up to
    `block-size` threads of a block cover its innermost dimensions
    (`scf.tileParallelLoop`, bounds guarded by `scf.if`), and both loops get
    `#gpu.loop_dim_map` attributes: innermost dimension to x (coalesced),
    then y, z; block dimensions beyond three, or too large for y/z, run
    sequentially in the kernel. Reduction dimensions stay sequential loops
    inside each thread, so every output element has one writer.

    Memory accesses left outside any parallel loop (a sequential loop nest
    from an op with no parallel dimension, loads and stores with the pure
    ops between them) are wrapped in a one-thread kernel. A loaded value the
    host would need, a linalg op that was not converted, or an op on memrefs
    without memory effects is an error that names the op: it has no GPU
    lowering here. Existing `gpu.launch` ops are left alone.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Most threads per block">,
  ];
  let dependentDialects = ["mlir::affine::AffineDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::gpu::GPUDialect",
                           "mlir::scf::SCFDialect"];
}

def GPUEmulateOnCPUPass : Pass<"remat-gpu-emulate-on-cpu", "mlir::ModuleOp"> {
  let summary = "Make mapped GPU IR run on the CPU (for testing)";
  let description = [{
    After `-remat-gpu-map-loops`: drops the loop mappings and replaces
    `gpu.thread_id`/`gpu.block_id` with 0, so the mapped `scf.parallel` loops
    run sequentially when lowered for the CPU (each thread of a block
    reduction still contributes through `scf.reduce`). Device buffers and
    copies stay `gpu.alloc`/`gpu.dealloc`/`gpu.memcpy`, for
    libRematCudaEmulation, which serves them from host memory and counts
    them as libRematCudaRuntime counts device memory.
    `-remat-lower-to-gpu{emulate=true}` uses it so the host side, the buffer
    plan, the copies, the loop mapping and the device peak can be checked on
    a machine without a GPU. Kernels, NVVM and the CUDA driver are not
    exercised.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def GPUSyncHostAllocsPass
    : Pass<"remat-gpu-sync-host-allocs", "mlir::func::FuncOp"> {
  let summary = "Make host_shared allocations synchronous again";
  let description = [{
    After `gpu-async-region`, which threads a token through every GPU op:
    `gpu-to-llvm` lowers a `gpu.alloc host_shared` (the pinned host buffer
    of an offloaded value) only without a token, so each such allocation
    is made synchronous. A fresh host buffer waits for nothing on the
    device: the ops that used its token use its dependency instead (all of
    them joined by a `gpu.wait async` where there are several), and the
    host never waits for the device there.
  }];
}

def GPUCopyStreamPass
    : Pass<"remat-gpu-copy-stream", "mlir::func::FuncOp"> {
  let summary = "Run host copies (offload) on streams of their own";
  let description = [{
    After `gpu-async-region` (one token chain: one stream for the kernels)
    and `-remat-gpu-sync-host-allocs`: every `gpu.memcpy` to or from a
    `host_shared` buffer (a host copy of an offloaded value, or its copy
    back) leaves the kernels' chain. It gets a stream of its own, a
    `gpu.wait async` on the token it depended on (so it still starts after
    the kernel that produced its source), and the kernels' chain goes on
    without it. Then, in the same block:

    - a `gpu.dealloc` of a buffer the copy reads or writes joins the copy's
      stream (freed after the copy, as the runtime orders a free after its
      stream's work; a host buffer's free does not make the host wait);
    - before any other op that reads or writes one of those buffers (a
      kernel reading a prefetched value, a function return of a host
      copy, an op whose region does), the host waits for the copy
      (`gpu.wait`, which also ends its stream);
    - before the terminator, the host waits for every copy still running.

    So a prefetch issued ahead of its reader overlaps the kernels in
    between, and nothing reads a buffer before its copy has ended. A copy
    whose dependency is not the token of an op in its own block (a block
    argument, or an op outside a loop it runs in) is left on the chain, and
    so is a copy of fewer than `min-bytes` bytes (static shapes): its own
    stream costs more than it hides (on an H100, about 30 us a copy, the
    time of a 2 MiB copy over PCIe 5; docs/gpu.md).
  }];
  let options = [
    Option<"minBytes", "min-bytes", "uint64_t", "0",
           "Copies smaller than this stay in order with the kernels "
           "(0: every host copy gets a stream of its own)">,
  ];
}

def GPUMergeModulesPass : Pass<"remat-gpu-merge-modules", "mlir::ModuleOp"> {
  let summary = "Move every outlined kernel into one gpu.module";
  let description = [{
    `gpu-kernel-outlining` makes one `gpu.module` per kernel; a training step
    has hundreds, each its own binary and module load. This pass moves every
    `gpu.func` into one `gpu.module` named `name` and rewrites the
    `gpu.launch_func` symbols, so the step is one PTX/cubin.
  }];
  let options = [
    Option<"moduleName", "name", "std::string", [{"remat_kernels"}],
           "Name of the merged gpu.module">,
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

def GPURewritePass : Pass<"remat-gpu-rewrite", "mlir::gpu::GPUModuleOp"> {
  let summary = "Expand gpu.all_reduce and friends inside kernels";
  let description = [{
    Applies upstream's GPU rewrite patterns (`populateGpuRewritePatterns`:
    `gpu.all_reduce` to warp shuffles and a workgroup buffer, global ids,
    wide shuffles) to outlined kernels. MLIR 22 registers no pass for them
    and `convert-gpu-to-nvvm` does not include them, so a block reduction
    would otherwise fail to legalize. Before that, an all-reduce directly
    in a single-block kernel (every thread reaches it: the block reductions
    of `-remat-gpu-prepare-linalg`) is marked `uniform`, which the rewrite
    requires; run it before `convert-scf-to-cf`.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::cf::ControlFlowDialect",
                           "mlir::gpu::GPUDialect",
                           "mlir::index::IndexDialect",
                           "mlir::memref::MemRefDialect"];
}

def GPUDumpBinaryPass : Pass<"remat-gpu-dump-binary", "mlir::ModuleOp"> {
  let summary = "Write the objects of every gpu.binary to a file";
  let description = [{
    After `gpu-module-to-binary`: writes the object of each `gpu.binary`
    (PTX text with `format=isa`) to `file`, or to `file.<binary name>` when
    the module holds several binaries, e.g. to check it with `ptxas`.
  }];
  let options = [
    Option<"file", "file", "std::string", [{""}], "Output path">,
  ];
}

#endif // REMAT_GPU_PASSES_TD
