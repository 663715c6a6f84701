# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""remat inside PyTorch.

    import remat_torch
    step = torch.compile(model, backend=remat_torch.backend(budget="60%"))

compile_backend.py: the torch.compile backend whose partitioner is remat
(partition.py; docs/torch-compile.md).  peak.py: a step's measured peak.
The backend is imported on first use, so `remat_torch.peak` needs neither
the importer nor AOTAutograd's partitioners.
"""

__all__ = ["backend"]


def backend(*args, **kwargs):
    """remat_torch.compile_backend.backend (its docstring has the options)."""
    from .compile_backend import backend as make
    return make(*args, **kwargs)
