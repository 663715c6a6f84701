// What the planner cannot handle is an error at the op or function, with
// what to do about it.
// RUN: remat-opt %s -remat-test-training-graph -split-input-file -verify-diagnostics

// expected-error @+1 {{remat supports straight-line function bodies (one block); this one has 2 blocks: express control flow with structured ops (scf)}}
func.func @blocks(%x: tensor<4xf32>) -> tensor<4xf32> {
  cf.br ^bb1
^bb1:
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{remat needs the loss as a function result: the function returns nothing}}
func.func @no_results(%x: tensor<4xf32>) {
  return
}

// -----

func.func @dynamic(%x: tensor<4xf32>, %n: index) -> tensor<?xf32> {
  // A size from an index argument: nothing bounds it (test/Dynamic has the
  // sources of bounds).
  // expected-error @+1 {{result #0 of tensor.empty ('tensor<?xf32>') has no upper bound remat can derive for dimension 0: give the arguments it depends on upper bounds}}
  %e = tensor.empty(%n) : tensor<?xf32>
  %f = math.exp %e : tensor<?xf32>
  return %f : tensor<?xf32>
}

// -----

// expected-error @+1 {{argument #0 has a dynamic shape ('tensor<?xf32>') without an upper bound: bound it with --remat-dim-bounds=arg0:0=N}}
func.func @dynamic_arg(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}
