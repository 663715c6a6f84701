"""Executable lowerings of ATen ops to linalg/tensor/arith/math, one module
per op family; importing a family registers its handlers."""

from . import activations, elementwise
from .registry import HANDLERS

FAMILIES = (activations, elementwise)

__all__ = ["FAMILIES", "HANDLERS"]
