#!/usr/bin/env python3
"""Property test of host stacks (lib/Loops/HostStacks.cpp, the choice in
-remat-fit): random spellings of one scan (test/Loops/gen_scan_variants.py)
through the command users run, `remat-opt --remat-budget=B --remat-offload`,
and the GPU emulation.

Usage: check_host_stack_variants.py OUTDIR BUDGET SEED...

For each seed: the variant (T = 12, small rows) and its harness; the plan
with offload and its report; the program as written and the plan emulated
(test/Integration/GPU/run.sh, EMULATE=1). Prints one line per seed: the
variant's choices, whether the stacks went to the host, and `ok` when the
outputs are the program's bit for bit (base addresses aside) and the
device window peak measured equals the report's peak_after within the
budget (checkpointed: at most, the checkpoints' positions staying on the
host), and, with host stacks, the host window peak equals their bytes.
Then `host stacks: N of M variants` (the rest are checkpointed: a forward
scf.while, a batch-first stack, a stack also read whole, or
checkpointing is better).
"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "..", "..", "Loops", "gen_scan_variants.py")
RUN = os.path.join(HERE, "run.sh")
# Small, and spelled so that the GPU path lowers the step as written too (a
# counter in a tensor<i32> or an f32 metric would be read by the host); the
# other choices are random.
SIZES = ["--steps", "12", "--batch", "4", "--width", "8", "--counter", "index",
         "--metric", "none"]


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def emulate(model, harness):
    env = dict(os.environ, EMULATE="1")
    p = sh(["bash", RUN, model, harness], env=env)
    return re.sub(r"base@ = \S*", "", p.stdout), p.stderr


def main():
    out, budget, seeds = sys.argv[1], sys.argv[2], sys.argv[3:]
    moved = 0
    for seed in seeds:
        base = os.path.join(out, "v%s" % seed)
        choices = sh([sys.executable, GEN, "--seed", seed, "--choices"] +
                     SIZES).stdout.strip().splitlines()
        sh([sys.executable, GEN, "--seed", seed] + SIZES + ["-o", base + ".mlir"])
        sh([sys.executable, GEN, "--seed", seed, "--harness"] + SIZES +
           ["-o", base + ".harness.mlir"])
        sh(["remat-opt", base + ".mlir", "--remat-budget=" + budget,
            "--remat-offload", "--remat-report=" + base + ".json",
            "-o", base + ".out.mlir"])
        f = json.load(open(base + ".json"))["functions"][0]
        stacks = f.get("host_stacks", {}).get("bytes", 0)
        moved += stacks > 0
        ref, _ = emulate(base + ".mlir", base + ".harness.mlir")
        got, err = emulate(base + ".out.mlir", base + ".harness.mlir")
        device = int(re.search(r"device_window_peak_bytes=(\d+)", err).group(1))
        host = int(re.search(r"host_window_peak_bytes=(\d+)", err).group(1))
        problems = []
        if ref != got:
            problems.append("outputs differ")
        # Checkpointed, the positions of the checkpoints (index buffers the
        # host reads) stay off the device: it holds a little less.
        exact = device == f["peak_after"]
        if not (exact or (not stacks and device < f["peak_after"])) or \
                f["peak_after"] > f["budget"]:
            problems.append("measured %d, peak_after %d, budget %d" %
                            (device, f["peak_after"], f["budget"]))
        if stacks and host != stacks:
            problems.append("host window %d, stacks %d" % (host, stacks))
        print("%s: %s, device %d B: %s" %
              ((choices[0] if choices else "seed " + seed),
               "host stacks %d B" % stacks if stacks else "checkpointed",
               device, "; ".join(problems) or "ok"))
    print("host stacks: %d of %d variants" % (moved, len(seeds)))


if __name__ == "__main__":
    main()
