#!/usr/bin/env python3
"""Random offload plans of the corpus models, run on the GPU emulation.

Usage: check_offload_random.py SRC_ROOT WORKDIR --seed S --cases N

Each case draws a corpus model, a budget (a percentage of its peak, or
`min`), whether results may stay on the host and whether copies to the
host block, plans it with `remat-opt --remat-budget=B --remat-offload
[--remat-offload-results] [--remat-offload-blocking]`
(default options otherwise) and runs it with `EMULATE=1 run.sh`, whose
host copies run on streams of their own and are held there until waited
for (-remat-gpu-copy-stream; fresh buffers are NaN). A case is ok when its
outputs are those of the model as written, bit for bit, its device window
peak exceeds the report's peak_after by exactly what the lowering adds to
the model as written, its host window peak is the report's host peak, and
nothing is left at exit; or when the budget is refused with the smallest
budget named. Prints one line per case and a summary.
"""
import json
import os
import random
import re
import subprocess
import sys

MODELS = ["mlp", "cnn", "unet", "siamese", "resnet"]


def run(cmd, env=None):
    return subprocess.run(cmd, capture_output=True, text=True, env=env)


def data(text):
    """The printed outputs without their base addresses."""
    return re.sub(r"base@ = \S*", "", text)


def number(key, text):
    m = re.search(key + r"=(\d+)", text)
    return int(m.group(1)) if m else None


def emulate(src, mlir, harness):
    env = dict(os.environ, EMULATE="1")
    cmd = [os.path.join(src, "test/Integration/GPU/run.sh"), mlir]
    if harness:
        cmd.append(harness)
    r = run(cmd, env)
    if r.returncode != 0:
        sys.exit("emulation failed for %s:\n%s" % (mlir, r.stderr[-2000:]))
    return r.stdout, r.stderr


def plan(mlir, out, report, budget, results, blocking=False):
    cmd = ["remat-opt", mlir, "--remat-budget=" + budget, "--remat-offload",
           "--remat-report=" + report, "-o", out]
    if results:
        cmd.append("--remat-offload-results")
    if blocking:
        cmd.append("--remat-offload-blocking")
    return run(cmd)


def main():
    args = sys.argv[1:]
    src, work = args[0], args[1]
    seed = int(args[args.index("--seed") + 1])
    cases = int(args[args.index("--cases") + 1])
    rng = random.Random(seed)
    os.makedirs(work, exist_ok=True)
    refs = {}
    ok = copies = refused = 0
    for case in range(cases):
        model = rng.choice(MODELS)
        mlir = os.path.join(src, "test/Corpus/Inputs", model + ".mlir")
        harness = os.path.join(src, "test/Corpus/Inputs", model + ".harness.mlir")
        if model not in refs:
            out, err = emulate(src, mlir, None)
            r = plan(mlir, os.path.join(work, model + ".full.mlir"),
                     os.path.join(work, model + ".full.json"), "100%", False)
            assert r.returncode == 0, r.stderr
            f = json.load(open(os.path.join(work, model + ".full.json")))
            added = number("device_window_peak_bytes", err) - \
                f["functions"][0]["peak_after"]
            refs[model] = (data(out), added)
        budget = "min" if rng.random() < 0.2 else "%d%%" % rng.randint(40, 95)
        results = rng.random() < 0.3
        blocking = rng.random() < 0.3
        name = "%s at %s%s%s" % (model, budget,
                                 " with results" if results else "",
                                 ", blocking" if blocking else "")
        out_mlir = os.path.join(work, "case%d.mlir" % case)
        report = os.path.join(work, "case%d.json" % case)
        r = plan(mlir, out_mlir, report, budget, results, blocking)
        if r.returncode != 0:
            named = re.search(r"smallest budget it can meet is \d+ B", r.stderr)
            good = r.returncode == 1 and named is not None
            refused += 1
            ok += good
            print("%s: refused%s" % (name, "" if good else ": FAIL " +
                                     r.stderr.strip().splitlines()[0]))
            continue
        f = json.load(open(report))["functions"][0]
        off = f.get("offload") or {}
        n = len(off.get("values", []))
        copies += n > 0
        out, err = emulate(src, out_mlir, harness)
        ref_data, added = refs[model]
        device = number("device_window_peak_bytes", err)
        host = number("host_window_peak_bytes", err)
        problems = []
        if data(out) != ref_data:
            problems.append("outputs differ from the model as written")
        if device != f["peak_after"] + added:
            problems.append("device peak %s, predicted %d + %d" %
                            (device, f["peak_after"], added))
        if n and host != off.get("host_peak"):
            problems.append("host peak %s, predicted %s" %
                            (host, off.get("host_peak")))
        if number("device_live_bytes_at_exit", err) != 0 or \
                (n and number("host_copies_live_bytes_at_exit", err) != 0):
            problems.append("bytes left at exit")
        ok += not problems
        print("%s: %d offloaded, device %s B, host %s B: %s" %
              (name, n, device, host, "; ".join(problems) or "ok"))
    print("cases %d, with copies %d, refused %d: %s" %
          (cases, copies, refused, "all ok" if ok == cases else "FAIL"))


if __name__ == "__main__":
    main()
