# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Checks that docs/Options.md, remat-plan --help and remat-opt --help
declare the same options.

Usage: options_agree.py Options.md plan-help.txt opt-help.txt

Every option of Options.md must appear with the same value name and help
under -remat-fit and -remat-rematerialize in remat-opt --help, and every one
remat-plan also has (the strategies' options; budget without its
graph-file remark) must carry the same help there.
"""
import re
import sys

ROW = re.compile(r"^\| `([a-z-]+)=<([^>]*)>` \| (.*) \|$")
FLAG = re.compile(r"^\s+--([a-z-]+)=<([^>]*)>\s+- (.*)$")

# remat-plan's own flags and the settings it words for graph files
# (alignment: its default is 1 for graph files). The offload link's flags
# (link-bandwidth, link-latency) are the passes' too, with the same help.
PLAN_ONLY = {"min-budget"}
PLAN_REWORDED = {"budget", "strategy", "alignment"}
# Only the MLIR passes have these (they name files, functions and arguments,
# or rewrite the IR's loops).
PASS_ONLY = {"report", "cost-table", "functions", "dim-bounds", "scan-slots"}
# The -remat-fit pipeline's own (what runs around -remat-rematerialize).
FIT_ONLY = {"barriers"}


def doc_options(path):
    rows = {}
    for line in open(path):
        m = ROW.match(line.rstrip("\n"))
        if m:
            rows[m.group(1)] = (m.group(2), m.group(3))
    return rows


def flags(lines):
    found = {}
    for line in lines:
        m = FLAG.match(line.rstrip("\n"))
        if m:
            found[m.group(1)] = (m.group(2), m.group(3))
    return found


def pass_block(lines, name):
    """The option lines nested under `--name` in remat-opt --help."""
    out, inside = [], False
    for line in lines:
        if re.match(r"^\s{6}--" + re.escape(name) + r"\s", line):
            inside = True
            continue
        if inside:
            if not re.match(r"^\s{8}-", line):
                break
            out.append(line)
    return out


def main():
    docs = doc_options(sys.argv[1])
    plan = flags(open(sys.argv[2]))
    opt_lines = open(sys.argv[3]).readlines()
    errors = []
    if len(docs) < 6:
        errors.append("Options.md lists only %d options" % len(docs))
    for pass_name in ("remat-fit", "remat-rematerialize"):
        offered = flags(pass_block(opt_lines, pass_name))
        wanted = set(docs) - (FIT_ONLY if pass_name == "remat-rematerialize" else set())
        if set(offered) != wanted:
            errors.append("%s offers %s, Options.md lists %s" %
                          (pass_name, sorted(offered), sorted(docs)))
        for name, decl in docs.items():
            if name in offered and offered[name] != decl:
                errors.append("%s: %s=%s differs from Options.md" %
                              (pass_name, name, offered[name]))
    for name, decl in plan.items():
        if name in PLAN_ONLY:
            continue
        if name not in docs:
            errors.append("remat-plan --%s is not in Options.md" % name)
        elif name in PLAN_REWORDED:
            if not decl[1].startswith(docs[name][1].split(" (default")[0]):
                errors.append("remat-plan --%s: help does not start with "
                              "Options.md's" % name)
        elif decl != docs[name]:
            errors.append("remat-plan --%s=<%s> - %s\n  Options.md: %s" %
                          (name, decl[0], decl[1], docs[name]))
    for name in docs:
        if name not in plan and name not in PASS_ONLY | FIT_ONLY:
            errors.append("Options.md's %s is not a remat-plan flag" % name)
    for e in errors:
        print("error: " + e)
    if errors:
        sys.exit(1)
    print("%d options agree" % len(docs))


main()
