#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Checks that the README and docs/ stay true to the repository.

- Every relative link of README.md and docs/**/*.md (markdown links, and
  `../` paths written in the text) names a file or folder that exists
  inside the repository: the docs must not lean on files checked out next
  to it.
- The layer table of docs/architecture.md (its "Where" column) names every
  source folder of lib/ (up to two levels) and no folder that is missing.
Prints one line per problem and exits 1, or prints "docs ok" and exits 0.
"""
import os
import re
import sys

LINK = re.compile(r"\]\(([^)\s]+)\)")
UP_PATH = re.compile(r"(?<![\w/.])((?:\.\./)+[\w./-]*)")
CODE_PATH = re.compile(r"`(lib/[\w/{},.-]*)`")


def docs(root):
    yield "README.md"
    for dirpath, _, files in os.walk(os.path.join(root, "docs")):
        for f in sorted(files):
            if f.endswith(".md"):
                yield os.path.relpath(os.path.join(dirpath, f), root)


def check_links(root, rel, problems):
    text = open(os.path.join(root, rel), encoding="utf-8").read()
    targets = [m.group(1) for m in LINK.finditer(text)]
    targets += [m.group(1) for m in UP_PATH.finditer(text)]
    for target in targets:
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            continue  # A URL or an anchor of the same page.
        path = target.split("#")[0]
        full = os.path.realpath(os.path.join(root, os.path.dirname(rel), path))
        if os.path.commonpath([full, os.path.realpath(root)]) != \
                os.path.realpath(root):
            problems.append(f"{rel}: links outside the repository: {target}")
        elif not os.path.exists(full):
            problems.append(f"{rel}: links to a missing file: {target}")


def expand(path):
    """lib/Solver/{Core,Chain} -> lib/Solver/Core, lib/Solver/Chain."""
    m = re.search(r"\{([^}]*)\}", path)
    if not m:
        return [path.rstrip("/")]
    return [p for part in m.group(1).split(",")
            for p in expand(path[:m.start()] + part + path[m.end():])]


def check_layers(root, problems):
    listed = set()
    for line in open(os.path.join(root, "docs", "architecture.md"),
                     encoding="utf-8"):
        cells = line.split("|")
        if line.startswith("|") and len(cells) > 3:
            for m in CODE_PATH.finditer(cells[2]):
                listed.update(expand(m.group(1)))
    for path in sorted(listed):
        if not os.path.exists(os.path.join(root, path)):
            problems.append(f"docs/architecture.md: lists {path}, which lib/ "
                            "does not have")
    lib = os.path.join(root, "lib")
    for dirpath, dirs, files in os.walk(lib):
        rel = os.path.relpath(dirpath, root)
        if rel.count(os.sep) > 2 or rel == "lib":
            continue
        has_sources = any(f.endswith((".cpp", ".c", ".h")) for f in files)
        parts = rel.split(os.sep)
        covered = any("/".join(parts[:i]) in listed
                      for i in range(2, len(parts) + 1))
        if has_sources and not covered:
            problems.append(f"docs/architecture.md: the layer table does not "
                            f"list {rel}")


def main(root):
    problems = []
    for rel in docs(root):
        check_links(root, rel, problems)
    check_layers(root, problems)
    for p in problems:
        print(p)
    if problems:
        return 1
    print("docs ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
