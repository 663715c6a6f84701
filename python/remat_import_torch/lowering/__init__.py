"""Executable lowerings of ATen ops to linalg/tensor/arith/math, one module
per op family; importing a family registers its handlers."""

from . import (activations, dropout, elementwise, losses, matmul, reductions, slicing,
               softmax, views)
from .registry import HANDLERS

FAMILIES = (activations, dropout, elementwise, losses, matmul, reductions, slicing,
            softmax, views)

__all__ = ["FAMILIES", "HANDLERS"]
