// RUN: remat-opt %s -remat-plan-buffers=arena=true -split-input-file -verify-diagnostics | FileCheck %s
// RUN: remat-opt %s -remat-plan-buffers=arena=true -split-input-file -remat-test-check-arena=alignment=64 2>&1 | FileCheck %s --check-prefix=CHECKED

#id = affine_map<(i) -> (i)>

// Lifetimes (positions of the ops that use the buffers):
//   a = exp(x)      a: [op0, op1]
//   b = neg(a)      b: [op1, op3]  writes over a, read for the last time here
//   c = fill        c: [op2, op3]
//   out = b + c
//   d = fill        d: [op4, op5]  shares with a/b, dead by then
//   out = copy(d)
// so a and b take one slot (in place), c another, d reuses the first:
// 512 bytes for 4 buffers of 256.

// CHECK-LABEL: func.func @straight
// CHECK-NEXT:    %[[ARENA:.*]] = memref.alloc() {alignment = 64 : i64} : memref<512xi8>
// CHECK:         %[[OA:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[A:.*]] = memref.view %[[ARENA]][%[[OA]]][] : memref<512xi8> to memref<64xf32>
// CHECK-NEXT:    %[[OB:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[B:.*]] = memref.view %[[ARENA]][%[[OB]]][] : memref<512xi8> to memref<64xf32>
// CHECK-NEXT:    %[[OC:.*]] = arith.constant 256 : index
// CHECK-NEXT:    %[[C:.*]] = memref.view %[[ARENA]][%[[OC]]][] : memref<512xi8> to memref<64xf32>
// CHECK-NEXT:    %[[OD:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[D:.*]] = memref.view %[[ARENA]][%[[OD]]][] : memref<512xi8> to memref<64xf32>
// CHECK-NOT:     memref.alloc
// CHECK:         linalg.copy ins(%[[D]] : memref<64xf32>) outs(%arg1
// CHECK-NEXT:    memref.dealloc %[[ARENA]] : memref<512xi8>
// CHECK-NEXT:    return
// CHECKED: remark: arena checked: 4 views, no overlap between buffers live together
// expected-remark @below {{arena of 512 bytes for 4 buffers (sum 1024 bytes); at most 512 bytes live at once, 1 written in place}}
func.func @straight(%x: memref<64xf32>, %out: memref<64xf32>, %f: f32) {
  %a = memref.alloc() : memref<64xf32>
  %b = memref.alloc() : memref<64xf32>
  %c = memref.alloc() : memref<64xf32>
  %d = memref.alloc() : memref<64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%a : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<64xf32>) outs(%b : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  linalg.fill ins(%f : f32) outs(%c : memref<64xf32>)
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%b, %c : memref<64xf32>, memref<64xf32>) outs(%out : memref<64xf32>) {
  ^bb0(%in0: f32, %in1: f32, %o: f32):
    %s = arith.addf %in0, %in1 : f32
    linalg.yield %s : f32
  }
  linalg.fill ins(%f : f32) outs(%d : memref<64xf32>)
  linalg.copy ins(%d : memref<64xf32>) outs(%out : memref<64xf32>)
  return
}

// -----

#id = affine_map<(i) -> (i)>
#tr = affine_map<(i, j) -> (j, i)>
#id2 = affine_map<(i, j) -> (i, j)>

// No in-place reuse when the input is read again later (MXNet's trap), nor
// when the op reads other elements than it writes (a transpose): each pair
// takes two slots; the pairs do not overlap in time and share them.

// CHECK-LABEL: func.func @no_in_place
// CHECK-NEXT:    memref.alloc() {alignment = 64 : i64} : memref<512xi8>
// CHECK-NEXT:    arith.constant 0 : index
// CHECK-NEXT:    memref.view
// CHECK-NEXT:    arith.constant 256 : index
// CHECK-NEXT:    memref.view
// CHECK-NEXT:    arith.constant 0 : index
// CHECK-NEXT:    memref.view
// CHECK-NEXT:    arith.constant 256 : index
// CHECK-NEXT:    memref.view
// CHECKED: remark: arena checked: 4 views
// expected-remark @below {{arena of 512 bytes for 4 buffers (sum 1024 bytes); at most 512 bytes live at once, 0 written in place}}
func.func @no_in_place(%x: memref<64xf32>, %y: memref<8x8xf32>, %out: memref<64xf32>, %out2: memref<8x8xf32>) {
  %a = memref.alloc() : memref<64xf32>
  %b = memref.alloc() : memref<64xf32>
  %t = memref.alloc() : memref<8x8xf32>
  %u = memref.alloc() : memref<8x8xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<64xf32>) outs(%b : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  // %a is still read here, after %b was written.
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : memref<64xf32>, memref<64xf32>) outs(%out : memref<64xf32>) {
  ^bb0(%in0: f32, %in1: f32, %o: f32):
    %s = arith.addf %in0, %in1 : f32
    linalg.yield %s : f32
  }
  linalg.copy ins(%y : memref<8x8xf32>) outs(%t : memref<8x8xf32>)
  linalg.generic {indexing_maps = [#tr, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<8x8xf32>) outs(%u : memref<8x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  linalg.copy ins(%u : memref<8x8xf32>) outs(%out2 : memref<8x8xf32>)
  return
}

// -----

// Buffers in a loop body live, for the arena, over the whole loop; returned
// and dynamically sized buffers stay individual allocations (the dynamic one
// freed after its last use).

// CHECK-LABEL: func.func @mixed
// CHECK-NEXT:    %[[ARENA:.*]] = memref.alloc() {alignment = 64 : i64} : memref<256xi8>
// CHECK:         %[[R:.*]] = memref.alloc() : memref<16xf32>
// CHECK:         scf.for
// CHECK:           %[[T:.*]] = memref.view %[[ARENA]]
// CHECK:         }
// CHECK:         %[[D:.*]] = memref.alloc(%arg0) : memref<?xf32>
// CHECK-NEXT:    linalg.fill ins(%arg1 : f32) outs(%[[D]]
// CHECK-NEXT:    memref.dealloc %[[D]]
// CHECK:         %[[V:.*]] = memref.view %[[ARENA]]
// CHECK-NEXT:    linalg.fill ins(%arg1 : f32) outs(%[[V]]
// CHECK-NEXT:    linalg.copy ins(%[[V]] {{.*}} outs(%[[R]]
// CHECK-NEXT:    memref.dealloc %[[ARENA]]
// CHECK-NEXT:    return %[[R]]
// CHECKED: remark: arena checked: 2 views
// expected-remark @below {{arena of 256 bytes for 2 buffers (sum 320 bytes); at most 256 bytes live at once, 0 written in place}}
func.func @mixed(%n: index, %f: f32) -> memref<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = memref.alloc() : memref<16xf32>
  linalg.fill ins(%f : f32) outs(%r : memref<16xf32>)
  scf.for %i = %c0 to %n step %c1 {
    %t = memref.alloc() : memref<64xf32>
    linalg.fill ins(%f : f32) outs(%t : memref<64xf32>)
  }
  %d = memref.alloc(%n) : memref<?xf32>
  linalg.fill ins(%f : f32) outs(%d : memref<?xf32>)
  %v = memref.alloc() : memref<16xf32>
  linalg.fill ins(%f : f32) outs(%v : memref<16xf32>)
  linalg.copy ins(%v : memref<16xf32>) outs(%r : memref<16xf32>)
  return %r : memref<16xf32>
}
