// RUN: remat-opt %s -remat-test-check-arena=alignment=64 -split-input-file -verify-diagnostics

// The checker on hand-written arenas: it must reject what the planner must
// never produce.

func.func @overlap(%x: memref<64xf32>, %out: memref<64xf32>) {
  %arena = memref.alloc() : memref<512xi8>
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  // expected-error @below {{arena plan is wrong: bytes [0, 256) and [128, 384) overlap while both buffers are live}}
  %a = memref.view %arena[%c0][] : memref<512xi8> to memref<64xf32>
  // expected-note @below {{the other buffer}}
  %b = memref.view %arena[%c128][] : memref<512xi8> to memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  linalg.copy ins(%x : memref<64xf32>) outs(%b : memref<64xf32>)
  linalg.copy ins(%a : memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %arena : memref<512xi8>
  return
}

// -----

func.func @misaligned(%x: memref<64xf32>, %out: memref<64xf32>) {
  %arena = memref.alloc() : memref<512xi8>
  %c32 = arith.constant 32 : index
  // expected-error @below {{arena plan is wrong: offset 32 is not aligned to 64}}
  %a = memref.view %arena[%c32][] : memref<512xi8> to memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  memref.dealloc %arena : memref<512xi8>
  return
}

// -----

func.func @escapes(%x: memref<64xf32>) -> memref<64xf32> {
  %arena = memref.alloc() : memref<512xi8>
  %c0 = arith.constant 0 : index
  // expected-error @below {{arena view is returned}}
  %a = memref.view %arena[%c0][] : memref<512xi8> to memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  return %a : memref<64xf32>
}

// -----

#id = affine_map<(i) -> (i)>

// A subview of the first buffer read after the second is written: the first
// is still live, so sharing bytes is wrong even though the elementwise op
// reads the first buffer itself for the last time.
func.func @alias_keeps_alive(%x: memref<64xf32>, %out: memref<8xf32>) {
  %arena = memref.alloc() : memref<256xi8>
  %c0 = arith.constant 0 : index
  // expected-error @below {{arena plan is wrong: bytes [0, 256) and [0, 256) overlap while both buffers are live}}
  %a = memref.view %arena[%c0][] : memref<256xi8> to memref<64xf32>
  // expected-note @below {{the other buffer}}
  %b = memref.view %arena[%c0][] : memref<256xi8> to memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  %s = memref.subview %a[0] [8] [1] : memref<64xf32> to memref<8xf32, strided<[1]>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<64xf32>) outs(%b : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  linalg.copy ins(%s : memref<8xf32, strided<[1]>>) outs(%out : memref<8xf32>)
  linalg.copy ins(%b : memref<64xf32>) outs(%x : memref<64xf32>)
  memref.dealloc %arena : memref<256xi8>
  return
}

// -----

#id = affine_map<(i) -> (i)>

// Correct in-place reuse is accepted.
func.func @in_place(%x: memref<64xf32>, %out: memref<64xf32>) {
  // expected-remark @below {{arena checked: 2 views, no overlap between buffers live together}}
  %arena = memref.alloc() : memref<256xi8>
  %c0 = arith.constant 0 : index
  %a = memref.view %arena[%c0][] : memref<256xi8> to memref<64xf32>
  %b = memref.view %arena[%c0][] : memref<256xi8> to memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<64xf32>) outs(%b : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  linalg.copy ins(%b : memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %arena : memref<256xi8>
  return
}
