#!/usr/bin/env bash
# Makes every measurement the docs quote, on this machine's GPU, in one go:
#
#   docs/tools/measure.sh OUT_DIR [GPU_ARCH]      (GPU_ARCH default: native)
#
# OUT_DIR receives:
#   step-tests.log   each step's test binary, one section "=== <step> ===" each,
#                    with a fixed seed and a third timed shape (n = 63, k = 6: the
#                    run-time instance), plus step 04 built without fast math
#   report.txt       build/solve_tri_report's output; report/ its CSV, JSON, SVG
#   ncu.txt          the PR's Nsight rows per step (where ncu exists)
#   sass.txt         whether steps 04 and 05 compile to the same machine code
#   meson-test.txt   the whole test suite (all suites, sanitizers included)
# To update the docs from an H200 run: copy step-tests.log to
# docs/results/h200-DATE-step-tests.log and report.txt to docs/results/h200-DATE-report.txt
# (DATE as in docs/tools/sync_docs.py)
# (and the report's files beside them), then run python3 docs/tools/sync_docs.py.
set -uo pipefail
out=${1:?usage: docs/tools/measure.sh OUT_DIR [GPU_ARCH]}
arch=${2:-native}
build=build-measure
seed=20261129
mkdir -p "$out"

meson setup "$build" -Dgpu_arch="$arch" >"$out/setup.txt" 2>&1 && ninja -C "$build" >>"$out/setup.txt" 2>&1 ||
    { tail -30 "$out/setup.txt"; exit 1; }
meson setup "$build-ieee" -Dgpu_arch="$arch" -Dfast_math=false >>"$out/setup.txt" 2>&1 &&
    ninja -C "$build-ieee" steps/04_fmaf_reciprocal/04_fmaf_reciprocal >>"$out/setup.txt" 2>&1 ||
    { tail -30 "$out/setup.txt"; exit 1; }

{
    for dir in "$build"/steps/[0-9][0-9]_*/; do
        step=$(basename "$dir")
        echo "=== $step ==="
        "$dir/$step" --seed "$seed" --n 63 --k 6 --ne2 4 --ne3 2 2>&1
    done
    echo "=== 04_fmaf_reciprocal-no-fast-math ==="
    "$build-ieee/steps/04_fmaf_reciprocal/04_fmaf_reciprocal" --seed "$seed" --n 63 --k 6 --ne2 4 --ne3 2 2>&1
} >"$out/step-tests.log"
echo "step tests: $(grep -c 'Status: SUCCESS' "$out/step-tests.log") binaries passed, $(grep -c 'Status: FAILURE' "$out/step-tests.log") failed"

"$build/solve_tri_report" --seed "$seed" --out "$out/report" >"$out/report.txt" 2>"$out/report-progress.txt"
echo "report: exit $?"

docs/tools/ncu_pr_table.sh "$build" >"$out/ncu.txt" 2>&1
echo "ncu table: exit $?"

{
    # All the machine code of each step's library (every template instance),
    # with the step's namespace and the instruction addresses removed.
    for step in 04_fmaf_reciprocal 05_const_correctness; do
        cuobjdump -sass "$build/steps/$step/"lib*.a |
            grep -E 'Function :|^\s+/\*[0-9a-f]{4}\*/' | sed -E 's/step0[45]/stepNN/g; s@/\*[0-9a-f]+\*/@@g; s/ +/ /g' \
            >"$out/sass-$step.txt"
        echo "$step: $(grep -c 'Function :' "$out/sass-$step.txt") kernels, $(grep -vc 'Function :' "$out/sass-$step.txt") instructions"
    done
    if cmp -s "$out/sass-04_fmaf_reciprocal.txt" "$out/sass-05_const_correctness.txt"; then
        echo "steps 04 and 05: identical machine code"
    else
        echo "steps 04 and 05: machine code differs"
    fi
} >"$out/sass.txt" 2>&1
cat "$out/sass.txt"

# Last, as it takes longest: the whole test suite, the sanitizers included.
meson test -C "$build" --print-errorlogs --num-processes 8 >"$out/meson-test.txt" 2>&1
echo "meson test: exit $? ($(grep -E '^(Ok|Fail|Skipped):' "$out/meson-test.txt" | tr -s ' ' | tr '\n' ' '))"
