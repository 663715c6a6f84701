// -remat-rematerialize without the inliner (-remat-fit inlines first): a
// call with a body is planned with its callee's peak and recomputed like
// any pure op; a call of a declaration gets a remark that what it
// allocates inside is not counted.
// RUN: remat-opt %s -remat-rematerialize="budget=1100 alignment=1" --remarks-filter=remat -o %t.mlir 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=IR < %t.mlir

// Peak without remat: %x + %a + %b + %c + the loss = 4 x 256 + 4 = 1028 B,
// and while @layer makes %c: %x, %a, %b, its %y and %z = 1280 B, + the
// loss later: 1284 B in all (the lifetime analysis's peak, 100 %). At
// 1100 B one of %a, %b is recomputed in the backward pass, by a call.
// CHECK: calls.mlir:38:8: remark: [Analysis] OpaqueCall {{.*}}the memory @opaque allocates inside is not counted
// CHECK: remark: [Passed] Rematerialized {{.*}}peak 1284 B -> 1028 B (budget 1100 B)
// IR: remat.recompute
// IR: func.call @layer
func.func private @layer(%x: tensor<64xf32>) -> tensor<64xf32> {
  %y = math.exp %x : tensor<64xf32>
  %z = math.exp %y : tensor<64xf32>
  return %z : tensor<64xf32>
}

func.func private @opaque(tensor<64xf32>) -> tensor<64xf32>

func.func @step(%x: tensor<64xf32>) -> (tensor<f32>, tensor<64xf32>, tensor<64xf32>) {
  %a = func.call @layer(%x) : (tensor<64xf32>) -> tensor<64xf32>
  %b = func.call @layer(%a) : (tensor<64xf32>) -> tensor<64xf32>
  %c = func.call @layer(%b) : (tensor<64xf32>) -> tensor<64xf32>
  %init = tensor.empty() : tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
                          iterator_types = ["reduction"]}
      ins(%c : tensor<64xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %g1 = arith.mulf %c, %b : tensor<64xf32>
  %g2 = arith.mulf %g1, %a : tensor<64xf32>
  %o = func.call @opaque(%g2) : (tensor<64xf32>) -> tensor<64xf32>
  return %loss, %g2, %o : tensor<f32>, tensor<64xf32>, tensor<64xf32>
}
