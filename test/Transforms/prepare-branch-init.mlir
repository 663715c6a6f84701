// Upstream shard-partition chooses a partial reduction's initial value by
// scf.if on the device index: rank 0 keeps the fill it has, the other ranks
// make a zero tensor of their own. Bufferized as written, the ranks that
// take the else branch hold both buffers (the fill may alias the result, so
// it is freed with it) and measure one buffer more than rank 0.
// -remat-prepare has the else branch write its zeros into the fill (nothing
// else reads it): the result is the fill's buffer on every path, which is
// what the memory model counts (OpGroups.h, branchesWriteInto).
// RUN: remat-opt %s -remat-prepare -split-input-file | FileCheck %s
// RUN: remat-opt %s -remat-prepare -remat-test-timeline="alignment=1" -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=PEAK

// CHECK-LABEL: func.func @choose
// CHECK: %[[Z:.*]] = linalg.fill
// CHECK: scf.if
// CHECK-NEXT: scf.yield %[[Z]]
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[G:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[Z]] : tensor<16x16xf32>)
// CHECK-NEXT: scf.yield %[[G]]
// At %t: x, the fill's buffer (the scf.if's result, written in place by
// the matmul) and t, 1024 B each. (The scf.if itself is counted 1024 B
// above what runs: the else branch's fill, a buffer of the branch as the
// model simulates it alone, is no new buffer.)
// PEAK: 37:8: remark: holds 2048 B while running, 2048 B live after
// PEAK: 38:8: remark: holds 3072 B while running, 2048 B live after
// PEAK: remark: peak 3072 B
func.func @choose(%x: tensor<16x16xf32>, %c: i1) -> (tensor<f32>, tensor<16x16xf32>) {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %i = scf.if %c -> (tensor<16x16xf32>) {
    scf.yield %z : tensor<16x16xf32>
  } else {
    %f = tensor.empty() : tensor<16x16xf32>
    %g = linalg.fill ins(%c0 : f32) outs(%f : tensor<16x16xf32>) -> tensor<16x16xf32>
    scf.yield %g : tensor<16x16xf32>
  }
  %m = linalg.matmul ins(%x, %x : tensor<16x16xf32>, tensor<16x16xf32>) outs(%i : tensor<16x16xf32>) -> tensor<16x16xf32>
  %t = math.tanh %m : tensor<16x16xf32>
  %le = tensor.empty() : tensor<f32>
  %lz = linalg.fill ins(%c0 : f32) outs(%le : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%t : tensor<16x16xf32>) outs(%lz : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  return %l, %t : tensor<f32>, tensor<16x16xf32>
}

// -----

// The fill is read after the scf.if too: writing into it in the else
// branch would make bufferization copy it; the branch keeps its own, and
// the then branch yields a copy of the fill: both paths yield a buffer of
// their own (the result's, which the model counts and -remat-plan-buffers
// frees; test/BufferPlanning/branch-owned.mlir). As written the ranks
// taking the else branch held that branch's buffer to the end and a copy
// the matmul wrote into, since the result might be the fill.
// CHECK-LABEL: func.func @read_after
// CHECK: %[[Z:.*]] = linalg.fill
// CHECK: scf.if
// CHECK-NEXT: %[[E:.*]] = tensor.empty
// CHECK-NEXT: %[[C:.*]] = linalg.copy ins(%[[Z]] : tensor<16x16xf32>) outs(%[[E]] : tensor<16x16xf32>)
// CHECK-NEXT: scf.yield %[[C]]
// CHECK: } else {
// CHECK-NEXT: tensor.empty
// CHECK-NEXT: linalg.fill
func.func @read_after(%x: tensor<16x16xf32>, %c: i1) -> (tensor<f32>, tensor<16x16xf32>) {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %i = scf.if %c -> (tensor<16x16xf32>) {
    scf.yield %z : tensor<16x16xf32>
  } else {
    %f = tensor.empty() : tensor<16x16xf32>
    %g = linalg.fill ins(%c0 : f32) outs(%f : tensor<16x16xf32>) -> tensor<16x16xf32>
    scf.yield %g : tensor<16x16xf32>
  }
  %m = linalg.matmul ins(%x, %z : tensor<16x16xf32>, tensor<16x16xf32>) outs(%i : tensor<16x16xf32>) -> tensor<16x16xf32>
  %t = math.tanh %m : tensor<16x16xf32>
  %le = tensor.empty() : tensor<f32>
  %lz = linalg.fill ins(%c0 : f32) outs(%le : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%t : tensor<16x16xf32>) outs(%lz : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  return %l, %t : tensor<f32>, tensor<16x16xf32>
}

// -----

// A row read back on one path and computed again on the other (a pipeline
// stage's plan chosen by a branch on the stage: stages that recompute a
// layer's output where the others keep it in a ring). The read path's
// slice bufferizes to a view of the ring, so as written the result owns no
// buffer on every path and -remat-plan-buffers cannot free the computed
// one ("buffer is yielded out of its block": one leaked per iteration).
// The read path yields a copy: every path makes the buffer it yields.
// CHECK-LABEL: func.func @row_or_recompute
// CHECK: scf.if
// CHECK: %[[R:.*]] = linalg.matmul
// CHECK: scf.yield %[[R]]
// CHECK: } else {
// CHECK-NEXT: %[[S:.*]] = tensor.extract_slice
// CHECK-NEXT: %[[E:.*]] = tensor.empty
// CHECK-NEXT: %[[C:.*]] = linalg.copy ins(%[[S]] : tensor<4x16xf32>) outs(%[[E]] : tensor<4x16xf32>)
// CHECK-NEXT: scf.yield %[[C]]
func.func @row_or_recompute(%ring: tensor<3x4x16xf32>, %x: tensor<4x16xf32>, %w: tensor<16x16xf32>,
                            %row: index, %c: i1) -> tensor<4x16xf32> {
  %c0 = arith.constant 0.0 : f32
  %a = scf.if %c -> (tensor<4x16xf32>) {
    %e = tensor.empty() : tensor<4x16xf32>
    %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
    %m = linalg.matmul ins(%x, %w : tensor<4x16xf32>, tensor<16x16xf32>) outs(%z : tensor<4x16xf32>) -> tensor<4x16xf32>
    scf.yield %m : tensor<4x16xf32>
  } else {
    %s = tensor.extract_slice %ring[%row, 0, 0] [1, 4, 16] [1, 1, 1] : tensor<3x4x16xf32> to tensor<4x16xf32>
    scf.yield %s : tensor<4x16xf32>
  }
  %t = math.tanh %a : tensor<4x16xf32>
  return %t : tensor<4x16xf32>
}

// -----

// The same with 4-d rows (a GPT-like block's per-head queries, a ring of
// [S, B, H, d] rows): the recomputing path yields the expand_shape of a
// matmul's result, a reshape of a buffer made in the branch. The read
// path yields a copy as above.
// CHECK-LABEL: func.func @reshaped_row_or_recompute
// CHECK: scf.if
// CHECK: %[[R:.*]] = tensor.expand_shape
// CHECK: scf.yield %[[R]]
// CHECK: } else {
// CHECK-NEXT: %[[S:.*]] = tensor.extract_slice
// CHECK-NEXT: %[[E:.*]] = tensor.empty
// CHECK-NEXT: %[[C:.*]] = linalg.copy ins(%[[S]] : tensor<2x2x2x8xf32>) outs(%[[E]] : tensor<2x2x2x8xf32>)
// CHECK-NEXT: scf.yield %[[C]]
func.func @reshaped_row_or_recompute(%ring: tensor<3x2x2x2x8xf32>, %x: tensor<4x16xf32>,
                                     %w: tensor<16x16xf32>, %row: index, %c: i1)
    -> tensor<2x2x2x8xf32> {
  %c0 = arith.constant 0.0 : f32
  %a = scf.if %c -> (tensor<2x2x2x8xf32>) {
    %e = tensor.empty() : tensor<4x16xf32>
    %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
    %m = linalg.matmul ins(%x, %w : tensor<4x16xf32>, tensor<16x16xf32>) outs(%z : tensor<4x16xf32>) -> tensor<4x16xf32>
    %m4 = tensor.expand_shape %m [[0, 1], [2, 3]] output_shape [2, 2, 2, 8] : tensor<4x16xf32> into tensor<2x2x2x8xf32>
    scf.yield %m4 : tensor<2x2x2x8xf32>
  } else {
    %s = tensor.extract_slice %ring[%row, 0, 0, 0, 0] [1, 2, 2, 2, 8] [1, 1, 1, 1, 1] : tensor<3x2x2x2x8xf32> to tensor<2x2x2x8xf32>
    scf.yield %s : tensor<2x2x2x8xf32>
  }
  %t = math.tanh %a : tensor<2x2x2x8xf32>
  return %t : tensor<2x2x2x8xf32>
}

// -----

// Two rows of one branch copied: each copy has a location of its own (the
// branch's, named by the result), so a cost table keyed by location
// (calibrate_costs.py) tells the two nodes apart.
// RUN: remat-opt %s -remat-prepare -split-input-file -mlir-print-debuginfo -mlir-print-local-scope | FileCheck %s --check-prefix=LOC
// LOC-LABEL: func.func @two_rows_or_recompute
// LOC: linalg.copy {{.*}} loc("{{.*}}prepare-branch-init.mlir:[[LINE:[0-9]+]]:{{[0-9]+}} result 0"
// LOC: linalg.copy {{.*}} loc("{{.*}}prepare-branch-init.mlir:[[LINE]]:{{[0-9]+}} result 1"
func.func @two_rows_or_recompute(%ring: tensor<3x4x16xf32>, %x: tensor<4x16xf32>,
                                 %w: tensor<16x16xf32>, %row: index, %c: i1)
    -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %c0 = arith.constant 0.0 : f32
  %a:2 = scf.if %c -> (tensor<4x16xf32>, tensor<4x16xf32>) {
    %e = tensor.empty() : tensor<4x16xf32>
    %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
    %m = linalg.matmul ins(%x, %w : tensor<4x16xf32>, tensor<16x16xf32>) outs(%z : tensor<4x16xf32>) -> tensor<4x16xf32>
    %e2 = tensor.empty() : tensor<4x16xf32>
    %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
        ins(%m : tensor<4x16xf32>) outs(%e2 : tensor<4x16xf32>) {
    ^bb0(%v: f32, %o: f32):
      %r = math.tanh %v : f32
      linalg.yield %r : f32
    } -> tensor<4x16xf32>
    scf.yield %m, %t : tensor<4x16xf32>, tensor<4x16xf32>
  } else {
    %s = tensor.extract_slice %ring[%row, 0, 0] [1, 4, 16] [1, 1, 1] : tensor<3x4x16xf32> to tensor<4x16xf32>
    %row1 = arith.addi %row, %row : index
    %s1 = tensor.extract_slice %ring[%row1, 0, 0] [1, 4, 16] [1, 1, 1] : tensor<3x4x16xf32> to tensor<4x16xf32>
    scf.yield %s, %s1 : tensor<4x16xf32>, tensor<4x16xf32>
  }
  return %a#0, %a#1 : tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// Inside a loop, a branch yielding a zero fill made before the loop on one
// path and a fresh value on the other (an asynchronous pipeline stage's
// backward slot: the input gradient where it ran a backward, zeros where
// not). Writing the fresh value into the fill would overwrite it for the
// next iteration (bufferization then copies it), and a copy of the fill
// would hold it through the loop: the zeros are made again on that path
// (the fill before the loop, read by nothing else, goes).
// CHECK-LABEL: func.func @zeros_in_loop
// CHECK-NOT: linalg.fill
// CHECK: scf.for
// CHECK: scf.if
// CHECK: %[[F:.*]] = tensor.empty
// CHECK-NEXT: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[F]] : tensor<4x16xf32>)
// CHECK-NEXT: linalg.matmul {{.*}} outs(%[[Z]] : tensor<4x16xf32>)
// CHECK: } else {
// CHECK-NEXT: %[[E:.*]] = tensor.empty
// CHECK-NEXT: %[[C:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<4x16xf32>)
// CHECK-NEXT: scf.yield %[[C]]
func.func @zeros_in_loop(%x: tensor<4x16xf32>, %w: tensor<16x16xf32>, %n: index,
                         %c: i1) -> tensor<4x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<4x16xf32>) {
    %g = scf.if %c -> (tensor<4x16xf32>) {
      %f = tensor.empty() : tensor<4x16xf32>
      %fz = linalg.fill ins(%zero : f32) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
      %m = linalg.matmul ins(%acc, %w : tensor<4x16xf32>, tensor<16x16xf32>) outs(%fz : tensor<4x16xf32>) -> tensor<4x16xf32>
      scf.yield %m : tensor<4x16xf32>
    } else {
      scf.yield %z : tensor<4x16xf32>
    }
    %t = math.tanh %g : tensor<4x16xf32>
    scf.yield %t : tensor<4x16xf32>
  }
  return %r : tensor<4x16xf32>
}
