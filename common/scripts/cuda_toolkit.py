#!/usr/bin/env python3
"""Print where nvcc's own toolkit keeps its headers, libraries and tools.

nvcc is not always the toolkit's binary: /usr/local/bin/nvcc may be a shell
script that execs /usr/local/cuda-13.0/bin/nvcc, and Debian's nvcc lives in
/usr/bin. So the folder above nvcc's says nothing; nvcc itself does, in its
--dryrun output (TOP, INCLUDES, LIBRARIES). Prints three lines for Meson:
the toolkit root, the include folder that holds cuda_runtime_api.h, and the
library folder that holds libcublas (an empty line where none was found).
"""
import os
import shlex
import subprocess
import sys
import tempfile


def dryrun_variables(nvcc):
    with tempfile.TemporaryDirectory() as scratch:
        source = os.path.join(scratch, "probe.cu")
        open(source, "w").close()
        completed = subprocess.run(
            [nvcc, "--dryrun", "-c", source, "-o", os.path.join(scratch, "probe.o")],
            capture_output=True, text=True, check=False)
    variables = {}
    for line in (completed.stdout + completed.stderr).splitlines():
        if not line.startswith("#$ ") or "=" not in line:
            continue
        name, _, value = line[3:].partition("=")
        if name.strip().isidentifier() and name.strip() not in variables:
            variables[name.strip()] = value.strip()
    return variables


def flag_folders(value, flag):
    folders = []
    words = shlex.split(value) if value else []
    for index, word in enumerate(words):
        if word == flag and index + 1 < len(words):
            folders.append(words[index + 1])
        elif word.startswith(flag) and len(word) > len(flag):
            folders.append(word[len(flag):])
    return [os.path.realpath(folder) for folder in folders]


def first_holding(folders, wanted):
    for folder in folders:
        if os.path.isdir(folder) and any(name.startswith(wanted) for name in os.listdir(folder)):
            return folder
    return ""


def main():
    nvcc = sys.argv[1]
    variables = dryrun_variables(nvcc)
    root = os.path.realpath(variables["TOP"]) if "TOP" in variables else \
        os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))
    include_candidates = flag_folders(variables.get("INCLUDES", ""), "-I") + \
        [os.path.join(root, "include")]
    library_candidates = [folder for folder in flag_folders(variables.get("LIBRARIES", ""), "-L")
                          if not folder.endswith("stubs")] + \
        [os.path.join(root, "lib64"), os.path.join(root, "lib")]
    print(root)
    print(first_holding(include_candidates, "cuda_runtime_api.h"))
    print(first_holding(library_candidates, "libcublas.so"))


if __name__ == "__main__":
    main()
