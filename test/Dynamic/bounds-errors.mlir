// RUN: remat-opt %s -split-input-file -verify-diagnostics -remat-rematerialize="budget=80%"
//
// Every dynamic size needs an upper bound: the error names the value and
// how to give one.

// An argument without remat.bounds (nor --remat-dim-bounds).
#id = affine_map<(i, j) -> (i, j)>
#red = affine_map<(i, j) -> ()>
#tn_a = affine_map<(i, j, n) -> (n, i)>
#tn_b = affine_map<(i, j, n) -> (n, j)>
#tn_o = affine_map<(i, j, n) -> (i, j)>
// expected-error @+1 {{argument #0 has a dynamic shape ('tensor<?x8xf32>') without an upper bound: bound it with --remat-dim-bounds=arg0:0=N (remat-opt; dim-bounds= of the passes) or a remat.bounds attribute on the argument}}
func.func @unbounded(%x: tensor<?x8xf32>, %w: tensor<8x8xf32>) -> (tensor<f32> {remat.loss}, tensor<8x8xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %h_e = tensor.empty(%n) : tensor<?x8xf32>
  %h_z = linalg.fill ins(%zero : f32) outs(%h_e : tensor<?x8xf32>) -> tensor<?x8xf32>
  %h = linalg.matmul ins(%x, %w : tensor<?x8xf32>, tensor<8x8xf32>) outs(%h_z : tensor<?x8xf32>) -> tensor<?x8xf32>
  %l_e = tensor.empty() : tensor<f32>
  %l_z = linalg.fill ins(%zero : f32) outs(%l_e : tensor<f32>) -> tensor<f32>
  %l = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["reduction", "reduction"]}
      ins(%h : tensor<?x8xf32>) outs(%l_z : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %g_e = tensor.empty() : tensor<8x8xf32>
  %g_z = linalg.fill ins(%zero : f32) outs(%g_e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %g = linalg.generic {indexing_maps = [#tn_a, #tn_b, #tn_o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %h : tensor<?x8xf32>, tensor<?x8xf32>) outs(%g_z : tensor<8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  return %l, %g : tensor<f32>, tensor<8x8xf32>
}

// -----

// A size read from a tensor at run time: nothing bounds it.
#id = affine_map<(i, j) -> (i, j)>
#red = affine_map<(i, j) -> ()>
#tn_a = affine_map<(i, j, n) -> (n, i)>
#tn_b = affine_map<(i, j, n) -> (n, j)>
#tn_o = affine_map<(i, j, n) -> (i, j)>
func.func @read_size(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>, %k: tensor<index>) -> (tensor<f32> {remat.loss}, tensor<8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %n = tensor.extract %k[] : tensor<index>
  %h_e = tensor.empty() : tensor<8x8xf32>
  %h_z = linalg.fill ins(%zero : f32) outs(%h_e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %h = linalg.matmul ins(%x, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%h_z : tensor<8x8xf32>) -> tensor<8x8xf32>
  %l_e = tensor.empty() : tensor<f32>
  %l_z = linalg.fill ins(%zero : f32) outs(%l_e : tensor<f32>) -> tensor<f32>
  %l = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["reduction", "reduction"]}
      ins(%h : tensor<8x8xf32>) outs(%l_z : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  // expected-error @+1 {{result #0 of tensor.empty ('tensor<?x8xf32>') has no upper bound remat can derive for dimension 0: give the arguments it depends on upper bounds}}
  %d_e = tensor.empty(%n) : tensor<?x8xf32>
  %d_z = linalg.fill ins(%zero : f32) outs(%d_e : tensor<?x8xf32>) -> tensor<?x8xf32>
  %d = tensor.cast %d_z : tensor<?x8xf32> to tensor<8x8xf32>
  %g_e = tensor.empty() : tensor<8x8xf32>
  %g_z = linalg.fill ins(%zero : f32) outs(%g_e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %g = linalg.generic {indexing_maps = [#tn_a, #tn_b, #tn_o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%h, %d : tensor<8x8xf32>, tensor<8x8xf32>) outs(%g_z : tensor<8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  return %l, %g : tensor<f32>, tensor<8x8xf32>
}

// -----

// remat.bounds must fit the argument's type.
// expected-error @+1 {{'remat.bounds' on argument #0: dimension 1 is static (8) and bounded by 4}}
func.func @wrong_static(%x: tensor<?x8xf32> {remat.bounds = array<i64: 16, 4>}) -> tensor<?x8xf32> {
  return %x : tensor<?x8xf32>
}

// -----

// expected-error @+1 {{'remat.bounds' on argument #0 must be an array<i64: ...> with one bound per dimension of a ranked tensor}}
func.func @wrong_rank(%x: tensor<?x8xf32> {remat.bounds = array<i64: 16>}) -> tensor<?x8xf32> {
  return %x : tensor<?x8xf32>
}

// -----

// A loop carry that grows every iteration has no bound: its initial value's
// (16) assumed, the body yields one more (the first value found unbounded
// is the pad inside the loop).
func.func @growing_carry(%x: tensor<?xf32> {remat.bounds = array<i64: 16>}) -> (tensor<f32> {remat.loss}, tensor<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %f = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %x) -> (tensor<?xf32>) {
    // expected-error @+1 {{result #0 of tensor.pad ('tensor<?xf32>') has no upper bound remat can derive for dimension 0}}
    %p = tensor.pad %a low[0] high[1] {
    ^bb0(%j: index):
      tensor.yield %zero : f32
    } : tensor<?xf32> to tensor<?xf32>
    scf.yield %p : tensor<?xf32>
  }
  %l_e = tensor.empty() : tensor<f32>
  %l_z = linalg.fill ins(%zero : f32) outs(%l_e : tensor<f32>) -> tensor<f32>
  %l = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%f : tensor<?xf32>) outs(%l_z : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %out, %in : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %e = tensor.extract %f[%c0] : tensor<?xf32>
  %g = tensor.from_elements %e : tensor<1xf32>
  return %l, %g : tensor<f32>, tensor<1xf32>
}
