// RUN: remat-opt %s --remat-normalize-input | FileCheck %s
// A backward loop writing each row of its input gradient into the stack of
// output gradients it consumes (ConsumedStacks.h), as a hand-written
// frontend spells it: rows counted down with affine.apply, 1-D stacks with
// tensor.extract / tensor.insert; and the loops it must leave alone.

// CHECK-LABEL: func.func @reversed_rows
// CHECK: %[[DY:.*]] = linalg.generic
// CHECK: scf.for {{.*}} iter_args(%[[DX:.*]] = %[[DY]])
// CHECK: tensor.extract_slice %[[DX]][
// CHECK: tensor.insert_slice {{.*}} into %[[DX]][
func.func @reversed_rows(%x: tensor<4x2x3xf32>) -> tensor<4x2x3xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %dy0 = tensor.empty() : tensor<4x2x3xf32>
  %dy = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b, c)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<4x2x3xf32>) outs(%dy0 : tensor<4x2x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<4x2x3xf32>
  %dx0 = tensor.empty() : tensor<4x2x3xf32>
  %dx = scf.for %u = %c0 to %c4 step %c1 iter_args(%acc = %dx0) -> (tensor<4x2x3xf32>) {
    %t = affine.apply affine_map<(d0) -> (3 - d0)>(%u)
    %row = tensor.extract_slice %dy[%t, 0, 0] [1, 2, 3] [1, 1, 1] : tensor<4x2x3xf32> to tensor<2x3xf32>
    %e = tensor.empty() : tensor<2x3xf32>
    %g = linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> (a, b)>], iterator_types = ["parallel", "parallel"]} ins(%row : tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %n = arith.negf %in : f32
      linalg.yield %n : f32
    } -> tensor<2x3xf32>
    %next = tensor.insert_slice %g into %acc[%t, 0, 0] [1, 2, 3] [1, 1, 1] : tensor<2x3xf32> into tensor<4x2x3xf32>
    scf.yield %next : tensor<4x2x3xf32>
  }
  return %dx : tensor<4x2x3xf32>
}

// CHECK-LABEL: func.func @scalar_rows
// CHECK: %[[DY:.*]] = linalg.generic
// CHECK: scf.for {{.*}} iter_args(%[[DX:.*]] = %[[DY]])
// CHECK: tensor.extract %[[DX]][
func.func @scalar_rows(%x: tensor<5xf32>) -> tensor<5xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %dy0 = tensor.empty() : tensor<5xf32>
  %dy = linalg.generic {indexing_maps = [affine_map<(a) -> (a)>, affine_map<(a) -> (a)>], iterator_types = ["parallel"]} ins(%x : tensor<5xf32>) outs(%dy0 : tensor<5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<5xf32>
  %dx0 = tensor.empty() : tensor<5xf32>
  %dx = scf.for %i = %c0 to %c5 step %c1 iter_args(%acc = %dx0) -> (tensor<5xf32>) {
    %v = tensor.extract %dy[%i] : tensor<5xf32>
    %w = arith.negf %v : f32
    %next = tensor.insert %w into %acc[%i] : tensor<5xf32>
    scf.yield %next : tensor<5xf32>
  }
  return %dx : tensor<5xf32>
}

// The consumed stack is read again after the loop: two stacks.
// CHECK-LABEL: func.func @read_after
// CHECK: linalg.generic
// CHECK: %[[E:.*]] = tensor.empty() : tensor<5xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[E]])
func.func @read_after(%x: tensor<5xf32>) -> (tensor<5xf32>, tensor<5xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %dy0 = tensor.empty() : tensor<5xf32>
  %dy = linalg.generic {indexing_maps = [affine_map<(a) -> (a)>, affine_map<(a) -> (a)>], iterator_types = ["parallel"]} ins(%x : tensor<5xf32>) outs(%dy0 : tensor<5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<5xf32>
  %dx0 = tensor.empty() : tensor<5xf32>
  %dx = scf.for %i = %c0 to %c5 step %c1 iter_args(%acc = %dx0) -> (tensor<5xf32>) {
    %v = tensor.extract %dy[%i] : tensor<5xf32>
    %w = arith.negf %v : f32
    %next = tensor.insert %w into %acc[%i] : tensor<5xf32>
    scf.yield %next : tensor<5xf32>
  }
  return %dx, %dy : tensor<5xf32>, tensor<5xf32>
}

// A forward stack read in reverse (a scan's residuals): left to the scan's
// checkpointing. And a loop that writes only some rows.
// CHECK-LABEL: func.func @residuals_and_some_rows
// CHECK: scf.for
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[E]])
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[E2]])
func.func @residuals_and_some_rows(%h0: f32) -> (tensor<4xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %s0 = tensor.empty() : tensor<4xf32>
  %fw:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %h0, %s = %s0) -> (f32, tensor<4xf32>) {
    %n = math.tanh %h : f32
    %s1 = tensor.insert %h into %s[%i] : tensor<4xf32>
    scf.yield %n, %s1 : f32, tensor<4xf32>
  }
  %d0 = tensor.empty() : tensor<4xf32>
  %bw = scf.for %u = %c0 to %c4 step %c1 iter_args(%d = %d0) -> (tensor<4xf32>) {
    %t = arith.subi %c3, %u : index
    %v = tensor.extract %fw#1[%t] : tensor<4xf32>
    %w = arith.negf %v : f32
    %d1 = tensor.insert %w into %d[%t] : tensor<4xf32>
    scf.yield %d1 : tensor<4xf32>
  }
  %e0 = tensor.empty() : tensor<4xf32>
  %half = scf.for %i = %c0 to %c2 step %c1 iter_args(%e = %e0) -> (tensor<4xf32>) {
    %v = tensor.extract %bw[%i] : tensor<4xf32>
    %e1 = tensor.insert %v into %e[%i] : tensor<4xf32>
    scf.yield %e1 : tensor<4xf32>
  }
  return %bw, %half : tensor<4xf32>, tensor<4xf32>
}
