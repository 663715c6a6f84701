// RUN: remat-opt %s -remat-report-buffer-peak -verify-diagnostics -o /dev/null

// 1024 + 512 live together, then 256 alone; the alignment rounds 100 bytes
// up to 128.
// expected-remark @below {{buffers peak at 1536 bytes; arguments 64 bytes; with arguments 1600 bytes}}
func.func @sequence(%arg: memref<16xf32>) {
  %a = memref.alloc() : memref<256xf32>
  %b = memref.alloc() : memref<128xf32>
  memref.dealloc %a : memref<256xf32>
  memref.dealloc %b : memref<128xf32>
  %c = memref.alloc() {alignment = 64 : i64} : memref<25xf32>
  memref.dealloc %c : memref<25xf32>
  return
}

// The returned buffer stays held.
// expected-remark @below {{buffers peak at 384 bytes; arguments 0 bytes; with arguments 384 bytes}}
func.func @make() -> memref<32xf32> {
  %t = memref.alloc() : memref<64xf32>
  %r = memref.alloc() : memref<32xf32>
  memref.dealloc %t : memref<64xf32>
  return %r : memref<32xf32>
}

// A call adds the callee's peak while it runs, and its result after.
// expected-remark @below {{buffers peak at 512 bytes; arguments 0 bytes; with arguments 512 bytes}}
func.func @caller() {
  %x = memref.alloc() : memref<32xf32>
  %r = call @make() : () -> memref<32xf32>
  memref.dealloc %x : memref<32xf32>
  %y = memref.alloc() : memref<16xf32>
  memref.dealloc %r : memref<32xf32>
  memref.dealloc %y : memref<16xf32>
  return
}

// expected-remark @below {{buffers peak at 0 bytes; arguments 0 bytes; with arguments 0 bytes (plus buffers of dynamic size)}}
func.func @dynamic(%n: index) {
  %d = memref.alloc(%n) : memref<?xf32>
  memref.dealloc %d : memref<?xf32>
  return
}
