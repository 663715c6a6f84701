//===- TestPasses.td - Test-only passes of remat-opt ------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Passes that print analyses as remarks or check pass outputs, for FileCheck
// and -verify-diagnostics. Linked into remat-opt only: no product library
// carries them.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TEST_TESTPASSES_TD
#define REMAT_TEST_TESTPASSES_TD

include "mlir/Pass/PassBase.td"


def TestTrainingGraphPass : Pass<"remat-test-training-graph", "mlir::ModuleOp"> {
  let summary = "(test) Print the forward/backward split and costs as remarks";
  let description = [{
    For every function, remarks on each op: `forward` or `backward`, whether
    it may be recomputed, its result bytes and time; and on the function the
    number of forward and backward ops and the loss.
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", /*default=*/"64",
           "Allocation alignment of the memory model (bytes; 1 counts exact "
           "tensor bytes), as -remat-rematerialize's `alignment`">,
  ];
}

def TestTimelinePass : Pass<"remat-test-timeline", "mlir::ModuleOp"> {
  let summary = "(test) Print the lifetime timeline as remarks";
  let description = [{
    For every function in its current op order (recomputation regions
    flattened): bytes held while each op runs and live after it, and on the
    function the peak and the op where it occurs. The same numbers the
    Simulator gives for the same order. With `max-peak`, a peak above it is
    an error (tests use it to check the budget guarantee on pass outputs).
  }];
  let options = [
    Option<"maxPeak", "max-peak", "int64_t", /*default=*/"-1",
           "Fail when a function's peak exceeds this many bytes">,
    Option<"quiet", "quiet", "bool", /*default=*/"false",
           "Only the per-function peak, no per-op remarks">,
    Option<"alignment", "alignment", "int64_t", /*default=*/"64",
           "Allocation alignment of the memory model (bytes; 1 counts exact "
           "tensor bytes), as -remat-rematerialize's `alignment`">,
  ];
}

def TestLowerSetsPass : Pass<"remat-test-lower-sets", "mlir::ModuleOp"> {
  let summary = "(test) Print lower sets of the forward graph as remarks";
  let description = [{
    For every forward op v: the size and boundary of the lower set
    L_v = {w | v is reachable from w} (Kusumoto et al. Sec. 4.3), and on the
    function the number of lower sets of the forward graph (up to a cap).
  }];
  let options = [
    Option<"cap", "cap", "int64_t", /*default=*/"100000",
           "Stop counting lower sets beyond this many">,
  ];
}

def TestCheckArenaPass : Pass<"remat-test-check-arena", "mlir::ModuleOp"> {
  let summary = "(test) Check that arena views live together never overlap";
  let description = [{
    Independent check of `-remat-plan-buffers{arena=true}` output, or of any
    IR that carves buffers out of one i8 allocation: for every `memref.alloc`
    of a static 1-D i8 buffer whose uses are `memref.view`s at constant
    offsets (and its dealloc), computes the lifetime of each view (first to
    last use of it and its aliases, at the granularity of the function's
    entry block) and reports an error at two views that are live together
    and share bytes, unless one is written in place of the other by an
    elementwise op that reads it for the last time. Emits a remark with the
    number of views checked otherwise.
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", /*default=*/"1",
           "Also require every offset to be a multiple of this">,
  ];
}

def TestScanMatchPass : Pass<"remat-test-scan-match", "mlir::ModuleOp"> {
  let summary = "(test) Print what the scan recognizer proves, as remarks";
  let description = [{
    On every op carrying the unit attribute `test.index` (any op with
    one index result): its value as an affine sum (IndexExpr), the terms
    printed as operands; inside an scf.for of constant bounds, with the
    loop's index read as the scan matcher reads it (lower + step * k, k in
    [0, T - 1], printed as the index). On every scf.for and scf.while at the top level of a
    function: the scan it begins (T, the stacks' rows as alpha * k + beta,
    the backward loop's index as lower + m * step, and what each stack read
    gets: the row the reversed step stacks, the carry entering it, or a
    carry's initial or final value) or why it is not one. No rewrite.
  }];
}

#endif // REMAT_TEST_TESTPASSES_TD
