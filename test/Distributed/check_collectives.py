#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Property test of the memory model's terms for collectives: for each case
writes gen_collective_step.py's step, runs it as written under
`mpiexec.mpich -n N` (run.sh's RANKS=N), plans it with `remat-opt
--remat-budget=B` (default options) at each budget and runs the plan:
every rank's measured peak must equal the report's prediction for it
(device_peaks[r], else peak_before as written and peak_after planned),
and the plan must print what the step as written prints.

A case is KIND:N:RxC with optional :axis=A, :offset=K, :rotate, :view
(gen_collective_step.py's options), e.g. all_gather:3:3x5:axis=1.

  check_collectives.py --work DIR CASE...
  check_collectives.py --work DIR --random 20 --seed 7   # drawn cases

Prints one line per case and budget; exits 1 when any differs.
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "gen_collective_step.py")
RUN = os.path.join(HERE, "..", "Integration", "CPU", "run.sh")
ADDRESS = re.compile(r"base@ = 0x[0-9a-f]+")
KINDS = ["all_reduce", "all_gather", "reduce_scatter", "all_to_all",
         "all_slice", "shift", "send_recv"]


def parse(case):
    parts = case.split(":")
    kind, n, (rows, cols) = parts[0], int(parts[1]), map(int, parts[2].split("x"))
    flags = ["--kind", kind, "--ranks", str(n), "--rows", str(rows),
             "--cols", str(cols)]
    for p in parts[3:]:
        key, _, value = p.partition("=")
        flags += ["--" + key] + ([value] if value else [])
    return n, flags


def draw(rng):
    """A case with the sizes its kind needs: the split, scatter or slice
    axis a multiple of N; sizes of 1 to 4 per rank, so most messages are
    not a multiple of 64 B."""
    kind, n = rng.choice(KINDS), rng.choice([2, 3, 4])
    axis = rng.choice([0, 1])
    dims = [rng.randint(1, 5), rng.randint(1, 5)]
    if kind in ("reduce_scatter", "all_slice", "all_to_all"):
        dims[axis] *= n
    case = "%s:%d:%dx%d" % (kind, n, dims[0], dims[1])
    if kind in ("all_gather", "reduce_scatter", "all_slice", "all_to_all"):
        case += ":axis=%d" % axis
    if kind == "shift":
        case += ":offset=%d" % rng.choice([o for o in (-2, -1, 1, 2) if abs(o) < n])
        if rng.random() < 0.5:
            case += ":rotate"
    if rng.random() < 0.3:
        case += ":view"
    return case


def run(model, ranks):
    # A plan that orders a send after its partner's next receive waits
    # forever: fail in seconds rather than the runtime's default 120.
    env = dict(os.environ, RANKS=str(ranks))
    env.setdefault("REMAT_P2P_TIMEOUT_S", "30")
    p = subprocess.run([RUN, model], env=env,
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("running %s failed:\n%s" % (model, p.stderr[-2000:]))
    peaks = dict((int(r), int(v)) for r, v in
                 re.findall(r"rank=(\d+) window_peak_bytes=(\d+)", p.stderr))
    return ADDRESS.sub("", p.stdout), [peaks.get(r) for r in range(ranks)]


def check(case, work, budgets):
    """Lines of (budget, measured, predicted, verdict)."""
    n, flags = parse(case)
    name = re.sub(r"[^A-Za-z0-9]+", "_", case)
    model = os.path.join(work, name + ".mlir")
    subprocess.run([sys.executable, GEN] + flags + ["-o", model], check=True)
    ref_out, ref_peaks = run(model, n)
    lines = []
    for budget in budgets:
        tag = budget.rstrip("%")
        planned = os.path.join(work, "%s.%s.mlir" % (name, tag))
        report = planned[:-len(".mlir")] + ".json"
        p = subprocess.run(["remat-opt", model, "--remat-budget=" + budget,
                            "--remat-report=" + report, "-o", planned],
                           capture_output=True, text=True)
        if p.returncode != 0:
            lines.append((budget, None, None, "remat-opt failed: " + p.stderr[-500:]))
            continue
        f = json.load(open(report))["functions"][0]
        with open(model[:-len(".mlir")] + ".harness.mlir") as src, \
                open(planned[:-len(".mlir")] + ".harness.mlir", "w") as dst:
            dst.write(src.read())
        out, peaks = run(planned, n)
        before = [f["peak_before"]] * n
        after = f.get("device_peaks") or [f["peak_after"]] * n
        problems = []
        if budget == budgets[0] and ref_peaks != before:
            problems.append("as written measured %s, predicted %s" % (ref_peaks, before))
        if peaks != after:
            problems.append("DIFFER")
        if out != ref_out:
            problems.append("printed values differ from the step as written")
        lines.append((budget, peaks, after, "; ".join(problems) or "equal"))
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="*")
    ap.add_argument("--work", required=True)
    ap.add_argument("--random", type=int, default=0, help="cases to draw")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--budgets", nargs="+", default=["100%", "min"])
    args = ap.parse_args()
    rng = random.Random(args.seed)
    cases = args.cases + [draw(rng) for _ in range(args.random)]
    os.makedirs(args.work, exist_ok=True)
    bad = 0
    for case in cases:
        try:
            lines = check(case, args.work, args.budgets)
        except RuntimeError as e:
            lines = [("-", None, None, str(e))]
        bad += any(verdict != "equal" for *_, verdict in lines)
        for budget, measured, predicted, verdict in lines:
            print("%s @ %s: measured %s predicted %s %s"
                  % (case, budget, measured, predicted, verdict))
    print("%d cases, %d broken" % (len(cases), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
