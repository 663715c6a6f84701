// RUN: remat-opt %s -remat-contract-float-ops | FileCheck %s

// Every op with fast-math flags gets `contract`; flags it had stay, ops
// without fast-math flags (integers, loads) are left alone.
// CHECK-LABEL: llvm.func @muladd
// CHECK: llvm.fmul %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK: llvm.fadd %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<nnan, contract>} : f32
// CHECK: llvm.add %{{.*}}, %{{.*}} : i32
// CHECK-NOT: fastmath
llvm.func @muladd(%a: f32, %b: f32, %c: f32, %i: i32) -> f32 {
  %p = llvm.fmul %a, %b : f32
  %s = llvm.fadd %p, %c {fastmathFlags = #llvm.fastmath<nnan>} : f32
  %j = llvm.add %i, %i : i32
  llvm.return %s : f32
}
