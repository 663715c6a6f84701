// RUN: remat-opt %s --remat-lower-collectives --split-input-file | FileCheck %s
//
// Each collective becomes its result buffer and one runtime call with the
// codes of remat/Runtime/CollectiveABI.h: kind (all_reduce 0, all_gather 1,
// reduce_scatter 2, all_slice 3, all_to_all 4), reduction (sum 0, max 1,
// min 2, product 3), axis, axis2, the grid's shape packed 16 bits a
// dimension and the group's axes packed a nibble each as axis + 1.

shard.grid @grid(shape = 2)
// CHECK-NOT: shard.grid
// CHECK-LABEL: func.func private @rematCollectiveF32(i64, i64, i64, i64, i64, i64, memref<*xf32>, memref<*xf32>)
// CHECK-SAME: llvm.emit_c_interface
// CHECK-LABEL: func.func @gather
func.func @gather(%w: tensor<4x8xf32>) -> tensor<8x8xf32> {
  // CHECK: %[[IN:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<4x8xf32> to memref<4x8xf32, strided<[?, ?], offset: ?>>
  // CHECK: %[[OUT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8x8xf32>
  // CHECK-DAG: %[[K:.*]] = arith.constant 1 : i64
  // CHECK-DAG: %[[G:.*]] = arith.constant 2 : i64
  // CHECK: call @rematCollectiveF32(%[[K]], {{.*}}, %[[G]], {{.*}})
  // CHECK: bufferization.to_tensor %[[OUT]] restrict writable : memref<8x8xf32> to tensor<8x8xf32>
  %g = shard.all_gather %w on @grid grid_axes = [0] gather_axis = 0 : tensor<4x8xf32> -> tensor<8x8xf32>
  return %g : tensor<8x8xf32>
}

// -----

// A 2x3 grid packs as 2 | 3 << 16 = 196610; axes [1, 0] as 2 | 1 << 4 = 18.
shard.grid @g23(shape = 2x3)
// CHECK-LABEL: func.func @reduce_scatter_max
func.func @reduce_scatter_max(%x: tensor<6x12xi64>) -> tensor<6x2xi64> {
  // CHECK: %[[K:.*]] = arith.constant 2 : i64
  // CHECK: %[[R:.*]] = arith.constant 1 : i64
  // CHECK: %[[X:.*]] = arith.constant 1 : i64
  // CHECK: %[[Y:.*]] = arith.constant 0 : i64
  // CHECK: %[[G:.*]] = arith.constant 196610 : i64
  // CHECK: %[[A:.*]] = arith.constant 18 : i64
  // CHECK: call @rematCollectiveI64(%[[K]], %[[R]], %[[X]], %[[Y]], %[[G]], %[[A]], %{{.*}}, %{{.*}})
  %s = shard.reduce_scatter %x on @g23 grid_axes = [1, 0] reduction = max scatter_axis = 1 : tensor<6x12xi64> -> tensor<6x2xi64>
  return %s : tensor<6x2xi64>
}

// -----

shard.grid @grid(shape = 4)
// CHECK-LABEL: func.func @reduce_slice_to_all
func.func @reduce_slice_to_all(%x: tensor<8x4xf64>) -> (tensor<8x4xf64>, tensor<2x4xf64>, tensor<8x4xf64>) {
  // all_reduce product: kind 0, reduction 3.
  // CHECK: %[[P:.*]] = arith.constant 3 : i64
  // CHECK: call @rematCollectiveF64(%{{.*}}, %[[P]],
  %r = shard.all_reduce %x on @grid grid_axes = [0] reduction = product : tensor<8x4xf64> -> tensor<8x4xf64>
  // CHECK: call @rematCollectiveF64
  %s = shard.all_slice %r on @grid grid_axes = [0] slice_axis = 0 : tensor<8x4xf64> -> tensor<2x4xf64>
  // all_to_all: split 1, concat 0.
  // CHECK: call @rematCollectiveF64
  %a = shard.all_to_all %x on @grid grid_axes = [0] split_axis = 1 concat_axis = 0 : tensor<8x4xf64> -> tensor<32x1xf64>
  %c = tensor.collapse_shape %a [[0, 1]] : tensor<32x1xf64> into tensor<32xf64>
  %e = tensor.expand_shape %c [[0, 1]] output_shape [8, 4] : tensor<32xf64> into tensor<8x4xf64>
  return %r, %s, %e : tensor<8x4xf64>, tensor<2x4xf64>, tensor<8x4xf64>
}

// -----

// The device index: the runtime's, row-major over the grid; a multi-index
// divides it by the trailing dimensions' product, modulo its own.
shard.grid @g22(shape = 2x2)
// CHECK-LABEL: func.func private @rematProcessLinearIndex(i64) -> i64
// CHECK-LABEL: func.func @index
func.func @index() -> (index, index, index, index) {
  // CHECK: %[[P:.*]] = arith.constant 131074 : i64
  // CHECK: %[[L:.*]] = call @rematProcessLinearIndex(%[[P]]) : (i64) -> i64
  // CHECK: %[[I:.*]] = arith.index_cast %[[L]] : i64 to index
  %l = shard.process_linear_index on @g22 : index
  // CHECK: call @rematProcessLinearIndex
  // CHECK: arith.divui %{{.*}}, %c2
  // CHECK: arith.remui %{{.*}}, %c2
  // CHECK: arith.divui %{{.*}}, %c1
  // CHECK: arith.remui %{{.*}}, %c2
  %m:2 = shard.process_multi_index on @g22 : index, index
  // CHECK: %[[N:.*]] = arith.constant 2 : index
  %n = shard.grid_shape @g22 axes = [1] : index
  // CHECK: return %[[I]], %{{.*}}, %{{.*}}, %[[N]]
  return %l, %m#0, %m#1, %n : index, index, index, index
}

// -----

// shard.shift: rematShift<T>(offset, rotate, grid, shift axis, in, out);
// the offset signed (upstream's getOffset() zero-extends it), the grouping
// axes other than the shift axis left out (no partner changes with them).
shard.grid @g23(shape = 2x3)
// CHECK-LABEL: func.func private @rematShiftI64(i64, i64, i64, i64, memref<*xi64>, memref<*xi64>)
// CHECK-SAME: llvm.emit_c_interface
// CHECK-LABEL: func.func private @rematShiftF32(i64, i64, i64, i64, memref<*xf32>, memref<*xf32>)
// CHECK-LABEL: func.func @shift
func.func @shift(%x: tensor<4x8xf32>, %c: tensor<4x8xi64>) -> (tensor<4x8xf32>, tensor<4x8xi64>) {
  // CHECK: %[[IN:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<4x8xf32> to memref<4x8xf32, strided<[?, ?], offset: ?>>
  // CHECK: %[[OUT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32>
  // CHECK-DAG: %[[O:.*]] = arith.constant -1 : i64
  // CHECK-DAG: %[[R:.*]] = arith.constant 0 : i64
  // CHECK-DAG: %[[G:.*]] = arith.constant 196610 : i64
  // CHECK-DAG: %[[A:.*]] = arith.constant 1 : i64
  // CHECK: call @rematShiftF32(%[[O]], %[[R]], %[[G]], %[[A]], %{{.*}}, %{{.*}})
  // CHECK: bufferization.to_tensor %[[OUT]] restrict writable : memref<4x8xf32> to tensor<4x8xf32>
  %r = shard.shift %x on @g23 grid_axes = [0, 1] shift_axis = 1 offset = -1 : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK-DAG: %[[O3:.*]] = arith.constant 3 : i64
  // CHECK-DAG: %[[ROT:.*]] = arith.constant 1 : i64
  // CHECK-DAG: %[[A0:.*]] = arith.constant 0 : i64
  // CHECK: call @rematShiftI64(%[[O3]], %[[ROT]], %{{.*}}, %[[A0]], %{{.*}}, %{{.*}})
  %q = shard.shift %c on @g23 grid_axes = [0] shift_axis = 0 offset = 3 rotate : tensor<4x8xi64> -> tensor<4x8xi64>
  return %r, %q : tensor<4x8xf32>, tensor<4x8xi64>
}

// -----

// Control flow that does not depend on the device index may hold a shift:
// an scf.if on the iteration (the loop carrying values computed from the
// device index, the data of a masked pipeline bubble) lowers.
shard.grid @grid(shape = 2)
// CHECK-LABEL: func.func @shift_under_iteration_if
func.func @shift_under_iteration_if(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %s = shard.process_linear_index on @grid : index
  %first = arith.cmpi eq, %s, %c0 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> tensor<4xf32> {
    %m = arith.select %first, %a, %x : tensor<4xf32>
    %odd = arith.cmpi eq, %i, %c1 : index
    // CHECK: scf.if
    // CHECK: call @rematShiftF32
    %y = scf.if %odd -> tensor<4xf32> {
      %z = shard.shift %m on @grid grid_axes = [0] shift_axis = 0 offset = 1 : tensor<4xf32> -> tensor<4xf32>
      scf.yield %z : tensor<4xf32>
    } else {
      scf.yield %m : tensor<4xf32>
    }
    scf.yield %y : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// A planned scan's shape: an scf.if yields an index (a checkpoint's
// iteration) beside data computed from the device index; a loop bounded by
// that index holds a shift. Only the index decides the loop: it lowers.
shard.grid @grid(shape = 2)
// CHECK-LABEL: func.func @loop_bounded_by_yielded_index
func.func @loop_bounded_by_yielded_index(%x: tensor<4xf32>, %b: i1) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %s = shard.process_linear_index on @grid : index
  %first = arith.cmpi eq, %s, %c0 : index
  %m = arith.select %first, %x, %x : tensor<4xf32>
  %p:2 = scf.if %b -> (index, tensor<4xf32>) {
    scf.yield %c1, %m : index, tensor<4xf32>
  } else {
    scf.yield %c3, %x : index, tensor<4xf32>
  }
  // CHECK: scf.for
  // CHECK: call @rematShiftF32
  %r = scf.for %i = %c0 to %p#0 step %c1 iter_args(%a = %p#1) -> tensor<4xf32> {
    %z = shard.shift %a on @grid grid_axes = [0] shift_axis = 0 offset = 1 : tensor<4xf32> -> tensor<4xf32>
    scf.yield %z : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// A recomputation (remat.recompute) runs its body once wherever the plan
// placed it, on every device: a gather in it, reading a value computed
// from the device index (an FSDP shard's offset), lowers. It was refused as
// "control flow that depends on the device index" (mpi-2.test at 60 %).
shard.grid @grid(shape = 2)
// CHECK-LABEL: func.func @gather_in_recompute
func.func @gather_in_recompute(%w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %c4 = arith.constant 4 : index
  %s = shard.process_linear_index on @grid : index
  %off = arith.muli %s, %c4 : index
  %shard = tensor.extract_slice %w[%off, 0] [4, 8] [1, 1] : tensor<8x8xf32> to tensor<4x8xf32>
  // CHECK: remat.recompute
  // CHECK: call @rematCollectiveF32
  %g = remat.recompute ins(%shard : tensor<4x8xf32>) -> tensor<8x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %r = shard.all_gather %a on @grid grid_axes = [0] gather_axis = 0 : tensor<4x8xf32> -> tensor<8x8xf32>
    remat.yield %r : tensor<8x8xf32>
  }
  return %g : tensor<8x8xf32>
}

// -----

// shard.send / shard.recv: rematSend<T>(grid, axes, peer, in) reads the
// input where it is (the send's result is its input) and
// rematRecv<T>(grid, axes, peer, out) writes a buffer of its own; the
// partner's index in the group is row-major over the op's grid axes (here
// axes [1, 0] of a 2x3 grid: peer = c1 * 2 + c0). Unlike collectives they
// may run under control flow on the device index.
shard.grid @g23(shape = 2x3)
// CHECK-LABEL: func.func private @rematRecvF32(i64, i64, i64, memref<*xf32>)
// CHECK-SAME: llvm.emit_c_interface
// CHECK-LABEL: func.func private @rematSendF32(i64, i64, i64, memref<*xf32>)
// CHECK-LABEL: func.func @send_recv
func.func @send_recv(%x: tensor<4x8xf32>, %c: index) -> tensor<4x8xf32> {
  %s = shard.process_linear_index on @g23 : index
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %s, %c0 : index
  // CHECK: scf.if
  // CHECK: %[[IN:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<4x8xf32> to memref<4x8xf32, strided<[?, ?], offset: ?>>
  // CHECK: %[[CAST:.*]] = memref.cast %[[IN]]
  // CHECK-DAG: %[[G:.*]] = arith.constant 196610 : i64
  // CHECK-DAG: %[[A:.*]] = arith.constant 18 : i64
  // CHECK: call @rematSendF32(%[[G]], %[[A]], %{{.*}}, %[[CAST]])
  // CHECK: scf.yield %{{.*}} : tensor<4x8xf32>
  %y = scf.if %first -> tensor<4x8xf32> {
    %sent = shard.send %x on @g23 grid_axes = [1, 0] destination = [2, %c] : (tensor<4x8xf32>, index) -> tensor<4x8xf32>
    scf.yield %sent : tensor<4x8xf32>
  } else {
    // CHECK: %[[OUT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32>
    // CHECK: call @rematRecvF32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
    // CHECK: bufferization.to_tensor %[[OUT]] restrict writable
    %e = tensor.empty() : tensor<4x8xf32>
    %r = shard.recv %e on @g23 grid_axes = [1, 0] source = [0, 1] : (tensor<4x8xf32>) -> tensor<4x8xf32>
    scf.yield %r : tensor<4x8xf32>
  }
  return %y : tensor<4x8xf32>
}
