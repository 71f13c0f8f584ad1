#!/usr/bin/env bash
# Makes every measurement the docs quote, on this machine's GPU:
#
#   docs/tools/measure.sh OUT_DIR [GPU_ARCH [PART]]   (GPU_ARCH default: native; PART default: all)
#
# PART "run" (step tests, report, microbenchmarks, SASS counts, a large check),
# "report" (the report alone), "large" (the large check alone), "ncu" (Nsight
# Compute), "test" (meson test), or "all". OUT_DIR receives:
#   run:     step-tests.log  each step's test binary, "=== <step> ===" each, with a
#                            fixed seed and a third timed shape (n = 63, k = 6: the
#                            run-time instances), plus step 04 built without fast math
#            report.txt      build/solve_tri_report's output; results.csv, results.svg
#            microbench.txt  build/solve_tri_microbench's output
#            sass.txt        machine-code counts per step (n = 64 instances), and
#                            whether steps 04 and 05 compile to the same code
#            sass-runtime.txt  the same for the run-time instances (any n) of
#                            steps 07, 08, 10, 11, 13 and the last, and its persistent kernel
#            large-check.txt a shape of your own of 2^20 matrices, n = k = 64,
#                            checked by the last step's binary, with its time
#                            (also PART "large")
#   ncu:     ncu-SHAPE.txt for pr, large_batch, qwen3_next, qwen3_next_32k
#                            (docs/tools/ncu_table.sh)
#            ncu-raw.tar.gz  every metric ncu collected
#   test:    meson-test.txt  the whole test suite (all suites, sanitizers included)
#            bit-identity.txt  steps 02 and 03 against their predecessors
#            persistent-probe.txt  the kernel the last step launches for 2,048 matrices
# To update the docs: copy these to docs/results/ under the names sync_docs.py
# reads (h200-DATE-*), then run python3 docs/tools/sync_docs.py.
set -uo pipefail
out=${1:?usage: docs/tools/measure.sh OUT_DIR [GPU_ARCH [PART]]}
arch=${2:-native}
part=${3:-all}
build=build-measure
mkdir -p "$out"
out=$(cd "$out" && pwd)
seed=20261201
last_step=$(basename "$(ls -d steps/[0-9][0-9]_* | tail -n 1)")

{ [ -d "$build" ] || meson setup "$build" -Dgpu_arch="$arch"; } >>"$out/setup.txt" 2>&1 &&
    ninja -C "$build" >>"$out/setup.txt" 2>&1 || { tail -30 "$out/setup.txt"; exit 1; }

if [ "$part" = all ] || [ "$part" = run ]; then
    { [ -d "$build-ieee" ] || meson setup "$build-ieee" -Dgpu_arch="$arch" -Dfast_math=false; } >>"$out/setup.txt" 2>&1 &&
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

    # From inside the output folder, so that the log names no path of this machine.
    root=$PWD
    (cd "$out" && "$root/$build/solve_tri_report" --seed "$seed" --out . >report.txt 2>/dev/null)
    echo "report: exit $?"
    "$build/solve_tri_microbench" >"$out/microbench.txt" 2>&1
    echo "microbench: exit $?"

    {
        for dir in "$build"/steps/[0-9][0-9]_*/; do
            step=$(basename "$dir")
            echo "=== $step ==="
            python3 docs/tools/sass_counts.py "$dir/libstep${step:0:2}.a" "Li64E"
        done
        # All the machine code of steps 04 and 05 (every template instance),
        # with the step's namespace and the instruction addresses removed.
        for step in 04_fmaf_reciprocal 05_const_correctness; do
            cuobjdump -sass "$build/steps/$step/"lib*.a |
                grep -E 'Function :|^\s+/\*[0-9a-f]{4}\*/' | sed -E 's/step0[45]/stepNN/g; s@/\*[0-9a-f]+\*/@@g; s/ +/ /g' \
                >"$out/sass-$step.tmp"
        done
        if cmp -s "$out/sass-04_fmaf_reciprocal.tmp" "$out/sass-05_const_correctness.tmp"; then
            echo "steps 04 and 05: identical machine code ($(grep -vc 'Function :' "$out/sass-04_fmaf_reciprocal.tmp") instructions)"
        else
            echo "steps 04 and 05: machine code differs"
        fi
        rm -f "$out"/sass-*.tmp
    } >"$out/sass.txt" 2>&1
    tail -n 1 "$out/sass.txt"
    # The run-time instances (n = 0: any n) of the steps whose chapters cost
    # them, and every instance of the last step's persistent kernel.
    {
        for step in 07_padded_rows 08_thread_per_column 10_lower_triangle 11_cp_async 13_threads_per_column "$last_step"; do
            echo "=== $step ==="
            python3 docs/tools/sass_counts.py "$build/steps/$step/libstep${step:0:2}.a" "Li0E"
        done
        echo "=== $last_step persistent ==="
        python3 docs/tools/sass_counts.py "$build/steps/$last_step/libstep${last_step:0:2}.a" "persistent"
    } >"$out/sass-runtime.txt" 2>&1

fi

if [ "$part" = all ] || [ "$part" = run ] || [ "$part" = large ]; then
    { started=$(date +%s); timeout 200 "$build/steps/$last_step/$last_step" --seed "$seed" --n 64 --k 64 --ne2 1024 --ne3 1024 \
        --test-case='*your own*' 2>&1; echo "Elapsed: $(( $(date +%s) - started )) s"; } >"$out/large-check.txt" 2>&1
    echo "2^20 matrices, n = k = 64: $(grep -E 'Elapsed|Status:' "$out/large-check.txt" | tr -s ' ' | tr '\n' ' ')"
fi

if [ "$part" = report ]; then
    root=$PWD
    (cd "$out" && "$root/$build/solve_tri_report" --seed "$seed" --out . >report.txt 2>/dev/null)
    echo "report: exit $?"
fi

if [ "$part" = all ] || [ "$part" = ncu ]; then
    mkdir -p "$out/raw"
    for shape in pr large_batch qwen3_next qwen3_next_32k; do
        docs/tools/ncu_table.sh "$build" "$shape" "$out/raw/ncu-$shape.csv" >"$out/ncu-$shape.txt" 2>&1
        echo "ncu $shape: exit $?"
    done
    tar -czf "$out/ncu-raw.tar.gz" -C "$out/raw" . && rm -rf "$out/raw"
fi

if [ "$part" = all ] || [ "$part" = test ]; then
    # The whole test suite, the sanitizers included.
    # Meson's last line names the log's absolute path: kept relative.
    meson test -C "$build" --print-errorlogs --num-processes 8 2>&1 | sed "s|$PWD/||g" >"$out/meson-test.txt"
    echo "meson test: exit $? ($(grep -E '^(Ok|Fail|Skipped):' "$out/meson-test.txt" | tr -s ' ' | tr '\n' ' '))"
    # What the suite checks but does not print: steps 02 and 03 against their
    # predecessors (bit for bit; zeros of opposite sign counted), and which
    # kernel the last step launches for the 2,048 matrices its sanitizer runs use.
    for step in 02_register_storage 03_loop_splitting; do
        echo "=== $step ==="
        "$build/steps/$step/$step" --seed "$seed" --test-case='*against the previous*' 2>&1
    done >"$out/bit-identity.txt"
    for shape in "--n 64 --k 64" "--n 63 --k 128"; do
        # shellcheck disable=SC2086
        ncu --clock-control none --metrics gpu__time_duration.sum "$build/steps/$last_step/$last_step" --seed "$seed" \
            --test-case='*your own*' $shape --ne2 32 --ne3 64 2>&1 | sed "s|$PWD/||g"
    done >"$out/persistent-probe.txt"
fi
