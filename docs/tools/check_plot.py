#!/usr/bin/env python3
"""The committed plots are what today's code draws from the committed runs.

    check_plot.py path/to/solve_tri_report [--write]

For every docs/results/NAME.csv with a NAME.svg beside it, redraws the plot
with `solve_tri_report --replot` (no GPU needed) and compares. --write
replaces the committed SVG instead: run it after a change to the plot code.
"""
import filecmp
import pathlib
import shutil
import subprocess
import sys
import tempfile

RESULTS = pathlib.Path(__file__).resolve().parents[1] / "results"


def main():
    report, write = sys.argv[1], "--write" in sys.argv[2:]
    pairs = [(csv, csv.with_suffix(".svg")) for csv in sorted(RESULTS.glob("*.csv"))
             if csv.with_suffix(".svg").exists()]
    if not pairs:
        print(f"FAIL: no results CSV with its SVG in {RESULTS}")
        return 1
    stale = []
    for csv, svg in pairs:
        with tempfile.TemporaryDirectory() as out:
            run = subprocess.run([report, "--replot", str(csv), "--out", out], capture_output=True, text=True)
            drawn = pathlib.Path(out) / "results.svg"
            if run.returncode != 0 or not drawn.exists():
                print(f"FAIL: --replot {csv.name} exited {run.returncode}:\n{run.stdout}{run.stderr}")
                return 1
            if filecmp.cmp(drawn, svg, shallow=False):
                print(f"{svg.name}: as drawn from {csv.name}")
            elif write:
                shutil.copyfile(drawn, svg)
                print(f"{svg.name}: redrawn from {csv.name}")
            else:
                stale.append(svg.name)
    if stale:
        print(f"FAIL: {', '.join(stale)} differ from what the code draws from their CSV; run "
              f"docs/tools/check_plot.py build/solve_tri_report --write")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
