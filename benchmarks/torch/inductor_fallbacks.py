# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""How many graphs remat's backend would give back to PyTorch's partitioner
under Inductor: every torchvision classifier and the importer zoo's
transformers and timm models, in float32 and under bfloat16 autocast.

    python benchmarks/torch/inductor_fallbacks.py --out results.jsonl [--models a,b] [--budget min]

Each model's training step (the importer's LossWrapper: cross-entropy for
the language models, the sum of the outputs otherwise; batch 2 at the
zoo's sizes) is traced by AOTAutograd with Inductor's decompositions and
partitioned by remat as the backend does with Inductor (the emitter and
remat-opt at the budget), but compiled by no one: Inductor's joint-graph
pattern passes, which run before the partitioner in torch.compile, are
not applied, and nothing runs.  One JSON line per model and dtype:
planned (with the op runs) or the fallback's line.  A budget remat-opt
refuses is counted apart: it is the budget's, not an op's or dtype's.
"""

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "zoo"))

import torch  # noqa: E402

from importer_zoo import MODELS, classifier_input, torchvision_classifiers  # noqa: E402
from remat_import_torch.trace import LossWrapper, load_model, token_model  # noqa: E402
from remat_torch.partition import RematPartitioner  # noqa: E402


def backend(budget, log):
    from torch._dynamo.backends.common import aot_autograd
    from torch._dynamo.backends.debugging import boxed_nop
    import torch._inductor.lowering  # noqa: F401  (Inductor's max-pool decomposition reads it)
    from torch._inductor.decomposition import select_decomp_table
    part = RematPartitioner(budget, "inductor", log, workspace="rules", warn_graphs=False)
    return aot_autograd(fw_compiler=boxed_nop, bw_compiler=boxed_nop, partition_fn=part,
                        decompositions=select_decomp_table())


def one(spec, shape, amp, budget):
    torch._dynamo.reset()
    dims = [int(d) for d in shape.split(",")]
    model = load_model(spec, num_classes=10, input_shape=dims if len(dims) == 3 else None)
    tokens = token_model(model)
    step = LossWrapper(model, "xent" if tokens else "sum")
    x = torch.randint(0, tokens[1], (2, dims[0])) if tokens else torch.randn(2, *dims)
    log = []
    compiled = torch.compile(step, backend=backend(budget, log))
    t0 = time.time()
    try:
        if amp:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                loss = compiled(x)
        else:
            loss = compiled(x)
        loss.backward()
    except Exception as e:   # a failure of the trace itself, not remat's
        lines = [l for l in str(e).splitlines() if "Error" in l] or str(e).splitlines() or [""]
        return {"error": "%s: %s" % (type(e).__name__, lines[0][:300])}
    falls = [e["fallback"] for e in log if "fallback" in e]
    return {"graphs": len(log), "fallbacks": falls,
            "op_runs": [len(e["order"]) for e in log if "order" in e],
            "seconds": round(time.time() - t0, 1)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--models", help="comma-separated (default: every torchvision "
                    "classifier and the zoo's hf: and timm: models)")
    ap.add_argument("--budget", default="min")
    ap.add_argument("--dtypes", default="float32,bf16")
    a = ap.parse_args()
    torch.set_num_threads(1)
    zoo = dict(MODELS)
    names = a.models.split(",") if a.models else (
        torchvision_classifiers() + [m for m, _ in MODELS if ":" in m])
    done = set()
    if os.path.exists(a.out):
        with open(a.out) as f:
            done = {(r["model"], r["dtype"]) for r in map(json.loads, f)}
    for name in names:
        for dtype in a.dtypes.split(","):
            if (name, dtype) in done:
                continue
            shape = zoo.get(name) or classifier_input(name)
            r = {"model": name, "dtype": dtype, "shape": shape, "budget": a.budget}
            r.update(one(name, shape, dtype == "bf16", a.budget))
            with open(a.out, "a") as f:
                f.write(json.dumps(r) + "\n")
            print(json.dumps(r), flush=True)
    rows = [json.loads(l) for l in open(a.out)]
    refused = [r for r in rows if any("cannot fit" in f for f in r.get("fallbacks", []))]
    fell = [r for r in rows if r.get("fallbacks") and r not in refused]
    errors = [r for r in rows if "error" in r]
    print("%d model runs: %d planned, %d fell back, %d refused the budget, %d failed to trace"
          % (len(rows), len(rows) - len(fell) - len(refused) - len(errors), len(fell),
             len(refused), len(errors)))
    for r in fell:
        print("  fell back: %s %s: %s" % (r["model"], r["dtype"], r["fallbacks"][0]))


if __name__ == "__main__":
    main()
