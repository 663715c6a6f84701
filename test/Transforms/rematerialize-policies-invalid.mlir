// Hints that cannot hold, and budgets that pinned values make impossible,
// are errors that say what to do.
// RUN: remat-opt %s -split-input-file -remat-rematerialize="budget=4100 alignment=1" -verify-diagnostics

func.func @random_recompute(%x: tensor<256xf32>) -> (tensor<256xf32>, tensor<256xf32>) {
  // expected-error @+1 {{#remat.policy<recompute> cannot hold: this op has side effects or randomness and is never recomputed; remove the hint}}
  %d = remat.op "aten.dropout"(%x) {cost = #remat.cost<time = 1.0>, random, remat.policy = #remat.policy<recompute>} : (tensor<256xf32>) -> tensor<256xf32>
  %l = math.exp %d : tensor<256xf32>
  %g = arith.mulf %l, %d : tensor<256xf32>
  return %l, %g : tensor<256xf32>, tensor<256xf32>
}

// -----

func.func @returned_recompute(%x: tensor<256xf32>) -> (tensor<256xf32>, tensor<256xf32>, tensor<256xf32>) {
  // expected-error @+1 {{#remat.policy<recompute> cannot hold: the value is a result of the function and stays live; remove the hint}}
  %a = math.exp %x {remat.policy = #remat.policy<recompute>} : tensor<256xf32>
  %l = math.exp %a : tensor<256xf32>
  %g = arith.mulf %l, %a : tensor<256xf32>
  return %l, %a, %g : tensor<256xf32>, tensor<256xf32>, tensor<256xf32>
}

// -----

// With every activation pinned, the floor is the program as written.
// expected-note @+7 {{1024 B: the arguments (live throughout)}}
// expected-note @+6 {{4 B: results and gradients already produced}}
// expected-note @+19 {{3072 B: the inputs, outputs and workspace of the op running at the peak ('arith.mulf')}}
// expected-note @+5 {{1024 B: kept, never recomputed: marked #remat.policy<keep>}}
// expected-note @+5 {{1024 B: kept, never recomputed: marked #remat.policy<keep>}}
// expected-note @+5 {{1024 B: kept, never recomputed: marked #remat.policy<keep>}}
// expected-error @+1 {{cannot fit @all_kept into 4100 B (57.2% of its peak without rematerialization, 7172 B) with strategy 'auto'; the smallest budget it can meet is 7172 B (100.0%)}}
func.func @all_kept(%x: tensor<256xf32>) -> (tensor<f32>, tensor<256xf32>) {
  %a1 = math.exp %x {remat.policy = #remat.policy<keep>} : tensor<256xf32>
  %a2 = math.exp %a1 {remat.policy = #remat.policy<keep>} : tensor<256xf32>
  %a3 = math.exp %a2 {remat.policy = #remat.policy<keep>} : tensor<256xf32>
  %a4 = math.exp %a3 {remat.policy = #remat.policy<keep>} : tensor<256xf32>
  %init = tensor.empty() : tensor<f32>
  %loss = linalg.reduce ins(%a4 : tensor<256xf32>) outs(%init : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<256xf32>
  %g4 = linalg.fill ins(%one : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  %g3 = arith.mulf %g4, %a4 : tensor<256xf32>
  %g2 = arith.mulf %g3, %a3 : tensor<256xf32>
  %g1 = arith.mulf %g2, %a2 : tensor<256xf32>
  %gx = arith.mulf %g1, %a1 : tensor<256xf32>
  return %loss, %gx : tensor<f32>, tensor<256xf32>
}
