// -remat-lower-to-cpu accepts what upstream's standard lowering accepts
// around a step: vector transfers, reductions and vector.print (what
// upstream's integration tests print with), math ops with and without an
// LLVM intrinsic (math.tanh, math.erf via libm), memref.copy. vector.print
// used to stay unlowered and the result did not run.
//
// RUN: remat-opt %s --remat-lower-to-cpu -o %t.mlir
// RUN: mlir-runner %t.mlir -e main -entry-point-result=void -shared-libs=%remat_runtime,%mlir_c_runner_utils,%mlir_runner_utils | FileCheck %s
//
// tanh(erf(0.5)) = 0.4780857..., four of them sum to 1.912343.
// CHECK: ( 0.478086, 0.478086, 0.478086, 0.478086 )
// CHECK-NEXT: 1.91234

func.func @main() {
  %c0 = arith.constant 0 : index
  %f = arith.constant 0.5 : f32
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  linalg.fill ins(%f : f32) outs(%a : memref<4xf32>)
  memref.copy %a, %b : memref<4xf32> to memref<4xf32>
  %v = vector.transfer_read %b[%c0], %f : memref<4xf32>, vector<4xf32>
  %e = math.erf %v : vector<4xf32>
  %t = math.tanh %e : vector<4xf32>
  vector.print %t : vector<4xf32>
  %s = vector.reduction <add>, %t : vector<4xf32> into f32
  vector.print %s : f32
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  return
}
