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
  // tensor.empty holds no data, whatever its shape.
  %e = tensor.empty(%n) : tensor<?xf32>
  // expected-error @+1 {{result #0 has a dynamic shape ('tensor<?xf32>'): give its size with a remat.cost attribute or a cost table entry}}
  %f = math.exp %e : tensor<?xf32>
  return %f : tensor<?xf32>
}

// -----

// expected-error @+1 {{argument #0 has a dynamic shape ('tensor<?xf32>'): remat needs static sizes}}
func.func @dynamic_arg(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}
