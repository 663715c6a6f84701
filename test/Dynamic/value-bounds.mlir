// RUN: remat-opt %s -remat-rematerialize="budget=100% report=- alignment=1" -o /dev/null | FileCheck %s
//
// Sizes inside the function come from upstream's value-bounds analysis: the
// rows of %xs are min(rows of %x, 100), so every intermediate has at most
// 100 rows (25600 B) although %x may have 256. The peak (at %d: the loss, h,
// a and d live besides the arguments) is
//   x 65536 + w 16384 + loss 4 + 3 x 25600 = 158724 B,
// where the argument's bound alone would give 278532 B.
// CHECK: "bounds": "arg0:0<=256"
// CHECK: "name": "chunked"
// CHECK: "peak_before": 158724
// A constant row count bounds them the same way (its slice of %x must fit).
// CHECK: "bounds": "arg0:0<=256"
// CHECK: "name": "constant_rows"
// CHECK: "peak_before": 158724
// A loop carry written on one path of nested scf.if ops: the value-bounds
// analysis carries no size through the branches' results into the carry;
// the structure does (ShapeBounds.cpp, SizeBound: an insert has its
// destination's size, an scf.if result the larger of its yields', a carry
// its initial value's bound when the body keeps to it). The peak is its
// static twin's (tensor<256xf32>, by the same run): x 1024 (the carry
// written in place into it) + loss 4 + sum 4.
// CHECK: "bounds": "arg0:0<=256"
// CHECK: "name": "carry_in_branches"
// CHECK: "peak_before": 1032
#id = affine_map<(i, j) -> (i, j)>
#red = affine_map<(i, j) -> ()>
#tn_a = affine_map<(i, j, n) -> (n, i)>
#tn_b = affine_map<(i, j, n) -> (n, j)>
#tn_o = affine_map<(i, j, n) -> (i, j)>
func.func @chunked(%x: tensor<?x64xf32> {remat.bounds = array<i64: 256, 64>}, %w: tensor<64x64xf32>)
    -> (tensor<f32> {remat.loss}, tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x64xf32>
  %m = affine.min affine_map<(d0) -> (d0, 100)>(%n)
  %xs = tensor.extract_slice %x[0, 0] [%m, 64] [1, 1] : tensor<?x64xf32> to tensor<?x64xf32>
  %h_e = tensor.empty(%m) : tensor<?x64xf32>
  %h_z = linalg.fill ins(%zero : f32) outs(%h_e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %h = linalg.matmul ins(%xs, %w : tensor<?x64xf32>, tensor<64x64xf32>) outs(%h_z : tensor<?x64xf32>) -> tensor<?x64xf32>
  %a_e = tensor.empty(%m) : tensor<?x64xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<?x64xf32>) outs(%a_e : tensor<?x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x64xf32>
  %l_e = tensor.empty() : tensor<f32>
  %l_z = linalg.fill ins(%zero : f32) outs(%l_e : tensor<f32>) -> tensor<f32>
  %l = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["reduction", "reduction"]}
      ins(%a : tensor<?x64xf32>) outs(%l_z : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %sq = arith.mulf %in, %in : f32
    %s = arith.addf %out, %sq : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %d_e = tensor.empty(%m) : tensor<?x64xf32>
  %d = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %h : tensor<?x64xf32>, tensor<?x64xf32>) outs(%d_e : tensor<?x64xf32>) {
  ^bb0(%av: f32, %hv: f32, %out: f32):
    %two = arith.constant 2.0 : f32
    %g = arith.mulf %av, %two : f32
    %pos = arith.cmpf ogt, %hv, %zero : f32
    %r = arith.select %pos, %g, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x64xf32>
  %g_e = tensor.empty() : tensor<64x64xf32>
  %g_z = linalg.fill ins(%zero : f32) outs(%g_e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %g = linalg.generic {indexing_maps = [#tn_a, #tn_b, #tn_o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%xs, %d : tensor<?x64xf32>, tensor<?x64xf32>) outs(%g_z : tensor<64x64xf32>) {
  ^bb0(%p: f32, %q: f32, %out: f32):
    %mm = arith.mulf %p, %q : f32
    %s = arith.addf %out, %mm : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  return %l, %g : tensor<f32>, tensor<64x64xf32>
}

func.func @constant_rows(%x: tensor<?x64xf32> {remat.bounds = array<i64: 256, 64>}, %w: tensor<64x64xf32>)
    -> (tensor<f32> {remat.loss}, tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x64xf32>
  %m = arith.constant 100 : index
  %xs = tensor.extract_slice %x[0, 0] [%m, 64] [1, 1] : tensor<?x64xf32> to tensor<?x64xf32>
  %h_e = tensor.empty(%m) : tensor<?x64xf32>
  %h_z = linalg.fill ins(%zero : f32) outs(%h_e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %h = linalg.matmul ins(%xs, %w : tensor<?x64xf32>, tensor<64x64xf32>) outs(%h_z : tensor<?x64xf32>) -> tensor<?x64xf32>
  %a_e = tensor.empty(%m) : tensor<?x64xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<?x64xf32>) outs(%a_e : tensor<?x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x64xf32>
  %l_e = tensor.empty() : tensor<f32>
  %l_z = linalg.fill ins(%zero : f32) outs(%l_e : tensor<f32>) -> tensor<f32>
  %l = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["reduction", "reduction"]}
      ins(%a : tensor<?x64xf32>) outs(%l_z : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %sq = arith.mulf %in, %in : f32
    %s = arith.addf %out, %sq : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %d_e = tensor.empty(%m) : tensor<?x64xf32>
  %d = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %h : tensor<?x64xf32>, tensor<?x64xf32>) outs(%d_e : tensor<?x64xf32>) {
  ^bb0(%av: f32, %hv: f32, %out: f32):
    %two = arith.constant 2.0 : f32
    %g = arith.mulf %av, %two : f32
    %pos = arith.cmpf ogt, %hv, %zero : f32
    %r = arith.select %pos, %g, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x64xf32>
  %g_e = tensor.empty() : tensor<64x64xf32>
  %g_z = linalg.fill ins(%zero : f32) outs(%g_e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %g = linalg.generic {indexing_maps = [#tn_a, #tn_b, #tn_o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%xs, %d : tensor<?x64xf32>, tensor<?x64xf32>) outs(%g_z : tensor<64x64xf32>) {
  ^bb0(%p: f32, %q: f32, %out: f32):
    %mm = arith.mulf %p, %q : f32
    %s = arith.addf %out, %mm : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  return %l, %g : tensor<f32>, tensor<64x64xf32>
}

func.func @carry_in_branches(%x: tensor<?xf32> {remat.bounds = array<i64: 256>}, %p: i1) -> (tensor<f32> {remat.loss}, tensor<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c7 = arith.constant 7 : index
  %z = arith.constant 0.0 : f32
  %f:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %x, %s = %z) -> (tensor<?xf32>, f32) {
    %e = tensor.extract %a[%c7] : tensor<?xf32>
    %s1 = arith.addf %s, %e : f32
    %b = scf.if %p -> (tensor<?xf32>) {
      %c = scf.if %p -> (tensor<?xf32>) {
        %w = tensor.insert %s1 into %a[%c7] : tensor<?xf32>
        scf.yield %w : tensor<?xf32>
      } else {
        scf.yield %a : tensor<?xf32>
      }
      scf.yield %c : tensor<?xf32>
    } else {
      scf.yield %a : tensor<?xf32>
    }
    scf.yield %b, %s1 : tensor<?xf32>, f32
  }
  %l_e = tensor.empty() : tensor<f32>
  %l_z = linalg.fill ins(%z : f32) outs(%l_e : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%f#0 : tensor<?xf32>) outs(%l_z : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %out, %in : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %sum = tensor.from_elements %f#1 : tensor<1xf32>
  return %loss, %sum : tensor<f32>, tensor<1xf32>
}
