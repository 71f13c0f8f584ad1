#!/usr/bin/env python3
"""How far identical machine code spreads in a report run, back to back, where the host sets the
time; and how the last step compares with the fastest step at every shape.

    python3 docs/tools/same_code_spread.py docs/results/RUN.csv ...

Steps 18 to 22 launch one machine code at n = 64 wherever step 19 does not go persistent (the
margin groups of docs/method.md); this takes the back-to-back rows where step 18 runs under 6.5 us
(1 to 256 matrices, the PR's and upstream's shapes), where a launch's host time is most of the
time, and prints per run: the samples a row took, the largest and the median spread of the five
(slowest over fastest), and per mode the shapes where the last step is more than 3 % behind the
fastest step, with its ratio, and the shape where it is furthest behind.
"""
import csv
import statistics
import sys
from collections import defaultdict

SAME_CODE = ("18", "19", "20", "21", "22")


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    for path in sys.argv[1:]:
        times = defaultdict(dict)  # (shape, mode) -> {step number: us}
        samples = {}
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                if r["kind"] == "step" and r["status"] == "ok" and r["us_median"]:
                    times[(r["shape_id"], r["mode"])][r["name"][:2]] = float(r["us_median"])
                    samples[r["mode"]] = r["samples"]
        spreads = []
        for (shape, mode), steps in times.items():
            if mode == "back_to_back" and shape != "kimi_linear" and steps.get("18", 1e9) < 6.5:
                same = [steps[s] for s in SAME_CODE]
                spreads.append((max(same) / min(same) - 1, shape))
        spreads.sort(reverse=True)
        print(f"{path}: back to back {samples.get('back_to_back')} samples, graph replay "
              f"{samples.get('graph_replay')}")
        print(f"  steps 18-22 back to back at {len(spreads)} host-bound shapes: largest spread "
              f"{100 * spreads[0][0]:.1f} % ({spreads[0][1]}), median "
              f"{100 * statistics.median(s for s, _ in spreads):.1f} %")
        for mode in ("back_to_back", "graph_replay"):
            behind, worst = [], (0.0, "", "")
            for (shape, m), steps in sorted(times.items()):
                if m == mode:
                    ratio = steps[max(steps)] / min(steps.values())
                    if ratio > 1.03:
                        behind.append(f"{shape} {ratio:.3f}")
                    if ratio > worst[0]:
                        worst = (ratio, shape, min(steps, key=steps.get))
            print(f"  {mode}: last step more than 3 % behind the fastest at {len(behind)} of "
                  f"{sum(1 for _, m in times if m == mode)} shapes{': ' if behind else ''}{', '.join(behind)}; "
                  f"worst {worst[0]:.3f} ({worst[1]}, against step {worst[2]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
