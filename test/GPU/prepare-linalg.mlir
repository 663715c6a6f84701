// RUN: remat-opt %s -remat-gpu-prepare-linalg="block-size=128" | FileCheck %s

// Parallel loops first: sum over (n, h) for each channel c was
// [reduction, parallel, reduction]; the reductions keep their order.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-LABEL: func.func @bias_grad(
// CHECK:         linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "reduction", "reduction"]}
func.func @bias_grad(%x: memref<4x8x16xf32>, %o: memref<8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, c, h) -> (n, c, h)>, affine_map<(n, c, h) -> (c)>], iterator_types = ["reduction", "parallel", "reduction"]}
      ins(%x : memref<4x8x16xf32>) outs(%o : memref<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %v = arith.addf %in, %acc : f32
    linalg.yield %v : f32
  }
  return
}

// A full sum reduction into a 0-d buffer: one block of 128 threads, each
// summing indices t, t + 128, ... of the 640 iterations (delinearized to
// (i, j)), combined by scf.reduce; thread 0 adds the total to the output.
// CHECK-LABEL: func.func @loss(
// CHECK-SAME:      %[[P:.*]]: memref<64x10xf32>, %[[T:.*]]: memref<64x10xf32>, %[[L:.*]]: memref<f32>)
// CHECK-DAG:     %[[C128:.*]] = arith.constant 128 : index
// CHECK-DAG:     %[[C640:.*]] = arith.constant 640 : index
// CHECK:         scf.parallel
// CHECK:           %[[SUM:.*]] = scf.parallel (%[[TID:.*]]) = (%{{.*}}) to (%[[C128]]) step (%{{.*}}) init (%{{.*}}) -> f32 {
// CHECK:             %[[PART:.*]] = scf.for %[[I:.*]] = %[[TID]] to %[[C640]] step %[[C128]] iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK:               %[[J:.*]] = arith.remui %[[I]], %c10
// CHECK:               %[[Q:.*]] = arith.divui %[[I]], %c10
// CHECK:               %[[R:.*]] = arith.remui %[[Q]], %c64
// CHECK:               memref.load %[[P]]
// CHECK:               memref.load %[[T]]
// CHECK:               math.log
// CHECK:               arith.mulf
// CHECK:               %[[NEXT:.*]] = arith.addf %[[ACC]], %{{.*}} : f32
// CHECK:               scf.yield %[[NEXT]]
// CHECK:             scf.reduce(%[[PART]] : f32) {
// CHECK:               arith.addf
// CHECK:           } {mapping = [#gpu.loop_dim_map<processor = thread_x, {{.*}}>]}
// CHECK:           %[[TX:.*]] = gpu.thread_id x
// CHECK:           %[[FIRST:.*]] = arith.cmpi eq, %[[TX]], %{{.*}}
// CHECK:           scf.if %[[FIRST]] {
// CHECK:             %[[OLD:.*]] = memref.load %[[L]][]
// CHECK:             %[[NEW:.*]] = arith.addf %[[OLD]], %[[SUM]]
// CHECK:             memref.store %[[NEW]], %[[L]][]
// CHECK:         } {mapping = [#gpu.loop_dim_map<processor = block_x, {{.*}}>]}
// CHECK-NOT:     linalg.generic
func.func @loss(%p: memref<64x10xf32>, %t: memref<64x10xf32>, %l: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>], iterator_types = ["reduction", "reduction"]}
      ins(%p, %t : memref<64x10xf32>, memref<64x10xf32>) outs(%l : memref<f32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %lg = math.log %a : f32
    %m = arith.mulf %lg, %b : f32
    %v = arith.addf %acc, %m : f32
    linalg.yield %v : f32
  }
  return
}

// Other full reductions (here a max) stay as they are: -remat-gpu-map-loops
// runs them in one thread.
// CHECK-LABEL: func.func @max(
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction"]
func.func @max(%x: memref<100xf32>, %m: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>], iterator_types = ["reduction"]}
      ins(%x : memref<100xf32>) outs(%m : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %v = arith.maximumf %a, %acc : f32
    linalg.yield %v : f32
  }
  return
}
