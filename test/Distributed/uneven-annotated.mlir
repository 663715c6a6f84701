// RUN: remat-opt %s --remat-check-even-shards -split-input-file -verify-diagnostics -o /dev/null
// RUN: not remat-opt %S/Inputs/annotated_uneven.mlir --remat-budget=min --remat-partition -o %t.mlir 2>&1 | FileCheck %s --check-prefix=FIT
// RUN: not test -e %t.mlir
//
// A fully annotated step whose annotation splits a dimension over more
// devices than divide it: upstream's shard-partition (MLIR 22) would fail
// verification later on a tensor.cast between the shard shapes
// ("'tensor.cast' op operand type 'tensor<8x16xf32>' and result type
// 'tensor<10x16xf32>' are cast incompatible"), naming neither the
// annotation nor what to do. --remat-partition refuses it first, at the
// annotation, with one line; no output is written.
// FIT: annotated_uneven.mlir:[[#]]:[[#]]: error: this annotation splits tensor<10x16xf32> unevenly: dimension 0 (10) over the 4 devices of grid @grid axes [0]; upstream shard-partition (MLIR 22) does not partition uneven shards. Pad the dimension to a multiple of 4, or write the program each rank runs with it dynamic and bounded by the largest shard (3; docs/distributed.md, "Uneven shards")
// FIT-NOT: error:

shard.grid @grid(shape = 4)
func.func @rows(%x: tensor<10x16xf32>) -> tensor<10x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  // expected-error @+1 {{this annotation splits tensor<10x16xf32> unevenly: dimension 0 (10) over the 4 devices of grid @grid axes [0]}}
  %a = shard.shard %x to %s : tensor<10x16xf32>
  return %a : tensor<10x16xf32>
}

// -----

// Even splits, a dynamic dimension, and explicit shard sizes pass.
shard.grid @grid(shape = 4)
func.func @fine(%x: tensor<12x10xf32>, %y: tensor<?x16xf32>, %z: tensor<10x16xf32>)
    -> (tensor<12x10xf32>, tensor<?x16xf32>, tensor<10x16xf32>) {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %a = shard.shard %x to %s : tensor<12x10xf32>
  %b = shard.shard %y to %s : tensor<?x16xf32>
  %o = shard.sharding @grid split_axes = [[0]] sharded_dims_offsets = [0, 3, 6, 8, 10] : !shard.sharding
  %c = shard.shard %z to %o : tensor<10x16xf32>
  return %a, %b, %c : tensor<12x10xf32>, tensor<?x16xf32>, tensor<10x16xf32>
}

// -----

// Split over two axes of a 2x3 grid: 6 devices. 12 rows divide, 8 columns
// do not.
shard.grid @grid2(shape = 2x3)
func.func @two_axes(%x: tensor<12x8xf32>) -> tensor<12x8xf32> {
  %ok = shard.sharding @grid2 split_axes = [[0, 1]] : !shard.sharding
  %a = shard.shard %x to %ok : tensor<12x8xf32>
  %bad = shard.sharding @grid2 split_axes = [[], [1, 0]] : !shard.sharding
  // expected-error @+1 {{this annotation splits tensor<12x8xf32> unevenly: dimension 1 (8) over the 6 devices of grid @grid2 axes [1, 0]}}
  %b = shard.shard %a to %bad : tensor<12x8xf32>
  return %b : tensor<12x8xf32>
}
