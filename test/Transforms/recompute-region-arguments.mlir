// RUN: remat-opt %s --remat-test-timeline -o /dev/null 2>&1 | FileCheck %s
//
// Inside a remat.recompute region a block argument stands for a value
// computed outside: an op reading it is a node of its own, as the op it was
// cloned from, not an initial value absorbed into its user (which kept the
// argument alive through the user and counted the op's result as the user's
// workspace: the rewritten function's check then saw 16 KiB more than the
// plan on the unrolled scan_layers step at its smallest budget).
#id = affine_map<(d0) -> (d0)>
func.func @f(%x: tensor<64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  // x, y: 512 B. m: 768 B.
  // CHECK: [[@LINE+1]]:8: remark: holds 768 B while running, 768 B live after
  %m = arith.mulf %x, %y : tensor<64xf32>
  %r = remat.recompute ins(%m, %y : tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%a: tensor<64xf32>, %b: tensor<64xf32>):
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64xf32>
    // The relu: x, y, m and its result; m dies after it.
    // CHECK: [[@LINE+1]]:{{[0-9]+}}: remark: holds 1024 B while running, 768 B live after
    %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%a : tensor<64xf32>) outs(%e : tensor<64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %v = arith.maximumf %in, %z : f32
      linalg.yield %v : f32
    } -> tensor<64xf32>
    %e2 = tensor.empty() : tensor<64xf32>
    // x, y, relu and the sum: never m as well.
    // CHECK: [[@LINE+1]]:{{[0-9]+}}: remark: holds 1024 B while running
    %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
        ins(%b, %relu : tensor<64xf32>, tensor<64xf32>) outs(%e2 : tensor<64xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %v = arith.addf %in, %in2 : f32
      linalg.yield %v : f32
    } -> tensor<64xf32>
    remat.yield %sum : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}
