# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""How far float32 gradients lie from float64 eager PyTorch's, per method.

    python benchmarks/torch/grad_reference.py [--model resnet18] [--sizes 2x64,8x64]
        [--methods eager,compile,remat] [--budget 100%] [--amp bf16]

For each batch x size: one training step (the sum of squared outputs'
mean, train mode, seeded) of a torchvision classifier (10 classes) in
float32 by each method, from the same weights and input, against the
same step in float64 eager PyTorch.  Prints the largest gradient
difference relative to the largest float64 gradient.  Methods: eager
PyTorch; `torch.compile` with Inductor and its own partitioner; remat's
backend with Inductor at --budget.  With --amp, each method's step runs
under that autocast (the float64 reference does not).  A float32 reference is only as good
as its conditioning: batch norm over few values (resnet18's last stage
at batch 2, 64x64: 8 per channel) loses digits in eager PyTorch's
float32 backward, and a compiled step that keeps them then "differs".
"""

import argparse
import copy
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

import torch  # noqa: E402
import torchvision  # noqa: E402

import remat_torch  # noqa: E402


def train_step(model, x, amp=None):
    with torch.autocast(x.device.type, dtype=amp, enabled=amp is not None):
        loss = model(x).square().mean()
    loss.backward()
    grads = [p.grad.detach().double().clone() for p in model.parameters()]
    model.zero_grad(set_to_none=True)
    return grads


def difference(got, ref):
    scale = max(r.abs().max().item() for r in ref)
    return max((g - r).abs().max().item() for g, r in zip(got, ref)) / scale


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="resnet18")
    ap.add_argument("--sizes", default="2x64,8x64")
    ap.add_argument("--methods", default="eager,compile,remat")
    ap.add_argument("--budget", default="100%")
    ap.add_argument("--amp", choices=["bf16", "fp16"])
    a = ap.parse_args()
    torch.set_num_threads(min(2, torch.get_num_threads()))
    amp = {"bf16": torch.bfloat16, "fp16": torch.float16, None: None}[a.amp]
    for size in a.sizes.split(","):
        batch, side = (int(v) for v in size.split("x"))
        torch.manual_seed(0)
        model = getattr(torchvision.models, a.model)(num_classes=10).train()
        x = torch.randn(batch, 3, side, side)
        ref = train_step(copy.deepcopy(model).double(), x.double())
        row = []
        for method in a.methods.split(","):
            m = copy.deepcopy(model)
            torch._dynamo.reset()
            if method == "compile":
                m = torch.compile(m)
            elif method == "remat":
                m = torch.compile(m, backend=remat_torch.backend(a.budget))
            elif method != "eager":
                raise SystemExit("grad_reference.py: method %r is not eager, compile or remat"
                                 % method)
            row.append("%s %.1e" % (method, difference(train_step(m, x, amp), ref)))
        print("%s batch %d, %dx%d%s: against float64 eager: %s"
              % (a.model, batch, side, side, " under %s autocast" % a.amp if a.amp else "",
                 ", ".join(row)), flush=True)


if __name__ == "__main__":
    main()
