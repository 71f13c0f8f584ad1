#!/usr/bin/env python3
"""Prints, from an `ncu --csv --page raw` export, one column per profiled kernel
(named by its step) and one row per metric the cost model reads, then each
kernel's three largest stall reasons. Metrics ncu did not collect print n/a.

    ncu_rows.py RAW_CSV
    ncu_rows.py --merge RAW_CSV...   (several exports as one, on stdout)
"""
import csv
import re
import sys

ROWS = [
    ("duration (us)", "gpu__time_duration.sum", 1e-3, "{:.2f}"),
    ("instructions executed (IPC x cycles x SMs)", "derived: instructions", 1, "{:.0f}"),
    ("issue slots busy (% of elapsed)", "sm__inst_issued.avg.pct_of_peak_sustained_elapsed", 1, "{:.1f}"),
    ("executed IPC (per SM, active)", "sm__inst_executed.avg.per_cycle_active", 1, "{:.2f}"),
    ("LSU pipe (% of active cycles)", "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active", 1, "{:.1f}"),
    ("FMA pipe (% of active cycles)", "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", 1, "{:.1f}"),
    ("shared wavefronts, loads", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", 1, "{:.0f}"),
    ("shared bank conflicts, loads", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 1, "{:.0f}"),
    ("shared bank conflicts, stores", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", 1, "{:.0f}"),
    ("DRAM throughput (% of peak)", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", 1, "{:.1f}"),
    ("achieved occupancy (%)", "sm__warps_active.avg.pct_of_peak_sustained_active", 1, "{:.1f}"),
    ("warp cycles per issued instruction", "smsp__average_warp_latency_per_inst_issued.ratio", 1, "{:.2f}"),
    ("eligible warps per scheduler", "smsp__warps_eligible.avg.per_cycle_active", 1, "{:.2f}"),
    ("registers per thread", "launch__registers_per_thread", 1, "{:.0f}"),
]
STALL = re.compile(r"smsp__average_warps_issue_stalled_(\w+)_per_issue_active\.ratio$")


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def value_of(kernel, index, metric):
    """A metric of one kernel, or None; "derived: instructions" from IPC, active cycles and SMs."""
    if metric == "derived: instructions":
        parts = [value_of(kernel, index, m) for m in ("sm__inst_executed.avg.per_cycle_active",
                                                      "sm__cycles_active.avg",
                                                      "device__attribute_multiprocessor_count")]
        return parts[0] * parts[1] * parts[2] if None not in parts else None
    return number(kernel[index[metric]]) if metric in index else None


def merge(paths):
    """Several raw exports as one: the union of their columns, every kernel's row.
    An export named raw-stepNN.csv gives its kernels a column Step = NN (the
    kernel's name need not say its step: ncu may print it without the namespace)."""
    header, units, kernels = ["Step"], [""], []
    for path in paths:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
        if len(rows) < 3:
            continue
        for name, unit in zip(rows[0], rows[1]):
            if name not in header:
                header.append(name)
                units.append(unit)
        step = re.search(r"raw-step(\d\d)\.csv$", path)
        kernels += [dict(zip(rows[0], row), Step=step.group(1) if step else "") for row in rows[2:]]
    writer = csv.writer(sys.stdout)
    writer.writerow(header)
    writer.writerow(units)
    for kernel in kernels:
        writer.writerow([kernel.get(name, "") for name in header])
    return 0


def main():
    if sys.argv[1] == "--merge":
        return merge(sys.argv[2:])
    with open(sys.argv[1], newline="") as f:
        rows = list(csv.reader(f))
    if len(rows) < 3:
        print("no kernel in the profile")
        return 1
    header = rows[0]  # row 1 holds the units
    index = {name: i for i, name in enumerate(header)}
    # The first profiled launch of each step's kernel (ncu_table.sh says which
    # launch that is); later ones, which ncu may have caught too, are left out.
    names, kernels = [], []
    for kernel in rows[2:]:
        full = kernel[index["Kernel Name"]]
        step = re.search(r"step(\d\d)", full)
        labelled = kernel[index["Step"]] if "Step" in index else ""
        name = labelled or (step.group(1) if step else full[:10])
        if name not in names:
            names.append(name)
            kernels.append(kernel)
    print("kernels:")
    for name, kernel in zip(names, kernels):
        print(f"  {name} = {kernel[index['Kernel Name']][:110]}")
    print()
    print(f"{'metric':<44}" + "".join(f"{n:>11}" for n in names))
    for label, metric, scale, fmt in ROWS:
        cells = []
        for kernel in kernels:
            value = value_of(kernel, index, metric)
            cells.append(fmt.format(value * scale) if value is not None else "n/a")
        print(f"{label:<44}" + "".join(f"{c:>11}" for c in cells))
    print()
    print("top stall reasons, cycles per issued instruction (smsp__average_warps_issue_stalled_*_per_issue_active):")
    stalls = [(m.group(1), i) for i, name in enumerate(header) if (m := STALL.match(name))]
    for name, kernel in zip(names, kernels):
        values = sorted(((number(kernel[i]) or 0.0, reason) for reason, i in stalls), reverse=True)[:3]
        print(f"  {name}: " + ", ".join(f"{reason} {value:.2f}" for value, reason in values))
    return 0


if __name__ == "__main__":
    sys.exit(main())
