# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The table from ATen overload names to their executable lowerings."""

# "aten.add.Tensor" -> handler(em, node, *node.args, **node.kwargs), which
# returns the node's value (a V, or a tuple for multi-result ops).
HANDLERS = {}


class Unsupported(Exception):
    """Something the importer cannot lower: an op variant (the op then
    becomes a remat.op, or --strict fails) or a graph it does not expect."""


def lowers(*targets):
    """Registers the decorated function as the lowering of `targets`."""
    def register(fn):
        for t in targets:
            assert t not in HANDLERS, "two lowerings of " + t
            HANDLERS[t] = fn
        return fn
    return register
