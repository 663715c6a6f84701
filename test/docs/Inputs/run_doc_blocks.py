#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Runs the command blocks of a docs page exactly as printed, from the
project root, and checks the outputs the page quotes.

A command block is a ```sh block, or an indented code block whose first
line is a command (remat-opt, python3, a script of the tree, ...). A page's
blocks are run in order, each as one `bash -e` script (a later block may
read what an earlier one wrote, as a reader pasting them would). The PATH
is the one the page sets up (its `export PATH=...` block runs like any
other), with BIN_DIR in front so that a build outside the source tree is
found too. What the page says a block prints is checked against what it
printed:
  - a plain ``` block right after a ```sh block (only blank lines between,
    one short sentence, or one paragraph ending in a colon): each of its
    lines must appear in the output;
  - "prints `TEXT`" in the paragraph right after a block, or a counter
    of bytes quoted there as `peak_bytes=123`: TEXT must appear.
A block whose quoted output is an error must exit non-zero.

Each block has a kind; only the kinds given with --run (default: fast)
run, the others print "skipped (KIND...)". The kind is, first, a marker
the page does not render: an HTML comment `<!-- doc-test: KIND -->` or
`<!-- doc-test: KIND (why) -->` on the line right before the block, or at
the end of the last line of the paragraph before it; then, for a block
that runs a build (cmake -S, ninja, make, scripts/sanitize.sh), `build`,
and for one that needs an NVIDIA GPU (--device cuda), `gpu`; then a
marker on its own line right before a heading (every block of that
section) or before the page's title (every block of the page); else
`fast`. Kinds: fast (under a minute here: the lit tests run it), slow,
gpu, build (rebuilds build/ or installs), skip (never run; say why).

One line per block: "ok: <first command>", "skipped (KIND): ...", or
"FAIL: ..."; the first failure ends the run with a non-zero exit, or with
--keep-going every block runs and the exit is non-zero if one failed.

Usage: run_doc_blocks.py PAGE.md SRC_ROOT BIN_DIR [--only SUBSTRING]
           [--run KIND,...] [--keep-going] [--timeout SECONDS]"""
import argparse
import os
import re
import signal
import subprocess
import sys

FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)
MARKER = re.compile(r"<!--\s*doc-test:\s*(fast|slow|gpu|build|skip)\s*(?:\((.*?)\))?\s*-->")
COMMAND = re.compile(
    r"^(?:[A-Z_]+=\S*\s+)*(?:remat-(?:opt|plan|import-torch)\s|python3?\s|"
    r"/usr/bin/python3\s|ninja\s|cmake\s|make\s|mlir-runner-22\s|build/bin/|"
    r"test/\S+\.(?:sh|py)\s|benchmarks/|scripts/|\$\(scripts/|for\s|nice\s|cat\s|\./)")
AUTO = [("build", re.compile(r"(^|\s)(cmake -S|ninja|make|scripts/sanitize\.sh)\s", re.M)),
        ("gpu", re.compile(r"--device cuda"))]


def indented_blocks(text):
    """[(start, end, script)] of the indented code blocks that are
    commands, outside fences."""
    out, lines, pos, in_fence, i = [], text.split("\n"), 0, False, 0
    offsets = []
    for l in lines:
        offsets.append(pos)
        pos += len(l) + 1
    while i < len(lines):
        l = lines[i]
        if l.startswith("```"):
            in_fence = not in_fence
        elif (not in_fence and l.startswith("    ") and l.strip()
              and (i == 0 or not lines[i - 1].strip())):
            j = i
            while j < len(lines) and (lines[j].startswith("    ") or not lines[j].strip()):
                j += 1
            body = [x[4:] for x in lines[i:j]]
            while body and not body[-1].strip():
                body.pop()
            if COMMAND.match(" ".join(body).replace("\\ ", "")):
                out.append((offsets[i], offsets[j] if j < len(lines) else len(text),
                            "\n".join(body) + "\n"))
            i = j
            continue
        i += 1
    return out


def kind_of(text, start, script):
    """(kind, why) of the block of SCRIPT that starts at offset START."""
    before = text[:start].rstrip("\n").split("\n")
    last = before[-1] if before else ""
    m = MARKER.search(last)
    if m:
        return m.group(1), m.group(2) or ""
    for k, pattern in AUTO:
        if pattern.search(script):
            return k, "by its command"
    # The nearest heading above, and a marker line right before it.
    heading_re = re.compile(r"^(#+) ", re.M)
    headings = [h for h in heading_re.finditer(text) if h.start() < start]
    level = 99
    for h in reversed(headings):
        if len(h.group(1)) >= level:
            continue
        level = len(h.group(1))
        above = text[:h.start()].rstrip("\n").split("\n")
        m = MARKER.search(above[-1]) if above else None
        if m and above[-1].strip().startswith("<!--"):
            return m.group(1), m.group(2) or "its section's"
    return "fast", ""


def blocks_with_expectations(text):
    """[(script, [expected strings], kind, why)] for every command block."""
    found = list(FENCE.finditer(text))
    spans = []
    for i, m in enumerate(found):
        if m.group(1) != "sh":
            continue
        expected = []
        nxt = found[i + 1] if i + 1 < len(found) else None
        between = text[m.end():nxt.start()] if nxt else text[m.end():]
        lead = between.strip()
        if nxt is not None and nxt.group(1) == "" and (
                len(lead) < 120 or ("\n\n" not in lead and lead.endswith(":"))):
            expected += [l for l in nxt.group(2).splitlines() if l.strip()]
        first_paragraph = between.strip().split("\n\n")[0]
        expected += re.findall(r"prints\s+`([^`]+)`", first_paragraph)
        # Quoted counters such as `peak_bytes=452928`.
        expected += re.findall(r"`(\w*bytes=\d+)`", first_paragraph)
        spans.append((m.start(), m.group(2), expected))
    for start, end, script in indented_blocks(text):
        spans.append((start, script, []))
    spans.sort()
    return [(s, e) + kind_of(text, start, s) for start, s, e in spans]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("root")
    ap.add_argument("bin_dir")
    ap.add_argument("--only")
    ap.add_argument("--run", default="fast")
    ap.add_argument("--keep-going", action="store_true")
    ap.add_argument("--timeout", type=float, help="seconds a block may run")
    a = ap.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    kinds = a.run.split(",")
    page = a.page
    env = dict(os.environ, PATH=os.path.abspath(a.bin_dir) + ":" + os.environ["PATH"])
    blocks = blocks_with_expectations(open(page).read())
    if not blocks:
        print("%s: no command block" % page)
        return
    failed = 0
    # One shell for the whole page: `export` in one block holds in the next.
    prelude = ""
    for script, expected, kind, why in blocks:
        first = script.strip().splitlines()[0]
        is_export = script.lstrip().startswith("export ")
        if (a.only and a.only not in script) or (kind not in kinds and not is_export):
            if kind not in kinds and not (a.only and a.only not in script):
                print("skipped (%s%s): %s" % (kind, ": " + why if why else "", first))
            if is_export:
                prelude += script
            continue
        p = subprocess.Popen(["bash", "-e", "-c", prelude + script], cwd=a.root,
                             env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
        try:
            out, err = p.communicate(timeout=a.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)  # the block and what it started
            p.communicate()
            print("FAIL: timed out after %g s: %s" % (a.timeout, first))
            failed += 1
            continue
        if is_export:
            prelude += script
        output = out + err
        # A block the page shows failing ("error: ..." quoted) must fail.
        refused = any(": error: " in want for want in expected)
        problem = None
        if refused and p.returncode == 0:
            problem = ("FAIL: %s: block `%s` succeeded; the page shows it "
                       "refused" % (page, first))
        elif p.returncode != 0 and not refused:
            problem = ("FAIL: %s: block `%s` exited %d:\n%s"
                       % (page, first, p.returncode, output[-3000:]))
        else:
            for want in expected:
                if want.strip() not in output:
                    problem = ("FAIL: %s: block `%s` does not print what the "
                               "page says:\n  %s\nit printed:\n%s"
                               % (page, first, want, output[-3000:]))
                    break
        if problem:
            if not a.keep_going:
                sys.exit(problem)
            print(problem)
            failed += 1
            continue
        print("ok: %s (%d quoted output%s checked)"
              % (first, len(expected), "" if len(expected) == 1 else "s"))
    sys.stdout.flush()
    if failed:
        sys.exit("%d block%s of %s failed" % (failed, "" if failed == 1 else "s", page))


if __name__ == "__main__":
    main()
