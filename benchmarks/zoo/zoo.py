#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Model-zoo benchmark: remat strategies versus PyTorch's min-cut partition.

For every model (torchvision's resnet18/50/152, vgg19, densenet121,
inception_v3, mobilenet_v2, vit_b_16, the U-Net of unet.py, transformers
decoders and encoders built from their configs, timm's vit_small_patch16_224,
convnext_atto and resnet50):

1. trace the joint forward+backward graph (AOTAutograd) and import it with
   remat-import-torch in planning-only mode: one planner node per ATen op,
   analytic FLOP costs, views aliasing their input;
2. `remat-opt -remat-export-graph` writes the graph the planner sees;
3. `remat-plan` runs each strategy (auto, lowerset-approx, lowerset-exact,
   chain-rotor on the chain view, chen-sqrt) at budgets 30%..90% of the
   no-remat peak: peak reached, recompute overhead (% of one step's FLOPs),
   solver time;
4. PyTorch's own `min_cut_rematerialization_partition` runs on the same
   joint graph; its forward and backward modules become a schedule of the
   same nodes (recomputed forward nodes run again in the backward), judged
   by the project's Simulator (remat-zoo-simulate): its peak and overhead;
   then our overhead at its peak (remat-plan with its peak as the budget)
   and our peak at its overhead (smallest budget whose overhead is <= its).

Results: benchmarks/zoo/results/<model>.json and results/summary.md; plots
with plot.py.  Usage:
  benchmarks/zoo/zoo.py [--models resnet18,unet] [--budgets 30,50,70,90]
                        [--build build] [--out benchmarks/zoo/results]
"""

import argparse
import json
import os
import subprocess
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "python"))
sys.dont_write_bytecode = True

# name: (model spec, batch, input C,H,W or sequence length[, hf: config]).
# Batch sizes make activations dominate parameters and gradients.
_DEC = "hidden_size=256,intermediate_size=688,num_attention_heads=4,num_key_value_heads=2,"
MODELS = {
    "resnet18": ("resnet18", 32, [3, 224, 224]),
    "resnet50": ("resnet50", 16, [3, 224, 224]),
    "resnet152": ("resnet152", 8, [3, 224, 224]),
    "vgg19": ("vgg19", 16, [3, 224, 224]),
    "densenet121": ("densenet121", 16, [3, 224, 224]),
    "inception_v3": ("inception_v3", 16, [3, 299, 299]),
    "mobilenet_v2": ("mobilenet_v2", 32, [3, 224, 224]),
    "vit_b_16": ("vit_b_16", 16, [3, 224, 224]),
    "unet": (os.path.join(HERE, "unet.py") + ":UNet", 4, [3, 224, 224]),
    "gpt2": ("hf:gpt2", 8, [256], "n_layer=4,n_embd=256,n_head=4,vocab_size=2048"),
    "llama": ("hf:llama", 8, [256], _DEC + "num_hidden_layers=4,vocab_size=2048"),
    "llama_8l": ("hf:llama", 8, [256], _DEC + "num_hidden_layers=8,vocab_size=2048"),
    "mistral": ("hf:mistral", 8, [256], _DEC + "num_hidden_layers=4,vocab_size=2048"),
    "qwen2": ("hf:qwen2", 8, [256], _DEC + "num_hidden_layers=4,vocab_size=2048"),
    "bert": ("hf:bert", 8, [256], "hidden_size=256,intermediate_size=1024,"
             "num_attention_heads=4,num_hidden_layers=4,vocab_size=2048"),
    "t5": ("hf:t5", 8, [256], "d_model=256,d_ff=1024,num_heads=4,d_kv=64,num_layers=4,"
           "num_decoder_layers=4,vocab_size=2048"),
    "timm_vit_small": ("timm:vit_small_patch16_224", 16, [3, 224, 224]),
    "timm_convnext_atto": ("timm:convnext_atto", 32, [3, 224, 224]),
    "timm_resnet50": ("timm:resnet50", 16, [3, 224, 224]),
}
STRATEGIES = ["auto", "lowerset-approx", "lowerset-exact", "chain-rotor", "chen-sqrt"]
BUDGETS = [30, 40, 50, 60, 70, 80, 90]


def tool(build, name):
    p = os.path.join(build, "bin", name)
    if not os.path.exists(p):
        sys.exit("zoo: %s not built (ninja -C %s %s)" % (p, build, name))
    return p


def simulator(build):
    """remat-zoo-simulate: built by CMake (benchmarks/zoo/CMakeLists.txt) or
    compiled here against the build's static libraries."""
    exe = os.path.join(build, "bin", "remat-zoo-simulate")
    src = os.path.join(HERE, "simulate.cpp")
    if os.path.exists(exe) and os.path.getmtime(exe) >= os.path.getmtime(src):
        return exe
    libs = [os.path.join(build, "lib", l)
            for l in ("libRematGraphIO.a", "libRematSolver.a", "libRematSupport.a")]
    for l in libs:
        if not os.path.exists(l):
            sys.exit("zoo: %s missing (ninja -C %s remat-plan)" % (l, build))
    cmd = ["c++", "-std=c++17", "-O2", "-I" + os.path.join(REPO, "include"),
           "-I/usr/lib/llvm-22/include", src] + libs + \
          ["-L/usr/lib/llvm-22/lib", "-Wl,-rpath,/usr/lib/llvm-22/lib", "-lLLVM"] + \
          subprocess.run(["pkg-config", "--libs", "cbc"], check=True, capture_output=True,
                         text=True).stdout.split() + ["-o", exe]
    subprocess.run(cmd, check=True)
    return exe


def plan(plan_exe, graph, strategy, budget=None, timeout=600, extra=()):
    """remat-plan's JSON result plus the wall time; None on timeout."""
    cmd = [plan_exe, graph, "--strategy=" + strategy] + list(extra)
    if budget is not None:
        cmd.append("--budget=%s" % budget)
    t0 = time.time()
    try:
        res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, timeout
    dt = time.time() - t0
    try:
        return json.loads(res.stdout), dt
    except ValueError:
        return {"feasible": False, "reason": res.stderr.strip()[-300:]}, dt


def import_model(spec, batch, shape, workdir, name, config=None):
    """Planning-only import; returns (joint, emitter, mlir path).  A
    language model's loss is its next-token cross-entropy, others' the sum
    of their outputs."""
    from remat_import_torch.trace import load_model, model_kind, parse_config, trace_joint
    from remat_import_torch.emit import Emitter
    import torch
    torch.manual_seed(0)
    model = load_model(spec, None, shape, parse_config(config))
    joint = trace_joint(model, batch, shape, "xent" if model_kind(spec) == "hf" else "sum")
    em = Emitter(joint, "step", planning_only=True).run()
    path = os.path.join(workdir, name + ".mlir")
    with open(path, "w") as fh:
        fh.write(em.f.text(["zoo: %s batch %d input %s (planning only)"
                            % (name, batch, "x".join(map(str, shape)))]))
    return joint, em, path


def min_cut_schedule(joint, em, graph):
    """PyTorch's min-cut partition as a list of graph node names."""
    from torch._functorch.partitioners import min_cut_rematerialization_partition
    fw, bw = min_cut_rematerialization_partition(joint.graph_module, None, num_fwd_outputs=1)
    index = {loc: "remat.op#%d" % i for i, loc in enumerate(em.planner_nodes)}
    kinds = {n["name"]: n["kind"] for n in graph["nodes"]}
    run, seen = [], set()
    recomputed = 0
    for module in (fw, bw):
        for n in module.graph.nodes:
            if n.op != "call_function" or n.name not in index:
                continue
            g = index[n.name]
            if g in seen:
                if kinds[g] == "backward":
                    continue  # a value both modules compute: computed once, kept
                recomputed += 1
            seen.add(g)
            run.append(g)
    # Nodes the partition does not list (gradient results we reshape at the
    # end): run them last, in graph order.
    for n in graph["nodes"]:
        if n["name"] not in seen:
            run.append(n["name"])
    saved = len([n for n in fw.graph.nodes if n.op == "output"][0].args[0])
    return run, {"recomputed_nodes": recomputed, "fw_outputs": saved}


def simulate(sim_exe, graph_path, schedule, workdir, name, timeline=False):
    path = os.path.join(workdir, name)
    with open(path, "w") as fh:
        json.dump(schedule, fh)
    cmd = [sim_exe, graph_path, path] + (["--timeline"] if timeline else [])
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if not res.stdout.strip():
        raise RuntimeError(res.stderr)
    return json.loads(res.stdout)


def peak_at_overhead(plan_exe, graph, lo, hi, target, base, strategy="auto", steps=12,
                     timeout=600):
    """Smallest budget (bytes, by bisection in [lo, hi]) at which `strategy`
    has an overhead <= target; returns (budget, peak, overhead)."""
    best = None
    r, _ = plan(plan_exe, graph, strategy, hi, timeout)
    if not r or not r.get("feasible") or r["overhead"] > target * (1 + 1e-9) + 1e-9 * base:
        return None
    best = (hi, r["peak"], r["overhead"])
    for _ in range(steps):
        if hi - lo <= max(1, hi // 1000):
            break
        mid = (lo + hi) // 2
        r, _ = plan(plan_exe, graph, strategy, mid, timeout)
        if r and r.get("feasible") and r["overhead"] <= target * (1 + 1e-9) + 1e-9 * base:
            hi = mid
            best = (mid, r["peak"], r["overhead"])
        else:
            lo = mid
    return best


def budget_runs(name, args, plan_exe, graph_path, peak0, base):
    """Every strategy at every budget of the list."""
    rows = []
    for b in args.budgets:
        for s in args.strategies:
            r, dt = plan(plan_exe, graph_path, s, "%d%%" % b, args.timeout)
            row = {"budget_percent": b, "strategy": s, "solve_seconds": round(dt, 3)}
            if r is None:
                row["status"] = "timeout"
            elif not r.get("feasible"):
                row["status"] = "infeasible"
            else:
                row.update(status="ok", peak=r["peak"], overhead=r["overhead"],
                           peak_percent=100.0 * r["peak"] / peak0,
                           overhead_percent=100.0 * r["overhead"] / base,
                           chosen=r.get("chosen", s))
            rows.append(row)
            sys.stderr.write("zoo: %s %s %d%%: %s\n" % (name, s, b, _short(row)))
    return rows


def min_cut_run(joint, em, graph, args, plan_exe, sim_exe, graph_path, work, name,
                min_budget, peak0, base):
    """PyTorch's min-cut partition simulated, and remat at its peak and at
    its overhead."""
    t0 = time.time()
    sched, info = min_cut_schedule(joint, em, graph)
    info["partition_seconds"] = round(time.time() - t0, 2)
    sim = simulate(sim_exe, graph_path, sched, work, name + ".mincut.json")
    mc = dict(info, valid=sim["valid"], error=sim["error"], peak=sim["peak"],
              overhead=sim["overhead"], peak_percent=100.0 * sim["peak"] / peak0,
              overhead_percent=100.0 * sim["overhead"] / base)
    if sim["valid"]:
        at_peak = {}
        for s in STRATEGIES:
            r, _ = plan(plan_exe, graph_path, s, sim["peak"], args.timeout)
            at_peak[s] = ({"overhead_percent": 100.0 * r["overhead"] / base, "peak": r["peak"]}
                          if r and r.get("feasible") else None)
        mc["ours_at_its_peak"] = at_peak
        # The smallest peak at no more overhead: bisection on the budget with
        # auto, or with lowerset-approx where auto times out on this graph.
        best, used = None, None
        for s in ("auto", "lowerset-approx"):
            lo = min_budget.get(s, {}).get("bytes") or 0
            r, _ = plan(plan_exe, graph_path, s, peak0, args.timeout)
            if r is None:
                continue
            best = peak_at_overhead(plan_exe, graph_path, max(lo - 1, 0), peak0,
                                    sim["overhead"], base, strategy=s, timeout=args.timeout)
            used = s
            break
        mc["ours_at_its_overhead"] = ({"budget": best[0], "peak": best[1], "strategy": used,
                                       "peak_percent": 100.0 * best[1] / peak0,
                                       "overhead_percent": 100.0 * best[2] / base}
                                      if best else None)
    return mc


def timelines(args, plan_exe, sim_exe, graph_path, work, name, rows):
    """Memory over time of one step: no remat, and auto at the smallest
    budget of the list that auto meets."""
    tl = {"none": simulate(sim_exe, graph_path, none_schedule(plan_exe, graph_path),
                           work, name + ".none.sched.json", timeline=True)}
    for b in args.budgets:
        r = next((x for x in rows if x["strategy"] == "auto" and x["budget_percent"] == b), None)
        if not r or r["status"] != "ok":
            continue
        r, _ = plan(plan_exe, graph_path, "auto", "%d%%" % b, args.timeout)
        if r and r.get("feasible"):
            tl["auto"] = simulate(sim_exe, graph_path, r, work, name + ".auto.sched.json",
                                  timeline=True)
            tl["auto"]["budget_percent"] = b
            break
    out = {}
    for k, v in tl.items():
        out[k] = {"usage": v.get("usage", []), "steps": v.get("steps", []),
                  "step_times": v.get("step_times", []),
                  "peak": v["peak"], "budget_percent": v.get("budget_percent"),
                  "time": v["time"]}
    return out


def run_model(name, args, plan_exe, opt_exe, sim_exe):
    spec, batch, shape = MODELS[name][:3]
    config = MODELS[name][3] if len(MODELS[name]) > 3 else None
    if args.batch:
        batch = args.batch
    work = os.path.join(args.out, "work")
    os.makedirs(work, exist_ok=True)
    out = {"model": name, "batch": batch, "input": shape}
    t0 = time.time()
    joint, em, mlir = import_model(spec, batch, shape, work, name, config)
    out["import_seconds"] = round(time.time() - t0, 1)
    out["aten_nodes"] = sum(1 for n in joint.graph_module.graph.nodes if n.op == "call_function")
    out["params_bytes"] = sum(4 * _numel(p.shape) for p in em.arg_primals if p.kind == "param")
    graph_path = os.path.join(work, name + ".graph.json")
    subprocess.run([opt_exe, mlir, "-remat-export-graph=file=" + graph_path, "-o", os.devnull],
                   check=True)
    with open(graph_path) as fh:
        graph = json.load(fh)
    assert len(graph["nodes"]) == len(em.planner_nodes), \
        "graph has %d nodes, importer made %d" % (len(graph["nodes"]), len(em.planner_nodes))
    out["graph_nodes"] = len(graph["nodes"])
    out["forward_nodes"] = sum(1 for n in graph["nodes"] if n["kind"] == "forward")
    none, _ = plan(plan_exe, graph_path, "none")
    out["none"] = {"peak": none["peak"], "time": none["time"]}
    base = none["time"]
    peak0 = none["peak"]
    sys.stderr.write("zoo: %s: %d nodes, no-remat peak %.1f MiB, params %.1f MiB\n"
                     % (name, len(graph["nodes"]), peak0 / 2**20, out["params_bytes"] / 2**20))

    out["min_budget"] = {}
    for s in STRATEGIES:
        r, dt = plan(plan_exe, graph_path, s, None, args.timeout, ["--min-budget"])
        out["min_budget"][s] = {"bytes": r.get("min_budget") if r else None,
                                "seconds": round(dt, 2)}

    out["runs"] = rows = budget_runs(name, args, plan_exe, graph_path, peak0, base)

    out["min_cut"] = mc = min_cut_run(joint, em, graph, args, plan_exe, sim_exe, graph_path,
                                      work, name, out["min_budget"], peak0, base)
    sys.stderr.write("zoo: %s min-cut: %s\n" % (name, json.dumps(
        {k: mc.get(k) for k in ("valid", "peak_percent", "overhead_percent",
                                "ours_at_its_overhead")})))

    out["timeline"] = timelines(args, plan_exe, sim_exe, graph_path, work, name, rows)
    return out


def none_schedule(plan_exe, graph_path):
    r, _ = plan(plan_exe, graph_path, "none")
    return r


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _short(row):
    if row["status"] != "ok":
        return row["status"]
    return "peak %.1f%% overhead %.2f%% (%s) %.2fs" % (row["peak_percent"], row["overhead_percent"],
                                                      row["chosen"], row["solve_seconds"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--budgets", default=",".join(map(str, BUDGETS)))
    ap.add_argument("--strategies", default=",".join(STRATEGIES))
    ap.add_argument("--batch", type=int, default=None, help="override every model's batch")
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--timeout", type=int, default=150,
                    help="seconds per remat-plan run (lowerset-exact, and auto which runs "
                         "it, take longer than that on inception_v3)")
    args = ap.parse_args()
    args.budgets = [int(b) for b in args.budgets.split(",")]
    args.strategies = args.strategies.split(",")
    warnings.filterwarnings("ignore")
    plan_exe = tool(args.build, "remat-plan")
    opt_exe = tool(args.build, "remat-opt")
    sim_exe = simulator(args.build)
    os.makedirs(args.out, exist_ok=True)
    for name in args.models.split(","):
        res = run_model(name, args, plan_exe, opt_exe, sim_exe)
        with open(os.path.join(args.out, name + ".json"), "w") as fh:
            json.dump(res, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
