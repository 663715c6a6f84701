# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A hint for convolutions on a GPU in contiguous (NCHW) layout.

torch.compile's Inductor runs a GPU graph's convolutions in channels-last
layout (its layout optimization: cuDNN's tensor-core kernels want it),
copying each convolution's weight and input inside the graph.  For
remat's graphs that optimization is off (inductor.py's CONFIG: copies the
plan never sees), so a GPU model in NCHW layout keeps NCHW convolutions
there.  Converted once by its user (`model.to(memory_format=
torch.channels_last)` and its input likewise), it runs channels-last in
remat's graphs too, and the plan sees every tensor.  On the CPU nothing
is said: there NCHW measured as fast or faster (docs/torch-compile.md).
"""

import sys

import torch

HINT = ("remat_torch: %d convolutions on the GPU read NCHW tensors; torch.compile's Inductor "
        "would convert them to channels-last inside the graph, remat's graphs do not (copies "
        "the plan would not see): for channels-last's speed convert the model and its input "
        "(model.to(memory_format=torch.channels_last))")
_said = False


def nchw_gpu_convolutions(graph):
    """How many 2-D convolutions of an FX graph read a CUDA tensor that is
    not in channels-last layout."""
    count = 0
    for n in graph.nodes:
        if n.op != "call_function" or n.target is not torch.ops.aten.convolution.default:
            continue
        x = n.args[0].meta.get("val") if isinstance(n.args[0], torch.fx.Node) else None
        if isinstance(x, torch.Tensor) and x.dim() == 4 and x.device.type == "cuda" \
                and not x.is_contiguous(memory_format=torch.channels_last):
            count += 1
    return count


def hint_channels_last(graph, out=None):
    """HINT on `out` (the stderr of the moment by default), once a process,
    if the graph has such convolutions."""
    global _said
    count = 0 if _said else nchw_gpu_convolutions(graph)
    if count:
        _said = True
        print(HINT % count, file=out or sys.stderr)
    return count
