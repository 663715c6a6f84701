// -remat-prepare has the op computing a loop carry's next value write it
// into the iteration argument once the old value is dead (the memory model's
// in-place rule, OpGroups.h), so the old and the new value are not both live
// until the iteration ends. Where the old value is read later, or read in a
// way One-Shot Bufferize would not write over, the fresh tensor stays.
// The timeline counts the difference: one 64 B carry less while the loop runs.
// RUN: remat-opt %s -remat-prepare -split-input-file | FileCheck %s
// RUN: remat-opt %s -remat-prepare -remat-test-timeline -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=PEAK

#id = affine_map<(i, j) -> (i, j)>
#tr = affine_map<(i, j) -> (j, i)>

// An accumulation reads the old sum element by element where it writes the
// new one: written in place.
// CHECK-LABEL: func.func @accumulate
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK: linalg.generic {{.*}} ins(%[[ACC]], %{{.*}} : {{.*}}) outs(%[[ACC]] : tensor<4x4xf32>)
// %g and the one sum: 128 B.
// PEAK: remark: holds 128 B while running
func.func @accumulate(%g: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %init = linalg.fill ins(%z : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> tensor<4x4xf32> {
    %ne = tensor.empty() : tensor<4x4xf32>
    %n = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%acc, %g : tensor<4x4xf32>, tensor<4x4xf32>) outs(%ne : tensor<4x4xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    } -> tensor<4x4xf32>
    scf.yield %n : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}

// -----

#id = affine_map<(i, j) -> (i, j)>
#tr = affine_map<(i, j) -> (j, i)>

// The old value read transposed: bufferization could not write over it.
// CHECK-LABEL: func.func @transposed
// CHECK: scf.for
// CHECK: %[[NE:.*]] = tensor.empty
// CHECK: linalg.generic {{.*}} outs(%[[NE]] : tensor<4x4xf32>)
// %g, the old and the new sum: 192 B.
// PEAK: remark: holds 192 B while running
func.func @transposed(%g: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %init = linalg.fill ins(%z : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> tensor<4x4xf32> {
    %ne = tensor.empty() : tensor<4x4xf32>
    %n = linalg.generic {indexing_maps = [#tr, #id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%acc, %g : tensor<4x4xf32>, tensor<4x4xf32>) outs(%ne : tensor<4x4xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    } -> tensor<4x4xf32>
    scf.yield %n : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}

// -----

// A matmul's zero fill goes into the carry once nothing reads the old value:
// h' = h w computed by a fill of h, not of a fresh tensor.
// CHECK-LABEL: func.func @matmul_carry
// CHECK: scf.for {{.*}} iter_args(%[[H:.*]] = %{{.*}})
// CHECK: %[[T:.*]] = linalg.generic
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[H]] : tensor<4x4xf32>)
// CHECK: linalg.matmul ins(%[[T]], %{{.*}} : {{.*}}) outs(%[[F]] : tensor<4x4xf32>)
// %w, tanh(h) and h, whose buffer is %h0's (read nowhere after the loop):
// 192 B with the arguments.
// PEAK: remark: holds 192 B while running
func.func @matmul_carry(%h0: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %h0) -> tensor<4x4xf32> {
    %te = tensor.empty() : tensor<4x4xf32>
    %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
        ins(%h : tensor<4x4xf32>) outs(%te : tensor<4x4xf32>) {
    ^bb0(%x: f32, %o: f32):
      %y = math.tanh %x : f32
      linalg.yield %y : f32
    } -> tensor<4x4xf32>
    %me = tensor.empty() : tensor<4x4xf32>
    %mz = linalg.fill ins(%z : f32) outs(%me : tensor<4x4xf32>) -> tensor<4x4xf32>
    %m = linalg.matmul ins(%t, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%mz : tensor<4x4xf32>) -> tensor<4x4xf32>
    scf.yield %m : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}

// -----

// The old value is read after the new one is computed: no write over it.
// CHECK-LABEL: func.func @read_later
// CHECK: scf.for
// CHECK: %[[ME:.*]] = tensor.empty
// CHECK: %[[MZ:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[ME]] : tensor<4x4xf32>)
func.func @read_later(%h0: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0.0 : f32
  %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %h0, %s = %h0) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
    %me = tensor.empty() : tensor<4x4xf32>
    %mz = linalg.fill ins(%z : f32) outs(%me : tensor<4x4xf32>) -> tensor<4x4xf32>
    %m = linalg.matmul ins(%h, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%mz : tensor<4x4xf32>) -> tensor<4x4xf32>
    %se = tensor.empty() : tensor<4x4xf32>
    %sum = linalg.add ins(%h, %m : tensor<4x4xf32>, tensor<4x4xf32>) outs(%se : tensor<4x4xf32>) -> tensor<4x4xf32>
    scf.yield %m, %sum : tensor<4x4xf32>, tensor<4x4xf32>
  }
  return %r#0, %r#1 : tensor<4x4xf32>, tensor<4x4xf32>
}
