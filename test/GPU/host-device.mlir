// RUN: remat-opt %s -split-input-file -remat-gpu-host-device -verify-diagnostics | FileCheck %s

// Function boundaries stay on the host; what a function computes lives on
// the device. Arguments are copied in at entry, results out at the return;
// the planner's frees become device frees; constants get a device copy;
// memref.copy becomes a kernel (linalg.copy).

memref.global "private" constant @bias : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>

// CHECK-LABEL: func.func @step(
// CHECK-SAME:      %[[X:.*]]: memref<4xf32>, %[[S:.*]]: f32)
// CHECK:         %[[DX:.*]] = gpu.alloc () : memref<4xf32>
// CHECK-NEXT:    gpu.memcpy %[[DX]], %[[X]]
// CHECK:         %[[A:.*]] = gpu.alloc () : memref<4xf32>
// CHECK:         %[[G:.*]] = memref.get_global @bias
// CHECK-NEXT:    %[[DG:.*]] = gpu.alloc () : memref<4xf32>
// CHECK-NEXT:    gpu.memcpy %[[DG]], %[[G]]
// CHECK-NEXT:    linalg.add ins(%[[DX]], %[[DG]] : {{.*}}) outs(%[[A]] :
// CHECK-NEXT:    %[[C:.*]] = gpu.alloc () : memref<4xf32>
// CHECK-NEXT:    linalg.copy ins(%[[A]] : memref<4xf32>) outs(%[[C]] :
// CHECK-NEXT:    gpu.dealloc %[[A]]
// CHECK-NEXT:    %[[L:.*]] = gpu.alloc () : memref<f32>
// CHECK-NEXT:    linalg.fill ins(%[[S]] : f32) outs(%[[L]] :
// CHECK-NEXT:    %[[HC:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    gpu.memcpy %[[HC]], %[[C]]
// CHECK-NEXT:    %[[HL:.*]] = memref.alloc() : memref<f32>
// CHECK-NEXT:    gpu.memcpy %[[HL]], %[[L]]
// CHECK-DAG:     gpu.dealloc %[[DG]]
// CHECK-DAG:     gpu.dealloc %[[C]]
// CHECK-DAG:     gpu.dealloc %[[L]]
// CHECK-DAG:     gpu.dealloc %[[DX]]
// CHECK:         return %[[HC]], %[[HL]]
func.func @step(%x: memref<4xf32>, %s: f32) -> (memref<4xf32>, memref<f32>) {
  %a = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  %b = memref.get_global @bias : memref<4xf32>
  linalg.add ins(%x, %b : memref<4xf32>, memref<4xf32>) outs(%a : memref<4xf32>)
  %c = memref.alloc() : memref<4xf32>
  memref.copy %a, %c : memref<4xf32> to memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  %l = memref.alloc() : memref<f32>
  linalg.fill ins(%s : f32) outs(%l : memref<f32>)
  return %c, %l : memref<4xf32>, memref<f32>
}

func.func private @printMemrefF32(memref<*xf32>)

// Around a call: operands go to fresh host buffers (the device buffer, dead
// once copied, is freed before the call), results come back to the device
// and their host buffers are freed; a result only freed is not copied. An
// unranked operand is a cast of a host copy.
// CHECK-LABEL: func.func @main()
// CHECK:         %[[DX:.*]] = gpu.alloc () : memref<4xf32>
// CHECK:         linalg.fill {{.*}} outs(%[[DX]] :
// CHECK-NEXT:    %[[HX:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    gpu.memcpy %[[HX]], %[[DX]]
// CHECK-NEXT:    gpu.dealloc %[[DX]]
// CHECK-NEXT:    %[[R:.*]]:2 = call @step(%[[HX]], %{{.*}})
// CHECK-NEXT:    %[[DR:.*]] = gpu.alloc () : memref<4xf32>
// CHECK-NEXT:    gpu.memcpy %[[DR]], %[[R]]#0
// CHECK-NEXT:    memref.dealloc %[[R]]#0
// CHECK-NEXT:    memref.dealloc %[[R]]#1
// CHECK-NEXT:    memref.dealloc %[[HX]]
// CHECK-NEXT:    %[[HR:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    gpu.memcpy %[[HR]], %[[DR]]
// CHECK-NEXT:    %[[U:.*]] = memref.cast %[[HR]] : memref<4xf32> to memref<*xf32>
// CHECK-NEXT:    gpu.dealloc %[[DR]]
// CHECK-NEXT:    call @printMemrefF32(%[[U]])
// CHECK-NEXT:    memref.dealloc %[[HR]]
// CHECK-NEXT:    return
func.func @main() {
  %one = arith.constant 1.0 : f32
  %x = memref.alloc() : memref<4xf32>
  linalg.fill ins(%one : f32) outs(%x : memref<4xf32>)
  %r:2 = call @step(%x, %one) : (memref<4xf32>, f32) -> (memref<4xf32>, memref<f32>)
  memref.dealloc %x : memref<4xf32>
  memref.dealloc %r#1 : memref<f32>
  %u = memref.cast %r#0 : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %r#0 : memref<4xf32>
  return
}

// -----

// Dynamic shapes: sizes come from memref.dim. A strided value crosses into a
// call through a contiguous device temporary.
// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME:      %[[X:.*]]: memref<?x8xf32>)
// CHECK:         %[[D0:.*]] = memref.dim %[[X]], %c0
// CHECK-NEXT:    %[[DX:.*]] = gpu.alloc (%[[D0]]) : memref<?x8xf32>
// CHECK-NEXT:    gpu.memcpy %[[DX]], %[[X]]
// CHECK:         %[[V:.*]] = memref.subview %[[DX]]
// CHECK-NEXT:    %[[W:.*]] = memref.cast %[[V]]
// CHECK:         %[[T:.*]] = gpu.alloc () : memref<2x4xf32>
// CHECK-NEXT:    linalg.copy ins(%[[W]] : {{.*}}) outs(%[[T]] :
// CHECK-NEXT:    %[[H:.*]] = memref.alloc() : memref<2x4xf32>
// CHECK-NEXT:    gpu.memcpy %[[H]], %[[T]]
// CHECK-NEXT:    gpu.dealloc %[[T]]
// CHECK-NEXT:    %[[HS:.*]] = memref.cast %[[H]] : memref<2x4xf32> to memref<2x4xf32, strided<[?, 1], offset: ?>>
// CHECK-NEXT:    call @consume(%[[HS]])
// CHECK-NEXT:    memref.dealloc %[[H]]
func.func private @consume(memref<2x4xf32, strided<[?, 1], offset: ?>>)
func.func @dynamic(%x: memref<?x8xf32>) {
  %v = memref.subview %x[0, 0] [2, 4] [1, 1] : memref<?x8xf32> to memref<2x4xf32, strided<[8, 1]>>
  %w = memref.cast %v : memref<2x4xf32, strided<[8, 1]>> to memref<2x4xf32, strided<[?, 1], offset: ?>>
  call @consume(%w) : (memref<2x4xf32, strided<[?, 1], offset: ?>>) -> ()
  return
}

// -----

// expected-error @+1 {{argument #0 of type 'memref<4xf32, strided<[2]>>' cannot be copied to the device: function boundaries need ranked memrefs with identity layouts}}
func.func @strided_argument(%x: memref<4xf32, strided<[2]>>) -> f32 {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<4xf32, strided<[2]>>
  return %v : f32
}

// -----

// expected-error @+1 {{argument #0 of type 'memref<*xf32>' cannot be copied to the device}}
func.func @unranked(%x: memref<*xf32>) -> index {
  %r = memref.rank %x : memref<*xf32>
  return %r : index
}
