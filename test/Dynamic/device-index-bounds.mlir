// RUN: not remat-opt %s -remat-rematerialize="budget=100% report=- alignment=1" -o /dev/null 2>&1 | FileCheck %s
//
// A size the device index shrinks (a 1F1B stage's ring: 2P-1 - 2s rows on
// stage s): the device index ranges over the grid's devices, 0 .. 3 on
// @grid4, so rows = 7 - 2s is at most 7 and never negative. The peak is
// planned at 7 rows of 64 floats: x 256 + b 1792 + the loss 4 + the
// gradient 256 = 2308 B; the report gives each device's: 5, 3 and 1 rows,
// 512 B less each. On 16 devices (@rows_past_zero) 7 - 2s goes negative:
// no bound, refused with the usual line (printed before the report).
// CHECK: error: result #0 of tensor.empty ('tensor<?x64xf32>') has no upper bound remat can derive for dimension 0
// CHECK: "device_peaks": [
// CHECK-NEXT: 2308,
// CHECK-NEXT: 1796,
// CHECK-NEXT: 1284,
// CHECK-NEXT: 772
// CHECK-NEXT: ]
// CHECK: "name": "rows_by_stage"
// CHECK: "peak_before": 2308
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>
#red = affine_map<(i, j) -> ()>
shard.grid @grid4(shape = 4)
shard.grid @grid16(shape = 16)

func.func @rows_by_stage(%x: tensor<64xf32>) -> (tensor<f32> {remat.loss}, tensor<64xf32>) {
  %c7 = arith.constant 7 : index
  %s = shard.process_linear_index on @grid4 : index
  %s2 = arith.addi %s, %s : index
  %rows = arith.subi %c7, %s2 : index
  %e = tensor.empty(%rows) : tensor<?x64xf32>
  %b = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64xf32>) outs(%e : tensor<?x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.tanh %v : f32
    linalg.yield %t : f32
  } -> tensor<?x64xf32>
  %l0 = tensor.empty() : tensor<f32>
  %zero = arith.constant 0.0 : f32
  %l1 = linalg.fill ins(%zero : f32) outs(%l0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["reduction", "reduction"]}
      ins(%b : tensor<?x64xf32>) outs(%l1 : tensor<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %s3 = arith.addf %acc, %v : f32
    linalg.yield %s3 : f32
  } -> tensor<f32>
  %g0 = tensor.empty() : tensor<64xf32>
  %g1 = linalg.fill ins(%zero : f32) outs(%g0 : tensor<64xf32>) -> tensor<64xf32>
  %g = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["reduction", "parallel"]}
      ins(%b : tensor<?x64xf32>) outs(%g1 : tensor<64xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %one = arith.constant 1.0 : f32
    %v2 = arith.mulf %v, %v : f32
    %d = arith.subf %one, %v2 : f32
    %s4 = arith.addf %acc, %d : f32
    linalg.yield %s4 : f32
  } -> tensor<64xf32>
  return %loss, %g : tensor<f32>, tensor<64xf32>
}

func.func @rows_past_zero(%x: tensor<64xf32>) -> (tensor<f32> {remat.loss}, tensor<64xf32>) {
  %c7 = arith.constant 7 : index
  %s = shard.process_linear_index on @grid16 : index
  %s2 = arith.addi %s, %s : index
  %rows = arith.subi %c7, %s2 : index
  %e = tensor.empty(%rows) : tensor<?x64xf32>
  %b = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64xf32>) outs(%e : tensor<?x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.tanh %v : f32
    linalg.yield %t : f32
  } -> tensor<?x64xf32>
  %l0 = tensor.empty() : tensor<f32>
  %zero = arith.constant 0.0 : f32
  %l1 = linalg.fill ins(%zero : f32) outs(%l0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["reduction", "reduction"]}
      ins(%b : tensor<?x64xf32>) outs(%l1 : tensor<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %s3 = arith.addf %acc, %v : f32
    linalg.yield %s3 : f32
  } -> tensor<f32>
  %g0 = tensor.empty() : tensor<64xf32>
  %g1 = linalg.fill ins(%zero : f32) outs(%g0 : tensor<64xf32>) -> tensor<64xf32>
  %g = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["reduction", "parallel"]}
      ins(%b : tensor<?x64xf32>) outs(%g1 : tensor<64xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %one = arith.constant 1.0 : f32
    %v2 = arith.mulf %v, %v : f32
    %d = arith.subf %one, %v2 : f32
    %s4 = arith.addf %acc, %d : f32
    linalg.yield %s4 : f32
  } -> tensor<64xf32>
  return %loss, %g : tensor<f32>, tensor<64xf32>
}
