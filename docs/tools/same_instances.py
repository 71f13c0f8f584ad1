#!/usr/bin/env python3
"""Whether two libraries of a committed listing hold the same machine code for the same instances.

    same_instances.py LISTING LIBRARY_A LIBRARY_B [--drop-last-argument VALUE]

LISTING is a committed `cuobjdump -sass | c++filt` listing with "=== LIBRARY ===" sections (gzip or
plain). Every kernel of LIBRARY_A is matched with the kernel of LIBRARY_B of the same name, the
namespace aside; with --drop-last-argument, LIBRARY_B's kernels whose last template argument is
VALUE are matched with that argument removed (step 20's `<..., 4>`, its 16-byte instances, against
step 19's). For each pair it prints the instruction count (NOPs aside) and whether the two
instruction sequences (docs/tools/sass_listing.py reads them) are identical, operands and branch
targets included, once each step's namespace is written stepNN. Exits 1 if any pair differs or has no partner.
"""
import gzip
import re
import sys

from sass_listing import listings


def kernels(path, library):
    """{kernel name without its namespace: [instructions, stepNN for the step's namespace]}."""
    text = gzip.open(path, "rt").read() if path.endswith(".gz") else open(path).read()
    return {re.sub(r"step\d\d::", "", name).split("(float")[0]: [re.sub(r"step\d\d", "stepNN", i) for i in code]
            for lib, name, code in listings(text) if lib == library}


def main():
    listing, library_a, library_b = sys.argv[1:4]
    drop = sys.argv[5] if len(sys.argv) > 5 and sys.argv[4] == "--drop-last-argument" else None
    a, b = kernels(listing, library_a), kernels(listing, library_b)
    if drop is not None:
        b = {name[: -len(f", {drop}>")] + ">": code for name, code in b.items() if name.endswith(f", {drop}>")}
    failed = 0
    for name in sorted(a):
        count = len(a[name])
        if name not in b:
            print(f"{name}: {count} instructions; no partner in {library_b}")
            failed = 1
        elif a[name] == b[name]:
            print(f"{name}: {count} instructions; identical in {library_a} and {library_b}")
        else:
            print(f"{name}: {count} instructions; DIFFERS between {library_a} and {library_b}")
            failed = 1
    return failed


if __name__ == "__main__":
    sys.exit(main())
