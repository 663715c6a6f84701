# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""What the partitioner reads off AOTAutograd's joint graph.

torch.compile's joint graph (PyTorch 2.x) has placeholders primals_1..k
(parameters, buffers and inputs, in Dynamo's order) and tangents_1..m
(the gradients of the forward outputs that need one); it returns the
`num_fwd_outputs` forward outputs, then one gradient per primal (None
where there is none).  Roles (which nodes the backward computes, which
nodes only alias another) are read here once, for the emitter, the
choice of saved values and the schedule alike.
"""

from dataclasses import dataclass
from typing import Dict, List, Optional

import torch
import torch.fx as fx

from remat_import_torch.trace import Joint, Primal


class Unplannable(Exception):
    """A graph remat does not plan; the message says why, in one line."""


@dataclass
class JointGraph:
    gm: fx.GraphModule
    primals: List[fx.Node]
    tangents: List[fx.Node]
    fwd_outputs: List[Optional[fx.Node]]
    grads: List[Optional[fx.Node]]      # one per primal

    def nodes(self) -> Dict[str, fx.Node]:
        return {n.name: n for n in self.gm.graph.nodes}

    def tangent_closure(self):
        """Nodes that depend on a tangent: the backward proper."""
        out = set(self.tangents)
        for n in self.gm.graph.nodes:
            if any(a in out for a in n.all_input_nodes):
                out.add(n)
        return out

    def ancestors(self, roots):
        """The roots and every node they read, transitively."""
        seen, stack = set(), [r for r in roots if isinstance(r, fx.Node)]
        while stack:
            n = stack.pop()
            if n not in seen:
                seen.add(n)
                stack.extend(n.all_input_nodes)
        return seen

    def importer_joint(self) -> Joint:
        """The importer's Joint: every primal an argument (a parameter when
        it has a gradient), the first tangent as its tangent."""
        prims = []
        for node, g in zip(self.primals, self.grads):
            val = node.meta["val"]
            prims.append(Primal(node, "param" if g is not None else "input", node.name,
                                list(val.shape), val.dtype, g is not None))
        return Joint(graph_module=self.gm, primals=prims, tangent=self.tangents[0],
                     loss=None, grads=list(self.grads))


def _is_tangent(n):
    return n.op == "placeholder" and "tangents" in str(n.target)


def read_joint(gm: fx.GraphModule, num_fwd_outputs: int) -> JointGraph:
    """The joint graph's parts; Unplannable for graphs remat does not plan
    (symbolic shapes, no backward, non-tensor values)."""
    ph = [n for n in gm.graph.nodes if n.op == "placeholder"]
    primals = [n for n in ph if "primals" in str(n.target)]
    tangents = [n for n in ph if _is_tangent(n)]
    if len(primals) + len(tangents) != len(ph):
        raise Unplannable("placeholders other than primals and tangents (%s)" % ", ".join(
            n.name for n in ph if n not in primals and n not in tangents))
    for n in gm.graph.nodes:
        val = n.meta.get("val")
        if isinstance(val, (torch.SymInt, torch.SymFloat, torch.SymBool)) or (
                isinstance(val, torch.Tensor) and any(
                    not isinstance(d, int) for d in val.shape)):
            raise Unplannable("dynamic shapes (%s has a symbolic size)" % n.name)
    out = next(n for n in gm.graph.nodes if n.op == "output").args[0]
    fwd, grads = list(out[:num_fwd_outputs]), list(out[num_fwd_outputs:])
    if len(grads) != len(primals):
        raise Unplannable("%d gradients for %d primals" % (len(grads), len(primals)))
    if not tangents or all(g is None for g in grads):
        raise Unplannable("no backward")
    return JointGraph(gm, primals, tangents, fwd, grads)
