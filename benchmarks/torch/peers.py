# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""PyTorch's own ways to save activation memory, side by side, and remat's
torch.compile backend as one more: step time and measured peak of each.

    python benchmarks/torch/peers.py [--models resnet101,gpt2] [--steps 5]
        [--device cpu|cuda] [--compiler inductor|eager] [--quick] [--out DIR]

Per model, in one run: no recomputation (eager, and compiled); checkpoint
per block (use_reentrant=False); checkpoint_sequential at 2..2*sqrt(L)
segments (chains); selective activation checkpointing saving matmul and
convolution outputs; the memory-budget partitioner of torch.compile at
0.1..0.9 (its default solver and "ilp", which needs SciPy); remat's backend
at each of those measured peaks, at `min` and at rotor's ten budgets from
0 to the peak without recomputation; Rockmate on CUDA where installed.
Every configuration is compiled and warmed up first, its loss and gradients
compared with the eager step's, its peak measured once
(remat_torch.peak), then timed: `--steps` rounds, each running every
configuration once, so that all share the machine's state; the median.

Writes DIR/results.json, results.csv and results.md (default
benchmarks/torch/results/<device>); plot.py draws them.
"""

import argparse
import csv
import functools
import json
import math
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, HERE)

import torch  # noqa: E402
from torch.utils import checkpoint as ckpt  # noqa: E402

from models import MODELS  # noqa: E402
from remat_torch.peak import measure  # noqa: E402

BUDGETS = [round(0.1 * i, 1) for i in range(1, 10)]
# What selective checkpointing saves: the products and convolutions (what
# costs most to recompute), recomputing everything else.
SAVED_OPS = {getattr(torch.ops.aten, n).default for n in (
    "mm", "addmm", "bmm", "baddbmm", "convolution", "_scaled_dot_product_flash_attention",
    "_scaled_dot_product_efficient_attention", "_scaled_dot_product_cudnn_attention")
    if hasattr(torch.ops.aten, n)}


def _save_products(ctx, op, *args, **kwargs):
    return (ckpt.CheckpointPolicy.MUST_SAVE if op in SAVED_OPS
            else ckpt.CheckpointPolicy.PREFER_RECOMPUTE)


class Blocks:
    """Wraps each block's forward once; `mode` picks what runs: the block
    itself, checkpoint(block) or checkpoint with the selective policy."""

    def __init__(self, blocks):
        self.mode = None
        for block in blocks:
            block.forward = functools.partial(self._run, block.forward)

    def _run(self, forward, *args, **kwargs):
        if self.mode is None:
            return forward(*args, **kwargs)
        context = {}
        if self.mode == "sac":
            context["context_fn"] = functools.partial(
                ckpt.create_selective_checkpoint_contexts, _save_products)
        return ckpt.checkpoint(forward, *args, use_reentrant=False, **context, **kwargs)


class Config:
    def __init__(self, method, param, run, setup, family=None):
        self.method, self.param, self.run = method, param, run
        self.family = family or method
        self.setup = setup  # before each step: what the blocks run
        self.times, self.walls, self.peak, self.error, self.grad_err = [], [], None, None, None

    @property
    def label(self):
        return self.method if self.param is None else f"{self.method} {self.param}"


def compiled_backend(compiler):
    """A backend object of its own per configuration: Dynamo keeps one
    compiled graph per backend object, so configurations never share one."""
    if compiler == "inductor":
        from torch._inductor.compile_fx import compile_fx

        return lambda gm, inputs: compile_fx(gm, inputs)
    from torch._dynamo.backends.debugging import aot_eager_decomp_partition

    # AOTAutograd's min-cut partitioner (the memory budget's), ATen kernels.
    return lambda gm, inputs: aot_eager_decomp_partition(gm, inputs)


def _remat_backend():
    try:
        import remat_torch

        return remat_torch.backend
    except (ImportError, AttributeError) as e:
        print(f"remat: skipped, its torch.compile backend is not available ({e})", flush=True)
        return None


def _rockmate(device):
    """Rockmate's rotor-over-Checkmate solver (what its PureRockmate means),
    or None. Built from its parts: PureRockmate of the repository's main
    branch hands its sequence partitioner an object where it reads a name
    ("base"), and fails before planning."""
    if device != "cuda":
        return None
    try:
        from rkgb.core import partitioned
        from rockmate import Rockmate, solvers
    except ImportError as e:
        print(f"rockmate: skipped, it does not import ({e})", flush=True)
        return None

    def pure(model, sample, budget):
        return Rockmate(model, sample, budget, top_solvers=[solvers.RK_rotor()],
                        bottom_solvers=[solvers.HILP(ilp_solver="PULP_CBC_CMD", offload=False)],
                        partitioners=[partitioned.PartitionerSequence(sub_partitioner="base")])
    return pure


def segments(length):
    """rotor's range: up to 10 counts from 2 to 2*sqrt(L)."""
    top = max(2, int(2 * math.sqrt(length)))
    return sorted({round(2 + i * (top - 2) / 9) for i in range(10)})


class Bench:
    def __init__(self, args, m):
        self.args, self.m = args, m
        self.dev = args.device
        self.sync = torch.cuda.synchronize if self.dev == "cuda" else (lambda: None)
        self.model = m.model.to(self.dev)
        self.model.train()
        self.blocks = Blocks(m.blocks)
        self.params = [p for p in self.model.parameters() if p.requires_grad]
        self.grad_bytes = sum(p.numel() * p.element_size() for p in self.params)
        # What the measured peak leaves out and remat's budget counts: the
        # compiled graph's arguments (parameters, buffers, the batch).
        args = [*self.model.parameters(), *self.model.buffers(), m.batch]
        self.args_bytes = sum(t.numel() * t.element_size() for t in args)
        self.configs = []
        self.reference = None
        self.float64_err = None

    def step(self, forward):
        def run():
            loss = self.m.loss(forward)
            loss.backward()
            return loss.detach()
        return run

    def eager(self, method, param=None, mode=None):
        def setup():
            self.blocks.mode = mode
        return Config(method, param, self.step(self.model), setup=setup)

    def compiled(self, method, param, backend, patch=None, family=None):
        fn = torch.compile(self.model, backend=backend)
        cfg = Config(method, param, self.step(fn), family=family, setup=self.plain)
        cfg.patch = patch or {}
        return cfg

    def plain(self):
        self.blocks.mode = None

    def prepare(self, cfg):
        """Compile (the first step, under its partitioner settings), check
        against the eager step, measure the peak."""
        try:
            cfg.setup()
            with torch._functorch.config.patch(**getattr(cfg, "patch", {})):
                self.one(cfg)
            loss = self.one(cfg)
            got = [p.grad for p in self.params]
            if self.reference is None:
                self.reference = (loss, got)
            ref_loss, ref_grads = self.reference
            cfg.loss_err = abs(float(loss) - float(ref_loss)) / max(abs(float(ref_loss)), 1e-12)
            cfg.grad_err = self.grad_error(got, ref_grads)
            self.zero()
            self.sync()
            _, cfg.peak = measure(cfg.run, device=self.dev)
            self.zero()
        except Exception as e:  # a method that fails is reported, not fatal
            cfg.error = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:200]
            print(f"  {cfg.label}: failed: {cfg.error}", flush=True)
            self.zero()

    @staticmethod
    def grad_error(got, ref):
        """The largest difference over the largest gradient of any parameter."""
        pairs = [(g, r) for g, r in zip(got, ref) if r is not None]
        top = max(float(r.abs().max()) for _, r in pairs)
        return max(float((g.to(r.dtype) - r).abs().max()) for g, r in pairs) / max(top, 1e-30)

    def float32_against_float64(self):
        """The gradient error of the eager step against the same step in
        float64: what rounding alone makes. A method whose kernels round
        otherwise (a compiled one) differs from the eager step by about as
        much; deep nets at random weights amplify it."""
        import copy

        if self.reference is None:
            return None
        default = torch.get_default_dtype()
        try:
            # Tensors a model makes as it runs take the default type.
            torch.set_default_dtype(torch.float64)
            m64 = copy.deepcopy(self.model).double()
            params = [p for p in m64.parameters() if p.requires_grad]
            loss = self.m.loss(lambda x, *r, **k: m64(
                x.double() if torch.is_floating_point(x) else x, *r, **k))
            loss.backward()
            err = self.grad_error(self.reference[1], [p.grad for p in params])
        except Exception as e:  # a model without float64 kernels: no yardstick
            print(f"  float64 step: failed: {type(e).__name__}: {e}"[:200], flush=True)
            return None
        finally:
            torch.set_default_dtype(default)
            m64 = params = None
            if self.dev == "cuda":
                torch.cuda.empty_cache()
        print(f"  eager float32 against float64: grad err {err:.1e}", flush=True)
        return err

    def zero(self):
        for p in self.params:
            p.grad = None

    def one(self, cfg):
        self.zero()
        return cfg.run()

    def add(self, cfg):
        t = time.perf_counter()
        self.prepare(cfg)
        cfg.prepare_s = time.perf_counter() - t
        self.configs.append(cfg)
        if cfg.error is None:
            print(f"  {cfg.label}: peak {cfg.peak / 2**20:.1f} MiB, grad err {cfg.grad_err:.1e}"
                  f" ({cfg.prepare_s:.0f} s to prepare)", flush=True)

    def peers(self):
        a, m = self.args, self.m
        self.add(self.eager("none"))
        self.float64_err = self.float32_against_float64()
        if a.remat_at:
            return
        if not a.rotor:
            self.add(self.compiled("compile", None, compiled_backend(a.compiler), family="compile"))
            self.add(self.eager("checkpoint per block", mode="ckpt"))
        if m.sequential is not None:
            seq = m.sequential
            counts = [2] if a.quick else segments(len(seq))
            for k in counts:
                self.add(Config("checkpoint_sequential", k, self.step(
                    functools.partial(ckpt.checkpoint_sequential, seq, k, use_reentrant=False)),
                    setup=self.plain))
        if a.rotor:
            return
        self.add(self.eager("selective (save mm/conv)", mode="sac"))
        solvers = a.solvers.split(",")
        if "ilp" in solvers:
            try:
                import scipy  # noqa: F401
            except ImportError:
                print("memory budget ilp: skipped, needs scipy", flush=True)
                solvers.remove("ilp")
        for solver in solvers:
            for b in ([0.5] if a.quick else a.budgets):
                self.add(self.compiled(f"memory budget {solver}", b, compiled_backend(a.compiler), {
                    "activation_memory_budget": b, "activation_memory_budget_solver": solver}))

    def remat(self):
        backend = _remat_backend()
        if backend is None or self.args.no_remat:
            return
        none = next(c for c in self.configs if c.method == "none")
        peer_peaks = sorted({c.peak for c in self.configs if c.peak and c.method != "none"})
        # Peaks that print alike (65.7 MiB twice) get one plan: the lower budget.
        by_label = {}
        for p in peer_peaks:   # ascending: a label's first peak is its lowest
            by_label.setdefault(f"{p / 2**20:.1f}", p)
        peer_peaks = list(by_label.values())
        if self.args.remat_at:
            peer_peaks = [int(float(x) * 2**20) for x in self.args.remat_at.split(",")]
        budgets = [("min", "min")] + [(f"at {p / 2**20:.1f} MiB", p) for p in peer_peaks]
        if not self.args.quick and not self.args.remat_at and none.peak:
            # rotor's experiment: ten budgets from 0 to the peak without recomputation.
            budgets += [(f"rotor {i}/10", none.peak * i // 10) for i in range(1, 11)]
        floor = None   # the smallest budget remat met: its plan's peak at `min`
        # (under Inductor, or its measured peak where that is lower)
        for name, peak in budgets:
            # A measured peak excludes the graph's arguments; remat's budget
            # counts them.
            budget = peak if peak == "min" else f"{peak + self.args_bytes}B"
            if floor is not None and peak != "min" and peak + self.args_bytes < floor:
                # Below what remat can meet: reported, not compiled (a
                # compile costs minutes on the CPU only to be refused).
                cfg = Config("remat", name, None, setup=self.plain, family="remat")
                cfg.budget = peak
                cfg.error = (f"below remat's smallest budget ({(floor - self.args_bytes) / 2**20:.1f}"
                             " MiB without the graph's arguments)")
                print(f"  remat {name}: {cfg.error}", flush=True)
                self.configs.append(cfg)
                continue
            log = []
            cfg = self.compiled("remat", name, backend(budget=budget, compiler=self.args.compiler,
                                                       log=log, strategy=self.args.remat_strategy,
                                                       workspace=self.args.remat_workspace,
                                                       costs=self.args.remat_costs),
                                family="remat")
            cfg.budget = None if peak == "min" else peak
            self.add(cfg)
            # A graph remat could not plan runs PyTorch's partitioner: not remat's.
            why = [g["fallback"] for g in log if "fallback" in g]
            if why and cfg.error is None:
                cfg.error = f"fell back to PyTorch's partitioner: {why[0]}"[:200]
                print(f"  remat {name}: {cfg.error}", flush=True)
            requested = any(g.get("requested") for g in log)
            if name == "min" and why and not requested and not any("fallback" not in g for g in log):
                print("remat: skipped, it planned no graph at min", flush=True)
                return
            planned = [g for g in log if "report" in g]
            # remat's share of the compile time: emitting, measuring the
            # ops' temporaries, remat-opt and building the two graphs.
            cfg.plan_s = sum(g["seconds"] for g in planned) or None
            cfg.planned = sum(g["report"].get("peak_after") or 0 for g in planned) or None
            if name == "min" and len(planned) == 1 and not why:
                floor = planned[0]["report"].get("peak_after")
                # Under Inductor the backend meets budgets down to what its
                # `min` measured, above or below the model's smallest (its
                # search at `min` tried plans above the smallest:
                # docs/torch-compile.md).
                if self.args.compiler == "inductor" and cfg.peak:
                    floor = cfg.peak + self.args_bytes

    def rockmate(self):
        pure = _rockmate(self.dev)
        if pure is None or self.m.sequential is None:
            return
        none = next(c for c in self.configs if c.method == "none")
        for i in (3, 5, 7):
            budget = none.peak * i // 10
            try:
                x = self.m.batch.to(self.dev)
                rk = pure(self.m.sequential, x, budget)
                cfg = Config("rockmate", f"{i}/10", self.step(lambda *a, rk=rk: rk(*a)),
                             setup=self.plain)
                cfg.budget = budget
            except Exception as e:
                print(f"  rockmate {i}/10: failed: {type(e).__name__}: {e}"[:200], flush=True)
                continue
            self.add(cfg)

    def time(self):
        """--steps rounds, each configuration once per round. On the CPU the
        step's time is the process's CPU time: with one thread, the work the
        step did, whatever else shares the machine (its wall time is kept
        too); on CUDA, wall time."""
        live = [c for c in self.configs if c.error is None]
        for _ in range(self.args.steps):
            for c in live:
                c.setup()
                self.zero()
                self.sync()
                t, cpu = time.perf_counter(), time.process_time()
                c.run()
                self.sync()
                wall = time.perf_counter() - t
                c.walls.append(wall)
                c.times.append(wall if self.dev == "cuda" else time.process_time() - cpu)
        self.zero()


def parse_args():
    """The command line, checked."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--steps", type=int, default=5, help="timed rounds (median)")
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    p.add_argument("--compiler", choices=["inductor", "eager"],
                   help="for the compiled methods (default: inductor on cuda, eager on cpu)")
    p.add_argument("--quick", action="store_true",
                   help="tiny models; remat at budget 0.5 only, checkpoint_sequential at 2 "
                   "segments, without rotor's ten budgets")
    p.add_argument("--batch", type=int, help="batch size of every model (default: models.py's)")
    p.add_argument("--side", type=int,
                   help="image side of the vision models, sequence length of the language models")
    p.add_argument("--no-remat", action="store_true", help="the peers only")
    p.add_argument("--remat-strategy", default="auto-monotone",
                   help="remat's planner (the backend's strategy; default auto-monotone, "
                        "monotone in the budget; auto: the fastest plan at each budget)")
    p.add_argument("--remat-workspace", default="measured", choices=["measured", "rules"],
                   help="the backend's workspace: each op's temporaries measured (default; the "
                        "eager compiler) or a rule per op (the same plan-cache key on every "
                        "run: what a machine without remat-opt needs, README.md)")
    p.add_argument("--remat-costs", default="auto", choices=["auto", "measured", "flops"],
                   help="the backend's costs (default auto: measured on a GPU, FLOPs on the "
                        "CPU; measured: each op timed, and under Inductor on the CPU its "
                        "kernels, docs/torch-compile.md)")
    p.add_argument("--out", help="output folder")
    p.add_argument("--remat-at", metavar="MIB,...",
                   help="no recomputation and remat only: remat at min and at these measured "
                        "peaks (MiB, e.g. the peers' of an earlier run)")
    p.add_argument("--rotor", action="store_true",
                   help="rotor's experiment only: no recomputation, checkpoint_sequential, and "
                        "remat at min, at each checkpoint_sequential's measured peak and at "
                        "rotor's ten budgets")
    p.add_argument("--threads", type=int, help="torch.set_num_threads")
    p.add_argument("--budgets", default=",".join(map(str, BUDGETS)),
                   help="the memory-budget partitioner's budgets (default 0.1..0.9)")
    p.add_argument("--solvers", default="dp,ilp", help="its solvers (default dp,ilp)")
    p.add_argument("--channels-last", action="store_true",
                   help="the image models and their batch in channels-last memory format, for "
                        "every configuration: torch.compile's Inductor converts convolutions "
                        "to it inside its graphs (layout optimization), remat's graphs leave it "
                        "to the model (docs/torch-compile.md)")
    p.add_argument("--no-tf32", action="store_true",
                   help="on CUDA, float32 convolutions in full float32 (PyTorch's default lets "
                        "cuDNN round their inputs to TF32, whose 10-bit mantissa deep networks "
                        "amplify into the gradients; matrix products are float32 by default)")
    p.add_argument("--check", type=float, metavar="TOL",
                   help="exit 1 unless every configuration ran, measured, and matched the "
                        "eager step's loss and gradients within TOL (relative)")
    a = p.parse_args()
    names = a.models.split(",")
    bad = [n for n in names if n not in MODELS]
    if bad:
        p.error(f"unknown model {bad[0]} (known: {', '.join(MODELS)})")
    if a.device == "cuda" and not torch.cuda.is_available():
        p.error("--device cuda: no CUDA device")
    try:
        a.budgets = [float(b) for b in a.budgets.split(",")]
    except ValueError:
        p.error(f"--budgets: not a list of numbers: {a.budgets}")
    bad = [x for x in a.solvers.split(",") if x not in ("dp", "greedy", "ilp")]
    if bad:
        p.error(f"--solvers: unknown solver {bad[0]} (dp, greedy, ilp)")
    return a


def result_row(name, m, b, c):
    """One configuration's results, as results.json and .csv hold them."""
    return {"model": name, "size": m.size, "method": c.method, "param": c.param,
            "family": c.family, "budget": getattr(c, "budget", None),
            "planned_bytes": getattr(c, "planned", None),
            "peak_bytes": c.peak, "step_s": statistics.median(c.times) if c.times else None,
            "times_s": c.times, "wall_s": c.walls,
            "loss_rel_err": getattr(c, "loss_err", None), "grad_rel_err": c.grad_err,
            "prepare_s": getattr(c, "prepare_s", None),
            "plan_s": getattr(c, "plan_s", None), "error": c.error,
            "grad_bytes": b.grad_bytes, "args_bytes": b.args_bytes,
            "float32_vs_float64_grad_err": b.float64_err}


def main():
    a = parse_args()
    a.compiler = a.compiler or ("inductor" if a.device == "cuda" else "eager")
    if a.threads:
        torch.set_num_threads(a.threads)
    if a.no_tf32:
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cuda.matmul.allow_tf32 = False
    # Every configuration keeps its own compiled graphs.
    torch._dynamo.config.recompile_limit = 256
    torch._dynamo.config.accumulated_recompile_limit = 4096
    out = a.out or os.path.join(HERE, "results", a.device + ("-quick" if a.quick else ""))
    os.makedirs(out, exist_ok=True)

    machine = torch.cuda.get_device_name() if a.device == "cuda" else f"{os.cpu_count()}-core CPU"
    meta = {"device": a.device, "machine": machine, "compiler": a.compiler, "steps": a.steps,
            "threads": torch.get_num_threads(), "versions": _versions(), "quick": a.quick,
            "command": " ".join(sys.argv), "remat_strategy": a.remat_strategy,
            "remat_costs": a.remat_costs, "channels_last": a.channels_last,
            "tf32": {"cudnn": torch.backends.cudnn.allow_tf32,
                     "matmul": torch.backends.cuda.matmul.allow_tf32},
            "date": time.strftime("%Y-%m-%d", time.gmtime())}
    rows = []
    for name in a.models.split(","):
        torch.manual_seed(0)
        # Parameters and batch made on the device the run measures.
        with torch.device(a.device):
            m = MODELS[name](a.quick, a.batch, a.side)
        if a.channels_last:
            m.to_channels_last()
        print(f"{name} ({m.size}) on {machine}, compiler {a.compiler}", flush=True)
        b = Bench(a, m)
        b.peers()
        b.remat()
        b.rockmate()
        b.time()
        for c in b.configs:
            rows.append(result_row(name, m, b, c))
            med = rows[-1]["step_s"]
            if med is not None:
                print(f"  {c.label:32s} {c.peak / 2**20:9.1f} MiB {med * 1e3:9.1f} ms", flush=True)
        del b, m
        if a.device == "cuda":
            torch.cuda.empty_cache()
        write(out, meta, rows)   # after each model: a run stopped later keeps it
    print(f"wrote {out}/results.json, results.csv, results.md")
    return check(rows, a.check) if a.check is not None else 0


def write(out, meta, rows):
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"meta": meta, "rows": rows}, f, indent=1)
    keys = [k for k in rows[0] if k not in ("times_s", "wall_s")] if rows else []
    with open(os.path.join(out, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, keys, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(table(rows))


def check(rows, tol):
    bad = [r for r in rows if r["error"] or not r["peak_bytes"] or not r["step_s"]
           or r["loss_rel_err"] > tol or r["grad_rel_err"] > tol]
    for r in bad:
        print(f"check: {r['model']} {r['method']} {r['param']}: error {r['error']}, "
              f"loss err {r['loss_rel_err']}, grad err {r['grad_rel_err']}")
    if bad:
        return 1
    print(f"checked {len(rows)} configurations: every loss and gradient within {tol:.0e} of "
          "the eager step's, every peak and time measured")
    return 0


def _versions():
    import importlib.metadata as md

    found = {}
    for name in ("torch", "torchvision", "transformers", "timm", "scipy", "rockmate"):
        try:
            found[name] = md.version(name)
        except md.PackageNotFoundError:
            pass
    return found


def table(rows):
    """A markdown table per model: peak and step time, each against no
    recomputation (eager)."""
    lines = []
    for model in dict.fromkeys(r["model"] for r in rows):
        mine = [r for r in rows if r["model"] == model]
        base = next(r for r in mine if r["method"] == "none")
        yardstick = base.get("float32_vs_float64_grad_err")
        lines += [f"**{model}** ({base['size']}; the peaks include its gradients, "
                  f"{base['grad_bytes'] / 2**20:.1f} MiB"
                  + ("" if yardstick is None else
                     f"; eager float32 against float64: grad err {yardstick:.0e}") + ")", "",
                  "| method | setting | measured peak (MiB) | vs none | step (ms) | vs none | grad err |",
                  "|---|---|---:|---:|---:|---:|---:|"]
        for r in mine:
            if r["error"]:
                lines.append(f"| {r['method']} | {r['param'] or ''} | failed: {r['error']} |||||")
                continue
            lines.append(
                f"| {r['method']} | {'' if r['param'] is None else r['param']} "
                f"| {r['peak_bytes'] / 2**20:.1f} | {r['peak_bytes'] / base['peak_bytes']:.2f} "
                f"| {r['step_s'] * 1e3:.0f} | {r['step_s'] / base['step_s']:.2f} "
                f"| {r['grad_rel_err']:.0e} |")
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
