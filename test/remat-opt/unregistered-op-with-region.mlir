// An op of a dialect remat-opt does not load, in generic form with a region
// (torch-mlir writes integer-label cross-entropy's gradient as a
// tm_tensor.scatter like this one), read with --allow-unregistered-dialect:
// the step is planned around it, the op kept as written, and nothing asks
// an unregistered op for its dialect (remat-opt crashed there). A forward
// value such an op makes is kept, never recomputed, and the remark says
// why; the exps around it are recomputed.
// RUN: remat-opt --allow-unregistered-dialect --remat-budget=min %s | FileCheck %s
// RUN: remat-opt --allow-unregistered-dialect --remat-budget=min %s -o /dev/null \
// RUN:   --remarks-filter=remat 2>&1 | FileCheck %s --check-prefix=WHY
// WHY: remark: {{.*}}Remark="recomputed 1x (1024 B)"
// WHY-NEXT: %a1 = math.exp
// WHY: remark: {{.*}}Remark="kept (1024 B), never recomputed: unknown op 'foo.opaque' (unregistered: its side effects are unknown
// WHY-NEXT: %a3 = "foo.opaque"
// CHECK-LABEL: func.func @step
// CHECK: "foo.opaque"
// CHECK: "tm_tensor.scatter"
// CHECK: "tm_tensor.yield"
// CHECK: return

func.func @step(%x: tensor<256xf32>, %idx: tensor<256x1xi64>) -> (tensor<f32>, tensor<256xf32>) {
  %a1 = math.exp %x : tensor<256xf32>
  %a2 = math.exp %a1 : tensor<256xf32>
  %a3 = "foo.opaque"(%a2) : (tensor<256xf32>) -> tensor<256xf32>
  %a4 = math.exp %a3 : tensor<256xf32>
  %init = tensor.empty() : tensor<f32>
  %loss = linalg.reduce ins(%a4 : tensor<256xf32>) outs(%init : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  %g4 = "tm_tensor.scatter"(%a4, %idx, %z) <{dimension_map = array<i64: 0>, unique_indices = false}> ({
  ^bb0(%new: f32, %old: f32):
    "tm_tensor.yield"(%new) : (f32) -> ()
  }) {operandSegmentSizes = array<i32: 2, 1>} : (tensor<256xf32>, tensor<256x1xi64>, tensor<256xf32>) -> tensor<256xf32>
  %g3 = arith.mulf %g4, %a4 : tensor<256xf32>
  %g2 = arith.mulf %g3, %a3 : tensor<256xf32>
  %g1 = arith.mulf %g2, %a2 : tensor<256xf32>
  %gx = arith.mulf %g1, %a1 : tensor<256xf32>
  return %loss, %gx : tensor<f32>, tensor<256xf32>
}
