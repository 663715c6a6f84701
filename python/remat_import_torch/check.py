"""remat-import-torch check: import, rematerialize, lower, run, compare.

  remat-import-torch check MODEL [--batch N] [--input-shape C,H,W] [--loss L]
                     [--budget 50%] [--strategy auto] [--rtol 1e-4]
                     [--work DIR] [--remat-opt PATH] [--summary]

1. imports MODEL (executable, --strict) with a harness of deterministic
   argument values;
2. `remat-opt --remat-budget=BUDGET --remat-report=...` (no budget: the
   step as imported);
3. lowers with `remat-opt --remat-lower-to-cpu` and runs it with mlir-runner
   and libRematRuntime (test/Integration/CPU/run.sh, exact byte counts:
   ALIGNMENT=1), which measures the peak bytes while the step runs;
4. runs PyTorch's own backward() on the same weights and inputs (float64),
   and requires, for the loss and every gradient,
   max |mlir - torch| <= rtol * max |torch|, and measured peak <= budget.
Prints one line per tensor and a summary; exit status 0 when all holds.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from .cli import Parser, add_model_args, describe, fail, header, import_model

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def find_tool(name, explicit=None):
    if explicit:
        return explicit
    bindir = os.environ.get("REMAT_BIN_DIR")
    if bindir and os.path.exists(os.path.join(bindir, name)):
        return os.path.join(bindir, name)
    found = shutil.which(name)
    if found:
        return found
    for b in ("build", "build-torch"):
        p = os.path.join(REPO, b, "bin", name)
        if os.path.exists(p):
            return p
    sys.exit("check: cannot find %s (set REMAT_BIN_DIR)" % name)


def run(cmd, env=None, log=None, may_fail=False):
    t0 = time.time()
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if log is not None:
        log.append((os.path.basename(cmd[0]), time.time() - t0))
    if res.returncode != 0 and may_fail:
        return res
    if res.returncode != 0:
        errors = [l for l in res.stderr.splitlines() if "error:" in l]
        sys.stderr.write("\n".join(errors) + "\n" if errors else res.stderr[-4000:])
        sys.exit("check: command failed (%d): %s" % (res.returncode, " ".join(cmd)))
    return res


def main(argv):
    ap = Parser(prog="remat-import-torch check",
                                 description="End-to-end check against PyTorch")
    add_model_args(ap)
    ap.add_argument("--budget", default=None,
                    help="remat budget (e.g. 50%%, 3MiB); 'min': the smallest budget "
                         "the pass can meet (asked with a 1%% budget first)")
    ap.add_argument("--strategy", default=None)
    ap.add_argument("--rtol", type=float, default=1e-4)
    ap.add_argument("--work", default=None, help="keep the files in this directory")
    ap.add_argument("--remat-opt", default=None)
    ap.add_argument("--json", default=None, help="write the numbers as JSON")
    ap.add_argument("--match-masks", action="store_true",
                    help="also compare with PyTorch's backward (the joint graph, float64) "
                         "evaluated at the ReLU activation pattern of the MLIR run, learned "
                         "from a second run that returns every ReLU output; the check then "
                         "passes on that comparison (see docs/importer.md)")
    ap.add_argument("--probe", default="",
                    help="debugging: comma-separated FX node names whose values the step "
                         "also returns; compared with the joint graph run in float64")
    args = ap.parse_args(argv)
    args.planning_only = False
    args.strict = True
    args.quiet = True

    import torch
    from .harness import harness_text, init_for, reference, parse_memrefs, compare

    torch.set_num_threads(1)
    work = args.work or tempfile.mkdtemp(prefix="remat-import-")
    os.makedirs(work, exist_ok=True)
    opt = find_tool("remat-opt", args.remat_opt)
    times = []

    t0 = time.time()
    args.probes = [p for p in args.probe.split(",") if p]
    try:
        joint, em = import_model(args)
    except KeyboardInterrupt:
        raise
    except Exception as e:  # The model's code, or torch refusing it.
        return fail("%s: %s" % (args.model, describe(e)))
    times.append(("import", time.time() - t0))
    inits = [init_for(p, k, joint.num_classes) for k, p in enumerate(em.arg_primals)]
    step = os.path.join(work, "step.mlir")
    harness = os.path.join(work, "step.harness.mlir")
    with open(step, "w") as fh:
        fh.write(em.f.text(header(args, joint, em)))
    with open(harness, "w") as fh:
        fh.write(harness_text(em, inits))

    model_file = step
    report = None
    min_note = None
    if args.budget == "min":
        res = run([opt, step, "--remat-budget=1%", "-o", os.devnull], may_fail=True, log=times)
        m = re.search(r"smallest budget it can meet is (\d+) B \(([0-9.]+)%\)", res.stderr)
        if not m:
            sys.stderr.write(res.stderr[-2000:])
            sys.exit("check: could not learn the smallest budget")
        args.budget = m.group(1) + "B"
        min_note = "smallest budget the pass can meet: %s B (%s%%)" % (m.group(1), m.group(2))
        print("%s: %s" % (args.model, min_note))
    if args.budget:
        model_file = os.path.join(work, "step.remat.mlir")
        rpath = os.path.join(work, "report.json")
        cmd = [opt, step, "--remat-budget=" + args.budget, "--remat-report=" + rpath,
               "-o", model_file]
        if args.strategy:
            cmd.append("--remat-strategy=" + args.strategy)
        res = run(cmd, log=times, may_fail=True)
        if res.returncode != 0:
            for line in res.stderr.splitlines():
                if "error:" in line:
                    print("%s: remat-opt: %s" % (args.model, line.split("error:", 1)[1].strip()))
            print("%s: FAIL (remat-opt could not meet the budget)" % args.model)
            return 1
        with open(rpath) as fh:
            report = json.load(fh)["functions"][0]

    env = dict(os.environ, REMAT_OPT=opt, ALIGNMENT="1")
    t0 = time.time()
    res = run(["bash", os.path.join(REPO, "test", "Integration", "CPU", "run.sh"),
               model_file, harness], env=env)
    times.append(("lower+run", time.time() - t0))
    m = re.search(r"window_peak_bytes=(\d+)", res.stderr)
    peak = int(m.group(1)) if m else None
    printed = parse_memrefs(res.stdout)

    masked = None
    if args.match_masks:
        from .emit import Emitter
        from .harness import joint_values, relu_root
        relus = [n.name for n in joint.graph_module.graph.nodes
                 if n.op == "call_function" and str(n.target) == "aten.relu.default"
                 and em._needed(n)]
        pem = Emitter(joint, args.name, strict=True, probes=relus).run()
        pstep = os.path.join(work, "step.probe.mlir")
        pharness = os.path.join(work, "step.probe.harness.mlir")
        with open(pstep, "w") as fh:
            fh.write(pem.f.text(["ReLU probes of " + args.model]))
        with open(pharness, "w") as fh:
            fh.write(harness_text(pem, inits))
        t0 = time.time()
        pres = run(["bash", os.path.join(REPO, "test", "Integration", "CPU", "run.sh"),
                    pstep, pharness], env=env)
        times.append(("probe run", time.time() - t0))
        pprinted = parse_memrefs(pres.stdout)[1 + len(pem.result_primals):]
        masks = {name: torch.tensor(vals).reshape(shape) > 0
                 for name, (shape, vals) in zip(relus, pprinted)}
        own = joint_values(joint, em, inits, relus)
        flips = sum(int((masks[r] != (own[r] > 0)).sum()) for r in relus)
        masked = joint_values(joint, em, inits, None, masks=masks)
        masked["flips"] = flips
        masked["relu_elements"] = sum(masks[r].numel() for r in relus)

    t0 = time.time()
    loss, grads = reference(joint, em, inits)
    times.append(("pytorch", time.time() - t0))
    # PyTorch's own float32 backward against float64: how well-conditioned
    # the step is (a float32 computation cannot be expected to do better).
    import torch as _t
    _, grads32 = reference(joint, em, inits, _t.float32)
    torch32 = max([((a.double() - b).abs().max() / b.abs().max()).item()
                   for a, b in zip(grads32, grads) if b.abs().max() > 0] + [0.0])
    ok = True
    lines = []
    if args.probes:
        from .harness import joint_values
        vals = joint_values(joint, em, inits, args.probes)
        for name, (shape, got) in zip(args.probes, printed[1 + len(grads):]):
            print(compare("probe " + name, shape, got, vals[name], args.rtol)[1])
            if args.work:  # both values, for a closer look
                torch.save({"mlir": torch.tensor(got).reshape(shape), "torch": vals[name]},
                           os.path.join(work, "probe-%s.pt" % name))
        printed = printed[:1 + len(grads)]
    if len(printed) != 1 + len(grads):
        print("%s: %d tensors printed, expected %d FAIL" % (args.model, len(printed), 1 + len(grads)))
        return 1
    masked_ok, masked_worst, masked_bad = None, 0.0, 0
    if masked is not None:
        masked_ok = True
        good, line = compare("loss", printed[0][0], printed[0][1], masked["loss"], args.rtol)
        masked_ok &= good
        mfloor = max([g.abs().max().item() for g in masked["grads"] if g.numel()] + [0.0])
        for p, g, (shape, vals) in zip(em.result_primals, masked["grads"], printed[1:]):
            good, line = compare("d" + p.name, shape, vals, g, args.rtol, mfloor)
            masked_ok &= good
            m = re.search(r"max rel err ([0-9.e+-]+)", line)
            if m:
                masked_worst = max(masked_worst, float(m.group(1)))
            if not good:
                masked_bad = masked_bad + 1
    good, line = compare("loss", printed[0][0], printed[0][1], loss, args.rtol)
    ok &= good
    lines.append(line)
    worst = 0.0
    floor = max([g.abs().max().item() for g in grads if g.numel()] + [0.0])
    for p, g, (shape, vals) in zip(em.result_primals, grads, printed[1:]):
        good, line = compare("d" + p.name, shape, vals, g, args.rtol, floor)
        ok &= good
        lines.append(line)
        m = re.search(r"max rel err ([0-9.e+-]+)", line)
        if m:
            worst = max(worst, float(m.group(1)))
    for line in lines:
        print(line)
    budget = report["budget"] if report else None
    peak_ok = peak is not None and (budget is None or peak <= budget)
    plain_ok = ok
    if masked is not None:
        print("%s: at the MLIR run's ReLU pattern (%d of %d ReLU outputs change sign against "
              "float64): %s, max rel err %.1e%s" % (
                  args.model, masked["flips"], masked["relu_elements"],
                  "ok" if masked_ok else "FAIL", masked_worst,
                  "" if masked_ok else " (%d tensors above rtol)" % masked_bad))
        ok = masked_ok
    ok &= peak_ok
    summary = {"model": args.model, "gradients": len(grads), "loss": loss.item(),
               "max_rel_err": worst, "measured_peak": peak, "budget": budget,
               "predicted_peak": report["peak_after"] if report else None,
               "peak_before": report["peak_before"] if report else None,
               "overhead_percent": report["overhead_percent"] if report else None,
               "torch_f32_rel_err": torch32,
               "plain_comparison_ok": bool(plain_ok),
               "relu_sign_flips": masked["flips"] if masked else None,
               "max_rel_err_at_mlir_relu_pattern": masked_worst if masked else None,
               "strategy": report["strategy"] if report else None,
               "seconds": {k: round(v, 2) for k, v in times}}
    print("%s: peak measured %s B%s" % (
        args.model, peak, (", budget %d B, predicted %d B (no remat: %d B), overhead %.2f%%"
                           % (budget, report["peak_after"], report["peak_before"],
                              report["overhead_percent"])) if report else ""))
    print("%s: PyTorch's own float32 backward: max rel err %.1e against float64"
          % (args.model, torch32))
    print("%s: %s (loss and %d gradients, rtol %g, max rel err %.1e against backward()%s%s)" % (
        args.model, "PASS" if ok else "FAIL", len(grads), args.rtol, worst,
        ", %.1e at the MLIR's ReLU pattern" % masked_worst if masked is not None else "",
        "" if peak_ok else "; measured peak above the budget"))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(summary, fh, indent=1)
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1
