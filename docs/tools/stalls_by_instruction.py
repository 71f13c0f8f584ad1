#!/usr/bin/env python3
"""Where a kernel's warps wait, instruction by instruction, from Nsight Compute's SourceCounters.

    stalls_by_instruction.py SOURCE.csv [SOURCE.csv ...]

SOURCE.csv is `ncu --import REPORT --page source --print-source sass --csv` of one kernel (what
measure.sh's parts ncu-warm and ncu-source-k64 write). For each file it prints the samples in all,
each stall reason's total, the instructions that hold most of the long_scoreboard and
short_scoreboard samples, the samples on each BAR.SYNC and DEPBAR, and, for the short_scoreboard
samples on FFMAs, which instruction wrote the operand they wait for (the nearest earlier writer of
one of its source registers, in the listing's order: the kernels are straight-line code).
"""
import collections
import csv
import re
import sys

REASONS = ["long_sb", "short_sb", "no_inst", "wait", "mio", "math", "barrier", "lg", "dispatch",
           "branch_resolving", "selected", "not_selected"]


def instructions(path):
    rows = list(csv.reader(open(path, newline="")))
    header = rows[1]
    return rows[0][1], [dict(zip(header, row)) for row in rows[2:] if len(row) == len(header)]


def samples(row, reason):
    return int(row.get("stall_" + reason) or 0)


def text(row):
    return row["Source"].strip()


def unpredicated(instruction):
    return re.sub(r"^@!?U?P\w+\s+", "", instruction)


def writer(listing, at, register):
    """The nearest instruction before `at` that writes `register` (width by opcode suffix)."""
    number = int(register[1:])
    for j in range(at - 1, max(-1, at - 300), -1):
        match = re.match(r"(\S+)\s+R(\d+)\b", unpredicated(text(listing[j])))
        if not match or match.group(1).startswith(("ST", "BAR", "DEPBAR", "LDGSTS")):
            continue
        opcode, first = match.group(1), int(match.group(2))
        width = 4 if ".128" in opcode else 2 if (".64" in opcode or ".WIDE" in opcode) else 1
        if first <= number < first + width:
            return opcode
    return None


for path in sys.argv[1:]:
    kernel, listing = instructions(path)
    total = sum(int(row["Warp Stall Sampling (All Samples)"] or 0) for row in listing)
    print(f"== {path}\n{kernel.split('>(')[0] + '>'}: {len(listing)} instructions, {total} samples")
    print("  by reason: " + ", ".join(f"{r} {sum(samples(row, r) for row in listing)}" for r in REASONS))
    for reason in ("long_sb", "short_sb"):
        by_opcode = collections.Counter()
        for row in listing:
            by_opcode[unpredicated(text(row)).split()[0]] += samples(row, reason)
        top = sorted(((samples(row, reason), i) for i, row in enumerate(listing)), reverse=True)[:4]
        print(f"  {reason} by the waiting instruction's opcode: " +
              ", ".join(f"{op} {n}" for op, n in by_opcode.most_common(5) if n))
        for n, i in top:
            print(f"    {n:6d}  #{i:<5d} {text(listing[i])[:70]}")
    for i, row in enumerate(listing):
        if re.search(r"\b(BAR\.SYNC|DEPBAR)", text(row)):
            print(f"  #{i:<5d} {text(row)[:40]:40s} samples {row['Warp Stall Sampling (All Samples)']}, "
                  f"long_sb {samples(row, 'long_sb')}")
    producers = collections.Counter()
    for i, row in enumerate(listing):
        waited = samples(row, "short_sb")
        match = re.match(r"FFMA\S*\s+R\d+,\s*(-?R\d+),\s*(-?R\d+),\s*(-?R\d+)", unpredicated(text(row)))
        if waited and match:
            found = None
            for register in (r.lstrip("-") for r in match.groups()):
                found = writer(listing, i, register)
                if found and found.startswith(("LDS", "MUFU", "SHFL", "LDG")):
                    break
            producers[found] += waited
    print("  short_sb on FFMAs, by the writer of an operand: " +
          ", ".join(f"{op} {n}" for op, n in producers.most_common(4)))
