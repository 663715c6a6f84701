# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Batch norm's running statistics in the joint graph.

In training, `_native_batch_norm_legit_functional(x, w, b, running_mean,
running_var, ...)` returns the normalized x, the batch's mean and inverse
standard deviation, and the new running mean and variance, which
AOTAutograd returns as forward outputs and copies into the buffers after
the forward graph has run.  Two things follow for remat:

- The new statistics are buffer updates: small, read by nothing in the
  step.  The emitter (emit.py) makes them arguments, so that they do not
  cross every point of the forward where a chain strategy would cut it.
- A batch norm the plan recomputes in the backward reads the buffers
  again, after the copy has changed them: autograd refuses a saved
  tensor modified in place.  Each batch norm reads a copy of the buffers
  instead (`clone`, a few bytes per channel), which the backward saves
  where it recomputes the batch norm and never recomputes itself.  The
  emitter makes the copies arguments too (is_buffer_copy).  The new
  statistics are the same: the copy holds what the buffers held.
"""

import operator

import torch

BATCH_NORM = "aten._native_batch_norm_legit_functional.default"


def is_batch_norm(node):
    return node.op == "call_function" and str(node.target) == BATCH_NORM


def is_buffer_copy(node):
    """A copy read_buffer_copies made."""
    return node.meta.get("remat_buffer_copy", False)


def buffer_updates(jg):
    """The forward outputs that update buffers: a batch norm's running
    statistics (its results 3 and 4), and ops on primals alone
    (num_batches_tracked + 1)."""
    primals = set(jg.primals)

    def is_update(n):
        if n is None or n.op != "call_function":
            return False
        if n.target is operator.getitem:
            return is_batch_norm(n.args[0]) and n.args[1] in (3, 4)
        return bool(n.all_input_nodes) and all(a in primals for a in n.all_input_nodes)
    return [n for n in jg.fwd_outputs if is_update(n)]


def read_buffer_copies(gm):
    """Makes every batch norm of `gm` read copies of its running statistics
    (arguments 3 and 4) made right before it; returns how many it changed."""
    changed = 0
    for bn in [n for n in gm.graph.nodes if is_batch_norm(n)]:
        args = list(bn.args)
        for i in (3, 4):
            buf = args[i]
            if not isinstance(buf, torch.fx.Node) or buf.op != "placeholder":
                continue
            with gm.graph.inserting_before(bn):
                copy = gm.graph.call_function(torch.ops.aten.clone.default, (buf,))
            copy.meta["val"] = buf.meta.get("val")
            copy.meta["remat_buffer_copy"] = True
            args[i] = copy
        if args != list(bn.args):
            bn.args = tuple(args)
            changed += 1
    if changed:
        gm.recompile()
    return changed
