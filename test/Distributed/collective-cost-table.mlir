// RUN: echo '{"units": {"time": "ns", "memory": "B"}, "ops": {"shard.reduce_scatter": {"time": 5}, "shard.all_reduce": {"time": 7}}}' > %t.json
// RUN: remat-opt %s --remat-annotate-costs=cost-table=%t.json | FileCheck %s
//
// A measured cost table (calibrate_costs.py writes times only) replaces a
// collective's time, never the temporaries the runtime allocates for it:
// they stay its workspace (a time-only entry once dropped them, and plans
// with a calibrated table measured 4096 B above their prediction).
shard.grid @grid(shape = 2)
func.func @f(%g: tensor<8x8xf32>, %p: tensor<64x32xf32>) -> (tensor<4x8xf32>, tensor<64x32xf32>) {
  // The receive chunk: the 128 B result.
  // CHECK: shard.reduce_scatter {{.*}}remat.cost = #remat.cost<time = 5.000000e+00, bytes = 128, workspace = 128>
  %s = shard.reduce_scatter %g on @grid grid_axes = [0] scatter_axis = 0 : tensor<8x8xf32> -> tensor<4x8xf32>
  // A ring chunk of 1024 f32.
  // CHECK: shard.all_reduce {{.*}}remat.cost = #remat.cost<time = 7.000000e+00, bytes = 8192, workspace = 4096>
  %r = shard.all_reduce %p on @grid grid_axes = [0] : tensor<64x32xf32> -> tensor<64x32xf32>
  return %s, %r : tensor<4x8xf32>, tensor<64x32xf32>
}
