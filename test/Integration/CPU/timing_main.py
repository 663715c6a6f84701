#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Writes one program that times two versions of a step against each other.

  timing_main.py ORIGINAL.mlir REMAT.mlir HARNESS.mlir --runs N --warmup W

ORIGINAL and REMAT are modules printed by remat-opt with
-mlir-print-local-scope (no attribute aliases, so the two can share a
module); HARNESS is the step's usual harness (@main builds the arguments,
calls the step once, prints the results). The output (stdout) holds both
modules' functions, REMAT's renamed with a `_remat` suffix, and a @main
that builds the arguments once, then

  * calls both versions W times (warm-up, untimed);
  * N times: times one call of each, in the order original, rematerialized
    on even iterations and the reverse on odd ones, so sample i of both ran
    under the same machine load and neither always runs first (libRematRuntime
    timers 0 = original, 1 = rematerialized); only the call is inside the
    timed window, not the JIT or the argument set-up;
  * prints the timers and their paired ratio (stderr: `timer id=0 ...`,
    `timer id=1 ...`, `timer_ratio num=1 den=0 ...`);
  * calls each version once more and prints its results after a line
    `== original` or `== rematerialized` (stdout).

No peak windows: measure peaks with run.sh, one call per process. Here the
arguments outlive every call but the last, so a step that writes into an
argument gets a copy of it first, and a loop-form step's results that may
alias its arguments are not freed by buffers=early (a few KiB per call);
both would show in a peak measured here, neither matters for the time.
"""
import argparse
import re
import sys
import textwrap

NAME = r"[\w$.-]+"
FUNC_DEF = re.compile(r"func\.func\s+(?:(?:private|public|nested)\s+)?@(" + NAME + ")")
GRID = re.compile(r"^\s*shard\.grid\s+@")
RESULTS = re.compile(r"^(\s*)((?:%" + NAME + r"(?::\d+)?\s*,\s*)*%" + NAME +
                     r"(?::\d+)?)\s*=")

RUNTIME_DECLS = """\
func.func private @remat_timer_start(i64)
func.func private @remat_timer_stop(i64)
func.func private @remat_timer_reset()
func.func private @remat_timer_print(i64)
func.func private @remat_timer_print_ratio(i64, i64)
"""


def strip_module(text):
    """The body of the top-level `module {...}` remat-opt prints."""
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines)
                  if re.match(r"^module\b.*\{\s*$", l)), None)
    if start is None:
        return text
    end = max(i for i, l in enumerate(lines) if re.match(r"^\}\s*$", l))
    if any(l.startswith("#") for l in lines[:start]):
        sys.exit("timing_main.py: attribute aliases; print the module with "
                 "-mlir-print-local-scope")
    return "\n".join(lines[start + 1:end]) + "\n"


def rename(text, names, suffix, sigil):
    """Appends `suffix` to every `<sigil>name` of `names` in `text`."""
    if not names:
        return text
    alt = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.sub(re.escape(sigil) + "(" + alt + r")(?![\w$.-])",
                  lambda m: sigil + m.group(1) + suffix, text)


def split_harness(text):
    """(before the step's call, the call, the rest of @main's body up to its
    `return`, the `return` and what follows, the step's name). The call is the first func.call not of printMemref*; it
    may span lines and ends on the line with its `->`."""
    lines = text.splitlines()
    call = next((i for i, l in enumerate(lines)
                 if re.search(r"func\.call @(?!printMemref)", l)), None)
    if call is None:
        sys.exit("timing_main.py: no call of the step in the harness")
    callee = re.search(r"func\.call @(" + NAME + r")\(", lines[call]).group(1)
    end = next(i for i in range(call, len(lines)) if "->" in lines[i])
    ret = next(i for i in range(end, len(lines))
               if re.match(r"^\s*return\s*$", lines[i]))
    return ("\n".join(lines[:call]), "\n".join(lines[call:end + 1]),
            "\n".join(lines[end + 1:ret]), "\n".join(lines[ret:]), callee)


def discarding(call, callee, tag):
    """`call` with its results bound to fresh names (not used again) and
    calling `callee`."""
    m = RESULTS.match(call)
    body = call[m.end():] if m else call
    body = re.sub(r"func\.call @" + NAME + r"\(", "func.call @" + callee + "(",
                  body, count=1)
    if not m:
        return body
    count = sum(int(p.split(":")[1]) if ":" in p else 1
                for p in m.group(2).replace(" ", "").split(","))
    return "%s%%tm_%s:%d =%s" % (m.group(1), tag, count, body)


def timed(call, timer):
    return ("      func.call @remat_timer_start(%%tm_id%d) : (i64) -> ()\n"
            "%s\n"
            "      func.call @remat_timer_stop(%%tm_id%d) : (i64) -> ()"
            % (timer, call, timer))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("original")
    ap.add_argument("remat")
    ap.add_argument("harness")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    args = ap.parse_args()

    orig = strip_module(open(args.original).read())
    remat = strip_module(open(args.remat).read())
    remat = rename(remat, set(FUNC_DEF.findall(remat)), "_remat", "@")
    # A sharded step's device grid is one symbol of the program: the two
    # versions declare the same one.
    grids = set(l.strip() for l in orig.splitlines() if GRID.match(l))
    remat = "\n".join(l for l in remat.splitlines()
                       if not (GRID.match(l) and l.strip() in grids))
    before, call, after, ret, callee = split_harness(open(args.harness).read())
    if not re.search(r"func\.func\s+@" + re.escape(callee) + r"\(", orig):
        sys.exit("timing_main.py: the harness calls @%s, which %s does not "
                 "define" % (callee, args.original))

    # The second printed call defines the same values: rename them.
    defined = set()
    for line in (call + "\n" + after).splitlines():
        m = RESULTS.match(line)
        if m:
            defined.update(re.findall(r"%(" + NAME + ")", m.group(2)))
    remat_call = re.sub(r"func\.call @" + re.escape(callee) + r"\(",
                        "func.call @" + callee + "_remat(", call, count=1)
    remat_call = rename(remat_call, defined, "_rm", "%")
    remat_after = rename(after, defined, "_rm", "%")

    indent = lambda s, n: "\n".join(" " * n + l
                                     for l in textwrap.dedent(s).splitlines())
    o_w = indent(discarding(call, callee, "wo"), 4)
    r_w = indent(discarding(call, callee + "_remat", "wr"), 4)
    o_t = timed(indent(discarding(call, callee, "to"), 6), 0)
    r_t = timed(indent(discarding(call, callee + "_remat", "tr"), 6), 1)
    out = [orig, remat, RUNTIME_DECLS, before, """\
  // Timing (timing_main.py): warm-up, then N interleaved timed calls.
  %%tm_c0 = arith.constant 0 : index
  %%tm_c1 = arith.constant 1 : index
  %%tm_c2 = arith.constant 2 : index
  %%tm_warmup = arith.constant %d : index
  %%tm_runs = arith.constant %d : index
  %%tm_id0 = arith.constant 0 : i64
  %%tm_id1 = arith.constant 1 : i64
  scf.for %%tm_i = %%tm_c0 to %%tm_warmup step %%tm_c1 {
%s
%s
  }
  func.call @remat_timer_reset() : () -> ()
  scf.for %%tm_i = %%tm_c0 to %%tm_runs step %%tm_c1 {
    %%tm_parity = arith.remui %%tm_i, %%tm_c2 : index
    %%tm_even = arith.cmpi eq, %%tm_parity, %%tm_c0 : index
    scf.if %%tm_even {
%s
%s
    } else {
%s
%s
    }
  }
  func.call @remat_timer_print(%%tm_id0) : (i64) -> ()
  func.call @remat_timer_print(%%tm_id1) : (i64) -> ()
  func.call @remat_timer_print_ratio(%%tm_id1, %%tm_id0) : (i64, i64) -> ()
  // One more call of each, its results printed.
  vector.print str "== original\\n"
%s
%s
  // printMemref ends without a newline.
  vector.print str "\\n== rematerialized\\n"
%s
%s
%s
""" % (args.warmup, args.runs, o_w, r_w, o_t, r_t, r_t, o_t,
       call, after, remat_call, remat_after, ret)]
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main()
