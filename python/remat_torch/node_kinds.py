# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""FX nodes the plan treats apart: copies and random draws."""

import torch

# A copy allocates in PyTorch (the importer's executable mode binds it to
# its input).
COPIES = {"aten.clone.default", "aten.lift_fresh_copy.default"}


def is_random(node):
    """Ops that draw random numbers (dropout, Inductor's seeds): never
    recomputed, so a recomputation can never draw another mask."""
    tags = getattr(node.target, "tags", ())
    return torch.Tag.nondeterministic_seeded in tags or "rand" in str(node.target) \
        or "seed" in str(node.target) or "bernoulli" in str(node.target)
