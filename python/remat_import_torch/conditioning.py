# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""`check --conditioning`: how well a model at a size can be judged, from
PyTorch alone, before a check runs the step (minutes to an hour on the
largest networks).

`check` allows a step F times PyTorch's own float32 error against float64
(capped by --max-tolerance). That error has two parts: ReLUs and max
poolings whose input float32 puts on the other side of a kink (a near-tie:
a different function, whatever the rounding), and the rounding of the
arithmetic itself. The first is what `--match-masks` sets aside by judging
at the step's own activation pattern; the second is what the step is held
to there. Both are printed: the plain error, and the error at float32's
own pattern (float64 evaluated with float32's ReLU sides and pooling
maxima), a stand-in for the step's pattern that needs no run of the step.
A size whose second number is far below --max-tolerance can be judged."""

import torch

from .harness import (KINKS, POOLS, init_for, joint_values, kink_pattern, pool_indices_node,
                      step_rel_err)


def float32_errors(joint, em):
    """(plain, at float32's own pattern): PyTorch's float32 loss and
    gradients against float64 on the harness's values, in check's metric."""
    inits = [init_for(p, k, joint.num_classes) for k, p in enumerate(em.arg_primals)]
    graph = joint.graph_module.graph
    kinks = [n for n in graph.nodes if n.op == "call_function" and str(n.target) in KINKS]
    pools = [(n, pool_indices_node(n)) for n in graph.nodes
             if n.op == "call_function" and str(n.target) in POOLS]
    pools = [(n, i) for n, i in pools if i is not None]
    ref = joint_values(joint, em, inits, None)
    f32 = joint_values(joint, em, inits, None, dtype=torch.float32)
    plain = step_rel_err(f32["loss"], f32["grads"], ref["loss"], ref["grads"])
    ref = f32 = None
    if not kinks and not pools:
        return plain, plain
    own = joint_values(joint, em, inits, [n.name for n in kinks] + [i.name for _, i in pools],
                       dtype=torch.float32)
    masks = {n.name: kink_pattern(n, own[n.name]) for n in kinks}
    masks.update({n.name: own[i.name] for n, i in pools})
    own = None
    ref = joint_values(joint, em, inits, None, masks=masks)
    f32 = joint_values(joint, em, inits, None, dtype=torch.float32, masks=masks)
    return plain, step_rel_err(f32["loss"], f32["grads"], ref["loss"], ref["grads"])


def report(args, joint, em):
    """Prints both errors and whether the size can be judged; returns 0."""
    plain, at_own = float32_errors(joint, em)
    judged = args.f32_factor * at_own <= args.max_tolerance
    print("%s: PyTorch's own float32 backward against float64: max rel err %.1e; at its own "
          "ReLU pattern and max-pooling maxima %.1e: %s" % (
              args.model, plain, at_own,
              "a check can judge the step at this size" if judged else
              "too ill-conditioned to judge at this size (%g x that is above --max-tolerance "
              "%g): a larger batch or input" % (args.f32_factor, args.max_tolerance)))
    return 0
