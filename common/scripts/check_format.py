#!/usr/bin/env python3
"""Every C++ and CUDA file of the workbook follows the root .clang-format.

    check_format.py SOURCE_ROOT

Runs clang-format --dry-run --Werror on the tracked *.cpp, *.hpp, *.cu and *.cuh
files; exits 77 (Meson's SKIP) where clang-format or git is missing, and names
the files that would change otherwise.
"""
import pathlib
import shutil
import subprocess
import sys

SKIP = 77


def main():
    root = pathlib.Path(sys.argv[1]).resolve()
    clang_format = shutil.which("clang-format")
    if not clang_format or not shutil.which("git") or not (root / ".git").exists():
        print("SKIP: clang-format, git or the repository is missing")
        return SKIP
    files = subprocess.run(["git", "ls-files", "*.cpp", "*.hpp", "*.cu", "*.cuh"], cwd=root, capture_output=True,
                           text=True, check=True).stdout.split()
    unformatted = [name for name in files
                   if subprocess.run([clang_format, "--dry-run", "--Werror", name], cwd=root,
                                     capture_output=True).returncode != 0]
    if unformatted:
        print("not formatted (clang-format -i FILE):", ", ".join(unformatted))
        return 1
    print(f"{len(files)} files follow .clang-format")
    return 0


if __name__ == "__main__":
    sys.exit(main())
