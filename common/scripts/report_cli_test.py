#!/usr/bin/env python3
"""The report's command line, without running a report: meson test runs it
as `report_cli_test.py path/to/solve_tri_report`.

- Without a GPU the report says so clearly and exits non-zero (3): checked
  with --check-gpu and with the plain command, the README's main command.
- With a GPU there is nothing more to check here (running the report takes
  minutes): exit 77, meson's SKIP.
"""
import os
import subprocess
import sys
import tempfile

NO_GPU_EXIT = 3
SKIP = 77


def run(report, *args, cwd=None):
    result = subprocess.run([report, *args], capture_output=True, text=True, timeout=120, cwd=cwd)
    return result.returncode, result.stdout + result.stderr


def fail(message, output):
    print(f"FAIL: {message}\n--- output ---\n{output}")
    return 1


def main():
    report = os.path.abspath(sys.argv[1])  # the plain command runs in a folder of its own

    code, output = run(report, "--check-gpu")
    if code == 0 and output.startswith("GPU: "):
        print(f"SKIP: a GPU is present ({output.strip()}); run solve_tri_report itself to measure it")
        return SKIP
    if code != NO_GPU_EXIT or "no GPU to measure" not in output:
        return fail(f"--check-gpu without a GPU: expected exit {NO_GPU_EXIT} and a message, got exit {code}", output)

    with tempfile.TemporaryDirectory() as folder:
        code, output = run(report, cwd=folder)
        if code != NO_GPU_EXIT or "no GPU to measure" not in output or "Traceback" in output:
            return fail(f"the plain command without a GPU: expected exit {NO_GPU_EXIT} and a message, got exit {code}",
                        output)
    print(f"without a GPU the report says so and exits {NO_GPU_EXIT}:\n{output.strip()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
