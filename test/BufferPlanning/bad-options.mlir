// RUN: remat-opt %s -remat-plan-buffers=alignment=48 -verify-diagnostics

// expected-error @below {{remat-plan-buffers: alignment must be a power of two, got 48}}
module {
  func.func @f() {
    return
  }
}
