#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Recomputes numbers docs/ quotes that cost a second or two each, with the
command the doc names (remat-opt with default options, remat-plan), and
checks each quote: the doc must contain the number as it prints it.

  quoted_numbers.py SRC_ROOT WORK_DIR [DOCS_ROOT] [--only GROUP,...]
  (remat-opt, remat-plan on PATH)

(DOCS_ROOT: where docs/ is read, SRC_ROOT by default; --only: run these
groups of claims only, the functions below: loops_and_pipelines,
corpus_buffers, corpus_remat, gpu_budgets, time_pass, measure_time, dynamic,
graph_format.)

Prints "ok: DOC: QUOTE" per claim, "STALE: ..." for a number the doc quotes
that the command no longer gives, and "quoted numbers: N of M ok"; exits 1
unless all are. A claim names the doc, the input (a shipped file or a
generator command), and what the doc prints. Table cells are checked in
their row (found by its first cells inside the doc's section), so a number
quoted elsewhere in the doc does not satisfy them. Measured numbers (run
times, peaks a run measures) are not recomputed here: the scripts that
measure them regenerate those (docs/benchmarks.md says which); where the
doc says measured == predicted, the prediction is checked.
"""
import concurrent.futures
import json
import math
import os
import re
import subprocess
import sys

SRC = WORK = DOCS = None
CACHE = {}


def remat_opt(path, budget, extra=()):
    """(function report or None, stderr) of remat-opt PATH --remat-budget=B."""
    key = (path, budget, tuple(extra))
    if key not in CACHE:
        p = subprocess.run(["remat-opt", path, "--remat-budget=" + budget,
                            "--remat-report=-", "-o", os.devnull] + list(extra),
                           capture_output=True, text=True)
        f = json.loads(p.stdout)["functions"][0] if p.returncode == 0 else None
        CACHE[key] = (f, p.stderr)
    return CACHE[key]


def report(path, budget, extra=()):
    f, err = remat_opt(path, budget, extra)
    if f is None:
        sys.exit("quoted_numbers: remat-opt %s --remat-budget=%s failed:\n%s"
                 % (path, budget, err))
    return f


def fitted_at(path, budget):
    """As benchmarks/timing/measure_time.py fits a row: BUDGET, or, where
    remat-opt refuses it, the smallest budget it names rounded up to a
    whole percent. Returns (the budget cell as the doc prints it, report)."""
    f, err = remat_opt(path, budget)
    if f is not None:
        return budget, f
    m = re.search(r"smallest budget it can meet is (\d+) B", err)
    peak = re.search(r"of its peak without rematerialization, (\d+) B\)", err)
    if not m or not peak:
        sys.exit("quoted_numbers: remat-opt %s --remat-budget=%s failed:\n%s"
                 % (path, budget, err))
    used = "%d%%" % math.ceil(100 * int(m.group(1)) / int(peak.group(1)))
    return "%s -> %s" % (budget, used), report(path, used)


def grouped(n):
    return "{:,}".format(n)


def kib(n):
    return "%.1f KiB" % (n / 1024)


def src(*parts):
    return os.path.join(SRC, *parts)


def generated(name, cmd):
    path = os.path.join(WORK, name)
    with open(path, "w") as out:
        subprocess.run([sys.executable] + cmd, stdout=out, check=True)
    return path


def generated_o(name, cmd):
    path = os.path.join(WORK, name)
    subprocess.run([sys.executable] + cmd + ["-o", path], check=True)
    return path


class Checker:
    def __init__(self):
        self.total = self.ok = 0
        self.texts = {}
        self.lines = []

    def text(self, doc):
        if doc not in self.texts:
            self.texts[doc] = open(os.path.join(DOCS, doc)).read()
        return self.texts[doc]

    def section(self, doc, heading):
        """The text of DOC from the line HEADING to the next heading."""
        text = self.text(doc)
        start = text.find("\n" + heading + "\n")
        if start < 0:
            return None
        m = re.search(r"\n#+ ", text[start + 1:])
        return text[start:start + 1 + m.start()] if m else text[start:]

    def result(self, good, doc, what, why):
        what = " ".join(what.split())
        self.total += 1
        if good:
            self.ok += 1
            self.lines.append("ok: %s: %s (%s)" % (doc, what, why))
        else:
            self.lines.append("STALE: %s does not quote %s, the %s" % (doc, what, why))

    def quote(self, doc, quote, why, heading=None):
        """QUOTE appears in DOC (in its section HEADING if given)."""
        text = self.section(doc, heading) if heading else self.text(doc)
        self.result(text is not None and quote in text, doc, quote, why)

    def cells(self, doc, heading, first):
        """The cells of the table rows of HEADING's section whose first
        cells are FIRST (a list)."""
        text = self.section(doc, heading) or ""
        rows = []
        for line in text.splitlines():
            if not line.startswith("|"):
                continue
            c = [x.strip() for x in line.strip().strip("|").split("|")]
            if c[:len(first)] == first:
                rows.append(c)
        return rows

    def cell(self, doc, heading, first, column, value, why):
        """The row of HEADING's table starting with FIRST has VALUE in
        COLUMN (0-based)."""
        rows = self.cells(doc, heading, first)
        good = len(rows) == 1 and len(rows[0]) > column and rows[0][column] == value
        self.result(good, doc, "%s in the row %s" % (value, " | ".join(first)), why)


def loops_and_pipelines(c):
    """The loop and twin budgets, siamese as written, the nested scan, the
    1F1B budgets (remat-opt --remat-budget=min)."""
    gen_pipeline = src("test/Distributed/gen_pipeline.py")
    gen_nested = src("test/Loops/gen_nested_scan.py")
    claims = [
        ("docs/benchmarks.md", src("test/Loops/Inputs/rnn.mlir"),
         [("peak_before", str), ("peak_after", str)]),
        ("docs/benchmarks.md", src("test/Loops/Inputs/rnn.unrolled.mlir"),
         [("peak_after", str)]),
        ("docs/benchmarks.md", src("test/Corpus/Inputs/siamese.mlir"),
         [("peak_before", grouped)]),
        ("docs/loops.md", generated_o("nested.mlir", [gen_nested]),
         [("peak_before", grouped), ("peak_after", grouped)]),
        ("docs/loops.md", generated_o("nested.unrolled.mlir", [gen_nested, "--form", "unrolled"]),
         [("peak_after", grouped)]),
    ]
    for rows, layers in ((4, 2), (32, 4)):
        path = generated_o("pp_r%d_l%d.mlir" % (rows, layers),
                           [gen_pipeline, "--pipeline", "1f1b", "-P", "4", "-M", "8",
                            "--rows", str(rows), "--width", "16", "-L", str(layers)])
        claims.append(("docs/benchmarks.md", path,
                       [("peak_before", grouped), ("peak_after", grouped)]))
    for doc, path, fields in claims:
        f = report(path, "min")
        for field, fmt in fields:
            c.quote(doc, "%s B" % fmt(f[field]),
                    "%s of %s at min" % (field, os.path.basename(path)))


CORPUS = ["mlp", "cnn", "resnet", "unet", "siamese"]
BUFFERS = "### The corpus without rematerialization: buffer planning"


def corpus_buffers(c):
    """benchmarks.md's corpus table (default alignment 64): the arena, most
    live at once and the sum of its buffers (the arena remark of
    -remat-lower-to-cpu=buffers=arena), the elementwise results written in
    place, and the plan-buffers peak (measured == the planner's
    peak_before, checked by the measure scripts)."""
    in_place = []
    for m in CORPUS:
        path = src("test/Corpus/Inputs/%s.mlir" % m)
        p = subprocess.run(["remat-opt", path, "--remat-lower-to-cpu=buffers=arena",
                            "-o", os.devnull], capture_output=True, text=True)
        r = re.search(r"arena of (\d+) bytes for \d+ buffers \(sum (\d+) bytes\); "
                      r"at most (\d+) bytes live at once, (\d+) written in place", p.stderr)
        if p.returncode != 0 or not r:
            sys.exit("quoted_numbers: no arena remark for %s:\n%s" % (path, p.stderr))
        arena, total, most, written = (int(x) for x in r.groups())
        in_place.append(written)
        row = ["`%s`" % m]
        why = "%s of %s, -remat-lower-to-cpu=buffers=arena"
        c.cell("docs/benchmarks.md", BUFFERS, row, 5, kib(arena), why % ("arena", m))
        c.cell("docs/benchmarks.md", BUFFERS, row, 6, kib(most), why % ("most live at once", m))
        c.cell("docs/benchmarks.md", BUFFERS, row, 7, kib(total), why % ("sum of its buffers", m))
        f = report(path, "100%")  # peak_before: any budget would do
        c.cell("docs/benchmarks.md", BUFFERS, row, 3, kib(f["peak_before"]),
               "plan-buffers peak of %s (peak_before)" % m)
    c.quote("docs/benchmarks.md", "in-place reuse: %s and %d" % (
        ", ".join(str(n) for n in in_place[:-1]), in_place[-1]),
        "elementwise results the arena writes in place", BUFFERS)


def corpus_remat(c):
    """benchmarks.md's corpus table with rematerialization: per model the
    budget measure_time.py uses (50 %, else the smallest rounded up), the
    smallest budget, the predicted peak (measured == predicted there), the
    saving and the overhead."""
    heading = "### The corpus with rematerialization"
    for m in CORPUS:
        path = src("test/Corpus/Inputs/%s.mlir" % m)
        used, f = fitted_at(path, "50%")
        # The smallest budget: what the refusal of 50 % names, else min's.
        named = re.search(r"smallest budget it can meet is (\d+) B", remat_opt(path, "50%")[1])
        least = int(named.group(1)) if named else report(path, "min")["peak_after"]
        before, after = f["peak_before"], f["peak_after"]
        want = ["%s %% (%.1f %%)" % (used.split(" -> ")[-1].rstrip("%"), 100 * least / before),
                kib(after), kib(after), "%.1f %%" % (100 * (1 - after / before)),
                "%+.1f %%" % f["overhead_percent"]]
        rows = c.cells("docs/benchmarks.md", heading, ["`%s`" % m])
        got = rows[0][3:8] if len(rows) == 1 else []  # measured == predicted
        c.result(got == want, "docs/benchmarks.md", "| `%s` | %s |" % (m, " | ".join(want)),
                 "budget (smallest), predicted peak, saving and overhead of %s" % m)


def gpu_budgets(c):
    """The rematerialized corpus models of the GPU section
    (corpus-budget.test): peak_after of ResNet at 60 %, U-Net at 80 %."""
    for m, b in (("resnet", "60%"), ("unet", "80%")):
        f = report(src("test/Corpus/Inputs/%s.mlir" % m), b)
        c.quote("docs/benchmarks.md", kib(f["peak_after"]),
                "peak_after of %s at %s" % (m, b), "### Device memory of the corpus")


def time_pass(c):
    """benchmarks.md's time_pass.py table: the strategy and overhead at
    90 and 70 % on the 10,000-op deep ResNet (a second each; 80 % lies
    between them, and the smallest budget below 60 % takes 4 s more)."""
    heading = "### The pass on a 10,000-op step (`benchmarks/pass/time_pass.py`)"
    deep = generated("deep.mlir", [src("benchmarks/pass/gen_deep_resnet.py"), "--ops", "10000"])
    for b in ("90", "70"):
        f = report(deep, b + "%")
        c.cell("docs/benchmarks.md", heading, [b + " %"], 1, f["strategy"],
               "strategy at %s %% of the deep ResNet" % b)
        c.cell("docs/benchmarks.md", heading, [b + " %"], 7, "%+.2f %%" % f["overhead_percent"],
               "overhead at %s %% of the deep ResNet" % b)


def measure_time(c):
    """benchmarks.md's measure_time.py table: per default row the budget
    used, the strategy, the predicted overhead and the predicted peaks."""
    heading = "### FLOP model (`benchmarks/timing/measure_time.py`)"
    sys.path.insert(0, src("benchmarks/timing"))
    import measure_time as mt
    for row in mt.DEFAULT_ROWS:
        name, model, _, budget = mt.parse_row(row)
        used, f = fitted_at(model, budget)
        rows = c.cells("docs/benchmarks.md", heading, [name, used])
        cells = rows[0] if len(rows) == 1 else []
        want = [f["strategy"], "%+.1f %%" % f["overhead_percent"]]
        peak = "%d -> %d B" % (f["peak_before"], f["peak_after"])
        good = cells[2:4] == want and len(cells) > 8 and cells[8] == peak
        c.result(good, "docs/benchmarks.md", "| %s | %s | %s | ... | %s |" % (
            name, used, " | ".join(want), peak), "fit of the measure_time.py row %s" % row)


def dynamic(c):
    """dynamic-shapes.md: the dynamic MLP's peaks at 80 %, the dynamic
    corpus MLP's smallest budgets per strategy (default alignment)."""
    f = report(src("test/Dynamic/Inputs/mlp_dynamic.mlir"), "80%")
    c.quote("docs/dynamic-shapes.md", "%d B\n  before, %d B at 80 %%" % (f["peak_before"], f["peak_after"]),
            "peaks of mlp_dynamic.mlir at 80 %")
    c.quote("docs/dynamic-shapes.md", "predicted peak (%d B, the default" % f["peak_after"],
            "peak_after of mlp_dynamic.mlir at 80 % (GPU emulation)")
    mlp = generated("mlp_dynamic_batch.mlir",
                    [src("test/Corpus/gen_corpus.py"), "--model", "mlp", "--dynamic-batch"])
    e = report(mlp, "min", ["--remat-strategy=evict-greedy"])
    l = report(mlp, "min", ["--remat-strategy=lowerset-exact"])
    c.quote("docs/dynamic-shapes.md", "evict-greedy %d B,\nlower sets %d B" % (
        e["peak_after"], l["peak_after"]), "smallest budgets of gen_corpus.py --dynamic-batch")
    c.quote("docs/dynamic-shapes.md", "the bound measures the predicted %d B" % report(mlp, "80%")["peak_after"],
            "peak_after of gen_corpus.py --dynamic-batch at 80 %")


def graph_format(c):
    """graph-format.md's result example: auto and chain-rotor on the rotor
    toy chain at 90 MB."""
    chain = src("examples/rotor-toy-chain.json")
    out = {}
    for s in ("auto", "chain-rotor"):
        p = subprocess.run(["remat-plan", chain, "--budget=90", "--strategy=" + s],
                           capture_output=True, text=True)
        out[s] = json.loads(p.stdout)
    a, r = out["auto"], out["chain-rotor"]
    c.quote("docs/graph-format.md", "auto picks `%s`" % a["chosen"], "auto's choice at 90")
    c.quote("docs/graph-format.md", '"chosen": "%s"' % a["chosen"], "auto's choice at 90 (JSON)")
    c.quote("docs/graph-format.md", '"peak": %s,\n  "time": %s,\n  "overhead": %s,' % (
        a["peak"], a["time"], a["overhead"]), "auto's peak, time and overhead at 90")
    c.quote("docs/graph-format.md", "reach %s ms where `--strategy=chain-rotor` finds %s ms at %s MB" % (
        a["time"], r["time"], r["peak"]), "auto's and chain-rotor's times at 90")


def main():
    global SRC, WORK, DOCS
    args = [a for a in sys.argv[1:] if not a.startswith("--only")]
    only = [a.split("=", 1)[1].split(",") for a in sys.argv[1:] if a.startswith("--only=")]
    SRC, WORK = args[0], args[1]
    DOCS = args[2] if len(args) > 2 else SRC
    os.makedirs(WORK, exist_ok=True)
    # Two lanes of about the same work, run side by side (each group its
    # own checker; corpus_remat and measure_time share their remat-opt
    # runs, so they are in the same lane); printed in this order.
    lanes = ((loops_and_pipelines, corpus_remat, measure_time),
             (corpus_buffers, gpu_budgets, time_pass, dynamic, graph_format))
    order = (loops_and_pipelines, corpus_buffers, corpus_remat, gpu_budgets, time_pass,
             measure_time, dynamic, graph_format)
    checkers = {}

    def run(lane):
        for check in lane:
            if not only or check.__name__ in only[0]:
                checkers[check] = Checker()
                check(checkers[check])

    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for f in [pool.submit(run, lane) for lane in lanes]:
            f.result()  # re-raises a failed command's SystemExit
    ok = total = 0
    for check in order:
        if check in checkers:
            print("\n".join(checkers[check].lines))
            ok += checkers[check].ok
            total += checkers[check].total
    print("quoted numbers: %d of %d ok" % (ok, total))
    return 0 if ok == total else 1


if __name__ == "__main__":
    sys.exit(main())
