# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""remat-import-torch check: import, rematerialize, lower, run, compare.

  remat-import-torch check MODEL [--batch N] [--input-shape C,H,W] [--loss L]
                     [--budget 50%] [--strategy auto] [--rtol 1e-4]
                     [--work DIR] [--remat-opt PATH] [--json FILE]

1. imports MODEL (executable, --strict) with a harness of deterministic
   argument values;
2. `remat-opt --remat-budget=BUDGET --remat-report=...` (no budget: the
   step as imported);
3. lowers with `remat-opt --remat-lower-to-cpu` and runs it with mlir-runner
   and libRematRuntime (test/Integration/CPU/run.sh, with the default
   alignment the planner counts too), which measures the peak bytes while
   the step runs; the harness writes the loss and gradients in binary
   (remat_write_f32, step.results in the work directory);
4. runs PyTorch's own backward() on the same weights and inputs (float64),
   and requires, for the loss and every gradient,
   max |mlir - torch| <= tol * max |torch| (floored: harness.rel_err),
   tol = max(rtol, F * PyTorch's own float32 error, the same metric), and
   measured peak <= budget; where that fails on a step with ReLUs or
   hardtanhs, the step is judged again at its own activation pattern
   (--match-masks=auto: float32 and float64 may put an input within
   rounding of a kink on different sides).
Prints one line per tensor and a summary; exit status 0 when all holds.
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from .cli import HOW_TO_RUN, Parser, add_model_args, describe, fail, header, import_model

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


def build_parser():
    ap = Parser(prog="remat-import-torch check",
                                 description="End-to-end check against PyTorch")
    add_model_args(ap)
    ap.add_argument("more_models", nargs="*", metavar="MODEL",
                    help="more models, checked one after the other in the same process "
                         "with the same options (saves PyTorch's start-up per model); the "
                         "exit status is the first failure's")
    ap.add_argument("--budget", default=None,
                    help="remat budget (e.g. 50%%, 3MiB); 'min': the smallest budget "
                         "the pass can meet (asked with a 1%% budget first)")
    ap.add_argument("--strategy", default=None,
                    help="remat-opt --remat-strategy (default: remat-opt's own)")
    ap.add_argument("--rtol", type=float, default=1e-4,
                    help="tolerance: max |mlir - torch| <= RTOL * max |torch| per tensor "
                         "(default 1e-4; --f32-factor may raise it)")
    ap.add_argument("--f32-factor", type=float, default=2.0, metavar="F",
                    help="a step no worse than F times PyTorch's own float32 error "
                         "(against float64, the same metric) passes: the tolerance is "
                         "max(RTOL, F x that error) (default 2; 0: RTOL alone)")
    ap.add_argument("--max-tolerance", type=float, default=1e-2, metavar="T",
                    help="the F x float32 allowance never exceeds T (default 1e-2): where "
                         "PyTorch's own float32 is that far off, the step is too "
                         "ill-conditioned to judge at this size")
    ap.add_argument("--work", default=None, help="keep the files in this directory")
    ap.add_argument("--remat-opt", default=None,
                    help="the remat-opt to use (default: $REMAT_BIN_DIR, PATH, build/bin)")
    ap.add_argument("--json", default=None, help="write the numbers as JSON")
    ap.add_argument("--match-masks", nargs="?", const="always", default="auto",
                    choices=("auto", "always", "never"),
                    help="compare with PyTorch's backward (the joint graph, float64) "
                         "evaluated at the ReLU/hardtanh activation pattern and the max-pooling "
                         "maxima of the MLIR run, learned from a second run that returns them, "
                         "and judge the step on that comparison, provided every output that "
                         "changed side and every maximum that moved is within the tolerance of "
                         "float64's (a near-tie at a kink). auto (the default): only when the plain comparison fails "
                         "or is too ill-conditioned to judge (--max-tolerance); "
                         "always (--match-masks alone): every time; never: the plain "
                         "comparison decides (see docs/importer.md)")
    ap.add_argument("--probe-cache", default=None, metavar="DIR",
                    help="keep the results of --match-masks' second run in DIR, keyed by "
                         "its step and harness (the step as imported, whatever the budget): "
                         "a check of the same model at another budget reuses them")
    ap.add_argument("--conditioning", action="store_true",
                    help="print PyTorch's own float32 error against float64, plainly and at "
                         "float32's own ReLU pattern and max-pooling maxima, and whether a "
                         "check can judge the step at this size; runs no step (seconds where "
                         "a check takes minutes)")
    ap.add_argument("--probe", default="",
                    help="debugging: comma-separated FX node names whose values the step "
                         "also returns; compared with the joint graph run in float64")
    return ap


def write_step(args, joint, em, inits, work):
    """step.mlir and its harness in `work`; returns their paths."""
    from .harness import harness_text
    step = os.path.join(work, "step.mlir")
    harness = os.path.join(work, "step.harness.mlir")
    with open(step, "w") as fh:
        fh.write(em.f.text(header(args, joint, em)))
    with open(harness, "w") as fh:
        fh.write(harness_text(em, inits, binary=True))
    return step, harness


def rematerialize(args, opt, step, work, times):
    """remat-opt at args.budget ('min': the smallest it can meet, learned
    from its refusal of 1%): (model file to run, report or None), or
    (None, None) when remat-opt cannot meet the budget."""
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
            return None, None
        with open(rpath) as fh:
            report = json.load(fh)["functions"][0]
    return model_file, report


def run_step(model_file, harness, env, results):
    """Lowers and runs the step, whose harness writes its results to the
    file `results`: (measured peak or None, [(shape, values)] of them)."""
    from .harness import read_results
    res = run(["bash", os.path.join(REPO, "test", "Integration", "CPU", "run.sh"),
               model_file, harness], env=dict(env, REMAT_RESULTS_FILE=results))
    m = re.search(r"window_peak_bytes=(\d+)", res.stderr)
    peak = int(m.group(1)) if m else None
    return peak, read_results(results)


def cached_probe_run(args, pstep, pharness, env, work):
    """The probe step's results: from --probe-cache when a run of the same
    step and harness left them there (the probe step is the step as
    imported, the same at every budget), else from a run, then kept."""
    from .harness import read_results
    results = os.path.join(work, "step.probe.results")
    if not args.probe_cache:
        return run_step(pstep, pharness, env, results)[1]
    h = hashlib.sha256()
    for path in (pstep, pharness):
        with open(path, "rb") as fh:
            h.update(fh.read())
    kept = os.path.join(args.probe_cache, h.hexdigest()[:32] + ".results")
    if os.path.exists(kept):
        try:
            printed = read_results(kept)
            print("%s: the ReLU pattern's run: reused %s" % (args.model, kept))
            return printed
        except ValueError as e:   # truncated: run again, keep the new one
            print("%s: %s: %s; running the probe step again" % (args.model, kept, e))
    printed = run_step(pstep, pharness, env, results)[1]
    os.makedirs(args.probe_cache, exist_ok=True)
    tmp = "%s.%d.tmp" % (kept, os.getpid())
    shutil.copyfile(results, tmp)
    os.replace(tmp, kept)
    return printed


def match_masks(args, joint, em, inits, work, env, times):
    """--match-masks: runs a step that also returns every ReLU and hardtanh
    (ReLU6) output and every max pooling's indices, and evaluates PyTorch's
    backward at that activation pattern and those maxima."""
    from .emit import Emitter
    import torch
    from .harness import (KINKS, POOLS, harness_text, joint_values, kink_pattern,
                          pool_argmax, pool_indices_node, step_rel_err)
    nodes = [n for n in joint.graph_module.graph.nodes
             if n.op == "call_function" and str(n.target) in KINKS and em._needed(n)]
    relus = [n.name for n in nodes]
    pools = [(n, pool_indices_node(n)) for n in joint.graph_module.graph.nodes
             if n.op == "call_function" and str(n.target) in POOLS and em._needed(n)]
    pools = [(n, i) for n, i in pools if i is not None and em._needed(i)]
    pem = Emitter(joint, args.name, strict=True,
                  probes=relus + [i.name for _, i in pools],
                  f64_sums_from=args.f64_sums_from,
                  f64_products_from=args.f64_products_from).run()
    pstep = os.path.join(work, "step.probe.mlir")
    pharness = os.path.join(work, "step.probe.harness.mlir")
    with open(pstep, "w") as fh:
        fh.write(pem.f.text(["ReLU probes of " + args.model]))
    with open(pharness, "w") as fh:
        fh.write(harness_text(pem, inits, binary=True))
    t0 = time.time()
    pprinted = cached_probe_run(args, pstep, pharness, env, work)
    times.append(("probe run", time.time() - t0))
    pprinted = pprinted[1 + len(pem.result_primals):]
    pooled = pprinted[len(nodes):]
    pprinted = pprinted[:len(nodes)]
    masks = {n.name: kink_pattern(n, vals, shape) for n, (shape, vals) in zip(nodes, pprinted)}
    own = joint_values(joint, em, inits, relus + [n.args[0].name for n, _ in pools]
                       + [i.name for _, i in pools])
    windows, moved, pool_errs = 0, 0, []
    for (n, i), (shape, codes) in zip(pools, pooled):
        x = own[n.args[0].name].double()
        mine = pool_argmax(n, codes, shape, list(x.shape))
        masks[n.name] = mine
        windows += mine.numel()
        other = mine != own[i.name]
        if other.any():
            # A near-tie: the two maxima lie within the tolerance of each
            # other (relative to the input's largest value).
            flat = x.flatten(2)
            a = flat.gather(2, mine.flatten(2)).view(mine.shape)
            b = flat.gather(2, own[i.name].flatten(2)).view(mine.shape)
            scale = max(x.abs().max().item(), 1e-30)
            moved += int(other.sum())
            pool_errs.append((a - b)[other].abs().max().item() / scale)
    flips, flip_err = 0, 0.0
    for n, (shape, vals) in zip(nodes, pprinted):
        flipped = masks[n.name] != kink_pattern(n, own[n.name])
        if flipped.any():
            # A flip the arithmetic explains: the two outputs lie within
            # rounding of the kink, so of each other (relative to the
            # tensor's largest output, as every comparison here is).
            ref = own[n.name].double()
            step = torch.as_tensor(vals, dtype=torch.float64).reshape(shape)
            scale = max(ref.abs().max().item(), 1e-30)
            flips += int(flipped.sum())
            flip_err = max(flip_err, (step - ref)[flipped].abs().max().item() / scale)
    flip_err = max([flip_err] + pool_errs)
    masked = joint_values(joint, em, inits, None, masks=masks)
    # PyTorch's float32 at the same pattern: the error of the arithmetic
    # alone (its own pattern may flip kinks too: regnet_x_400mf at 96x96).
    m32 = joint_values(joint, em, inits, None, dtype=torch.float32, masks=masks)
    masked["torch32"] = step_rel_err(m32["loss"], m32["grads"], masked["loss"], masked["grads"])
    masked["flips"] = flips
    masked["flip_err"] = flip_err
    masked["relu_elements"] = sum(masks[r].numel() for r in relus)
    masked["pool_windows"], masked["pool_moved"] = windows, moved
    return masked


def has_kinks(joint, em):
    """Whether the step has a ReLU, hardtanh or max pooling whose pattern
    --match-masks can match."""
    from .harness import KINKS, POOLS
    return any(n.op == "call_function" and str(n.target) in KINKS + POOLS and em._needed(n)
               for n in joint.graph_module.graph.nodes)


def allowance(args, torch32):
    """The tolerance: rtol, or F times PyTorch's own float32 error, capped
    by --max-tolerance (beyond it float32 says nothing about the step)."""
    return max(args.rtol, min(args.f32_factor * torch32, args.max_tolerance))


def compare_all(primals, loss, grads, printed, tol):
    """Compares the printed loss and gradients with PyTorch's: (all ok,
    worst relative error, tensors above tol, one line per tensor)."""
    from .harness import compare
    ok, worst, bad, lines = True, 0.0, 0, []
    good, line = compare("loss", printed[0][0], printed[0][1], loss, tol)
    ok &= good
    lines.append(line)
    floor = max([g.abs().max().item() for g in grads if g.numel()] + [0.0])
    for p, g, (shape, vals) in zip(primals, grads, printed[1:]):
        good, line = compare("d" + p.name, shape, vals, g, tol, floor)
        ok &= good
        lines.append(line)
        m = re.search(r"max rel err ([0-9.e+-]+)", line)
        if m:
            worst = max(worst, float(m.group(1)))
        if not good:
            bad = bad + 1
    return ok, worst, bad, lines


def compare_probes(args, joint, em, inits, printed, ngrads, work):
    """--probe: compares the extra results; returns the others."""
    import torch
    from .harness import compare, joint_values
    vals = joint_values(joint, em, inits, args.probes)
    for name, (shape, got) in zip(args.probes, printed[1 + ngrads:]):
        print(compare("probe " + name, shape, got, vals[name], args.rtol)[1])
        if args.work:  # both values, for a closer look
            torch.save({"mlir": torch.as_tensor(got).reshape(shape), "torch": vals[name]},
                       os.path.join(work, "probe-%s.pt" % name))
    return printed[:1 + ngrads]


def summarize(args, r, report, peak, times):
    """Prints the peaks and the verdict, writes --json; returns the exit status.
    `r`: the comparisons (a dict, see main)."""
    from .lowering.builder import F64_PRODUCTS_FROM, F64_SUMS_FROM
    budget = report["budget"] if report else None
    peak_ok = peak is not None and (budget is None or peak <= budget)
    ok, masked = r["ok"], r["masked"]
    if masked is not None:
        print("%s: at the MLIR run's ReLU pattern (%d of %d ReLU/hardtanh outputs change "
              "side against float64%s): %s, max rel err %.1e (PyTorch's float32 at that "
              "pattern: %.1e)%s" % (
                  args.model, masked["flips"], masked["relu_elements"],
                  "; %d of %d max-pooling windows take another maximum" % (
                      masked["pool_moved"], masked["pool_windows"])
                  if masked["pool_windows"] else "",
                  "ok" if r["masked_ok"] else "FAIL", r["masked_worst"], masked["torch32"],
                  "" if r["masked_ok"] else
                  " (%d tensors above the tolerance)" % r["masked_bad"] if r["flips_ok"] else
                  " (an output that changed side is %.1e off float64's: not a rounding flip)"
                  % masked["flip_err"]))
        ok = r["masked_ok"]
    ok &= peak_ok
    dtol = r["masked_tol"] if masked is not None else r["tol"]  # what decided
    summary = {"model": args.model, "gradients": r["ngrads"], "loss": r["loss"].item(),
               "max_rel_err": r["worst"], "measured_peak": peak, "budget": budget,
               "predicted_peak": report["peak_after"] if report else None,
               "peak_before": report["peak_before"] if report else None,
               "overhead_percent": report["overhead_percent"] if report else None,
               "torch_f32_rel_err": r["torch32"], "tolerance": dtol,
               "plain_comparison_ok": bool(r["ok"]),
               "relu_sign_flips": masked["flips"] if masked else None,
               "judged_at_mlir_relu_pattern": masked is not None,
               "max_rel_err_at_mlir_relu_pattern": r["masked_worst"] if masked else None,
               "torch_f32_rel_err_at_mlir_relu_pattern": masked["torch32"] if masked else None,
               "strategy": report["strategy"] if report else None,
               # how the step accumulates: results differ with these
               "f64_sums_from": F64_SUMS_FROM if args.f64_sums_from is None
               else args.f64_sums_from,
               "f64_products_from": F64_PRODUCTS_FROM if args.f64_products_from is None
               else args.f64_products_from,
               "seconds": {k: round(v, 2) for k, v in times}}
    print("%s: peak measured %s B%s" % (
        args.model, peak, (", budget %d B, predicted %d B (no remat: %d B), overhead %.2f%%"
                           % (budget, report["peak_after"], report["peak_before"],
                              report["overhead_percent"])) if report else ""))
    judged32 = masked["torch32"] if masked is not None else r["torch32"]
    print("%s: PyTorch's own float32 backward: max rel err %.1e against float64%s"
          % (args.model, r["torch32"], "" if args.f32_factor * judged32 <= args.max_tolerance
             else " (too ill-conditioned to judge at this size: the tolerance stops at "
                  "--max-tolerance %g; a larger batch or input, docs/importer.md)"
                  % args.max_tolerance))
    print("%s: %s (loss and %d gradients, rtol %g%s, max rel err %.1e against backward()%s%s)" % (
        args.model, "PASS" if ok else "FAIL", r["ngrads"], args.rtol,
        "" if dtol <= args.rtol else
        ", tolerance %.1e (%g x PyTorch's own float32 error%s)" % (
            dtol, args.f32_factor, " at that pattern" if masked is not None else ""),
        r["worst"],
        ", %.1e at the MLIR's ReLU pattern" % r["masked_worst"] if masked is not None else "",
        "" if peak_ok else "; measured peak above the budget"))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(summary, fh, indent=1)
    return 0 if ok else 1


def main(argv):
    ap = build_parser()
    args = ap.parse_args(argv)
    args.planning_only = False
    args.strict = True
    args.quiet = True
    models = [args.model] + args.more_models
    if len(models) > 1 and (args.work or args.json or args.conditioning):
        ap.error("--work, --json and --conditioning take one model (%d given)" % len(models))

    import torch
    torch.set_num_threads(1)
    opt = find_tool("remat-opt", args.remat_opt)
    status = 0
    for model in models:
        # Each on the options given: a check sets some (`--budget min`
        # becomes the bytes it learned).
        one = check_model(argparse.Namespace(**dict(vars(args), model=model)), opt)
        status = status or one
    return status


def check_model(args, opt):
    """The end-to-end check of args.model: 0 when it passes."""
    import torch
    from .emit import NotExecutable
    from .harness import init_for, reference, step_rel_err

    work = args.work or tempfile.mkdtemp(prefix="remat-import-")
    os.makedirs(work, exist_ok=True)
    times = []

    t0 = time.time()
    args.probes = [p for p in args.probe.split(",") if p]
    try:
        joint, em = import_model(args)
    except NotExecutable as e:
        return fail("%s: %s; check runs the step, so %s; remat-import-torch without "
                    "check imports the model to plan only" % (args.model, e, HOW_TO_RUN))
    except KeyboardInterrupt:
        raise
    except Exception as e:  # The model's code, or torch refusing it.
        return fail("%s: %s" % (args.model, describe(e)))
    times.append(("import", time.time() - t0))
    if args.conditioning:
        from .conditioning import report
        return report(args, joint, em)
    inits = [init_for(p, k, joint.num_classes) for k, p in enumerate(em.arg_primals)]
    step, harness = write_step(args, joint, em, inits, work)
    model_file, report = rematerialize(args, opt, step, work, times)
    if model_file is None:
        return 1

    env = dict(os.environ, REMAT_OPT=opt)
    env.pop("ALIGNMENT", None)  # run.sh's default, the planner's too.
    t0 = time.time()
    peak, printed = run_step(model_file, harness, env, os.path.join(work, "step.results"))
    times.append(("lower+run", time.time() - t0))

    t0 = time.time()
    loss, grads = reference(joint, em, inits)
    times.append(("pytorch", time.time() - t0))
    # PyTorch's own float32 backward against float64, in the comparison's
    # metric: how well-conditioned the step is.  A float32 step cannot be
    # expected to do much better, so the tolerance is F times it.
    loss32, grads32 = reference(joint, em, inits, torch.float32)
    torch32 = step_rel_err(loss32, grads32, loss, grads)
    del loss32, grads32
    tol = allowance(args, torch32)
    if args.probes:
        printed = compare_probes(args, joint, em, inits, printed, len(grads), work)
    if len(printed) != 1 + len(grads):
        print("%s: %d tensors printed, expected %d FAIL" % (args.model, len(printed), 1 + len(grads)))
        return 1
    r = {"loss": loss, "ngrads": len(grads), "torch32": torch32, "tol": tol, "masked": None,
         "masked_ok": None, "masked_worst": 0.0, "masked_bad": 0}
    r["ok"], r["worst"], _, lines = compare_all(em.result_primals, loss, grads, printed, tol)
    del grads  # judged: --match-masks' float64 runs need the memory (regnet_y_128gf)
    for line in lines:
        print(line)
    # Too ill-conditioned to judge plainly: the allowance stopped at
    # --max-tolerance, so a pass would say little.
    capped = args.f32_factor * torch32 > args.max_tolerance
    if args.match_masks == "always" or (args.match_masks == "auto" and (not r["ok"] or capped)
                                        and has_kinks(joint, em)):
        if args.match_masks == "auto":
            print("%s: the plain comparison %s; judging the step at its own ReLU pattern "
                  "and max-pooling maxima (--match-masks=never: the plain comparison "
                  "decides)" % (args.model, "fails" if not r["ok"] else
                                "is too ill-conditioned to judge"))
        masked = r["masked"] = match_masks(args, joint, em, inits, work, env, times)
        r["masked_tol"] = allowance(args, masked["torch32"])
        r["masked_ok"], r["masked_worst"], r["masked_bad"], lines = compare_all(
            em.result_primals, masked["loss"], masked["grads"], printed, r["masked_tol"])
        for line in lines:  # which tensors decide a failure there
            if not line.endswith(" ok"):
                print("at the step's ReLU pattern: " + line)
        r["flips_ok"] = masked["flip_err"] <= r["masked_tol"]
        r["masked_ok"] &= r["flips_ok"]
    status = summarize(args, r, report, peak, times)
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return status
