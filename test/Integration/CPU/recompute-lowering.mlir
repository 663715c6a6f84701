// -remat-lower-to-cpu takes rematerialized tensor IR as the remat passes
// leave it: recomputation regions and elementwise ops on tensors.
//
// RUN: remat-opt %s --remat-lower-to-cpu -o %t.mlir
// RUN: env REMAT_REPORT_PEAK=1 mlir-runner %t.mlir -e main -entry-point-result=void -shared-libs=%remat_runtime,%mlir_c_runner_utils,%mlir_runner_utils 2>&1 | FileCheck %s

// exp(1) + tanh(exp(1)), with exp(1) computed twice.
// CHECK: data =
// CHECK-NEXT: [3.70961, 3.70961,
// CHECK: peak_bytes={{[0-9]+}}

func.func @step(%x: tensor<256xf32>) -> tensor<256xf32> {
  %a = math.exp %x : tensor<256xf32>
  %b = math.tanh %a : tensor<256xf32>
  %r = remat.recompute ins(%x : tensor<256xf32>) -> tensor<256xf32> {
  ^bb0(%y: tensor<256xf32>):
    %0 = math.exp %y : tensor<256xf32>
    remat.yield %0 : tensor<256xf32>
  }
  %s = arith.addf %r, %b : tensor<256xf32>
  return %s : tensor<256xf32>
}

func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<256xf32>
  %x = linalg.fill ins(%one : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  %r = call @step(%x) : (tensor<256xf32>) -> tensor<256xf32>
  %u = tensor.cast %r : tensor<256xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
