// RUN: remat-opt %s -remat-gpu-merge-modules | FileCheck %s

// Outlining makes one gpu.module per kernel, each function named like its
// neighbours'; merged, they are one module, renamed on clashes, and every
// launch follows its kernel.
// CHECK:     gpu.module @remat_kernels {
// CHECK-DAG:   gpu.func @step_kernel(%{{.*}}: memref<4xf32>) kernel
// CHECK-DAG:   gpu.func @step_kernel_0(%{{.*}}: memref<8xf32>) kernel
// CHECK:     }
// CHECK-NOT: gpu.module
// CHECK:     func.func @step(
// CHECK:       gpu.launch_func @remat_kernels::@step_kernel blocks
// CHECK-SAME:    args(%{{.*}} : memref<4xf32>)
// CHECK:       gpu.launch_func @remat_kernels::@step_kernel_0 blocks
// CHECK-SAME:    args(%{{.*}} : memref<8xf32>)
module attributes {gpu.container_module} {
  gpu.module @step_kernel {
    gpu.func @step_kernel(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @step_kernel_0 {
    gpu.func @step_kernel(%a: memref<8xf32>) kernel {
      gpu.return
    }
  }
  func.func @step(%a: memref<4xf32>, %b: memref<8xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @step_kernel::@step_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    gpu.launch_func @step_kernel_0::@step_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<8xf32>)
    return
  }
}
