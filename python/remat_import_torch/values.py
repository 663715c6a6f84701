# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Values bound to FX nodes that are not SSA values yet: they become one
(an mlir.V) only when something reads them (Emitter.get)."""


class LazyEmpty:
    """An uninitialized tensor (empty_like), materialized on first read:
    bernoulli_ only takes its shape."""

    def __init__(self, name, spec):
        self.name, self.shape, self.elt = name, spec[0], spec[1]
        self.done = None


class Perm:
    """A permutation of another node's value (t, transpose, permute): a
    transpose of a transpose is the original, and a matrix product reads
    a transposed operand through its indexing map, so most never become a
    linalg.transpose."""

    def __init__(self, src, perm):
        self.src, self.perm = src, list(perm)
        self.done = None
