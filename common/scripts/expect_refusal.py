#!/usr/bin/env python3
"""Passes when a command refuses its arguments the way the workbook's front
ends must: exit status 2, a one-line reason on stderr, nothing run.

    expect_refusal.py EXPECTED_TEXT BINARY ARG...
"""
import subprocess
import sys

expected, command = sys.argv[1], sys.argv[2:]
run = subprocess.run(command, capture_output=True, text=True)
reason = run.stderr.strip().splitlines()[0] if run.stderr.strip() else ""
print("$", " ".join(command), "->", run.returncode, "|", reason)
if run.returncode != 2:
    print(f"FAIL: expected exit status 2 (refused), got {run.returncode}")
    sys.exit(1)
if expected not in reason:
    print(f"FAIL: expected the reason to mention '{expected}'")
    sys.exit(1)
if "test cases" in run.stdout:
    print("FAIL: tests ran although the arguments were refused")
    sys.exit(1)
