//===- RematOps.td - remat operations ----------------------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#ifndef REMAT_OPS_TD
#define REMAT_OPS_TD

include "remat/Dialect/Remat/RematDialect.td"
include "remat/Dialect/Remat/RematAttrs.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ValueBoundsOpInterface.td"

// The resource a recomputation "writes": declaring the effect keeps CSE from
// merging two recomputations of the same values (each is a deliberate,
// separately timed copy) and keeps DCE from deleting a placed recomputation.
def Remat_RecomputeResource
    : Resource<"::remat::RecomputeResource">;

def Remat_RecomputeOp : Remat_Op<"recompute", [
    IsolatedFromAbove, SingleBlockImplicitTerminator<"YieldOp">,
    MemoryEffects<[MemWrite<Remat_RecomputeResource>]>,
    DeclareOpInterfaceMethods<ValueBoundsOpInterface, [
        "populateBoundsForIndexValue", "populateBoundsForShapedValueDim"]>]> {
  let summary = "Recompute forward values from kept ones";
  let description = [{
    Re-executes clones of forward ops just before the backward pass needs
    their results. The operands are the kept values the recomputation starts
    from; inside the region they are the entry block's arguments (same
    types, same order). `remat.yield` returns the recomputed values, which
    become the op's results.

    Sizes pass through unchanged (ValueBoundsOpInterface): a block argument
    is its operand, a result the value yielded, so dynamic shapes inside a
    recomputation keep the bounds of the values they come from.

    The region is isolated from above, so `cse`/`canonicalize` cannot fold the
    clones back into the original ops, and the op has a (fictitious) write
    effect so that two recomputations of the same values are never merged.

    ```mlir
    %r = remat.recompute ins(%x : tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%in: tensor<4xf32>):
      %e = math.exp %in : tensor<4xf32>
      remat.yield %e : tensor<4xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$inputs);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`ins` `(` $inputs^ `:` type($inputs) `)`)? (`->` type($results)^)?
    attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    YieldOp getYield();
  }];
}

def Remat_YieldOp : Remat_Op<"yield", [
    Pure, ReturnLike, Terminator, HasParent<"RecomputeOp">]> {
  let summary = "Return the recomputed values of a remat.recompute";
  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ /* nothing to yield */ }]>];
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

def Remat_GenericOp : Remat_Op<"op", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "A framework op known only by name and cost (planning only)";
  let description = [{
    Stands for an op of another framework (e.g. `"aten.convolution"`) in a
    training graph exported for planning: the rematerialization pass plans
    around it with its `cost`, but it has no semantics and cannot be lowered
    (lowering pipelines stop with an error naming it). It is pure unless
    marked `random` (dropout, randn...), in which case it is never recomputed
    nor merged.

    `overwrites = N` says the op's executor writes its first result into
    operand N's storage when the op is that operand's last reader, as
    Inductor's generated kernels reuse a buffer they free (its in-place
    buffers): while such a run executes, the plan's memory model holds the
    two once. Operand N has the first result's element type and number of
    elements.

    ```mlir
    %y = remat.op "aten.convolution"(%x, %w) {cost = #remat.cost<time = 2.0e6, bytes = 65536>}
           : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
    ```
  }];
  let arguments = (ins StrAttr:$name, Variadic<AnyTensor>:$inputs,
                       Remat_CostAttr:$cost, UnitAttr:$random,
                       OptionalAttr<I64Attr>:$overwrites);
  let results = (outs Variadic<AnyTensor>:$results);
  let assemblyFormat = [{
    $name `(` $inputs `)` attr-dict `:` functional-type($inputs, $results)
  }];
  let hasVerifier = 1;
}

// The resource a host copy "writes": two copies of one value are two
// deliberate transfers, placed by the plan (never merged by CSE, never
// dropped while used).
def Remat_HostCopyResource : Resource<"::remat::HostCopyResource">;

def Remat_OffloadOp : Remat_Op<"offload", [
    AllTypesMatch<["input", "result"]>,
    MemoryEffects<[MemWrite<Remat_HostCopyResource>]>]> {
  let summary = "Copy a value to host memory";
  let description = [{
    The result is a copy of `input` in host memory, made right after the
    planner's last device use of `input` before a long gap: the device
    buffer may then be freed, and a `remat.prefetch` brings the value back
    before its next use. The host copy is read by `remat.prefetch` and by
    `func.return` only: with `offload-results=true` a result nothing reads
    again is returned from host memory. Written by `-remat-rematerialize`
    with `offload=true` (an `Offload` step of the plan).

    Bufferizes to a host buffer (`memref.alloc {remat.host}`) and a
    `memref.copy`; `-remat-lower-to-gpu` allocates it with
    `gpu.alloc host_shared` (pinned host memory in libRematCudaRuntime,
    counted as host bytes) and copies with `gpu.memcpy`.
    `-remat-lower-to-cpu` refuses it.

    ```mlir
    %h = remat.offload %x : tensor<64x64xf32>
    %y = remat.prefetch %h : tensor<64x64xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Remat_PrefetchOp : Remat_Op<"prefetch", [
    AllTypesMatch<["input", "result"]>,
    MemoryEffects<[MemWrite<Remat_HostCopyResource>]>]> {
  let summary = "Copy a value back from host memory";
  let description = [{
    The result is a device copy of the host copy `input`, the result of a
    `remat.offload`, placed before the next use of the offloaded value (a
    `Prefetch` step of the plan). Bufferizes to a fresh buffer and a
    `memref.copy`.
  }];
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

// A host stack: the rows of a scan's stack kept in host memory, one row
// copied out per forward step and back per backward step (issue 51: a
// scan's stored values offloaded instead of recomputed).

def Remat_HostEmptyOp : Remat_Op<"host_empty", [
    MemoryEffects<[MemAlloc<Remat_HostCopyResource>]>]> {
  let summary = "An uninitialized stack in host memory";
  let description = [{
    A tensor whose buffer is host memory, written only by
    `remat.offload_row` and read only by `remat.prefetch_row` (through the
    iteration arguments and results of the loops that carry it). It takes
    no device memory. Written by `-remat-host-stacks` in place of the
    `tensor.empty` a scan's stack starts from; bufferizes to a
    `memref.alloc` marked `remat.host`, which `-remat-lower-to-gpu`
    allocates as pinned host memory. Static shapes only.

    ```mlir
    %s = remat.host_empty : tensor<64x32x64xf32>
    ```
  }];
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Remat_OffloadRowOp : Remat_Op<"offload_row", [
    AllTypesMatch<["stack", "result"]>, DestinationStyleOpInterface,
    MemoryEffects<[MemWrite<Remat_HostCopyResource>]>]> {
  let summary = "Copy a value into one row of a host stack";
  let description = [{
    The result is `stack` (a host stack: `remat.host_empty` or what a loop
    carries of one) with row `row` of its leading dimension replaced by
    `value`, copied from the device: one contiguous copy to the host.
    `value` has the type of one row (the stack's type without its leading
    dimension). The stack is updated in place.

    ```mlir
    %s1 = remat.offload_row %h into %s[%i] : tensor<32x64xf32> into tensor<64x32x64xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$value,
                       AnyStaticShapeTensor:$stack, Index:$row);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $value `into` $stack `[` $row `]` attr-dict `:` type($value) `into`
    type($stack)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return getStackMutable();
    }
  }];
}

def Remat_PrefetchRowOp : Remat_Op<"prefetch_row", [
    MemoryEffects<[MemWrite<Remat_HostCopyResource>]>]> {
  let summary = "Copy one row of a host stack back to the device";
  let description = [{
    The result is a device copy of row `row` of the leading dimension of
    the host stack `stack` (one contiguous copy from the host into a fresh
    buffer).

    ```mlir
    %h = remat.prefetch_row %s[%i] : tensor<64x32x64xf32> to tensor<32x64xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$stack, Index:$row);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $stack `[` $row `]` attr-dict `:` type($stack) `to` type($result)
  }];
  let hasVerifier = 1;
}

#endif // REMAT_OPS_TD
