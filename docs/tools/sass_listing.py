#!/usr/bin/env python3
"""Reads a committed machine-code listing (cuobjdump -sass | c++filt, "=== LIBRARY ===" sections,
gzip or plain): one kernel's instruction counts, and where given opcodes sit in its order.

    sass_listing.py LISTING LIBRARY KERNEL [--before OPCODE] [OPCODE ...]

LIBRARY is a section's library file name (libstep11.a, libvariant11_launch_bounds.a),
KERNEL a regular expression on the demangled name ("solve_tri_kernel<64, 2>"). Prints
the instruction count (NOPs aside), the memory and barrier opcodes with their counts,
and for each OPCODE given (a prefix: LDG, DEPBAR, BAR.SYNC, LDS) the positions, in
instructions from the kernel's start, of its first and last occurrence and how many.
With --before OPCODE (BAR.SYNC), it also counts how many of each come before the first
occurrence of that one.
"""
import collections
import gzip
import pathlib
import re
import sys

INSTRUCTION = re.compile(r"\s+/\*[0-9a-f]{4,}\*/\s+((?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)[^;]*?)\s*;")


def listings(listing: str):
    """(library, kernel name, [instructions in order, operands included, NOPs aside]) for every
    kernel of the listing."""
    library, name, code = None, None, None
    for line in listing.splitlines():
        section = re.match(r"=== (.*) ===$", line)
        if section:
            if name:
                yield library, name, code
            library, name = pathlib.Path(section.group(1)).name, None
            continue
        function = re.match(r"\s+Function : (.*)", line)
        if function:
            if name:
                yield library, name, code
            name, code = function.group(1).strip(), []
            continue
        instruction = INSTRUCTION.match(line)
        if instruction and name and instruction.group(2) != "NOP":
            code.append(instruction.group(1))
    if name:
        yield library, name, code


def opcode(instruction: str) -> str:
    """An instruction's opcode, its predicate aside."""
    return re.sub(r"^@!?U?P\w+\s+", "", instruction).split()[0]


def kernels(listing: str):
    """(library, kernel name, [opcodes in order]) for every kernel of the listing."""
    for library, name, code in listings(listing):
        yield library, name, [opcode(instruction) for instruction in code]


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    path, library, pattern, wanted = pathlib.Path(sys.argv[1]), sys.argv[2], re.compile(sys.argv[3]), sys.argv[4:]
    before = None
    if "--before" in wanted:
        at = wanted.index("--before")
        before = wanted[at + 1]
        wanted = wanted[:at] + wanted[at + 2:]
    text = gzip.open(path, "rt").read() if path.suffix == ".gz" else path.read_text()
    found = 0
    for lib, name, opcodes in kernels(text):
        if lib != library or not pattern.search(name):
            continue
        found += 1
        counts = collections.Counter(opcodes)
        memory = {op: n for op, n in sorted(counts.items()) if re.match(r"(LD|ST|BAR|DEPBAR|SHFL|MUFU)", op)}
        print(f"{lib} {name}\n  instructions {len(opcodes)}; " + ", ".join(f"{op} {n}" for op, n in memory.items()))
        limit = next((i for i, op in enumerate(opcodes) if before and op.startswith(before)), None)
        for prefix in wanted:
            at = [i for i, op in enumerate(opcodes) if op.startswith(prefix)]
            line = f"  {prefix}: " + (f"{len(at)}, first at {at[0]}, last at {at[-1]}" if at else "none")
            if limit is not None:
                line += f"; {sum(1 for i in at if i < limit)} before the first {before} (at {limit})"
            print(line)
    if not found:
        print(f"no kernel matching '{pattern.pattern}' in section {library}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
