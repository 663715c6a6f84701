# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Loading a model and tracing its joint forward+backward graph.

The model is wrapped with its loss (`LossWrapper`) so that the traced
function returns one scalar; AOTAutograd (`functorch.compile.aot_module`)
then traces forward and backward into one FX graph of ATen ops (the *joint
graph*) and hands it to a partition function.  Ours captures it and stops
the compilation (`_Captured`), so nothing is compiled or run beyond the
tracing itself.

Joint graph conventions (PyTorch 1.13):
  placeholders  primals_1..k  parameters, then buffers, then the inputs
                tangents_1    d(loss)/d(loss), a 0-d tensor (1.0)
  output        [loss, grad of every primal (None where there is none)]
"""

import importlib
import importlib.util
import os
import sys
from dataclasses import dataclass, field
from typing import List, Optional

import torch
import torch.nn as nn
import torch.nn.functional as F


class ImportError_(Exception):
    """A user-facing error of the importer (bad model name, ...)."""


# --------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------
def load_model(spec: str, num_classes: Optional[int] = None,
               input_shape: Optional[List[int]] = None) -> nn.Module:
    """MODEL: a torchvision model name (resnet18, vgg19, ...) or
    path/to/file.py:Class (a class constructed without arguments).
    torchvision models built for one resolution (vit_*: image_size,
    maxvit_*: input_size) are built for input_shape's (C, H, W)."""
    if ":" in spec and spec.split(":", 1)[0].endswith(".py"):
        path, cls = spec.rsplit(":", 1)
        if not os.path.exists(path):
            raise ImportError_("no such file: %s" % path)
        name = "remat_user_model_%d" % abs(hash(os.path.abspath(path)))
        mod_spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(mod_spec)
        sys.modules[name] = module
        mod_spec.loader.exec_module(module)
        if not hasattr(module, cls):
            raise ImportError_("%s has no class %s" % (path, cls))
        return getattr(module, cls)()
    import torchvision
    models = torchvision.models
    if not hasattr(models, spec) or spec.startswith("_"):
        raise ImportError_("unknown model '%s' (a torchvision model name or "
                           "path/to/file.py:Class)" % spec)
    kwargs = {}
    if num_classes is not None:
        kwargs["num_classes"] = num_classes
    if spec == "inception_v3":
        kwargs.update(aux_logits=False, init_weights=False)
    if spec.startswith("googlenet"):
        kwargs.update(aux_logits=False, init_weights=False)
    if input_shape is not None and len(input_shape) == 3:
        if spec.startswith("vit_") and input_shape[1] == input_shape[2]:
            kwargs["image_size"] = input_shape[1]
        if spec.startswith("maxvit_"):
            kwargs["input_size"] = tuple(input_shape[1:])
    return getattr(models, spec)(**kwargs)


class LossWrapper(nn.Module):
    """model + loss: forward(x[, target]) returns the scalar loss.
    loss 'sum': the sum of the model's outputs; 'xent': cross-entropy
    (mean over the batch) against integer class labels."""

    def __init__(self, model: nn.Module, loss: str):
        super().__init__()
        self.model = model
        self.loss = loss

    def forward(self, x, target=None):
        out = self.model(x)
        if isinstance(out, (tuple, list)):
            out = out[0]
        if hasattr(out, "logits"):  # torchvision named tuples
            out = out.logits
        if self.loss == "xent":
            return F.cross_entropy(out, target)
        return out.sum()


# --------------------------------------------------------------------------
# Tracing
# --------------------------------------------------------------------------
class _Captured(Exception):
    pass


@dataclass
class Primal:
    """One placeholder primals_i of the joint graph."""
    node: object            # the fx placeholder
    kind: str               # 'param', 'buffer' or 'input'
    name: str               # parameter path ('layer1.0.conv1.weight'), 'x', 't'
    shape: List[int]
    dtype: torch.dtype
    requires_grad: bool
    value: Optional[torch.Tensor] = None   # a buffer's registered value


@dataclass
class Joint:
    graph_module: object            # torch.fx.GraphModule of the joint graph
    joint_inputs: object            # (primals, tangents) as AOTAutograd gave them
    primals: List[Primal]
    tangent: object                 # fx placeholder tangents_1
    loss: object                    # fx node of the loss
    grads: List[object]             # fx node (or None) of the gradient of each primal
    wrapper: nn.Module = None
    example_inputs: list = field(default_factory=list)
    num_classes: int = 0


def example_inputs(batch, input_shape, loss, num_classes):
    x = torch.randn([batch] + list(input_shape))
    if loss == "xent":
        t = torch.arange(batch, dtype=torch.int64) % num_classes
        return [x, t]
    return [x]


def output_classes(model, batch, input_shape):
    """Number of classes (size of the model output's last dim), by a run
    on the meta device when possible, else a real one."""
    with torch.no_grad():
        was = model.training
        model.eval()
        try:
            out = model(torch.zeros([1] + list(input_shape)))
        finally:
            model.train(was)
    if isinstance(out, (tuple, list)):
        out = out[0]
    if hasattr(out, "logits"):
        out = out.logits
    return out.shape[-1]


def trace_joint(model: nn.Module, batch: int, input_shape, loss: str = "sum",
                fake: bool = True) -> Joint:
    """Traces model+loss with AOTAutograd and returns the joint graph."""
    from functorch.compile import aot_module
    from functorch._src import config as aot_config

    model.train()
    num_classes = output_classes(model, batch, input_shape) if loss == "xent" else 0
    wrapper = LossWrapper(model, loss)
    inputs = example_inputs(batch, input_shape, loss, num_classes)
    captured = {}

    def partition(joint, joint_inputs, **_):
        captured["joint"] = joint
        captured["inputs"] = joint_inputs
        raise _Captured()

    old_fake = aot_config.use_fake_tensor
    aot_config.use_fake_tensor = fake
    try:
        compiled = aot_module(wrapper, fw_compiler=None, bw_compiler=None,
                              partition_fn=partition)
        try:
            compiled(*inputs)
        except _Captured:
            pass
    finally:
        aot_config.use_fake_tensor = old_fake
    if "joint" not in captured:
        raise ImportError_("AOTAutograd did not produce a joint graph")
    gm = captured["joint"]

    params = list(wrapper.named_parameters())
    buffers = list(wrapper.named_buffers())
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    prim = [n for n in placeholders if n.name.startswith("primals")]
    tang = [n for n in placeholders if n.name.startswith("tangents")]
    names = ([("param", k[len("model."):], p) for k, p in params] +
             [("buffer", k[len("model."):], b) for k, b in buffers] +
             [("input", n, t) for n, t in zip(["x", "target"], inputs)])
    if len(names) != len(prim) or len(tang) != 1:
        raise ImportError_("unexpected joint graph signature: %d primals for %d "
                           "parameters, buffers and inputs; %d tangents"
                           % (len(prim), len(names), len(tang)))
    primals = [Primal(node, kind, name, list(t.shape), t.dtype,
                      kind == "param" and t.requires_grad,
                      t.detach().clone() if kind == "buffer" else None)
               for node, (kind, name, t) in zip(prim, names)]
    out = [n for n in gm.graph.nodes if n.op == "output"][0]
    results = list(out.args[0])
    loss_node, grads = results[0], results[1:]
    if len(grads) != len(primals):
        raise ImportError_("joint graph returns %d gradients for %d primals"
                           % (len(grads), len(primals)))
    return Joint(gm, captured["inputs"], primals, tang[0], loss_node, grads,
                 wrapper, inputs, num_classes)
