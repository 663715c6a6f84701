# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Writes the joint graph remat's torch.compile backend plans for MODEL
(backend_models.py), as the MLIR it gives remat-opt.

    emit_joint_mlir.py MODEL OUT.mlir

The step is compiled with the backend at `min` (the eager compiler, the
rules for kernel temporaries: no measurement) and run once; OUT.mlir is the
text of its first graph.
"""

import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import backend_models  # noqa: E402
import remat_torch  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    torch.manual_seed(0)
    torch.set_num_threads(1)
    cls = getattr(backend_models, sys.argv[1])
    model, x = cls(), cls.example()
    log = []
    compiled = torch.compile(model, backend=remat_torch.backend(
        "min", "eager", log=log, workspace="rules"))
    compiled(x).square().mean().backward()
    if not log or "mlir" not in log[0]:
        sys.exit("emit_joint_mlir: the graph was not planned: %s" % log)
    with open(sys.argv[2], "w") as f:
        f.write(log[0]["mlir"])


if __name__ == "__main__":
    main()
