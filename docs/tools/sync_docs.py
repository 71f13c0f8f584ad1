#!/usr/bin/env python3
"""Keeps the docs' diffs and timing tables equal to the code and the measurements.

A chapter never holds a hand copy of a diff or a number. It holds markers,
and this script fills the text between them:

  <!-- diff: 02_register_storage 03_loop_splitting -->
  ...the unified diff of the two steps' solve_tri.cu...
  <!-- /diff -->

  <!-- timing: 03_loop_splitting -->
  ...the timing table that step's test printed on the H200, read from
     docs/results/RUN-step-tests.log (the step against its predecessor)...
  <!-- /timing -->

  <!-- compare: 07_padded_rows -->
  ...a table of the step against the one before it, with cuBLAS and the
     empty kernel, at the report's shapes in both timing modes, read from
     the report's CSV (docs/results/RUN.csv)...
  <!-- /compare -->

  <!-- report: the PR's shape -->
  ...the section of the report's output (docs/results/RUN-report.txt) whose
     heading line starts with "== the PR's shape"...
  <!-- /report -->

Run it after changing a kernel or committing new measurements:
    python3 docs/tools/sync_docs.py          # rewrite the docs in place
    python3 docs/tools/sync_docs.py --check  # exit 1 if any doc is stale (a meson test)
"""
import difflib
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
RUN = "h200-2026-12-01"  # the committed run the docs quote
STEP_LOG = ROOT / "docs" / "results" / f"{RUN}-step-tests.log"
REPORT_LOG = ROOT / "docs" / "results" / f"{RUN}-report.txt"
REPORT_CSV = ROOT / "docs" / "results" / f"{RUN}.csv"
SHAPES = [("pr", "the PR's, 8 matrices, k = 6"), ("upstream_perf", "upstream perf, 16 matrices, k = 32"),
          ("qwen3_next", "Qwen3-Next, 256 matrices, k = 64"), ("qwen3_next_8k", "Qwen3-Next, 4,096 matrices"),
          ("qwen3_next_32k", "Qwen3-Next, 16,384 matrices"), ("large_batch", "16,384 matrices, k = 32")]

BLOCK = re.compile(r"(<!-- (diff|timing|report|compare): ([^>]*?) -->\n)(.*?)(<!-- /\2 -->)", re.S)


def step_diff(previous: str, current: str) -> str:
    old = (ROOT / "steps" / previous / "solve_tri.cu").read_text().splitlines(keepends=True)
    new = (ROOT / "steps" / current / "solve_tri.cu").read_text().splitlines(keepends=True)
    lines = difflib.unified_diff(old, new, f"steps/{previous}/solve_tri.cu", f"steps/{current}/solve_tri.cu", n=2)
    return "```diff\n" + "".join(lines) + "```\n"


def step_timing(step: str) -> str:
    """The timing block that the step's test binary printed, from the committed log."""
    if not STEP_LOG.exists():
        raise SystemExit(f"{STEP_LOG} is missing: run the step tests on a GPU and save their output there")
    text = STEP_LOG.read_text()
    # The log holds each step binary's output after a line "=== <step> ===".
    section = re.search(rf"^=== {re.escape(step)} ===\n(.*?)(?=^=== |\Z)", text, re.S | re.M)
    if not section:
        raise SystemExit(f"no output of {step} in {STEP_LOG}")
    table = re.search(r"^timing: .*?(?=^\S|\Z)", section.group(1), re.S | re.M)
    if not table:
        raise SystemExit(f"no timing table in the output of {step} in {STEP_LOG}")
    return "```\n" + table.group(0).rstrip() + "\n```\n"


def report_section(heading: str) -> str:
    """The section of the report's output that starts with the line "== <heading>"."""
    if not REPORT_LOG.exists():
        raise SystemExit(f"{REPORT_LOG} is missing: run build/solve_tri_report on a GPU and save its output there")
    text = REPORT_LOG.read_text()
    section = re.search(rf"^== {re.escape(heading)}.*?(?=^== |^written: |\Z)", text, re.S | re.M)
    if not section:
        raise SystemExit(f"no section '== {heading}' in {REPORT_LOG}")
    return "```\n" + section.group(0).rstrip() + "\n```\n"


def step_comparison(step: str) -> str:
    """The step against its predecessor, cuBLAS and the empty kernel, from the report's CSV."""
    import csv

    with open(REPORT_CSV, newline="") as f:
        rows = list(csv.DictReader(f))
    steps = list(dict.fromkeys(r["name"] for r in rows if r["kind"] == "step"))
    if step not in steps:
        raise SystemExit(f"no step {step} in {REPORT_CSV}")
    previous = steps[steps.index(step) - 1] if steps.index(step) > 0 else None
    names = [n for n in (previous, step) if n]

    def cell(shape_id: str, name: str) -> str:
        found = {r["mode"]: r for r in rows if r["shape_id"] == shape_id and r["name"] == name}
        b2b, graph = found.get("back_to_back"), found.get("graph_replay")
        if not b2b or not b2b["us_median"]:
            return "n/a"
        text = f"{float(b2b['us_median']):,.2f} / {float(graph['us_median']):,.2f}"
        if b2b["percent_of_copy_bandwidth"] and b2b["memory_bound"] == "1":
            text += f" ({float(b2b['percent_of_copy_bandwidth']):.0f} % of copy)"
        return text

    kinds = {r["name"]: r["kind"] for r in rows}
    others = [n for n in dict.fromkeys(r["name"] for r in rows) if kinds[n] in ("cublas", "empty_kernel")]
    header = ["shape"] + [f"step {n[:2]}" for n in names] + others
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for shape_id, title in SHAPES:
        lines.append("| " + " | ".join([title] + [cell(shape_id, n) for n in names + others]) + " |")
    date = rows[0]["date"]
    return ("us/run, back to back / graph replay (median of 21 samples), from `solve_tri_report` on the "
            f"{rows[0]['gpu']}, {date} ([all figures](results/{RUN}.csv)):\n\n" + "\n".join(lines) + "\n")


def fill(text: str) -> str:
    def replace(match: re.Match) -> str:
        kind, args = match.group(2), match.group(3)
        if kind == "diff":
            body = step_diff(*args.split())
        elif kind == "timing":
            body = step_timing(*args.split())
        elif kind == "compare":
            body = step_comparison(args.strip())
        else:
            body = report_section(args.strip())
        return match.group(1) + body + match.group(5)

    return BLOCK.sub(replace, text)


def main() -> int:
    check = "--check" in sys.argv[1:]
    stale = []
    for doc in sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]:
        if not doc.exists():
            continue
        text = doc.read_text()
        filled = fill(text)
        if filled != text:
            stale.append(doc.relative_to(ROOT))
            if not check:
                doc.write_text(filled)
    if check and stale:
        print("stale docs (run python3 docs/tools/sync_docs.py):", ", ".join(map(str, stale)))
        return 1
    print(("checked" if check else "synced"), "docs;", ("stale: " + ", ".join(map(str, stale))) if stale else "all current")
    return 0


if __name__ == "__main__":
    sys.exit(main())
