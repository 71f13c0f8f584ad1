#!/usr/bin/env python3
"""Counts the machine instructions of kernels, by opcode, from cuobjdump.

    sass_counts.py FILE REGEX

FILE is an executable, object or static library with device code (a step's
build/steps/NN_name/libstepNN.a); REGEX selects kernels by mangled name
(e.g. "Li64E" for the n = 64 instances). Prints, per kernel, the demangled
name, the instruction count and the most frequent opcodes: the "SASS count"
evidence the chapters quote (shared loads, shuffles, multiply-adds, spills).
"""
import collections
import re
import shutil
import subprocess
import sys

INSTRUCTION = re.compile(r"\s+/\*[0-9a-f]{4,6}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)")


def demangle(name):
    filt = shutil.which("cu++filt") or shutil.which("c++filt")
    if not filt:
        return name
    return subprocess.run([filt, name], capture_output=True, text=True).stdout.strip() or name


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    path, pattern = sys.argv[1], re.compile(sys.argv[2])
    dump = subprocess.run(["cuobjdump", "-sass", path], capture_output=True, text=True, check=True).stdout
    for function in re.split(r"\n\s+Function : ", dump)[1:]:
        name = function.split("\n", 1)[0].strip()
        if not pattern.search(name):
            continue
        opcodes = collections.Counter(m.group(2) for line in function.split("\n") if (m := INSTRUCTION.match(line)))
        total = sum(opcodes.values())
        top = ", ".join(f"{op} {count}" for op, count in opcodes.most_common(14))
        print(f"{demangle(name)[:160]}\n  {total} instructions: {top}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
