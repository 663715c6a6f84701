# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""backend(): the torch.compile backend whose partitioner is remat."""

import re
import sys

from .partition import SECOND_GRAPH, RematPartitioner

_BUDGET = re.compile(r"^(min|\d+(\.\d+)?%|\d+(\.\d+)?\s*(B|KB|KiB|MB|MiB|GB|GiB))$")
COMPILERS = ("inductor", "eager")
_STRATEGY = re.compile(r"^[a-z][a-z0-9-]*$")


def backend(budget="100%", compiler="inductor", log=None, verbose=False, workspace="measured",
            strategy="auto-monotone", costs="auto"):
    """A torch.compile backend: AOTAutograd with remat as its partitioner.

    budget: as remat-opt reads it: bytes with a unit ("2MiB", "500KB"), a
      percentage of the graph's peak without recomputation ("60%"), or
      "min" (the smallest budget remat meets).  It bounds each compiled
      graph's step: its arguments, the tangents, every intermediate value
      and the results.
    compiler: "inductor" (Inductor's forward and backward compilers and its
      decompositions; each graph's step is measured on its first call and
      re-planned until it holds the budget, at most 4 compiles) or "eager"
      (the graphs run op by op on ATen kernels, as the aot_eager backend
      does; the measured peak then follows the plan's order).
    log: a list that receives one dict per graph (the report, the order,
      the saved and recomputed FX nodes, the joint graph) or
      {"fallback": why, "requested": True when the plan was requested in
      REMAT_TORCH_PLAN_CACHE for want of remat-opt}.
    verbose: one line per graph planned, on stderr.
    workspace: "measured" (each ATen kernel's temporaries, measured on its
      shapes before planning: seconds on convolutional networks; under
      Inductor the kernels it calls, its convolutions, matmuls and
      fallbacks) or "rules" (a rule per op, no measurement).
    strategy: remat's planner (remat-opt --remat-strategy).  The default,
      auto-monotone, chooses from a family of plans fixed per graph: over a
      sweep of budgets a larger budget never gives a slower step or a lower
      peak.  "auto" takes the fastest plan of every planner at the budget
      itself (sometimes faster, not monotone in the budget).
    costs: what an op costs the plan: "measured" (its ATen kernel timed on
      the device the graph runs on, once per distinct op, at most
      REMAT_TORCH_MEASURE_SECONDS (120) a graph: op_times.py;
      under Inductor on the CPU then Inductor's own kernels, timed in the
      step the fit measures, and the graph re-planned on them:
      kernel_times.py),
      "flops" (an estimate from its shapes), "auto" (default: measured on a
      GPU, flops on the CPU).
    """
    budget = str(budget).strip()
    if not _BUDGET.match(budget):
        raise ValueError("remat_torch.backend: budget %r is not bytes with a unit (2MiB), "
                         "a percentage (60%%) or min" % budget)
    if budget.endswith("%") and float(budget[:-1]) > 100:
        raise ValueError("remat_torch.backend: budget %r is a share of the graph's peak "
                         "without recomputation, at most 100%%; above the peak give bytes "
                         "(2GiB)" % budget)
    if compiler not in COMPILERS:
        raise ValueError("remat_torch.backend: compiler %r is not one of %s"
                         % (compiler, ", ".join(COMPILERS)))
    if workspace not in ("measured", "rules"):
        raise ValueError("remat_torch.backend: workspace %r is not measured or rules" % workspace)
    if costs not in ("auto", "measured", "flops"):
        raise ValueError("remat_torch.backend: costs %r is not auto, measured or flops" % (costs,))
    if costs != "flops":
        from .op_times import time_limit
        time_limit()   # a malformed REMAT_TORCH_MEASURE_SECONDS is an error now, not mid-compile
    if not _STRATEGY.match(str(strategy)):
        raise ValueError("remat_torch.backend: strategy %r is not a planner's name "
                         "(remat-opt --help lists them)" % (strategy,))
    if compiler == "eager":
        from torch._dynamo.backends.common import aot_autograd
        from torch._dynamo.backends.debugging import boxed_nop
        # Buffer mutations (batch norm's running statistics) stay out of the
        # graphs, applied after the forward: kept in the forward graph
        # (keep_inference_input_mutations), the conv net measured one
        # activation more than the plan.
        partitioner = RematPartitioner(budget, compiler, log, verbose, workspace, strategy,
                                       costs=costs)
        return aot_autograd(fw_compiler=boxed_nop, bw_compiler=boxed_nop,
                            partition_fn=partitioner)
    return _inductor(budget, log, verbose, workspace, strategy, costs)


def _inductor(budget, log, verbose, workspace, strategy, costs):
    """Inductor's whole pipeline (decompositions, joint-graph passes, both
    compilers) with remat in the partitioner's place, each graph's step
    measured and re-planned until it holds the budget (inductor_fit.py)."""
    from .inductor_fit import FittedGraph

    graphs = []

    def compile_with_remat(gm, example_inputs):
        graphs.append(gm)
        if len(graphs) == 2:
            print(SECOND_GRAPH, file=sys.stderr)

        def make_partitioner(planning_budget, entries):
            return RematPartitioner(planning_budget, "inductor", entries, verbose, workspace,
                                    strategy, warn_graphs=False, costs=costs)
        return FittedGraph(gm, example_inputs, make_partitioner, budget, strategy, log, verbose,
                           kernel_costs=costs == "measured")

    return compile_with_remat
