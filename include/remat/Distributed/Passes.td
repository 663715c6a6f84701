//===- Passes.td - Passes of sharded (SPMD) programs -------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DISTRIBUTED_PASSES_TD
#define REMAT_DISTRIBUTED_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerCollectivesPass : Pass<"remat-lower-collectives", "mlir::ModuleOp"> {
  let summary = "Lower shard collectives to calls of libRematMpiRuntime";
  let description = [{
    Runs on tensors, before bufferization, in `-remat-lower-to-cpu`. A
    per-rank SPMD program (what `shard-partition` emits, or one written per
    rank) holds collectives on a `shard.grid`; each of `shard.all_reduce`,
    `all_gather`, `reduce_scatter`, `all_slice` and `all_to_all` becomes

    ```mlir
    %in  = bufferization.to_buffer %x read_only : tensor<..> to memref<.., strided<..>>
    %out = memref.alloc() : memref<..>            // the result's buffer
    func.call @rematCollectiveF32(kind, reduction, axis, axis2, grid, axes, %in, %out)
    %r   = bufferization.to_tensor %out restrict writable
    ```

    so the result is one buffer where the planner counted it, and the
    runtime's temporaries are the workspace the cost model priced
    (`remat/Runtime/CollectiveABI.h` is the one encoding of both sides).
    `shard.shift` calls `rematShift<T>`; `shard.send` and `shard.recv`
    (point-to-point, which may run under control flow on the device index)
    call `rematSend<T>` with the input where it is (the send's result is
    its input) and `rematRecv<T>` into a result buffer of its own, the
    partner's index in the group computed from the op's multi-index.
    `shard.process_linear_index` and `process_multi_index` become the
    runtime's device index; `shard.grid_shape` constants; the grids are
    erased once nothing refers to them. The runtime starts MPI on first use
    and finishes it at exit, and checks that the grid has as many devices
    as the run has MPI processes.

    Elements must be f32, f64, i32 or i64, an all-reduce must keep its
    element type, reductions are sum, max, min or product, and grids have
    at most 4 dimensions of at most 65535 devices; anything else, and the
    shard ops that are not collectives of a partitioned program
    (`shard.shard`, `shard.sharding`, point-to-point ops), is an error that
    names the op. With `target=gpu` every shard op is an error naming the CPU
    path, which is the one that runs collectives.
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", "64",
           "Alignment of the result buffers (as the bufferization's)">,
    Option<"target", "target", "std::string", [{"cpu"}],
           "cpu: lower to runtime calls; gpu: refuse every shard op with an "
           "error naming -remat-lower-to-cpu">,
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::bufferization::BufferizationDialect",
    "mlir::func::FuncDialect", "mlir::memref::MemRefDialect"
  ];
}

def LowerMPIPass : Pass<"remat-lower-mpi", "mlir::ModuleOp"> {
  let summary = "Lower upstream mpi dialect ops to calls of MPI (MPICH)";
  let description = [{
    Runs in `-remat-lower-to-cpu` after bufferization, before the memref
    lowering. A step that passes buffers between ranks with upstream's
    `mpi` dialect (`mpi.comm_world`, `mpi.comm_rank`, `mpi.comm_size`,
    `mpi.send`, `mpi.recv`, `mpi.init`, ...) instead of shard ops gets them
    as calls of the MPI library libRematMpiRuntime links (MPICH; the
    module's `MPI:Implementation` DLTI entry chooses the ABI, MPICH by
    default). A program that does not start MPI itself (`mpi.init`) has
    each function that uses it call the runtime's `rematStartMpi` first,
    which starts MPI once and finishes it at exit, as for collectives. Upstream provides the patterns only; a module without
    mpi ops is left as it is.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::DLTIDialect",
                           "mlir::func::FuncDialect"];
}

def CheckEvenShardsPass : Pass<"remat-check-even-shards", "mlir::ModuleOp"> {
  let summary = "Refuse annotations that split a dimension unevenly, before "
                "upstream's shard-partition";
  let description = [{
    Runs first in `-remat-fit{partition=true}` (`--remat-partition`). A
    `shard.shard` whose sharding splits a static dimension over more devices
    than divide it (10 rows over 4) and gives no explicit shard sizes
    (`sharded_dims_offsets`) is an error at that op naming the value, the
    dimension and the grid axes. Upstream's `shard-partition` (MLIR 22) does
    not partition such shards: it emits a `tensor.cast` between the shard
    shapes that fails verification, an error naming neither the annotation
    nor what to do. The error says what to do: pad the dimension to a
    multiple of the devices, or write the program each rank runs with the
    dimension dynamic and bounded by the largest shard (planned once for
    the largest, docs/distributed.md).
  }];
}

#endif // REMAT_DISTRIBUTED_PASSES_TD
