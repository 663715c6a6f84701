"""Lowering ATen ops to linalg/tensor/arith/math."""
