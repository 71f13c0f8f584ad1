#!/usr/bin/env python3
"""Choose the GPU architectures the build makes machine code for, and say why.

    gpu_arch.py NVCC CHOICE

CHOICE is the gpu_arch option: "auto" (the GPUs this machine has, else the
full list), "native" (nvcc's own -arch=native), or a comma-separated list of
compute capabilities ("90", "75,89"). Prints, one per line: the architectures
as the build's description names them, the reason for the choice, then the
nvcc flags.

Machine code for several architectures needs fewer front-end passes than
architectures: nvcc's front end (cicc, C++ to PTX) is most of a kernel file's
compile time, and ptxas turns one PTX into machine code for several GPUs. So
each architecture is compiled from the PTX of the newest of 7.5, 8.0, 9.0 and
10.0 that it has: 7.5 has no cp.async, 8.0 brings it, 9.0 is the H100/H200
the workbook measures on, and from 10.0 on nvcc 13's front end is another
(NVVM 20 instead of 7), whose PTX gives other machine code. Within a group
the machine code is the same as from the GPU's own PTX, byte for byte
(docs/tools/same_code.sh). The PTX of the newest group is embedded too, so a
GPU newer than the list still runs the workbook through the driver's JIT.
"""
import os
import subprocess
import sys

# A reader's GPUs, from the RTX 20xx (7.5) to Blackwell (10.0 data centre, 12.0 RTX 50xx).
FULL_LIST = [75, 80, 86, 89, 90, 100, 120]
# The PTX levels the architectures are compiled from (see above).
PTX_LEVELS = [75, 80, 90, 100]
# A build for one GPU also optimizes each file's kernels in parallel: without
# it, step 08's six fully unrolled instances, optimized one after another, are
# the build's longest wait. With several architectures the architectures'
# own compiles keep the cores busy already, and splitting would only add work (on two cores,
# step 08's file then takes 161 CPU-seconds instead of 138). Below PTX level
# 10.0 the machine code is the same either way (docs/tools/same_code.sh); from
# 10.0 on, nvcc 13's other front end gives other machine code when it splits,
# so a build for a Blackwell GPU does not split.
SPLIT_COMPILE = "--split-compile=0"
# A build for several GPUs compiles a file's architectures in parallel, one
# thread each, where the machine has cores to spare: ninja keeps two cores
# busy with other files already, and there the threads only add work (the
# full list on two cores: 517 s and 1,042 CPU-seconds with them, 493 s and
# 895 without; docs/results/nvcc-13.0-2026-12-01-two-core-builds.txt).
THREADS = "--threads=0"


def supported_by(nvcc):
    """The sm_XY the toolkit can make machine code for, as integers XY."""
    completed = subprocess.run([nvcc, "--list-gpu-code"], capture_output=True, text=True, check=False)
    codes = set()
    for word in completed.stdout.split():
        if word.startswith("sm_") and word[3:].isdigit():
            codes.add(int(word[3:]))
    return codes


def detected_gpus():
    """Compute capabilities of this machine's GPUs as integers (9.0 -> 90), and what was asked."""
    try:
        completed = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
                                   capture_output=True, text=True, check=False, timeout=30)
    except FileNotFoundError:
        return [], "no nvidia-smi on the PATH"
    except (OSError, subprocess.TimeoutExpired) as error:
        return [], f"nvidia-smi could not run: {error}"
    if completed.returncode != 0:
        return [], f"nvidia-smi found no GPU (exit {completed.returncode})"
    found = []
    for line in completed.stdout.splitlines():
        major, _, minor = line.strip().partition(".")
        if major.isdigit() and minor.isdigit():
            found.append(int(major) * 10 + int(minor))
    if not found:
        return [], "nvidia-smi listed no GPU"
    return sorted(set(found)), ""


def parse_list(choice):
    archs = []
    for word in choice.split(","):
        word = word.strip().replace("sm_", "").replace("compute_", "")
        if word == "":
            continue
        if not word.isdigit():
            sys.exit(f"gpu_arch: '{word}' is not a compute capability like 90 or 75 (or give auto or native)")
        archs.append(int(word))
    if not archs:
        sys.exit("gpu_arch is empty: give auto, native, or a list such as 90 or 75,89")
    return sorted(set(archs))


def ptx_level(arch):
    """The PTX an architecture is compiled from: the newest level it has."""
    return max([level for level in PTX_LEVELS if level <= arch], default=arch)


def gencode_flags(archs):
    groups = {}
    for arch in archs:
        groups.setdefault(ptx_level(arch), []).append(arch)
    flags = []
    newest = max(groups)
    for level in sorted(groups):
        codes = [f"sm_{arch}" for arch in groups[level]] + ([f"compute_{level}"] if level == newest else [])
        flags.append(f"-gencode=arch=compute_{level},code=[{','.join(codes)}]")
    return flags


def main():
    nvcc, choice = sys.argv[1], sys.argv[2].strip()
    if choice == "native":
        print("native")
        print("gpu_arch=native: nvcc's -arch=native, the GPUs it finds when each file compiles")
        print("-arch=native")
        return
    supported = supported_by(nvcc)
    if choice == "auto":
        found, why_none = detected_gpus()
        if found:
            archs = [arch for arch in found if arch in supported]
            too_new = [arch for arch in found if arch not in supported]
            if not archs:
                older = [arch for arch in FULL_LIST if arch in supported and arch < min(too_new)]
                archs = [max(older)]
                reason = (f"this machine's GPU (sm_{', sm_'.join(map(str, too_new))}) is newer than this nvcc "
                          f"knows: built for sm_{archs[0]}, whose PTX the driver compiles for it at first launch")
            else:
                reason = f"the GPU{'s' if len(found) > 1 else ''} of this machine (nvidia-smi)"
                if too_new:
                    reason += f"; sm_{', sm_'.join(map(str, too_new))} left out: this nvcc does not know it"
        else:
            archs = [arch for arch in FULL_LIST if arch in supported]
            left_out = [arch for arch in FULL_LIST if arch not in supported]
            reason = f"no GPU found ({why_none}): the full list, sm_75 to sm_120"
            if left_out:
                reason += f", less sm_{', sm_'.join(map(str, left_out))}, which this nvcc does not know"
        reason += "; -Dgpu_arch=LIST chooses instead"
    else:
        archs = parse_list(choice)
        unknown = [arch for arch in archs if supported and arch not in supported]
        if unknown:
            sys.exit(f"gpu_arch: this nvcc cannot make code for sm_{', sm_'.join(map(str, unknown))} "
                     f"(nvcc --list-gpu-code names what it can)")
        reason = "chosen with -Dgpu_arch"
    print(",".join(map(str, archs)))
    print(reason)
    for flag in gencode_flags(archs):
        print(flag)
    if len(archs) == 1 and ptx_level(archs[0]) < 100:
        print(SPLIT_COMPILE)
    if len(archs) > 1 and (os.cpu_count() or 1) > 2:
        print(THREADS)


if __name__ == "__main__":
    main()
