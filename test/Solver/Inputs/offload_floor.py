# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""How far host offload can take the corpus: for every model of
test/Corpus/Inputs, the graph remat-opt plans (--remat-export-graph), the
smallest budget without offload, with offload and results returned from the
host, and the floor no plan goes below (remat-plan --min-budget's "floor":
the step's arguments, which stay on the device, and its biggest single op).
Prints one line per model; asserts floor <= offload <= recompute-only and
the floor recomputed here from the graph file."""
import json
import os
import subprocess
import sys

ROOT = sys.argv[1]


def plan(graph, *flags):
    out = subprocess.run(["remat-plan", graph, "--min-budget", *flags], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def floor_of(graph):
    """The floor recomputed from the graph file alone (an oracle apart from
    the planner's peakLowerBound): the inputs (tensors no node makes) and
    the largest op's made operands, results and workspace."""
    with open(graph) as fh:
        g = json.load(fh)
    size = {t["name"]: t["size"] for t in g["tensors"]}
    made = {t for n in g["nodes"] for t in n["outputs"]}
    step = max(n.get("workspace", 0) + sum(size[t] for t in set(n["inputs"] + n["outputs"])
                                           if t in made) for n in g["nodes"])
    return sum(b for t, b in size.items() if t not in made) + step


for model in ("mlp", "cnn", "unet", "siamese", "resnet"):
    graph = os.path.join(sys.argv[2], model + ".json")
    with open(graph, "w") as fh:
        subprocess.run(["remat-opt", os.path.join(ROOT, "test/Corpus/Inputs", model + ".mlir"),
                        "--remat-export-graph", "-o", os.devnull], check=True, stdout=fh)
    recompute = plan(graph)["min_budget"]
    off = plan(graph, "--offload", "--offload-results")
    assert off["floor"] == floor_of(graph), (model, off["floor"], floor_of(graph))
    assert off["floor"] <= off["min_budget"] <= recompute, (model, off, recompute)
    print("%s: recompute-only %d, offload %d (%.1f %% below), floor %d (%.1f %% below)%s" % (
        model, recompute, off["min_budget"], 100 * (1 - off["min_budget"] / recompute),
        off["floor"], 100 * (1 - off["floor"] / recompute),
        ", at the floor" if off["min_budget"] == off["floor"] else ""))
