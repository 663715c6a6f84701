//===- Passes.td - remat passes ----------------------------*- tablegen -*-===//

#ifndef REMAT_TRANSFORMS_PASSES_TD
#define REMAT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def InlineRecompute : Pass<"remat-inline-recompute"> {
  let summary = "Inline remat.recompute regions in place before bufferization";
  let description = [{
    Replaces every `remat.recompute` by the ops of its region, wired to the
    op's operands, at the op's position. Run it as the last tensor-level step,
    after any `cse`/`canonicalize`: once inlined, the clones are ordinary ops
    that CSE could merge back into the originals.
  }];
}

def CheckExecutable : Pass<"remat-check-executable"> {
  let summary = "Reject planning-only ops before lowering";
  let description = [{
    Emits an error at every `remat.op` (a framework op known only by name and
    cost), and fails, so that lowering pipelines stop with a message naming
    the op instead of an obscure legalization failure.
  }];
}

#endif // REMAT_TRANSFORMS_PASSES_TD
