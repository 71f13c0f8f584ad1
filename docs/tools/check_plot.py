#!/usr/bin/env python3
"""The committed plots and summaries are what today's code draws from the committed runs.

    check_plot.py path/to/solve_tri_report [--write]

For every docs/results/NAME.csv with a NAME.svg beside it, redraws the plot
with `solve_tri_report --replot NAME.csv` (no GPU needed) and compares; where
a NAME-summary.md or a NAME-curve.svg stands beside it too, compares the
summary.md or the curve.svg (the batch curve) that the same replot writes.
For every docs/results/A+B.svg, an overlay of the runs A.csv and B.csv (any
number of names joined by '+'), redraws it with `--replot A.csv B.csv` and
compares; and A+B-curve.svg with the curve.svg of that replot. --write replaces the committed files
instead: run it after a change to the plot or summary code.
"""
import pathlib
import subprocess
import sys
import tempfile

RESULTS = pathlib.Path(__file__).resolve().parents[1] / "results"


def drawn_files(report, csvs):
    """Runs --replot on the CSVs; returns {output name: its bytes}, or None with a message printed."""
    with tempfile.TemporaryDirectory() as out:
        run = subprocess.run([report, "--replot", *map(str, csvs), "--out", out], capture_output=True, text=True)
        files = {path.name: path.read_bytes() for path in pathlib.Path(out).iterdir()}
        if run.returncode != 0 or "results.svg" not in files:
            names = " ".join(csv.name for csv in csvs)
            print(f"FAIL: --replot {names} exited {run.returncode}:\n{run.stdout}{run.stderr}")
            return None
        return files


def main():
    report, write = sys.argv[1], "--write" in sys.argv[2:]
    checks = []  # (committed file, the CSVs it is drawn from, the name --replot writes it under)
    for csv in sorted(RESULTS.glob("*.csv")):
        if csv.with_suffix(".svg").exists():
            checks.append((csv.with_suffix(".svg"), [csv], "results.svg"))
            for suffix, name in (("-summary.md", "summary.md"), ("-curve.svg", "curve.svg")):
                beside = csv.with_name(csv.stem + suffix)
                if beside.exists():
                    checks.append((beside, [csv], name))
    for overlay in sorted(RESULTS.glob("*+*.svg")):
        curve = overlay.stem.endswith("-curve")
        stem = overlay.stem[: -len("-curve")] if curve else overlay.stem
        csvs = [RESULTS / f"{name}.csv" for name in stem.split("+")]
        missing = [csv.name for csv in csvs if not csv.exists()]
        if missing:
            print(f"FAIL: {overlay.name} is drawn from {', '.join(missing)}, which {RESULTS} does not hold")
            return 1
        checks.append((overlay, csvs, "curve.svg" if curve else "results.svg"))
    if not any(name == "results.svg" and len(csvs) == 1 for _, csvs, name in checks):
        print(f"FAIL: no results CSV with its SVG in {RESULTS}")
        return 1
    stale = []
    for committed, csvs, name in checks:
        files = drawn_files(report, csvs)
        if files is None:
            return 1
        sources = " + ".join(csv.name for csv in csvs)
        if name not in files:
            print(f"FAIL: --replot {sources} drew no {name}, which {committed.name} holds")
            return 1
        if files[name] == committed.read_bytes():
            print(f"{committed.name}: as drawn from {sources}")
        elif write:
            committed.write_bytes(files[name])
            print(f"{committed.name}: redrawn from {sources}")
        else:
            stale.append(committed.name)
    if stale:
        print(f"FAIL: {', '.join(stale)} differ from what the code draws from their CSV; run "
              f"docs/tools/check_plot.py build/solve_tri_report --write")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
