//===- RematDialect.td - The remat dialect -----------------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#ifndef REMAT_DIALECT_TD
#define REMAT_DIALECT_TD

include "mlir/IR/OpBase.td"

def Remat_Dialect : Dialect {
  let name = "remat";
  let cppNamespace = "::remat";
  let summary = "Rematerialization: keep or recompute forward activations";
  let description = [{
    The `remat` dialect carries what rematerialization needs on top of a
    training step written in upstream dialects (linalg, tensor, arith, math on
    tensors):

    * `remat.recompute` holds the clones of forward ops that the
      rematerialization pass re-executes during the backward pass. Its region
      is isolated from above, so `cse` and `canonicalize` can never merge a
      recomputation back into the original computation.
    * `remat.op` is a generic, planning-only op (any framework op by name,
      with tensor operands/results and a cost). It lets a framework export a
      training graph for planning without modelling every op's semantics; it
      cannot be lowered.
    * Discardable attributes that any op may carry:
      - `remat.policy = #remat.policy<keep>` / `#remat.policy<recompute>`:
        the user's hint (like PyTorch's selective checkpoint policies);
      - `remat.cost = #remat.cost<time = ..., bytes = ..., workspace = ...>`:
        a measured or estimated cost that overrides the analytic cost model;
      - `remat.stage = N : i64`: a stage index grouping ops for the chain
        strategies;
      - `remat.init = N : i64` on a `tensor.empty`: set by the planner on
        each op's own initial value (N unique in the function) so that
        `cse` cannot merge them back into one long-lived buffer after
        planning; dropped by `-remat-strip-annotations`.
      - `remat.own_node` (unit) on a `tensor.insert_slice`: set by
        `-remat-prepare` where the inserted slice is computed after the
        insert before it (a gradient stacked layer by layer): the insert
        updates that one's result in place, a planner node of its own,
        whatever order a plan then gives the slice; dropped by
        `-remat-strip-annotations`.
      - `remat.host` (unit) on a `memref.alloc`: the host buffer a
        `remat.offload` bufferizes to (pinned host memory on the GPU path,
        counted apart from device buffers).
    * `remat.offload` and `remat.prefetch` copy a value to host memory and
      back (host offload, a third choice beside keep and recompute).
    * The `remat.loss` function result attribute marks the loss when it is
      not the first result.

    Reaching bufferization: the `-remat-inline-recompute` pass inlines every
    `remat.recompute` region in place as the last tensor-level step (after the
    last `cse`/`canonicalize`); One-Shot Bufferize then sees plain ops and
    gives each clone its own buffer.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let extraClassDeclaration = [{
    static constexpr ::llvm::StringLiteral kPolicyAttrName = "remat.policy";
    static constexpr ::llvm::StringLiteral kCostAttrName = "remat.cost";
    static constexpr ::llvm::StringLiteral kStageAttrName = "remat.stage";
    static constexpr ::llvm::StringLiteral kLossAttrName = "remat.loss";
    static constexpr ::llvm::StringLiteral kInitAttrName = "remat.init";
    static constexpr ::llvm::StringLiteral kOwnNodeAttrName =
        "remat.own_node";
    static constexpr ::llvm::StringLiteral kBoundsAttrName = "remat.bounds";
    static constexpr ::llvm::StringLiteral kHostAttrName = "remat.host";
  }];
}

class Remat_Op<string mnemonic, list<Trait> traits = []>
    : Op<Remat_Dialect, mnemonic, traits>;

#endif // REMAT_DIALECT_TD
