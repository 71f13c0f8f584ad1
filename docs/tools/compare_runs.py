#!/usr/bin/env python3
"""How far two report runs differ: us/run per step, yardstick and shape, by mode.

    compare_runs.py FIRST.csv SECOND.csv

Both are solve_tri_report's results.csv. Rows whose first time is within 1.5x
the empty kernel's at that shape and mode are counted apart: there the host's
launch rate, not the kernel, sets the time. Prints, per mode, the median and
the largest relative difference of the other rows, and per shape and mode how
the last step compares with the fastest step of the second run (and, at the
memory-bound shapes, its share of the copy bandwidth in both runs).
"""
import csv
import statistics
import sys


def load(path):
    rows = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["status"] == "ok" and r["us_median"]:
                rows[(r["shape_id"], r["mode"], r["name"])] = (float(r["us_median"]), r["kind"],
                                                               r["percent_of_copy_bandwidth"])
    return rows


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    first, second = load(sys.argv[1]), load(sys.argv[2])
    empty = {(k[0], k[1]): v[0] for k, v in first.items() if v[1] == "empty_kernel"}
    for mode in ("back_to_back", "graph_replay"):
        kernel, launch = [], 0
        for key, (us, _, _) in first.items():
            if key[1] != mode or key not in second or (key[0], mode) not in empty:
                continue
            if us < 1.5 * empty[(key[0], mode)]:
                launch += 1
                continue
            kernel.append((abs(second[key][0] / us - 1) * 100, key))
        worst = max(kernel)
        print(f"{mode}: {len(kernel)} rows, median difference {statistics.median(d for d, _ in kernel):.2f} %, "
              f"largest {worst[0]:.2f} % ({worst[1][2]} at {worst[1][0]}); {launch} rows at the launch floor apart")
    for shape in sorted({k[0] for k in second}):
        for mode in ("back_to_back", "graph_replay"):
            steps = sorted((v[0], k[2]) for k, v in second.items() if k[0] == shape and k[1] == mode and v[1] == "step")
            if steps:
                best, last = steps[0], max(steps, key=lambda s: s[1])
                copy = [run.get((shape, mode, last[1]), (0, "", ""))[2] for run in (first, second)]
                share = f"; {copy[0]} -> {copy[1]} % of copy" if all(copy) else ""
                print(f"{shape} {mode}: fastest {best[1]} {best[0]:.2f} us; last step {last[1]} {last[0]:.2f} us "
                      f"({last[0] / best[0]:.3f} x){share}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
