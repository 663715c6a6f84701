// `m[r0:r1, c0:c1][i, j] = v` as a frontend lowers PyTorch's slice_scatter
// of a slice_scatter (Swin's shifted-window mask): a slice of m, inserts
// into it, the slice inserted back where it was cut. One-Shot Bufferize
// writes all of it into m's buffer, but the planner saw the slice's inserts
// as a buffer of their own: a plan keeping one for the backward counted its
// slice where the run kept all of m (swin_t at its smallest budget measured
// 13,376 B above the plan). -remat-prepare writes the inserts into m itself
// (lib/Transforms/FlattenSliceUpdates.cpp): the same values, and no slice
// left for a plan to keep apart from m. test/Integration/CPU/slice-updates.test
// checks the measured peaks.
// RUN: remat-opt %s -remat-prepare -split-input-file | FileCheck %s

// Two updates of rows [53, 56) of a 56x56 mask: inserts into the mask at
// the summed offsets, in the updates' places; the first one's cost keeps
// its time but not its bytes (its result is the mask now, not the slice).
// CHECK-LABEL: func.func @mask
// CHECK-NOT: tensor.extract_slice
// CHECK: %[[M:.*]] = linalg.fill
// CHECK: %[[A:.*]] = tensor.insert_slice %{{.*}} into %[[M]][53, 49] [3, 4] [1, 1] {remat.cost = #remat.cost<time = 1.200000e+01, bytes = 0, workspace = 0>} : tensor<3x4xf32> into tensor<56x56xf32>
// CHECK: %[[B:.*]] = tensor.insert_slice %{{.*}} into %[[A]][53, 53] [3, 3] [1, 1]
// CHECK-NOT: tensor.insert_slice
// CHECK: return %[[B]]
func.func @mask(%v: tensor<3x4xf32>, %w: tensor<3x3xf32>) -> tensor<56x56xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<56x56xf32>
  %m = linalg.fill ins(%c0 : f32) outs(%e : tensor<56x56xf32>) -> tensor<56x56xf32>
  %s = tensor.extract_slice %m[53, 0] [3, 56] [1, 1] : tensor<56x56xf32> to tensor<3x56xf32>
  %s1 = tensor.insert_slice %v into %s[0, 49] [3, 4] [1, 1] {remat.cost = #remat.cost<time = 12.0, bytes = 672, workspace = 0>} : tensor<3x4xf32> into tensor<3x56xf32>
  %s2 = tensor.insert_slice %w into %s1[0, 53] [3, 3] [1, 1] : tensor<3x3xf32> into tensor<3x56xf32>
  %m2 = tensor.insert_slice %s2 into %m[53, 0] [3, 56] [1, 1] : tensor<3x56xf32> into tensor<56x56xf32>
  return %m2 : tensor<56x56xf32>
}

// -----

// The mask before the update is read again: the inserts go into it all the
// same (bufferization copies it for the first, as for any insert into a
// value read again), and the reader still reads the old mask.
// CHECK-LABEL: func.func @read_again
// CHECK-NOT: tensor.extract_slice
// CHECK: %[[N:.*]] = tensor.insert_slice %{{.*}} into %[[M:.*]][2, 5] [1, 2] [1, 1]
// CHECK: return %[[N]], %[[M]]
func.func @read_again(%m: tensor<8x8xf32>, %v: tensor<1x2xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %s = tensor.extract_slice %m[2, 4] [4, 4] [1, 1] : tensor<8x8xf32> to tensor<4x4xf32>
  %s1 = tensor.insert_slice %v into %s[0, 1] [1, 2] [1, 1] : tensor<1x2xf32> into tensor<4x4xf32>
  %m2 = tensor.insert_slice %s1 into %m[2, 4] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<8x8xf32>
  return %m2, %m : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// Canonicalization leaves an insert overwritten whole by the next one
// unused, still reading the first insert: it goes, and the rest is written
// into the mask.
// CHECK-LABEL: func.func @overwritten
// CHECK-NOT: tensor.extract_slice
// CHECK: %[[A:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[2, 4] [1, 2] [1, 1]
// CHECK: %[[B:.*]] = tensor.insert_slice %{{.*}} into %[[A]][2, 6] [1, 1] [1, 1]
// CHECK-NOT: tensor.insert_slice
// CHECK: return %[[B]]
func.func @overwritten(%m: tensor<8x8xf32>, %v: tensor<1x2xf32>, %w: tensor<1x1xf32>) -> tensor<8x8xf32> {
  %s = tensor.extract_slice %m[2, 4] [4, 4] [1, 1] : tensor<8x8xf32> to tensor<4x4xf32>
  %s1 = tensor.insert_slice %v into %s[0, 0] [1, 2] [1, 1] : tensor<1x2xf32> into tensor<4x4xf32>
  %dead = tensor.insert_slice %w into %s1[0, 2] [1, 1] [1, 1] : tensor<1x1xf32> into tensor<4x4xf32>
  %s2 = tensor.insert_slice %w into %s1[0, 2] [1, 1] [1, 1] : tensor<1x1xf32> into tensor<4x4xf32>
  %m2 = tensor.insert_slice %s2 into %m[2, 4] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<8x8xf32>
  return %m2 : tensor<8x8xf32>
}

// -----

// Left alone: the slice goes back elsewhere (a move, not an update); a
// link of the chain is read elsewhere (the slice's own value is used);
// strides other than 1; a rank-reducing slice; an offset known at run time
// only.
// CHECK-LABEL: func.func @elsewhere
// CHECK: tensor.extract_slice
// CHECK-LABEL: func.func @link_read
// CHECK: tensor.extract_slice
// CHECK-LABEL: func.func @strided
// CHECK: tensor.extract_slice
// CHECK-LABEL: func.func @rank_reducing
// CHECK: tensor.extract_slice
// CHECK-LABEL: func.func @dynamic
// CHECK: tensor.extract_slice
func.func @elsewhere(%m: tensor<8x8xf32>, %v: tensor<1x2xf32>) -> tensor<8x8xf32> {
  %s = tensor.extract_slice %m[2, 4] [4, 4] [1, 1] : tensor<8x8xf32> to tensor<4x4xf32>
  %s1 = tensor.insert_slice %v into %s[0, 1] [1, 2] [1, 1] : tensor<1x2xf32> into tensor<4x4xf32>
  %m2 = tensor.insert_slice %s1 into %m[0, 0] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<8x8xf32>
  return %m2 : tensor<8x8xf32>
}
func.func @link_read(%m: tensor<8x8xf32>, %v: tensor<1x2xf32>) -> (tensor<8x8xf32>, tensor<4x4xf32>) {
  %s = tensor.extract_slice %m[2, 4] [4, 4] [1, 1] : tensor<8x8xf32> to tensor<4x4xf32>
  %s1 = tensor.insert_slice %v into %s[0, 1] [1, 2] [1, 1] : tensor<1x2xf32> into tensor<4x4xf32>
  %m2 = tensor.insert_slice %s1 into %m[2, 4] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<8x8xf32>
  return %m2, %s1 : tensor<8x8xf32>, tensor<4x4xf32>
}
func.func @strided(%m: tensor<8x8xf32>, %v: tensor<1x2xf32>) -> tensor<8x8xf32> {
  %s = tensor.extract_slice %m[0, 0] [4, 4] [2, 2] : tensor<8x8xf32> to tensor<4x4xf32>
  %s1 = tensor.insert_slice %v into %s[0, 1] [1, 2] [1, 1] : tensor<1x2xf32> into tensor<4x4xf32>
  %m2 = tensor.insert_slice %s1 into %m[0, 0] [4, 4] [2, 2] : tensor<4x4xf32> into tensor<8x8xf32>
  return %m2 : tensor<8x8xf32>
}
func.func @rank_reducing(%m: tensor<8x8xf32>, %v: tensor<2xf32>) -> tensor<8x8xf32> {
  %s = tensor.extract_slice %m[3, 0] [1, 8] [1, 1] : tensor<8x8xf32> to tensor<8xf32>
  %s1 = tensor.insert_slice %v into %s[2] [2] [1] : tensor<2xf32> into tensor<8xf32>
  %m2 = tensor.insert_slice %s1 into %m[3, 0] [1, 8] [1, 1] : tensor<8xf32> into tensor<8x8xf32>
  return %m2 : tensor<8x8xf32>
}
func.func @dynamic(%m: tensor<8x8xf32>, %v: tensor<1x2xf32>, %i: index) -> tensor<8x8xf32> {
  %s = tensor.extract_slice %m[%i, 4] [4, 4] [1, 1] : tensor<8x8xf32> to tensor<4x4xf32>
  %s1 = tensor.insert_slice %v into %s[0, 1] [1, 2] [1, 1] : tensor<1x2xf32> into tensor<4x4xf32>
  %m2 = tensor.insert_slice %s1 into %m[%i, 4] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<8x8xf32>
  return %m2 : tensor<8x8xf32>
}
