//===- Passes.td - remat passes ----------------------------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#ifndef REMAT_TRANSFORMS_PASSES_TD
#define REMAT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def InlineRecomputePass : Pass<"remat-inline-recompute"> {
  let summary = "Inline remat.recompute regions in place before bufferization";
  let description = [{
    Replaces every `remat.recompute` by the ops of its region, wired to the
    op's operands, at the op's position. Run it as the last tensor-level step,
    after any `cse`/`canonicalize`: once inlined, the clones are ordinary ops
    that CSE could merge back into the originals.

    `barriers=iree` keeps them apart when a downstream compiler runs CSE
    anyway (IREE does): every input of a region and every result passes
    through its own `util.optimization_barrier`, an op of IREE's `util`
    dialect written in generic form (remat-opt does not load that dialect;
    the pass lets the context hold it). A recomputation then reads other
    values than the original does, and CSE cannot merge the two. Each
    tensor that a branch of an `scf.if` inside a loop computes and yields
    (a checkpointed scan's reversal) also passes a barrier of its own: IREE
    packs a partition's results into one buffer, and IREE 3.13's VM, given
    that buffer for two arguments of the merge block, moves it out of the
    register the other keeps (iree-org/iree#24753), which stopped such steps
    at run time.

    `barriers=iree-ordered` does that and, in every function where a region
    was inlined, also puts each result of a linalg op of the function's own
    body (not of a loop's) behind a barrier, but a fill's: IREE then runs
    each op in an execution partition of its own, in the order written, and
    frees each result after its last use as remat's plan does, where its
    partitions would otherwise pack their results into one buffer freed when
    the last of them dies; IREE's fusion across those ops is lost. Fills are
    left unfenced: IREE 3.13 computed wrong results with them fenced.
  }];
  let options = [
    Option<"barriers", "barriers", "std::string", /*default=*/"\"none\"",
           "none (the regions' ops inlined as they are), iree (inputs and "
           "results behind util.optimization_barrier, one value each) or "
           "iree-ordered (as iree, and every linalg op's result but a fill's "
           "where a region was inlined)">,
  ];
}

def FuseElementwisePass : Pass<"remat-fuse-elementwise-chains", "mlir::func::FuncOp"> {
  let summary = "Fuse elementwise linalg.generic chains as a downstream compiler would";
  let description = [{
    Fuses each elementwise `linalg.generic` into the `linalg.generic` that
    reads it, where that is its only reader and both lie in the same block
    (upstream's elementwise fusion patterns): nothing is computed twice, and
    the chain (a bias broadcast, its add, the activation) becomes one op
    with one result. A compiler that forms dispatches this way (IREE)
    allocates no buffer between the ops of a chain; planned after this
    pass, remat's model of the step counts the buffers such a compiler
    allocates (JAX's 8-layer MLP at batch 1024: 5,424,832 B in remat's
    model against IREE's 5,375,144 B; 9,094,848 B without the fusion).
    Run first by `-remat-fit{fuse-elementwise=true}` (`remat-opt
    --remat-fuse-elementwise --remat-budget=...`).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def IndexTensorsToI64Pass : Pass<"remat-index-tensors-to-i64"> {
  let summary = "Store tensors of index (scan checkpoint tables) as i64";
  let description = [{
    A checkpointed scan keeps its checkpoints' positions in small tensors of
    `index`, which remat's lowerings keep in host memory; a downstream
    compiler that must give `index` a width to fill a tensor (IREE) cannot
    take them. Each such tensor, from its `tensor.empty` through its
    inserts, extracts and the loops and branches that carry it, becomes a
    tensor of i64, with `arith.index_cast` at every insert and extract.
    Run by `-remat-fit{barriers=iree}`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def ReversedMapsToSelectPass : Pass<"remat-reversed-maps-to-select"> {
  let summary = "Rewrite linalg.generic reads at reversed indices as a select";
  let description = [{
    A `linalg.generic` whose input map reads at `c - d` (a convolution's
    kernel flipped for its input gradient) is a valid and exact linalg op,
    but IREE's tiling infers the operand's shape wrongly from a negative
    coefficient and fails. Each such term is rewritten with a new loop `r`
    over `[0, c]` read at `r` instead, the body's results kept only where
    `d + r == c` (`arith.select` of the old output otherwise, an output the
    body never read filled with zeros first): exactly one `r` matches each
    `d`, so every output element is what it was, bit for bit, with positive
    maps only. The op does `c + 1` times the iterations
    (a kernel flip is tiny). Only a result `c - d` alone is rewritten: in
    `x + c - d` (a grouped convolution's input gradient as remat's importer
    writes it) `r` would appear in no map alone and linalg could not infer
    its range; such an op keeps its map, with a warning. Run by
    `-remat-fit{barriers=iree}`.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::arith::ArithDialect"];
}

def StripAnnotationsPass : Pass<"remat-strip-annotations"> {
  let summary = "Drop remat.* attributes once planning is done";
  let description = [{
    Removes the discardable `remat.cost`, `remat.policy` and `remat.stage`
    attributes and the `remat.loss` result attribute: they only matter to
    the planner, and lowered code (mlir-runner, mlir-translate) must not
    depend on the remat dialect.
  }];
}

def ContractFloatOpsPass : Pass<"remat-contract-float-ops"> {
  let summary = "Allow LLVM to fuse float multiplies and adds (FMA)";
  let description = [{
    Adds the `contract` fast-math flag to every LLVM dialect op that has
    fast-math flags (`llvm.fmul`, `llvm.fadd`, ...), so that the back end
    may fuse a product and the sum it feeds into one fused multiply-add,
    rounded once. This is what PyTorch's CPU kernels and the NVPTX back end
    (ptxas's default `--fmad=true`) do; without it every product and sum
    of a convolution or matmul is rounded apart and long chains of short
    float32 reductions drift further from float64 than PyTorch's own
    float32 does. Only contraction is allowed: no reassociation, no
    assumptions about NaN or infinity. `-remat-lower-to-cpu` runs it last
    (`fp-contract=false` leaves the flags as they are), and so does
    `-remat-lower-to-gpu{emulate=true}`, whose kernels run on the CPU.
  }];
}

def CheckExecutablePass : Pass<"remat-check-executable"> {
  let summary = "Reject planning-only ops before lowering";
  let description = [{
    Emits an error at every `remat.op` (a framework op known only by name and
    cost), and fails, so that lowering pipelines stop with a message naming
    the op instead of an obscure legalization failure. With `target=cpu`,
    also at the first host copy (`remat.offload`): the CPU lowering has one
    memory, and only `-remat-lower-to-gpu` lowers host copies.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"any\"",
           "The lowering that follows: cpu refuses host copies "
           "(remat.offload); gpu and any accept them">,
  ];
}

def NormalizeInputPass : Pass<"remat-normalize-input", "mlir::ModuleOp"> {
  let summary = "Inline calls, lower affine index arithmetic and make 0-d "
                "tensor loop counters scalars, where present";
  let description = [{
    The input clean-up of `-remat-fit`: upstream's inliner (private callees
    inlined, then dropped once unused), so the planner sees through calls,
    then upstream's `-lower-affine`, so a scan's row index written
    `affine.apply` reads as the arith the scan matcher proves. Each runs
    only where the module has something for it (a call or a private
    callable; an op of the affine dialect): on a 40k-op step without either,
    the inliner and its canonicalize took 0.8 s and lower-affine 0.3 s of a
    6 s pass, and changed nothing the pipeline's own canonicalize would not.

    Last, in functions whose `scf` loops carry a 0-d integer tensor (the
    `tensor<i32>` counter of a StableHLO `while`, as `lax.scan` and
    `fori_loop` reach SCF through `stablehlo-legalize-to-linalg` and
    `stablehlo-legalize-control-flow`): those carries become scalars, and
    pure rank-0 `linalg.generic` / `linalg.map` ops on integers the scalar
    ops of their bodies, so the scan matcher reads the counter as it reads
    an `i32` one. Float 0-d tensors (a loss) are left as they are.

    Then a scan over scans (an `scf.for` that stacks and holds a loop, with
    the loops after it that read it and hold one: layers over time) of at
    most 16 iterations is unrolled, and the rows its stacks held are
    forwarded to their reads, so that the inner scans are loops of the
    function the scan matcher reads; a longer one gets a remark. A stack
    the unrolled loops fill row by row from a fresh buffer (the layers'
    weight gradients) is then assembled where it is first read, as the
    unrolled twin assembles it, not held from before the first layer.

    Then a loop that stacks several values side by side in one tensor,
    written in parts each iteration (`stack[i, j]` for part j, a constant
    index of a part axis, each write into the one before) has the stack
    split into one per part (a new iteration argument each), every read of
    a part, in the loop and after it, made a read of its own stack; a part
    that is one index, read and written without the axis, drops it
    (`-remat-checkpoint-scans` runs this step too).

    Then a loop that stacks k > 1 rows per iteration into a flat tensor
    (h_t of [B, W] at rows B * (t + 1) of a [(T + 1) * B, W] stack) has the
    stack retyped as [T + 1, B, W] (`tensor.expand_shape` of its init), its
    block writes and reads made row accesses, where every access is such a
    block at an offset that is a multiple of k; the meaning and the bytes
    are unchanged (`-remat-checkpoint-scans` runs this step too).

    Then a loop that reads back rows of a stack it writes (`hs[t + 1] =
    f(hs[t])`: its state kept in the stack, not in an iteration argument)
    carries the value instead, where the row read is provably the one an
    earlier iteration (at most 8 back) or the code before the loop wrote:
    each such read becomes an iteration argument holding that value. The
    meaning is unchanged; the stack is then only written, and the loop a
    scan `-remat-checkpoint-scans` reads (which runs this step too).

    Then a loop that writes every row of a stack from a `tensor.empty`, one
    row an iteration, and reads a stack of the same type computed before
    it and dead after it only at the row it writes in the same iteration
    (a backward loop consuming the gradient stack of the layer above,
    producing its own) writes into the consumed stack instead: one stack
    where there were two. A forward stack read in reverse (a scan's
    residuals) is left to `-remat-checkpoint-scans`.

    Then a loop that stacks (yields a row written into one of its
    iteration arguments), an `scf.for` or an `scf.while` whose condition
    forwards its arguments unchanged, carries its float scalars (a loss
    summed as it goes, in an `f32`) as 0-d tensors, which the scan's
    checkpoints can hold (`-remat-checkpoint-scans` runs this step too).

    `-remat-lower-to-cpu` and `-remat-lower-to-gpu` run it without the
    inliner (`inline-calls=false`: a harness's calls stay calls) before
    bufferization, which has no rules for an `affine.for` carrying tensors.
  }];
  let options = [
    Option<"inlineCalls", "inline-calls", "bool", /*default=*/"true",
           "Inline calls first (the lowerings keep them: false)">,
  ];
}

def CSEScalarsPass : Pass<"remat-cse-scalars", "mlir::func::FuncOp"> {
  let summary = "CSE that merges index and scalar arithmetic and leaves "
                "tensor computations as written";
  let description = [{
    The input clean-up of `-remat-fit`, in place of upstream's `cse`: two
    equal pure ops without regions are merged when no result is a tensor
    (index arithmetic, scalars, `tensor.dim`), or when they are constants,
    `tensor.empty` or a fill of a constant into one (no contents, or
    constant ones; `-remat-prepare` gives each op writing into a shared one
    its own again).
    Two equal tensor computations stay two. A step that recomputes a
    forward value in its backward pass (a hand-written adjoint, the output
    of `jax.checkpoint`) has written a plan; upstream's `cse` would merge
    the recomputation into the forward value and hold it across the step,
    so the program returned would need more memory than the one given
    (`test/Transforms/cse-scalars.mlir`). Merges within a block and into
    the blocks an op's single-block regions nest; ops isolated from above
    are left alone.
  }];
}

def AnnotateCostsPass : Pass<"remat-annotate-costs", "mlir::ModuleOp"> {
  let summary = "Attach the planner's cost of every op as #remat.cost";
  let description = [{
    Writes the cost the rematerialization planner uses for each op of every
    function (from a measured cost table, the analytic model of upstream ops,
    or one operation per result element) as a `remat.cost` attribute, so the
    numbers are visible in the IR and survive into later runs. Ops that
    already carry `remat.cost`, and `remat.op`, keep theirs.

    Runs on the module: the cost table is read once, and a table that does
    not load is reported once, at the module.
  }];
  let options = [
    Option<"costTable", "cost-table", "std::string", /*default=*/"\"\"",
           "Measured per-op costs (JSON, keyed by location name or op name)">,
  ];
  let dependentDialects = ["::remat::RematDialect"];
}

def ReportPipelineTimePass
    : Pass<"remat-report-pipeline-time", "mlir::ModuleOp"> {
  let summary = "Remark the critical path of each pipelined step";
  let description = [{
    For every function that passes tensors between devices
    (`shard.send`/`shard.recv`/`shard.shift`) and reads the device index of
    one grid, replays each device's ops (its loops and branches decided by
    the device index and loop counters) and the messages between them, and
    remarks when the last device finishes (the step's critical path, in the
    cost model's units), each device's finish and busy time. This is the
    pipeline time `-remat-rematerialize` reports as `pipeline_time_before`
    and `pipeline_time_after`. A step that cannot be replayed gets a remark
    saying why (a device waiting for a message never sent, a branch its
    known integers do not decide).
  }];
  let options = [
    Option<"costTable", "cost-table", "std::string", /*default=*/"\"\"",
           "Measured per-op costs (JSON, keyed by location name or op name)">,
  ];
}

def PreparePass : Pass<"remat-prepare", "mlir::func::FuncOp"> {
  let summary = "Give each op its own initial values, right before it";
  let description = [{
    Makes the IR match the planner's memory model (and what One-Shot
    Bufferize will allocate): an initial value (`tensor.empty`, a
    `linalg.fill`, a broadcast of a parameter) that several ops write into
    is duplicated per use, and each initial value used by one op is moved
    right before it. A slice
    updated where it was cut (`tensor.extract_slice` of `%m`, inserts into
    it, the slice inserted back at the same place: `m[r][c] = v` as a
    frontend lowers PyTorch's `slice_scatter` of a `slice_scatter`) becomes
    inserts into `%m` at the summed offsets, which is where One-Shot
    Bufferize writes them (constant offsets and unit strides only). In a
    loop body (`scf.for`, an `scf.while` that passes
    its arguments on), the op that computes a carry's next value writes it
    into the iteration argument instead of a fresh initial value when the
    old value is no longer read by then (`outs(%h)`; an elementwise update
    such as `%g + %dg` may read it too): the old and the new value are not
    both live until the iteration ends, as in the unrolled step.
    `-remat-rematerialize` does this itself; the pass exists to inspect and
    test it.

    Runs on each `func.func` (nested implicitly by `remat-opt -remat-prepare`;
    in a textual pipeline: `builtin.module(func.func(remat-prepare))`).
    Not anchored on `FunctionOpInterface`: the pass manager does not nest
    interface passes implicitly, so `remat-opt -remat-prepare` would fail.
  }];
  let dependentDialects = ["::remat::RematDialect"];
}

def RematerializePass : Pass<"remat-rematerialize", "mlir::ModuleOp"> {
  let summary = "Fit each function's training step into a memory budget";
  let description = [{
    For every `func.func` on tensors (a training step: forward ops that the
    loss depends on, backward ops for the rest), chooses which forward values
    to keep and which to recompute so that the peak memory of the function
    is at most the budget, and rewrites the body accordingly: forward ops in
    order, backward ops in the schedule's order, and every recomputation
    cloned into a `remat.recompute` region right before the backward ops that
    need it.

    The peak is the one the lifetime analysis computes for the rewritten IR
    (arguments, live values and results as produced; values die at their
    last use). If no strategy reaches the budget the pass fails with an error
    at the function naming the smallest budget it can meet, and leaves the
    IR unchanged. Functions that already fit are left unchanged.

    Ops with memory effects or randomness are never recomputed, nor are ops
    marked `#remat.policy<keep>`; ops marked `#remat.policy<recompute>` are
    never kept across the forward/backward boundary. Existing recomputations
    are never recomputed again. A function is a training step when it
    returns its loss (the result marked `remat.loss`, else the first)
    together with at least one value computed, outside the loss's own
    computation, from what it made (a gradient); other functions are skipped
    with a remark and listed in the report as skipped, unless named by
    `functions`, which makes that an error. Decisions are reported as optimization
    remarks (category `remat`; see `--remarks-filter`) and, with `report`,
    as JSON.

    Runs on the module: one report covers every function, and the names in
    `functions` are looked up in the module's symbol table.

    Options: `budget`, `strategy`, `report`, `cost-table`, `functions`, and
    every strategy's own options (`slots`, `milp-seconds`, ...), the same as
    `-remat-fit`'s: listed with defaults and ranges in
    [Options.md](Options.md) and by `remat-opt --help`.
  }];
  // Its options are declared once, for this pass, -remat-fit and remat-opt's
  // --remat-<option> flags, in RematOptionDecls.h (the strategies' own
  // options come from their descriptors); docs/Options.md lists them.
  let constructor = "::remat::createRematerializePass()";
  let dependentDialects = ["::remat::RematDialect"];
}

def ExportGraphPass : Pass<"remat-export-graph", "mlir::ModuleOp"> {
  let summary = "Write each function's training graph as JSON for remat-plan";
  let description = [{
    Writes the graph the planner sees (nodes = ops, tensors = values with
    their bytes, forward/backward roles, costs) in the JSON graph format of
    docs/graph-format.md, so `remat-plan` can compare strategies on real IR.
    With several functions, `{name}` in the file name is replaced by the
    function name. The IR is not changed.

    Runs on the module: without `{name}`, every function writes to the same
    file or stream, one after the other in the module's order.
  }];
  let options = [
    Option<"file", "file", "std::string", /*default=*/"\"-\"",
           "Output file ('-' for stdout; '{name}' = function name)">,
    Option<"costTable", "cost-table", "std::string", /*default=*/"\"\"",
           "Measured per-op costs (JSON, keyed by location name or op name)">,
    Option<"alignment", "alignment", "int64_t", /*default=*/"64",
           "Allocation alignment: tensor bytes are rounded up to it, as "
           "-remat-rematerialize counts them (1: exact tensor bytes)">,
  ];
}


def TimeNodesPass : Pass<"remat-time-nodes", "mlir::ModuleOp"> {
  let summary = "Time every planner node of a training step, in the lowering";
  let description = [{
    Adds to the module one private function per planner node of the training
    step (the node's ops, its initial values included, taking what the node
    reads as arguments) and a `@main` that, for each node in program order,
    builds arguments of its input types (filled with 0.5, integers with 0),
    calls it `warmup` times, then `runs` times, each call timed alone with
    libRematRuntime's timer 0, prints the timer (`timer id=0 ... median_ns=`
    on stderr) and resets it. Before that, `@main` calls every node `warmup`
    times, untimed, in the same order: the nodes timed first would otherwise
    measure a cold process (under MPICH the first collectives of a sharded
    step took 3-4x what the same collectives took later). `keys=FILE` receives, as JSON, the cost-table
    key of each node's ops in the same order, so that
    `benchmarks/timing/calibrate_costs.py` can write a cost table of
    measured times for `--remat-cost-table`. Lower the module as the step is
    lowered (`-remat-lower-to-cpu`) and run `@main` with the runtime.

    The step is the module's only training step, or `function=`. Nodes are
    timed on their own, with every input in cache after the warm-up: a lower
    bound on the time in the step where inputs come from memory.

    A node with regions (a loop, a branch) is not timed whole: the planner
    costs it from its bodies' ops (a body's time, times the trip count), so
    each body becomes a function of the iteration's arguments and of what it
    reads from above (constants cloned in), and that function's nodes are
    timed in its place, recursively. For each scan (a forward loop stacking
    per-iteration values, reversed by a backward loop) it also times one copy
    and one store into a stack's row per carry type, and a copy of each
    backward state type: the ops a checkpointed scan's rewrite adds, keyed
    `remat.scan.copy <type>` and `remat.scan.store <type>` as the rewrite
    names them. A node that writes into one of its inputs (an accumulator, a
    stack) is called on a fresh copy of it, made before the timer starts, as
    the step writes it in place.
  }];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"\"",
           "The training step (default: the module's only one)">,
    Option<"keys", "keys", "std::string", /*default=*/"\"\"",
           "Write the nodes' cost-table keys, in timing order, as JSON (required)">,
    Option<"runs", "runs", "int", /*default=*/"20",
           "Timed calls of each node">,
    Option<"warmup", "warmup", "int", /*default=*/"10",
           "Untimed calls of each node, in a warm-up pass over all nodes and "
           "again before its timed calls">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def CheckpointScansPass : Pass<"remat-checkpoint-scans", "mlir::ModuleOp"> {
  let summary = "Keep K checkpoints of a scan's carries instead of its stacks";
  let description = [{
    Finds scans (a forward loop -- `scf.for`, or an `scf.while` counting to
    a constant -- writing one row per iteration into stacked tensors at a
    row affine in its index, however spelled, and a backward loop whose
    iteration j provably reads only what forward iteration T-1-j wrote;
    docs/loops.md) and rewrites each
    into loops that keep `slots` checkpoints of the carried state and
    re-run forward segments from the nearest one (binomial checkpointing:
    the fewest forward steps for that many checkpoints). A forward loop
    whose trip count is known only at run time (an `scf.while` stacking at a
    counter from a constant by 1, or an `scf.for` to a value) is checkpointed online: which
    carries to keep is decided step by step at run time, optimally while it
    runs at most (K+1)(K+2)/2 - 1 steps. The IR does not grow with T.
    With `budget` instead of `slots`, the number of slots is
    the largest whose estimated peak fits. Loops it cannot checkpoint are
    left as they are, with a remark naming the reason. A loop that reads
    back a row of its own stack (`hs[t + 1] = f(hs[t])`) carries that value
    first, as `-remat-normalize-input` does.

    Runs on the module: the options are checked once, at the module, and
    the first function that cannot be rewritten stops the pass.
  }];
  let options = [
    Option<"slots", "slots", "int64_t", /*default=*/"0",
           "Checkpoints of the carries to keep (1 to T, the stacks' rows for "
           "a while loop; 0: from the budget)">,
    Option<"budget", "budget", "std::string", /*default=*/"\"\"",
           "Peak bytes allowed (units as --remat-budget; percentages of the "
           "estimated peak without checkpointing)">,
    Option<"resizeFrom", "resize-from", "int64_t", /*default=*/"0",
           "With slots=K, for testing: emit each scan with this many slots, "
           "then set K in the emitted IR (as -remat-fit sets the count it "
           "chose on its probe rewrite); the output is the direct rewrite's "
           "(0: emit with K)">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}


def HostStacksPass : Pass<"remat-host-stacks", "mlir::func::FuncOp"> {
  let summary = "Keep a scan's stacks in host memory, a row copied each way";
  let description = [{
    The third choice for a scan (docs/loops.md, "Stacks in host memory"):
    where a scan's stacks are stored whole rows along one axis, starting
    from a `tensor.empty` (or a fill of one that the loop overwrites
    whole), and read back a whole row at a time, each stack
    becomes a `remat.host_empty`, each store a `remat.offload_row` and each
    read a `remat.prefetch_row` (on the host the stack is time-major, so a
    row is one contiguous copy): the device holds no row of it beyond the
    one in flight, and nothing is recomputed. A remark names each scan
    moved, and why a loop that is a scan was not. `-remat-fit` with
    `offload=true` (`--remat-offload`) makes this choice itself where it is
    faster or smaller than checkpointing; lowered by `-remat-lower-to-gpu`
    (pinned host memory, one `gpu.memcpy` per row).
  }];
  let dependentDialects = ["::remat::RematDialect",
                           "::mlir::arith::ArithDialect"];
}

def LoopCarriesInPlacePass : Pass<"remat-loop-carries-in-place"> {
  let summary = "Make every loop's yield write into its iteration argument";
  let description = [{
    One-Shot Bufferize needs the value an `scf.for` yields for a tensor
    iteration argument to bufferize to that argument's buffer; a value
    computed into a fresh tensor (`h' = tanh(h w)`) does not, and
    bufferization stops with "Yield operand #0 is not equivalent to the
    corresponding iter bbArg". This pass ends such iterations with a
    `linalg.copy` of the value into the argument, so each carried tensor
    has one buffer for the whole loop and every buffer allocated in an
    iteration dies in it (the early-free planner then frees it there).
    Yields already written in place (the argument itself, or an insert or
    destination-passing op into it, the old value read by nothing after the
    write) are left alone. A write into the argument whose old value is
    still read after it is a copy (One-Shot Bufferize copies the old value
    first), copied back the same way. On one path of an `scf.if` that copy
    would be made on that path only (no buffer every path made, which
    nothing would free): there the old value is copied instead, into a
    `tensor.empty` (of the value's sizes, `tensor.dim` of it where they are
    dynamic) right before the op of the argument's block that holds the
    write, on every path, and the reads from there on read the copy; the
    write is then in place. Where that cannot be done (an unranked tensor)
    the pass stops with an error that says what to do. An `scf.while` whose
    condition passes its arguments on unchanged is treated the same way
    (its body's arguments are the iteration's buffers). Run by the CPU and GPU
    lowerings before bufferization.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

#endif // REMAT_TRANSFORMS_PASSES_TD
