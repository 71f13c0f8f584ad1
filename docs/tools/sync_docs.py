#!/usr/bin/env python3
"""Keeps the docs' diffs and timing tables equal to the code and the measurements.

A chapter never holds a hand copy of a diff or a number. It holds markers,
and this script fills the text between them:

  <!-- diff: 02_register_storage 03_loop_splitting -->
  ...the unified diff of the two steps' solve_tri.cu...
  <!-- /diff -->

  <!-- timing: 03_loop_splitting -->
  ...the timing table that step's test printed on the H200, read from
     docs/results/h200-step-tests.log (the step against its predecessor)...
  <!-- /timing -->

  <!-- report: the PR's shape -->
  ...the section of the report's output (docs/results/h200-report.txt) whose
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
STEP_LOG = ROOT / "docs" / "results" / "h200-step-tests.log"
REPORT_LOG = ROOT / "docs" / "results" / "h200-report.txt"

BLOCK = re.compile(r"(<!-- (diff|timing|report): ([^>]*?) -->\n)(.*?)(<!-- /\2 -->)", re.S)


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


def fill(text: str) -> str:
    def replace(match: re.Match) -> str:
        kind, args = match.group(2), match.group(3)
        if kind == "diff":
            body = step_diff(*args.split())
        elif kind == "timing":
            body = step_timing(*args.split())
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
