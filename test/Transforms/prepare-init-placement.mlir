// CSE merges equal tensor.empty ops into the first: the last op writing
// into it kept it where the first stood, and bufferized there its buffer
// was allocated before everything in between (the final add's 1024 B in
// test/Distributed/branch-read-after.test, above the model, which
// allocates it with the op). -remat-prepare gives every op its initial
// value right before it.
// RUN: remat-opt %s -remat-prepare | FileCheck %s

// CHECK-LABEL: func.func @late_writer
// CHECK: %[[E1:.*]] = tensor.empty() {remat.init = 0
// CHECK-NEXT: linalg.fill {{.*}} outs(%[[E1]]
// CHECK: math.tanh
// CHECK-NEXT: %[[E2:.*]] = tensor.empty() {remat.init = 1
// CHECK-NEXT: linalg.add {{.*}} outs(%[[E2]]
func.func @late_writer(%x: tensor<256xf32>) -> (tensor<256xf32>, tensor<256xf32>) {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  %t = math.tanh %z : tensor<256xf32>
  %s = linalg.add ins(%t, %x : tensor<256xf32>, tensor<256xf32>) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  return %s, %z : tensor<256xf32>, tensor<256xf32>
}

// An initial value right before its one writer stays as it is.
// CHECK-LABEL: func.func @adjacent
// CHECK: %[[E:.*]] = tensor.empty() {remat.init = 0
// CHECK-NEXT: linalg.add {{.*}} outs(%[[E]]
// CHECK-NOT: tensor.empty
func.func @adjacent(%x: tensor<256xf32>) -> tensor<256xf32> {
  %e = tensor.empty() : tensor<256xf32>
  %s = linalg.add ins(%x, %x : tensor<256xf32>, tensor<256xf32>) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  return %s : tensor<256xf32>
}
