//===- Passes.td - Buffer planning passes ------------------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#ifndef REMAT_BUFFERPLANNING_PASSES_TD
#define REMAT_BUFFERPLANNING_PASSES_TD

include "mlir/Pass/PassBase.td"

def PlanBuffersPass : Pass<"remat-plan-buffers", "mlir::ModuleOp"> {
  let summary = "Free each buffer after its last use, or pack all buffers "
                "of a function into one arena";
  let description = [{
    Runs after One-Shot Bufferize (with function boundaries) in place of
    upstream's deallocation, which frees every buffer at the end of its
    block and so keeps every temporary of a training step alive until the
    return. For each `memref.alloc` of every function it finds all values
    that may alias the buffer (views, casts, reshapes, values carried
    through regions and calls, with upstream's BufferViewFlowAnalysis), and
    inserts `memref.dealloc` right after the op of the alloc's block that
    contains the last use of any of them (a use in a nested region counts at
    the op that holds the region). The alloc itself moves down to its first
    use (`sink-allocs`), so a buffer lives exactly from its first to its
    last use.

    Buffers that escape are not freed early: returned ones belong to the
    caller (which frees them after its own last use when the callee is in
    the module and the result is a fresh allocation); yielded, stored or
    captured ones, and ones used outside their block, are not freed at all
    and get a warning. Buffers the IR frees already are left alone. Calls
    to function declarations are assumed not to keep their arguments (the
    MLIR convention upstream deallocation relies on too).

    With `arena`, every non-escaping allocation of static shape in a
    function (nested ones included) becomes a `memref.view` at a static
    offset into one `memref.alloc` of i8 made at the function's entry and
    freed after the last use of its last buffer. Offsets come from the
    lifetimes (first to last use, at the granularity of the entry block):
    an elementwise linalg op that reads an input for the last time may write
    its result into the input's storage (in-place reuse, same size), buffers
    whose lifetimes do not overlap share storage, and the placement is a
    best-fit greedy packing. The pass reports the arena as a remark:
    `arena of N bytes for M buffers (sum S bytes) ...`. Allocations of
    dynamic shape, and host copies (`memref.alloc` marked `remat.host`,
    what `remat.offload` bufferizes to), stay individual allocations with
    early frees.

    Runs on the module: every function is analysed before any is rewritten,
    so that calls see their callees' buffers as they were.
  }];
  let options = [
    Option<"arena", "arena", "bool", /*default=*/"false",
           "Place the non-escaping static buffers of each function in one "
           "arena with static offsets">,
    Option<"alignment", "alignment", "int64_t", /*default=*/"64",
           "Alignment in bytes of the arena and of every offset in it "
           "(a power of two)">,
    Option<"sinkAllocs", "sink-allocs", "bool", /*default=*/"true",
           "Move each freed allocation down to its first use">,
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Explain the decision for every buffer as a remark">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
}

def ReportBufferPeakPass : Pass<"remat-report-buffer-peak", "mlir::ModuleOp"> {
  let summary = "Report the peak bytes of the buffers each function holds";
  let description = [{
    After buffer planning, replays the `memref.alloc` and `memref.dealloc`
    ops of every function in program order (a loop body once, both branches
    of a conditional one after the other) and reports, as a remark on the
    function, the most bytes its own allocations hold at once and the bytes
    of its memref arguments: the numbers libRematRuntime measures when the
    function runs after `-remat-lower-to-cpu` (window peak = arguments +
    peak, if the caller holds only the arguments). A call to a function of
    the module adds that function's peak while it runs and its unfreed
    (returned) buffers after. An allocation with an `alignment` counts its
    size rounded up to it, as the aligned allocation functions request it.

    Runs on the module: a caller's peak includes its callees'.
  }];
}

#endif // REMAT_BUFFERPLANNING_PASSES_TD
