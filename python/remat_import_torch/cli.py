# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""remat-import-torch: a PyTorch model's training step as MLIR.

  remat-import-torch MODEL [--batch N] [--input-shape C,H,W] [--loss sum|xent]
                     [--planning-only] [--strict] [--profile] -o OUT.mlir
  remat-import-torch check MODEL ... --budget 50%     (end to end; see check.py)

MODEL is a torchvision model name (resnet18, densenet121, ...) or
path/to/file.py:Class.  The output is one func.func @step (or --name) whose
arguments are the inputs and then the parameters, and whose results are the
loss ({remat.loss}) and the gradient of every parameter.
"""

import argparse
import json
import os
import sys
import time
import warnings

USAGE_EXIT = 2
# What to do about ops without an executable lowering.
HOW_TO_RUN = "avoid these ops or give them a lowering (docs/importer.md, \"Module layout\")"


def parse_shape(text):
    """C,H,W (or any number of) positive integers, nothing empty."""
    parts = text.split(",")
    try:
        dims = [int(x) for x in parts]
    except ValueError:
        dims = []
    if not dims or any(d <= 0 for d in dims):
        raise argparse.ArgumentTypeError(
            "expected positive integers like 3,224,224, got '%s'" % text)
    return dims


def positive_int(text):
    try:
        v = int(text)
    except ValueError:
        v = 0
    if v <= 0:
        raise argparse.ArgumentTypeError("expected a positive integer, got '%s'" % text)
    return v


def nonneg_int(text):
    try:
        v = int(text)
    except ValueError:
        v = -1
    if v < 0:
        raise argparse.ArgumentTypeError("expected a non-negative integer, got '%s'" % text)
    return v


def fail(message):
    """A user error: one line on stderr, exit status 2 (REMAT_TRACEBACK=1
    shows where it came from)."""
    if os.environ.get("REMAT_TRACEBACK"):
        import traceback
        traceback.print_exc()
    sys.stderr.write("remat-import-torch: error: %s\n" % message)
    return USAGE_EXIT


def describe(exc):
    """One line for an exception raised while loading or tracing a model;
    tensor values the message prints (PyTorch's repr of an operand) are
    left out."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    cut = min([i for i in (text.find("Parameter containing"), text.find("tensor("))
               if i >= 0] + [len(text)])
    if cut < len(text):
        text = text[:cut].rstrip(" (*,:") + " (values left out)"
    if isinstance(exc, SyntaxError) and exc.filename:
        return "%s:%s: syntax error: %s" % (exc.filename, exc.lineno, exc.msg)
    if isinstance(exc, (ImportError, OSError, SyntaxError)) or \
            type(exc).__name__ in ("ImportError_", "Unsupported"):
        return text
    return "%s: %s" % (type(exc).__name__, text[:500])


def write_output(path, text):
    """Writes `path` through a temporary file renamed on success: a failed
    run leaves an existing file untouched."""
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise OSError("cannot write '%s': no directory '%s'" % (path, directory))
    tmp = "%s.tmp-%d" % (path, os.getpid())
    try:
        with open(tmp, "w") as fh:
            fh.write(text)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


class Parser(argparse.ArgumentParser):
    """Usage errors in one line (the usage is one --help away)."""

    def error(self, message):
        sys.stderr.write("%s: error: %s (see --help)\n" % (self.prog, message))
        sys.exit(USAGE_EXIT)


def add_model_args(ap):
    ap.add_argument("model", help="torchvision model name, path/to/file.py:Class, "
                                  "hf:<family> (gpt2, llama, mistral, qwen2, bert, t5) "
                                  "or timm:<name>")
    ap.add_argument("--batch", type=positive_int, default=1, help="batch size (default 1)")
    ap.add_argument("--input-shape", type=parse_shape, default=None,
                    metavar="C,H,W", help="shape of one input (default 3,224,224; "
                                          "hf: models: the sequence length, default 64)")
    ap.add_argument("--loss", choices=["sum", "xent"], default=None,
                    help="sum of the outputs (default) or cross-entropy against "
                         "class labels (an extra int64 input); hf: models: xent "
                         "(default) is the next-token cross-entropy of the token ids")
    ap.add_argument("--config", default=None, metavar="KEY=VALUE,...",
                    help="hf: models: fields of the transformers Config "
                         "(num_hidden_layers=4,hidden_size=256,...); timm: models: "
                         "arguments of timm.create_model (depth=2,...)")
    ap.add_argument("--num-classes", type=positive_int, default=None,
                    help="torchvision models: number of output classes")
    ap.add_argument("--vocab", type=positive_int, default=None, metavar="N",
                    help="the model reads token ids: int64 in [0, N), --input-shape "
                         "being the sequence length (default 64); its loss (--loss xent, "
                         "the default then) is the next-token cross-entropy of the "
                         "logits it returns, [batch, seq, N] (a class attribute "
                         "remat_tokens = (\"ids\", N) says the same)")
    ap.add_argument("--name", default="step", help="function name (default step)")
    ap.add_argument("--f64-sums-from", type=nonneg_int, default=None, metavar="N",
                    help="sums of at least N terms (batch-norm statistics, weight "
                         "gradients over N x H x W, ...) accumulate in float64 and are "
                         "rounded to float32 once (default 256; 0: every sum in float32)")
    ap.add_argument("--f64-products-from", type=nonneg_int, default=None, metavar="N",
                    help="convolutions and matrix products summing at least N products "
                         "per result (1x1 convolutions over thousands of channels, wide "
                         "classifier heads) accumulate in float64 and are rounded to "
                         "float32 once (default 2048; 0: every product in float32)")


def build_parser():
    ap = Parser(prog="remat-import-torch",
                description="Import a PyTorch model's training step "
                            "(forward + backward) as MLIR for remat-opt. Subcommand: "
                            "`remat-import-torch check MODEL ...` runs it end to end "
                            "against PyTorch (below).",
                epilog="End to end: `remat-import-torch check MODEL [model options] "
                       "[--budget 50%|3MiB|min] ...` imports MODEL, rematerializes, "
                       "lowers and runs the step on the CPU, and compares the loss and "
                       "every gradient with PyTorch's backward() (PASS/FAIL; "
                       "`remat-import-torch check --help`). See docs/importer.md.")
    add_model_args(ap)
    ap.add_argument("-o", "--output", default="-", help="output .mlir (default stdout)")
    ap.add_argument("--planning-only", action="store_true",
                    help="emit every ATen op as remat.op (one planner node per op, "
                         "views alias their input): fast, plans, does not run")
    ap.add_argument("--strict", action="store_true",
                    help="fail when an op has no executable lowering")
    ap.add_argument("--profile", action="store_true",
                    help="measure every node's CPU time and write a cost table "
                         "(for remat-opt --remat-cost-table)")
    ap.add_argument("--cost-table", metavar="FILE",
                    help="where --profile writes (default OUT.costs.json)")
    ap.add_argument("--profile-repeats", type=int, default=5, metavar="N",
                    help="--profile: timed runs of every node, the median counts "
                         "(default 5)")
    ap.add_argument("--profile-threads", type=int, default=1, metavar="N",
                    help="--profile: PyTorch's CPU threads (default 1)")
    ap.add_argument("--harness", metavar="FILE",
                    help="also write a @main that fills the arguments with "
                         "deterministic values, calls the step and prints the results")
    ap.add_argument("--nodes", metavar="FILE",
                    help="write the FX node name of every planner node, in order "
                         "(planning-only mode; benchmarks/zoo uses it)")
    ap.add_argument("-q", "--quiet", action="store_true",
                    help="no progress lines on stderr (errors and ops without a "
                         "lowering are still reported)")
    return ap


def import_model(args, log=sys.stderr):
    """Traces and emits; returns (joint, emitter)."""
    import torch
    from .trace import load_model, trace_joint
    from .emit import Emitter
    from .trace import default_input_shape, model_kind, parse_config, token_model
    torch.manual_seed(0)
    model = load_model(args.model, args.num_classes, args.input_shape,
                       parse_config(getattr(args, "config", None)))
    vocab = getattr(args, "vocab", None)
    if vocab is not None:
        if model_kind(args.model) == "hf":
            from .trace import ImportError_
            raise ImportError_("--vocab is for file.py:Class models: an hf: model's "
                               "vocabulary is its config's (--config vocab_size=N)")
        model.remat_tokens = ("ids", vocab)
    tokens = token_model(model)
    if args.input_shape is None:
        args.input_shape = [64] if tokens else default_input_shape(args.model)
    if args.loss is None:
        args.loss = "xent" if tokens else "sum"
    if not any(p.requires_grad for p in model.parameters()):
        from .trace import ImportError_
        raise ImportError_("%s has no trainable parameters: a training step "
                           "needs at least one" % args.model)
    t0 = time.time()
    joint = trace_joint(model, args.batch, args.input_shape, args.loss)
    t1 = time.time()
    em = Emitter(joint, args.name, planning_only=getattr(args, "planning_only", False),
                 strict=getattr(args, "strict", False),
                 probes=getattr(args, "probes", ()),
                 f64_sums_from=getattr(args, "f64_sums_from", None),
                 f64_products_from=getattr(args, "f64_products_from", None)).run()
    t2 = time.time()
    if not getattr(args, "quiet", False):
        n = sum(1 for n in joint.graph_module.graph.nodes if n.op == "call_function")
        log.write("remat-import-torch: %s: %d ATen nodes traced in %.1f s, %d ops emitted "
                  "in %.1f s\n" % (args.model, n, t1 - t0, len(em.f.lines), t2 - t1))
    return joint, em


def header(args, joint, em):
    def named(kind):
        return [p.name for p in em.arg_primals if p.kind == kind]
    buffers = named("buffer")
    then_buffers = ", then the buffer%s %s (no gradient; the harness passes the model's " \
        "values)" % ("s" if len(buffers) > 1 else "", ", ".join(buffers)) if buffers else ""
    inputs = "input %s" % "x".join(map(str, args.input_shape))
    if hasattr(joint.wrapper.model, "remat_example_inputs") and joint.wrapper.tokens is None:
        inputs = "inputs %s (remat_example_inputs)" % ", ".join(
            "x".join(map(str, x.shape)) + ":" + str(x.dtype).replace("torch.", "")
            for x in joint.example_inputs[:joint.wrapper.n_inputs])
    return ["GENERATED by remat-import-torch from %s (batch %d, %s, loss %s)%s."
            % (args.model, args.batch, inputs, args.loss,
               ", planning only" if getattr(args, "planning_only", False) else ""),
            "Arguments: %s, then %d parameters%s; results: the loss, then the "
            "gradient of every parameter." % (
                ", ".join(named("input")), len(named("param")), then_buffers),
            "Locations name the ATen node of the joint graph each op computes."]


def main(argv=None):
    """`remat-import-torch MODEL ...` (the `check` subcommand is dispatched
    by __main__.py: check.py builds on this module, not the reverse)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    warnings.filterwarnings("ignore")
    args = build_parser().parse_args(argv)
    from .trace import ImportError_
    from .emit import NotExecutable, Unsupported
    try:
        joint, em = import_model(args)
    except NotExecutable as e:
        return fail("%s; without --strict they become remat.op (the step plans but does "
                    "not run); to run it, %s" % (e, HOW_TO_RUN))
    except (ImportError_, Unsupported) as e:
        return fail(e)
    except KeyboardInterrupt:
        raise
    except Exception as e:  # The model's own code, or torch refusing it.
        hint = ""
        if "'indices'" in str(e) and "FloatTensor" in str(e) and not getattr(args, "vocab", None):
            hint = " (the model reads token ids: give --vocab N, the vocabulary size)"
        return fail("%s: %s%s" % (args.model, describe(e), hint))
    if em.unsupported:
        sys.stderr.write("remat-import-torch: %d ATen op(s) without an executable lowering "
                         "became remat.op: the step plans but cannot be lowered or run; "
                         "to run it, %s:\n" % (sum(em.unsupported.values()), HOW_TO_RUN))
        for name, count in sorted(em.unsupported.items()):
            sys.stderr.write("  %s x%d\n" % (name, count))
    text = em.f.text(header(args, joint, em))
    try:
        if args.output == "-":
            sys.stdout.write(text)
        else:
            write_output(args.output, text)
        if args.nodes:
            write_output(args.nodes, json.dumps(em.planner_nodes))
        if args.harness:
            from .harness import harness_text, init_for
            inits = [init_for(p, k, joint.num_classes) for k, p in enumerate(em.arg_primals)]
            write_output(args.harness, harness_text(em, inits))
    except OSError as e:
        return fail(describe(e))
    if args.profile:
        from .profile import measure, cost_table
        times = measure(joint, args.profile_repeats, args.profile_threads)
        table = cost_table(em, times)
        path = args.cost_table or (
            (args.output[:-5] if args.output.endswith(".mlir") else args.output) + ".costs.json"
            if args.output != "-" else "costs.json")
        with open(path, "w") as fh:
            json.dump(table, fh, indent=1)
        if not args.quiet:
            sys.stderr.write("remat-import-torch: cost table of %d ops (%.0f us in all) in %s\n"
                             % (len(table["ops"]), sum(v["time"] for v in table["ops"].values()),
                                path))
    return 0
