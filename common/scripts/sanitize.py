#!/usr/bin/env python3
"""Runs a step's test binary under one compute-sanitizer tool, on the test case
"sanitizer shapes" (odd n and k, the n = 64 instances, k = 64 where the step takes it),
or on the arguments given after the binary (a test case and a shape of your own).

    sanitize.py TOOL SANITIZER STEP_BINARY [--expect-race-warnings] [STEP_ARGUMENTS...]

Passes when the tool reports no error (and, for racecheck, no hazard at all);
exits 77 (Meson's SKIP) where compute-sanitizer or a GPU is missing.
--expect-race-warnings is for step 01, which keeps upstream's store-then-load
of shared memory across lanes without a __syncwarp(): there racecheck must
report that hazard as warnings and no errors (docs/guarantees.md says why).
"""
import os
import re
import shutil
import subprocess
import sys

SKIP = 77


def main() -> int:
    if len(sys.argv) < 4 or sys.argv[1] not in ("memcheck", "racecheck", "synccheck", "initcheck"):
        print(__doc__)
        return 2
    tool, sanitizer, binary = sys.argv[1:4]
    expect_race_warnings = "--expect-race-warnings" in sys.argv[4:]
    step_arguments = [a for a in sys.argv[4:] if a != "--expect-race-warnings"] or ["--test-case=*sanitizer shapes*"]
    if not os.access(sanitizer, os.X_OK):
        sanitizer = shutil.which("compute-sanitizer") or ""
    if not sanitizer:
        print("SKIP: compute-sanitizer not found")
        return SKIP
    # The binary exits 77 without a GPU; a filter that matches no test case makes this a quick probe.
    probe = subprocess.run([binary, "--test-case=no-such-test-case"], capture_output=True, text=True)
    if probe.returncode == SKIP:
        print("SKIP: no GPU:", probe.stdout.strip().splitlines()[-1] if probe.stdout.strip() else "")
        return SKIP
    command = [sanitizer, "--tool", tool, "--error-exitcode", "99"]
    if tool == "racecheck":
        command += ["--racecheck-report", "all"]
    command += [binary] + step_arguments
    print(" ".join(command), flush=True)
    run = subprocess.run(command, capture_output=True, text=True)
    output = run.stdout + run.stderr
    print(output)
    # racecheck exits with --error-exitcode for warnings too; its summary tells them apart.
    allowed = (0, 99) if tool == "racecheck" else (0,)
    if run.returncode not in allowed:
        print(f"FAIL: {tool} exited {run.returncode}")
        return 1
    if "[doctest] Status: SUCCESS!" not in output:
        print(f"FAIL: the test case did not pass under {tool}")
        return 1
    if tool == "racecheck":
        summary = re.search(r"RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)", output)
        if not summary:
            print("FAIL: no racecheck summary in the output")
            return 1
        errors, warnings = int(summary.group(2)), int(summary.group(3))
        if errors:
            print(f"FAIL: racecheck reports {errors} errors")
            return 1
        if expect_race_warnings and warnings == 0:
            print("FAIL: the known hazard of step 01 is no longer reported: update docs/guarantees.md")
            return 1
        if not expect_race_warnings and warnings:
            print(f"FAIL: racecheck reports {warnings} hazard warnings")
            return 1
        print(f"PASS: racecheck: 0 errors, {warnings} warnings" + (" (the known upstream hazard)" if warnings else ""))
        return 0
    summary = re.search(r"ERROR SUMMARY: (\d+) errors?", output)
    if not summary or int(summary.group(1)) != 0:
        print(f"FAIL: {tool} reports errors" if summary else f"FAIL: no {tool} summary in the output")
        return 1
    print(f"PASS: {tool}: 0 errors")
    return 0


if __name__ == "__main__":
    sys.exit(main())
