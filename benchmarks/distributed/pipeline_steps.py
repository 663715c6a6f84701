#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Pipeline-parallel steps: remat's plan against the uniform recompute
policies users set by hand, at the same per-rank peak (issue 50).

Generates the 1F1B step of test/Distributed/gen_pipeline.py (P stages, M
micro-batches, L layers per stage) in the forms a user writes by hand,
every stage doing the same:

  no recompute   --stash all: the stage input and every layer's output in
                 rings (as written);
  selective, k   the stage input and the first L - k layers' outputs in
                 rings, the last k layers run again in the backward slot
                 (Megatron's --recompute-num-layers k on every stage;
                 gen_pipeline.py's own code with one more ring count, see
                 selective_text);
  full           --stash input: the stage input only, all L layers again;

and what remat-opt makes of the no-recompute form at the smallest budget
and at each hand form's measured peak (--remat-budget=<peak>B). With
--gpipe also the GPipe step (L = 1, every iteration stashed) as written
and at the smallest budget.

Every form runs as RANKS MPI processes (test/Integration/CPU/run.sh
RANKS=N: each rank's measured peak), and is timed against the no-recompute
form (time.sh RANKS=N: paired, interleaved calls of both in one program per
rank; the ratio is the median over the ranks of each rank's median
per-pair ratio). Predicted: the report's peak and time (time_before of a
hand form at 100 %, time_after of a plan) over the no-recompute form's,
with the FLOP model, and with --calibrate also with a cost table measured
under MPI (benchmarks/timing/calibrate_costs.py --ranks N) for each
distinct program (remat then plans with the no-recompute form's table).

Usage: pipeline_steps.py [--ranks 4] [--microbatches 8] [--layers 2 3]
           [--rows 64] [--width 256] [--runs 5] [--calibrate] [--gpipe]
           [--keep DIR]
Needs remat-opt on PATH, mlir-runner and MPICH, as run.sh does.
"""
import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import types

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEN = os.path.join(ROOT, "test", "Distributed", "gen_pipeline.py")
RUN = os.path.join(ROOT, "test", "Integration", "CPU", "run.sh")
TIME = os.path.join(ROOT, "test", "Integration", "CPU", "time.sh")
CALIBRATE = os.path.join(ROOT, "benchmarks", "timing", "calibrate_costs.py")


def load_generator():
    """gen_pipeline.py as a module, its 1F1B writer taking the ring count
    from o.keep_rings when set (gen_pipeline.py offers L + 1 or 1 only)."""
    src = open(GEN).read()
    line = 'NR = L + 1 if o.stash == "all" else 1'
    if line not in src:
        sys.exit("pipeline_steps.py: gen_pipeline.py's ring count line moved")
    src = src.replace(line, 'NR = getattr(o, "keep_rings", None) or (%s)' % line[5:])
    mod = types.ModuleType("gen_pipeline")
    mod.__file__ = GEN
    sys.dont_write_bytecode = True
    exec(compile(src, GEN, "exec"), mod.__dict__)
    return mod


def generate(gen, out, pipeline, P, M, L, R, D, stash="all", keep_rings=None):
    """Writes out and its harness; the function is always named as the
    --stash all form's, so time.sh can pair any two of them."""
    a = types.SimpleNamespace(pipeline=pipeline, stages=P, microbatches=M,
                              rows=R, width=D, layers_per_stage=L, data=1,
                              stash=stash, ring="stage0",
                              recompute_stages=None, single=False)
    o = gen.Opts(a)
    if keep_rings:
        o.keep_rings = keep_rings
    text = gen.pipeline_text(o) if pipeline == "gpipe" else gen.onef1b_text(o)
    name = o.name()
    o.stash = "all"
    text = text.replace("@" + name + "(", "@" + o.name() + "(")
    if keep_rings:
        text = text.replace("// Regenerate:", "// (benchmarks/distributed/pipeline_steps.py: "
                            "%d rings kept) Regenerate:" % keep_rings, 1)
    open(out, "w").write(text)
    open(out[:-5] + ".harness.mlir", "w").write(gen.harness_text(o))


def report_of(model, budget, out, report, table=None, refuse_ok=False):
    cmd = ["remat-opt", model, "--remat-budget=" + budget,
           "--remat-report=" + report, "-o", out]
    if table:
        cmd.append("--remat-cost-table=" + table)
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0 and refuse_ok:
        return None
    if p.returncode != 0:
        sys.exit("remat-opt %s at %s failed:\n%s" % (model, budget, p.stderr[-3000:]))
    return json.load(open(report))["functions"][0]


def measured_peaks(model, harness, ranks):
    env = dict(os.environ, RANKS=str(ranks))
    p = subprocess.run([RUN, model, harness], env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("running %s failed:\n%s" % (model, p.stderr[-3000:]))
    return [int(v) for _, v in sorted(re.findall(
        r"rank=(\d+) window_peak_bytes=(\d+)", p.stderr))]


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def measured_times(original, other, harness, ranks, runs):
    """(median over the ranks of each rank's median ratio other / original,
    the same for other's and original's median call times in ms); the
    outputs of both must be identical (time.sh checks)."""
    env = dict(os.environ, RANKS=str(ranks), RUNS=str(runs), WARMUP="1")
    p = subprocess.run([TIME, original, other, harness], env=env,
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("timing %s failed:\n%s%s" % (other, p.stdout[-1000:], p.stderr[-3000:]))
    ratios = [float(m) for m in re.findall(
        r"timer_ratio num=1 den=0 n=\d+ .*?median=([0-9.]+)", p.stderr)]
    t0 = [int(m) for m in re.findall(r"timer id=0 .*?median_ns=(\d+)", p.stderr)]
    t1 = [int(m) for m in re.findall(r"timer id=1 .*?median_ns=(\d+)", p.stderr)]
    return median(ratios), median(t1) / 1e6, median(t0) / 1e6


def calibrate(model, table, ranks):
    p = subprocess.run([sys.executable, CALIBRATE, model, "-o", table, "--ranks", str(ranks),
                        "--runs", "5", "--warmup", "2"], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("calibrating %s failed:\n%s" % (model, p.stderr[-3000:]))
    return table


def digest(path):
    """The program's text without its header comments and the cost
    attributes remat-opt leaves on the ops (a table's times or the FLOP
    model's: the same plan either way)."""
    text = "\n".join(l for l in open(path).read().splitlines() if not l.startswith("//"))
    text = re.sub(r"remat\.cost = #remat\.cost<[^>]*>", "", text)
    return hashlib.sha1(text.encode()).hexdigest()


def bench(gen, tmp, args, pipeline, L):
    P, M, R, D = args.ranks, args.microbatches, args.rows, args.width
    tag = "%s_l%d" % (pipeline, L)
    base = os.path.join(tmp, tag + "_all.mlir")
    generate(gen, base, pipeline, P, M, L, R, D)
    harness = base[:-5] + ".harness.mlir"
    rows = [("no recompute (as written)", base, "hand")]
    if pipeline == "1f1b":
        for k in range(1, L):
            f = os.path.join(tmp, "%s_sel%d.mlir" % (tag, k))
            generate(gen, f, pipeline, P, M, L, R, D, keep_rings=L + 1 - k)
            rows.append(("selective: last %d of %d layers recomputed" % (k, L), f, "hand"))
        f = os.path.join(tmp, tag + "_input.mlir")
        generate(gen, f, pipeline, P, M, L, R, D, stash="input")
        rows.append(("full: every layer recomputed (--stash input)", f, "hand"))
    tables = {}
    if args.calibrate:
        for _, f, _ in rows:
            tables[f] = calibrate(f, f[:-5] + ".costs.json", P)
    # The hand forms' reports (at 100 %: as written) and measured peaks.
    results = []
    for what, f, kind in rows:
        rep = report_of(f, "100%", os.devnull, f[:-5] + ".json")
        cal = (report_of(f, "100%", os.devnull, f[:-5] + ".cal.json", tables[f])
               if args.calibrate else None)
        results.append(dict(what=what, file=f, peak=rep["peak_before"],
                            time=rep["time_before"], cal=cal and cal["time_before"],
                            strategy="-"))
    # remat: the smallest budget, and each hand form's peak.
    seen = {}
    budgets = [("min", "min")] + [("%dB" % r["peak"], r["what"].split(":")[0])
                                  for r in results[1:]]
    if pipeline == "gpipe":
        budgets += [("80%", ""), ("60%", "")]
    for budget, at in budgets:
        # The FLOP model's plan; with --calibrate the plan made with the
        # no-recompute form's measured table is the one run and timed.
        flop = os.path.join(tmp, "%s_remat_%s.flop.mlir" % (tag, budget))
        rep = report_of(base, budget, flop, flop[:-5] + ".json", refuse_ok=budget != "min")
        out = flop
        cal = None
        if rep is not None and args.calibrate:
            out = os.path.join(tmp, "%s_remat_%s.cal.mlir" % (tag, budget))
            cal = report_of(base, budget, out, out[:-5] + ".json", tables[base],
                            refuse_ok=budget != "min")
        if rep is None or (args.calibrate and cal is None):
            print("remat-opt --remat-budget=%s: refused (below the smallest budget)" % budget)
            continue
        used = cal or rep
        key = digest(out)
        label = "remat-opt --remat-budget=%s" % budget
        if budget.endswith("B"):
            label += " (%s's peak)" % at
        if key in seen:
            seen[key]["what"] += "; " + label
            continue
        # The FLOP prediction of another plan than the one timed: marked.
        other = "*" if args.calibrate and digest(flop) != key else ""
        r = dict(what=label, file=out, peak=used["peak_after"], time=rep["time_after"],
                 other=other, cal=cal and cal["time_after"],
                 strategy=used["strategy"] +
                 (" (%d dropped)" % used["stash_rings_dropped"]
                  if used.get("stash_rings_dropped") else ""))
        seen[key] = r
        results.append(r)
    ref = results[0]
    for r in results:
        r["measured"] = measured_peaks(r["file"], harness, P)
        if r is ref:
            r["ratio"], r["ms"], _ = 1.0, None, None
        else:
            r["ratio"], r["ms"], r["ref_ms"] = measured_times(base, r["file"], harness, P,
                                                              args.runs)
    ref_ms = median([r["ref_ms"] for r in results if r is not ref])
    ref["ms"] = ref_ms
    print("\n%s, P = %d, M = %d, L = %d, %d x %d per micro-batch, %d ranks, %d paired calls:\n"
          % ("1F1B" if pipeline == "1f1b" else "GPipe", P, M, L, R, D, P, args.runs))
    head = ("| form | strategy | predicted peak per rank | measured per rank | "
            "predicted time (FLOP) | %smeasured time | median call |"
            % ("predicted time (calibrated) | " if args.calibrate else ""))
    print(head)
    print("|" + "|".join(["---"] * (head.count("|") - 1)) + "|")
    for r in results:
        m = r["measured"]
        meas = str(m[0]) if len(set(m)) == 1 else " / ".join(map(str, m))
        cal = ""
        if args.calibrate:
            cal = "%.3f | " % (r["cal"] / ref["cal"])
        print("| %s | %s | %d | %s | %.3f%s | %s%.3f | %.0f ms |" % (
            r["what"], r["strategy"], r["peak"], meas, r["time"] / ref["time"],
            r.get("other", ""), cal,
            r["ratio"], r["ms"]))
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ranks", type=int, default=4, help="P, the stages = MPI ranks")
    ap.add_argument("--microbatches", type=int, default=8)
    ap.add_argument("--layers", type=int, nargs="+", default=[2, 3],
                    help="layers per stage of the 1F1B steps (default 2 3)")
    ap.add_argument("--rows", type=int, default=64)
    ap.add_argument("--width", type=int, default=256)
    ap.add_argument("--runs", type=int, default=5,
                    help="paired timed calls per rank (time.sh RUNS)")
    ap.add_argument("--calibrate", action="store_true",
                    help="also predict with cost tables measured under MPI")
    ap.add_argument("--gpipe", action="store_true", help="also the GPipe step (L = 1)")
    ap.add_argument("--keep", help="keep the generated programs and plans in DIR")
    args = ap.parse_args()
    gen = load_generator()
    with tempfile.TemporaryDirectory() as scratch:
        tmp = args.keep or scratch
        os.makedirs(tmp, exist_ok=True)
        for L in args.layers:
            bench(gen, tmp, args, "1f1b", L)
        if args.gpipe:
            bench(gen, tmp, args, "gpipe", 1)


if __name__ == "__main__":
    main()
