#!/usr/bin/env python3
"""Where the loads of B sit against the wait for A, in a committed listing.

    loads_before_wait.py LISTING [LIBRARY ...]

LISTING is a `cuobjdump -sass | c++filt` listing with "=== LIBRARY ===" sections (gzip or plain), as
measure.sh writes them. For every one-block-per-matrix kernel (solve_tri_kernel) of each LIBRARY (all
of them without any), it prints how many global loads (LDG) come before the first wait for the
cp.async copies (DEPBAR.LE) and how many after it, in the listing's order. A load after the wait is
issued only once this thread's copy of A has landed.
"""
import gzip
import re
import sys

from sass_listing import kernels


def main():
    path, wanted = sys.argv[1], sys.argv[2:]
    text = gzip.open(path, "rt").read() if path.endswith(".gz") else open(path).read()
    for library, name, opcodes in kernels(text):
        if "solve_tri_kernel<" not in name or (wanted and library not in wanted):
            continue
        first_wait = next((i for i, op in enumerate(opcodes) if op.startswith("DEPBAR.LE")), len(opcodes))
        loads = [i for i, op in enumerate(opcodes) if op.startswith("LDG.")]
        before = sum(1 for i in loads if i < first_wait)
        kernel = re.sub(r"^.*::", "", name.split("(")[0])
        print(f"{library:36s} {kernel:34s} loads before the wait {before:3d}, after it {len(loads) - before:3d}")


if __name__ == "__main__":
    sys.exit(main())
