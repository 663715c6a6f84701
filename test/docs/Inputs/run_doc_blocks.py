#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Runs every ```sh block of a docs page exactly as printed, from the
project root, and checks the outputs the page quotes.

A page's blocks are run in order, each as one `bash -e` script (a later
block may read what an earlier one wrote, as a reader pasting them would).
The PATH is the one the page sets up (its `export PATH=...` block runs like
any other), with BIN_DIR in front so that a build outside the source tree
is found too. What the page says a block prints is checked against what it
printed:
  - a plain ``` block right after a ```sh block (only blank lines between,
    or one short sentence): each of its lines must appear in the output;
  - "prints `TEXT`" in the paragraph right after a block, or a counter
    of bytes quoted there as `peak_bytes=123`: TEXT must appear.
A block whose quoted output is an error must exit non-zero.
One line per block ("ok: <first command>"); the first failure ends the run
with a non-zero exit and says which block and why.

Usage: run_doc_blocks.py PAGE.md SRC_ROOT BIN_DIR [--only SUBSTRING]"""
import os
import re
import subprocess
import sys

FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)


def blocks_with_expectations(text):
    """[(script, [expected strings])] for every sh block of TEXT."""
    found = list(FENCE.finditer(text))
    out = []
    for i, m in enumerate(found):
        if m.group(1) != "sh":
            continue
        expected = []
        rest_start = m.end()
        nxt = found[i + 1] if i + 1 < len(found) else None
        between = text[rest_start:nxt.start()] if nxt else text[rest_start:]
        if nxt is not None and nxt.group(1) == "" and len(between.strip()) < 120:
            expected += [l for l in nxt.group(2).splitlines() if l.strip()]
        first_paragraph = between.strip().split("\n\n")[0]
        expected += re.findall(r"prints\s+`([^`]+)`", first_paragraph)
        # Quoted counters such as `peak_bytes=452928`.
        expected += re.findall(r"`(\w*bytes=\d+)`", first_paragraph)
        out.append((m.group(2), expected))
    return out


def main():
    page, root, bin_dir = sys.argv[1:4]
    only = sys.argv[5] if len(sys.argv) > 5 and sys.argv[4] == "--only" else None
    env = dict(os.environ, PATH=os.path.abspath(bin_dir) + ":" + os.environ["PATH"])
    blocks = blocks_with_expectations(open(page).read())
    if not blocks:
        sys.exit("%s: no ```sh block" % page)
    # One shell for the whole page: `export` in one block holds in the next.
    prelude = ""
    for script, expected in blocks:
        first = script.strip().splitlines()[0]
        if only and only not in script:
            if script.lstrip().startswith("export "):
                prelude += script
            continue
        p = subprocess.run(["bash", "-e", "-c", prelude + script], cwd=root,
                           env=env, capture_output=True, text=True)
        if script.lstrip().startswith("export "):
            prelude += script
        output = p.stdout + p.stderr
        # A block the page shows failing ("error: ..." quoted) must fail.
        refused = any(": error: " in want for want in expected)
        if refused and p.returncode == 0:
            sys.exit("FAIL: %s: block `%s` succeeded; the page shows it "
                     "refused" % (page, first))
        if p.returncode != 0 and not refused:
            sys.exit("FAIL: %s: block `%s` exited %d:\n%s"
                     % (page, first, p.returncode, output[-3000:]))
        for want in expected:
            if want.strip() not in output:
                sys.exit("FAIL: %s: block `%s` does not print what the page "
                         "says:\n  %s\nit printed:\n%s"
                         % (page, first, want, output[-3000:]))
        print("ok: %s (%d quoted output%s checked)"
              % (first, len(expected), "" if len(expected) == 1 else "s"))


if __name__ == "__main__":
    main()
