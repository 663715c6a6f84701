// RUN: remat-opt %s -remat-normalize-input -split-input-file | FileCheck %s
// A scan's float scalar carries as 0-d tensors (lib/Loops/TensorCarries.cpp):
// the checkpoints hold rows of tensors.

// A loop that stacks (h, row i) and sums a loss in an f32: the f32 is
// carried as a tensor<f32>, unwrapped at the body's start and after the
// loop, wrapped at the yield; the index counter and the stack unchanged.
// CHECK-LABEL: func.func @stacking
// CHECK: %[[INIT:.*]] = tensor.from_elements %{{.*}} : tensor<f32>
// CHECK: %[[F:.*]]:3 = scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[L:.*]] = %[[INIT]], %{{.*}} = %{{.*}}) -> (tensor<2xf32>, tensor<f32>, tensor<4x2xf32>)
// CHECK-NEXT: %[[LS:.*]] = tensor.extract %[[L]][] : tensor<f32>
// CHECK: %[[SUM:.*]] = arith.addf %[[LS]], %{{.*}} : f32
// CHECK: %[[WRAP:.*]] = tensor.from_elements %[[SUM]] : tensor<f32>
// CHECK: scf.yield %{{.*}}, %[[WRAP]], %{{.*}} : tensor<2xf32>, tensor<f32>, tensor<4x2xf32>
// CHECK: %[[OUT:.*]] = tensor.extract %[[F]]#1[] : tensor<f32>
// CHECK: return %{{.*}}, %[[OUT]]
func.func @stacking(%h0: tensor<2xf32>) -> (tensor<4x2xf32>, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0.0 : f32
  %s0 = tensor.empty() : tensor<4x2xf32>
  %f:3 = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %h0, %l = %z, %s = %s0) -> (tensor<2xf32>, f32, tensor<4x2xf32>) {
    %s1 = tensor.insert_slice %h into %s[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<4x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    %x = tensor.extract %hn[%c0] : tensor<2xf32>
    %ln = arith.addf %l, %x : f32
    scf.yield %hn, %ln, %s1 : tensor<2xf32>, f32, tensor<4x2xf32>
  }
  return %f#2, %f#1 : tensor<4x2xf32>, f32
}

// -----

// A loop that stacks nothing keeps its scalars (an accumulation, not a
// scan); integers are left as they are in a stacking loop too.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: tensor.from_elements
// CHECK: scf.for {{.*}} -> (f32)
// CHECK: scf.for {{.*}} -> (tensor<2xf32>, i32, tensor<4x2xf32>)
func.func @left_alone(%x: tensor<2xf32>) -> (f32, tensor<4x2xf32>, i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0.0 : f32
  %zi = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %z) -> (f32) {
    %e = tensor.extract %x[%c0] : tensor<2xf32>
    %n = arith.addf %a, %e : f32
    scf.yield %n : f32
  }
  %s0 = tensor.empty() : tensor<4x2xf32>
  %f:3 = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %x, %k = %zi, %s = %s0) -> (tensor<2xf32>, i32, tensor<4x2xf32>) {
    %s1 = tensor.insert_slice %h into %s[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<4x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    %kn = arith.addi %k, %one : i32
    scf.yield %hn, %kn, %s1 : tensor<2xf32>, i32, tensor<4x2xf32>
  }
  return %r, %f#2, %f#1 : f32, tensor<4x2xf32>, i32
}

// -----

// A counted scf.while (its condition forwards its arguments in order, as
// frontends write one): the f32 is a tensor<f32> in both regions and in
// the results; the condition forwards the tensor, each region unwraps it
// at its start.
// CHECK-LABEL: func.func @stacking_while
// CHECK: %[[INIT:.*]] = tensor.from_elements %{{.*}} : tensor<f32>
// CHECK: %[[W:.*]]:4 = scf.while (%[[I:.*]] = %{{.*}}, %{{.*}} = %{{.*}}, %[[L:.*]] = %[[INIT]], %{{.*}} = %{{.*}}) : (index, tensor<2xf32>, tensor<f32>, tensor<4x2xf32>) -> (index, tensor<2xf32>, tensor<f32>, tensor<4x2xf32>)
// CHECK-NEXT: %[[LB:.*]] = tensor.extract %[[L]][] : tensor<f32>
// CHECK: arith.cmpf olt, %[[LB]]
// CHECK: scf.condition(%{{.*}}) %[[I]], %{{.*}}, %[[L]], %{{.*}} : index, tensor<2xf32>, tensor<f32>, tensor<4x2xf32>
// CHECK: ^bb0(%{{.*}}: index, %{{.*}}: tensor<2xf32>, %[[LA:.*]]: tensor<f32>, %{{.*}}: tensor<4x2xf32>):
// CHECK-NEXT: %[[LS:.*]] = tensor.extract %[[LA]][] : tensor<f32>
// CHECK: %[[SUM:.*]] = arith.addf %[[LS]], %{{.*}} : f32
// CHECK: %[[WRAP:.*]] = tensor.from_elements %[[SUM]] : tensor<f32>
// CHECK: scf.yield %{{.*}}, %{{.*}}, %[[WRAP]], %{{.*}} : index, tensor<2xf32>, tensor<f32>, tensor<4x2xf32>
// CHECK: %[[OUT:.*]] = tensor.extract %[[W]]#2[] : tensor<f32>
// CHECK: return %{{.*}}, %[[OUT]]
func.func @stacking_while(%h0: tensor<2xf32>) -> (tensor<4x2xf32>, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0.0 : f32
  %big = arith.constant 1.0e9 : f32
  %s0 = tensor.empty() : tensor<4x2xf32>
  %w:4 = scf.while (%i = %c0, %h = %h0, %l = %z, %s = %s0) : (index, tensor<2xf32>, f32, tensor<4x2xf32>) -> (index, tensor<2xf32>, f32, tensor<4x2xf32>) {
    %more = arith.cmpi slt, %i, %c4 : index
    %small = arith.cmpf olt, %l, %big : f32
    %go = arith.andi %more, %small : i1
    scf.condition(%go) %i, %h, %l, %s : index, tensor<2xf32>, f32, tensor<4x2xf32>
  } do {
  ^bb0(%i: index, %h: tensor<2xf32>, %l: f32, %s: tensor<4x2xf32>):
    %s1 = tensor.insert_slice %h into %s[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<4x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    %x = tensor.extract %hn[%c0] : tensor<2xf32>
    %ln = arith.addf %l, %x : f32
    %in = arith.addi %i, %c1 : index
    scf.yield %in, %hn, %ln, %s1 : index, tensor<2xf32>, f32, tensor<4x2xf32>
  }
  return %w#3, %w#2 : tensor<4x2xf32>, f32
}

// -----

// A while whose condition forwards other values than its arguments (here
// a scalar computed in the before region) is left as it is.
// CHECK-LABEL: func.func @while_forwards_other
// CHECK-NOT: tensor.from_elements
// CHECK: scf.while {{.*}} -> (index, f32, tensor<4x2xf32>)
func.func @while_forwards_other(%h0: tensor<2xf32>) -> (tensor<4x2xf32>, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0.0 : f32
  %s0 = tensor.empty() : tensor<4x2xf32>
  %w:3 = scf.while (%i = %c0, %l = %z, %s = %s0) : (index, f32, tensor<4x2xf32>) -> (index, f32, tensor<4x2xf32>) {
    %more = arith.cmpi slt, %i, %c4 : index
    %l2 = arith.addf %l, %l : f32
    scf.condition(%more) %i, %l2, %s : index, f32, tensor<4x2xf32>
  } do {
  ^bb0(%i: index, %l: f32, %s: tensor<4x2xf32>):
    %s1 = tensor.insert_slice %h0 into %s[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<4x2xf32>
    %in = arith.addi %i, %c1 : index
    scf.yield %in, %l, %s1 : index, f32, tensor<4x2xf32>
  }
  return %w#2, %w#1 : tensor<4x2xf32>, f32
}
