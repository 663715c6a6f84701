// RUN: remat-opt %s -remat-export-graph -o /dev/null | FileCheck %s
//
// Slices inserted into a computed value one at a time, each computed after
// the insert before it (a gradient stacked layer by layer in the backward,
// the unrolled twin of a scan over layers), are updates in place: one node
// per insert, the first owning the stack's 256 B, the second writing into
// it (0 B) and reading only its own slice. As one node reading every
// slice, each slice lived until the last insert (64 slices of 256 B held
// to the end of the unrolled twin of test/Loops/variants-layers-twins.test,
// 4032 B above the loop form's smallest budget).
// CHECK:      {{^ *}}"linalg.generic#3",
// CHECK-NEXT:   "tensor.insert_slice#2"
// CHECK-NEXT: ],
// CHECK-NEXT: "kind": "backward",
// CHECK-NEXT: "name": "tensor.insert_slice#4",
// CHECK:      "name": "tensor.insert_slice#2",
// CHECK-NEXT: "size": 256
// CHECK:      "name": "tensor.insert_slice#4",
// CHECK-NEXT: "size": 0
//
// Slices ready before the first insert (a concatenation) form one node with
// their destination: it reads both and makes the 256 B result (both slices
// are computed before the first insert).
// CHECK:      {{^ *}}"linalg.generic#1",
// CHECK-NEXT:   "linalg.generic#2"
// CHECK-NEXT: ],
// CHECK-NEXT: "kind": "backward",
// CHECK-NEXT: "name": "tensor.insert_slice#3",
// CHECK:      "name": "tensor.insert_slice#3",
// CHECK-NEXT: "size": 256
#id = affine_map<(i, j) -> (i, j)>
#red = affine_map<(i, j) -> ()>
func.func @stacked(%x: tensor<4x8xf32>) -> (tensor<f32> {remat.loss}, tensor<2x4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %le = tensor.empty() : tensor<f32>
  %lz = linalg.fill ins(%zero : f32) outs(%le : tensor<f32>) -> tensor<f32>
  %l = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%lz : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %se = tensor.empty() : tensor<2x4x8xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%se : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %g0e = tensor.empty() : tensor<4x8xf32>
  %g0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%g0e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = arith.addf %a, %a : f32
    linalg.yield %e : f32
  } -> tensor<4x8xf32>
  %s1 = tensor.insert_slice %g0 into %sz[1, 0, 0] [1, 4, 8] [1, 1, 1] : tensor<4x8xf32> into tensor<2x4x8xf32>
  %g1e = tensor.empty() : tensor<4x8xf32>
  %g1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g0 : tensor<4x8xf32>) outs(%g1e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = arith.mulf %a, %a : f32
    linalg.yield %e : f32
  } -> tensor<4x8xf32>
  %s0 = tensor.insert_slice %g1 into %s1[0, 0, 0] [1, 4, 8] [1, 1, 1] : tensor<4x8xf32> into tensor<2x4x8xf32>
  return %l, %s0 : tensor<f32>, tensor<2x4x8xf32>
}

func.func @concat(%x: tensor<4x8xf32>) -> (tensor<f32> {remat.loss}, tensor<2x4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %le = tensor.empty() : tensor<f32>
  %lz = linalg.fill ins(%zero : f32) outs(%le : tensor<f32>) -> tensor<f32>
  %l = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%lz : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %g0e = tensor.empty() : tensor<4x8xf32>
  %g0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%g0e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = arith.addf %a, %a : f32
    linalg.yield %e : f32
  } -> tensor<4x8xf32>
  %g1e = tensor.empty() : tensor<4x8xf32>
  %g1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g0 : tensor<4x8xf32>) outs(%g1e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = arith.mulf %a, %a : f32
    linalg.yield %e : f32
  } -> tensor<4x8xf32>
  %se = tensor.empty() : tensor<2x4x8xf32>
  %s1 = tensor.insert_slice %g0 into %se[1, 0, 0] [1, 4, 8] [1, 1, 1] : tensor<4x8xf32> into tensor<2x4x8xf32>
  %s0 = tensor.insert_slice %g1 into %s1[0, 0, 0] [1, 4, 8] [1, 1, 1] : tensor<4x8xf32> into tensor<2x4x8xf32>
  return %l, %s0 : tensor<f32>, tensor<2x4x8xf32>
}
