# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Executable lowerings of ATen ops to linalg/tensor/arith/math, one module
per op family.  A handler is registered by its module's import
(registry.lowers) and called as handler(em, node, *node.args,
**node.kwargs), `em` being the Emitter (a builder.Builder that also holds
the FX nodes' values, see emit.py); it returns the node's value (a V, or
a tuple for multi-result ops) or raises Unsupported."""

from . import (activations, conv, creation, dropout, elementwise, embedding, indexing,
               losses, matmul, normalization, pooling, reductions, slicing, softmax, views)
from .builder import Builder
from .registry import HANDLERS, Unsupported

# Importing a family registers its handlers.
FAMILIES = (activations, conv, creation, dropout, elementwise, embedding, indexing,
            losses, matmul, normalization, pooling, reductions, slicing, softmax, views)

__all__ = ["Builder", "FAMILIES", "HANDLERS", "Unsupported"]
