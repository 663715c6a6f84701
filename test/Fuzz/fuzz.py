#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A deterministic mutation fuzzer for remat's user-facing inputs.

Mutates seed files (graph files for remat-plan, training steps for
remat-opt) and option strings (budgets, strategies, slots) with a fixed
seed, runs the tools on each mutant and classifies the outcome:

  ok       exit 0
  refused  exit 1 or 2 with a diagnostic and no crash report
  CRASH    killed by a signal, or LLVM's crash report ("Stack dump",
           "PLEASE submit a bug report", "LLVM ERROR") on stderr
  HANG     still computing after --timeout processor seconds
  upstream a crash inside a known bug of the MLIR release remat builds on
           (KNOWN_UPSTREAM: counted and listed, not a failure of remat)

Prints one summary line per tool and exits 1 if anything crashed or hung,
writing each such input (and the command) under --crashes. The seed and
the number of inputs fix the run exactly, so CI sees the same inputs on
every machine.

  fuzz.py --bin build/bin --src . [--seed 1] [--inputs 300]

CI runs it through test/Fuzz/fuzz.test (200 inputs per tool, seed 1).
"""
import argparse
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile

CRASH_MARKS = ("Stack dump", "PLEASE submit a bug report", "LLVM ERROR",
               "Assertion", "Segmentation fault", "AddressSanitizer")

# Crashes inside MLIR itself, with the frame that identifies them. remat
# cannot catch a crash in MLIR's parser; docs/limits-and-errors.md lists them.
KNOWN_UPSTREAM = [
    (("mlir::NamedAttrList::set(", "mlir::linalg::", "::parse(mlir::OpAsmParser"),
     "MLIR 22's parsers of linalg named ops (linalg.reduce, linalg.transpose...) "
     "store a null attribute after a malformed integer array "
     "('dimensions = [1,', 'permutation = tensor<f32>') and crash"),
]

# Tokens that stress number parsing, nesting and sizes.
TOKENS = ["0", "-1", "1e999", "-1e999", "nan", "NaN", "inf", "9223372036854775807",
          "9223372036854775808", "18446744073709551616", "4611686018427387904",
          "1.5", "0.0", "-0", "\"\"", "\"x\"", "null", "true", "[", "]", "{", "}",
          ",", ":", "[" * 80, "]" * 80, "\\u0000", "\xff", "%", "GiB", "1e30"]
MLIR_TOKENS = ["tensor<4611686018427387904xf32>", "tensor<?xf32>", "tensor<0xf32>",
               "f64", "i1", "index", "%arg0", "%0", "{remat.policy = #remat.policy<keep>}",
               "{remat.loss}", "func.return", "}", "{", "(", ")", "->", ":", ",",
               "linalg.generic", "tensor.empty() : tensor<2xf32>", "// -----",
               "#remat.cost<time = -1.0>", "#remat.cost<time = 1e999, bytes = -5>"]
BUDGETS = ["1B", "0", "0B", "-1", "1%", "0%", "100%", "101%", "5e15%", "1e30", "1e19",
           "9223372036854775807GiB", "1.5", "1.5B", "2KiB", "nan", "inf", "%", "GiB", "",
           "90 %", "0x10", "1e-9%", "70%"]
STRATEGIES = ["auto", "none", "revolve", "chain-rotor", "chen-sqrt", "chen-greedy",
              "lowerset-exact", "lowerset-approx", "join", "evict-greedy", "evict-ladder",
              "auto-monotone", "checkmate-milp", "nosuch", ""]


def mutate(rng, text, tokens):
    """One to four random edits of `text`."""
    for _ in range(rng.randint(1, 4)):
        n = len(text)
        op = rng.randrange(7)
        i = rng.randrange(n + 1)
        j = min(n, i + rng.randint(1, 40))
        if op == 0:  # Insert a token.
            text = text[:i] + rng.choice(tokens) + text[i:]
        elif op == 1:  # Delete a range.
            text = text[:i] + text[j:]
        elif op == 2:  # Duplicate a range.
            text = text[:j] + text[i:j] + text[j:]
        elif op == 3 and n:  # Replace a digit run's digit.
            k = rng.randrange(n)
            if text[k].isdigit():
                text = text[:k] + rng.choice("0123456789") * rng.randint(1, 20) + text[k + 1:]
        elif op == 4:  # Swap two lines.
            lines = text.split("\n")
            if len(lines) > 2:
                a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
                lines[a], lines[b] = lines[b], lines[a]
                text = "\n".join(lines)
        elif op == 5:  # Truncate.
            text = text[:i]
        else:  # Replace a range with a token.
            text = text[:i] + rng.choice(tokens) + text[j:]
    return text


def cpu_limit(seconds):
    """A hang is judged by the processor time the run used, not the wall
    clock: a loaded machine (lit's other tests) stretches the one, not the
    other."""
    def limit():
        resource.setrlimit(resource.RLIMIT_CPU, (int(seconds), int(seconds) + 5))
    return limit


def run(cmd, timeout):
    try:
        # The wall-clock limit only backs the processor-time one (a run
        # blocked without computing).
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=20 * timeout, errors="replace",
                           preexec_fn=cpu_limit(timeout))
    except subprocess.TimeoutExpired:
        return "HANG", ""
    if p.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        return "HANG", ""
    if p.returncode < 0 or any(m in p.stderr for m in CRASH_MARKS):
        for frames, why in KNOWN_UPSTREAM:
            if all(f in p.stderr for f in frames):
                return "upstream", why
        return "CRASH", p.stderr[-2000:]
    return ("ok" if p.returncode == 0 else "refused"), ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=None,
                    help="directory of remat-opt and remat-plan (default: from PATH)")
    ap.add_argument("--src", required=True, help="source root (seed files)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--inputs", type=int, default=300, help="mutants per tool")
    ap.add_argument("--timeout", type=float, default=60,
                    help="processor seconds a run may use before it is a hang")
    ap.add_argument("--crashes", default="fuzz-crashes")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    plan = os.path.join(args.bin, "remat-plan") if args.bin else shutil.which("remat-plan")
    opt = os.path.join(args.bin, "remat-opt") if args.bin else shutil.which("remat-opt")
    if not plan or not opt:
        sys.exit("fuzz: remat-plan and remat-opt not found (--bin DIR)")
    graphs = [os.path.join(args.src, p) for p in (
        "test/Solver/Inputs/three-ops.json", "test/Solver/Inputs/residual.txt",
        "examples/rotor-toy-chain.json")]
    steps = [os.path.join(args.src, p) for p in (
        "test/Corpus/Inputs/mlp.mlir", "test/Transforms/Inputs/tiny-unet.mlir",
        "examples/resnet-train-step.mlir", "test/Loops/Inputs/rnn_while.mlir",
        "test/Distributed/Inputs/fsdp_small.mlir",
        "test/Distributed/Inputs/pipeline_switch_p2.mlir",
        "test/Distributed/Inputs/gpipe_p2.mlir",
        "test/Distributed/Inputs/gpt_async_p2.mlir",
        "test/Loops/Inputs/rnn_affine_step2.mlir",
        "test/Loops/Inputs/rnn_fori_while.mlir",
        "test/Loops/Inputs/rnn_reverse_scan.mlir",
        "test/Loops/Inputs/rnn_jax_scan.mlir",
        "test/Loops/Inputs/rnn_while_from1.mlir",
        "test/Loops/Inputs/rnn_stack_state.mlir",
        "test/Loops/Inputs/rnn_batch_first.mlir",
        "test/Loops/Inputs/rnn_loss_all.mlir",
        "test/Loops/Inputs/rnn_loss_acc.mlir",
        "test/Loops/Inputs/rnn_dynamic_loss_all.mlir",
        "test/Loops/Inputs/rnn_loss_scalar.mlir")]
    seeds = {p: open(p, encoding="utf-8").read() for p in graphs + steps}
    bad = []
    work = tempfile.mkdtemp(prefix="remat-fuzz-")
    try:
        for tool, files, tokens in (("remat-plan", graphs, TOKENS),
                                    ("remat-opt", steps, TOKENS + MLIR_TOKENS)):
            counts = {"ok": 0, "refused": 0, "CRASH": 0, "HANG": 0, "upstream": 0}
            upstream = set()
            for k in range(args.inputs):
                src = files[k % len(files)]
                ext = os.path.splitext(src)[1]
                path = os.path.join(work, "in%d%s" % (k, ext))
                # Most mutants change the file; some keep it and fuzz options.
                text = seeds[src] if k % 4 == 3 else mutate(rng, seeds[src], tokens)
                with open(path, "w", encoding="utf-8", errors="replace") as fh:
                    fh.write(text)
                budget = rng.choice(BUDGETS) if k % 2 else rng.choice(["90%", "70%", "50%"])
                strategy = rng.choice(STRATEGIES) if k % 3 == 0 else "auto"
                if tool == "remat-plan":
                    cmd = [plan, path, "--budget=" + budget, "--strategy=" + strategy,
                           "--milp-seconds=2"]
                    if k % 5 == 0:
                        cmd.append("--min-budget")
                else:
                    cmd = [opt, path, "--remat-budget=" + budget, "--remat-strategy=" + strategy,
                           "--remat-milp-seconds=2", "-o", os.path.join(work, "out.mlir")]
                    if k % 7 == 0:
                        cmd.append("--remat-slots=%d" % rng.choice([0, -3, 1, 100000]))
                    # A sharded step: also through the lowering of its
                    # collectives (-remat-lower-collectives, first stage).
                    if "Distributed" in src and k % 3 == 0:
                        cmd.append("--remat-lower-to-cpu")
                outcome, err = run(cmd, args.timeout)
                counts[outcome] += 1
                if outcome == "upstream":
                    upstream.add(err)
                if outcome in ("CRASH", "HANG"):
                    os.makedirs(args.crashes, exist_ok=True)
                    keep = os.path.join(args.crashes, "%s-%d%s" % (tool, k, ext))
                    shutil.copy(path, keep)
                    bad.append("%s: %s (input kept in %s)\n%s" % (outcome, " ".join(cmd), keep, err))
            print("fuzz: %s: %d inputs (seed %d): %d ok, %d refused, %d crashes, %d hangs, "
                  "%d known upstream crashes" % (tool, args.inputs, args.seed, counts["ok"],
                                                 counts["refused"], counts["CRASH"],
                                                 counts["HANG"], counts["upstream"]))
            for why in sorted(upstream):
                print("fuzz: %s: known upstream crash: %s" % (tool, why))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
