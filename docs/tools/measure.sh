#!/usr/bin/env bash
# Makes every measurement the docs quote, on this machine's GPU:
#
#   docs/tools/measure.sh OUT_DIR [GPU_ARCH [PART]]   (GPU_ARCH default: native; PART default: all)
#
# PART "run" (step tests, report, microbenchmarks, SASS counts, a large check),
# "report" (the report alone), "large" (the large check alone), "ncu" (Nsight
# Compute), "test" (meson test), "build" (the README's build, timed), "sass"
# (the sm_90 machine code of every step), "ncu-warm" (Nsight Compute on warm
# launches, and where the stalls sit), "ncu-source-k64" (where they sit at
# k = 64, steps 13-15), "alignment" (the last step's single-float path,
# timed), "spills" (the last step's instances that spill, timed and
# profiled), "persistent-choice" (where step 21 launches its persistent
# kernel, timed), "occupancy" (step 21's persistent kernel at six blocks per
# SM against four, timed), "occupancy-stalls" (where the stalls of both sit),
# "choices" (the README's build timed, the report, and the machine code of
# the last three steps, each in ./build: what the last two steps' chapters
# read, on each GPU), "host-costs" (build/plan_host_time on that
# build: each launcher's host time per plan), "suites" (every test suite of that build, with the
# experiments, ten invocations at once, after part choices; SOLVE_TRI_SUITES runs fewer),
# "no-spills" (step 22 against step 21 at n = 60 and 62, timed and
# profiled), "loads-and-stages" (step 22's experiments on where B's loads
# and A's copy meet, timed, and where each issues B's loads),
# "predicated-copy" (step 22's experiment predicated_copy at run-time n,
# timed, and where the stalls sit),
# "floors" (step 22 without its solve, the experiment no_solve: checked, timed
# in both modes at the reference shapes, its machine code and where the
# stalls sit), "floor-stalls" (where they sit at the PR's shape and at k = 32,
# with the launches' figures), "sixteen-threads" (step 22's experiment
# sixteen_threads at k <= 32 and small batches, checked and timed, with the
# launches' figures), "shared-rows" (step 25 against step 24 and its two
# experiments against it, timed at shapes whose blocks have 128 threads, and
# each kernel at 256 matrices under Nsight Compute), "blocked" (step 26
# against step 25 and its three experiments against it, timed at the reference
# shapes and at small and large batches of their own, and the listing of
# steps 25 and 26), "every-shape" (steps 27 and 28 against their
# predecessors and step 27's experiment, timed, and the report at
# test-backend-ops' correctness shapes past n = 64 or k = 128), "tensor-products" (step 29
# against step 28 and its experiment one_accumulator against it, checked and
# timed past n = 64, both streamed kernels under Nsight Compute, their listing,
# and the report at test-backend-ops' perf shapes past n = 64), or "all" (the parts run, large, experiments, ncu and
# test), or "experiments" (the one-change experiments). The
# parts build in build-measure (with -Dexperiments=true), or in the folder
# SOLVE_TRI_BUILD names; SOLVE_TRI_SUITES="steps cpu-gpu" limits part "suites" to
# those of its groups (cpu-gpu, sanitizer, steps, experiments: all by default), so that a
# machine with a time limit can run it in two parts; SOLVE_TRI_STEPS="16 17" limits the step tests of part
# "run" to those steps. OUT_DIR receives:
#   build:   build-time.txt  the README's first command's build (meson setup build
#                            && meson compile -C build) in a fresh copy of this tree,
#                            timed: the architectures it chose, wall and CPU seconds,
#                            and the slowest commands of .ninja_log, with the GPU's
#                            name and UUID and the commit; the copy stays
#                            in $TMPDIR/solve-tri-fresh-build for the other parts
#   choices: build-time.txt  the README's first command's build (meson setup build &&
#                            meson compile -C build), timed, in this checkout, with the
#                            GPU's name and UUID and the commit, as part build's does
#            report.txt, report/  build/solve_tri_report's output and files (results.csv,
#                            results.svg, curve.svg, summary.md)
#            sass-sm90-last3.txt.gz  cuobjdump -sass -arch sm_90 | c++filt of the last three
#                            steps' libraries, "=== LIBRARY ===" each
#            same-instances.txt  docs/tools/same_instances.py on it: which instances of each
#                            step are the machine code of the step before
#            res-usage-last.txt  cuobjdump -res-usage of the last step's library
#   host-costs: host-costs.txt  ns per call of cudaGetDevice and of every step's plan
#   blocked: blocked.txt     step 26's binary (against step 25) and its three experiments (against
#                            step 26) at the reference shapes and seven of their own;
#                            sass-sm90-blocked.txt.gz, the listing of steps 25 and 26 and of
#                            tensor_core_products; same-instances-blocked.txt, which of step
#                            26's instances are step 25's machine code
#   every-shape: every-shape.txt  step 27's binary (against step 26) and step 28's (against
#                            step 27) at the step tests' two timed shapes, no_prefetch
#                            (against step 27) at every reference shape, checked and
#                            timed; step 28's alone at k = 200, 384, 417;
#            every-shape-reports.txt, report-nN-kK-AxB/  the report at each of
#                            test-backend-ops' correctness shapes past n = 64 or k = 128
#   tensor-products: tensor-products.txt  step 29's binary, every case; plain_tf32's
#                            NMSE at test-backend-ops' correctness shapes; step 29 timed
#                            against step 28 at six shapes past n = 64; one_accumulator
#                            (against step 29) at the reference shapes and the same six;
#            tensor-products-ncu.txt  Nsight Compute on the 4th launch of steps 28's and
#                            29's streamed kernel at n = 256, k = 128, 8 matrices (warm);
#            sass-sm90-tensor-products.txt.gz, same-instances-tensor-products.txt  the
#                            listing of steps 28, 29 and the experiment, and which of
#                            step 29's instances are step 28's machine code;
#            tensor-products-reports.txt, report-nN-kK-AxB/  the report at
#                            test-backend-ops' three perf shapes past n = 64
#   suites:  meson-test-NAME.txt  meson test of build (reconfigured with
#                            -Dexperiments=true where the experiments' suite runs),
#                            every suite, in ten invocations at
#                            once: cpu and gpu; sanitizer; the steps and the experiments
#                            four ways each (timings printed there ran beside other
#                            tests: not to quote)
#   run:     step-tests.log  each step's test binary, "=== <step> ===" each, with a
#                            fixed seed and a third timed shape (n = 63, k = 6: the
#                            run-time instances), plus step 04 built without fast math
#            report.txt      build/solve_tri_report's output; results.csv, results.svg,
#                            curve.svg (the batch curve), summary.md (also PART "report")
#            microbench.txt  build/solve_tri_microbench's output
#            sass.txt        machine-code counts per step (n = 64 instances), and
#                            whether steps 04 and 05 compile to the same code
#            sass-runtime.txt  the same for the run-time instances (any n) of
#                            steps 07 to the last, and the last step's persistent kernel
#            large-check.txt a shape of your own of 2^20 matrices, n = k = 64,
#                            checked by the last step's binary, with its time
#                            (also PART "large")
#   sass:    sass-sm90.txt.gz  cuobjdump -sass -arch sm_90 of the kernels the chapters of
#                            steps 08 on read (every step's and experiment's library), in
#                            their order, "=== <step> ===" each
#            same-code.txt   docs/tools/same_code.sh: older PTX gives the same machine code
#   ncu-warm: ncu-warm-SHAPE.txt for pr and upstream_perf (ncu_table.sh --warm)
#            ncu-source-pr-NN.csv, ncu-source-n63-NN.csv  stall samples per SASS
#                            instruction (SourceCounters) of steps 01-03, warm, at the PR's
#                            shape and at n = 63 (the run-time instances)
#            ncu-warm-raw.tar.gz  every metric ncu collected
#   alignment: alignment.txt  the last step on 16-byte strides and on strides only it
#                            takes (n = 63 contiguous, n = 64 with one-float gaps), timed
#   spills:  spills.txt      the last step's instances that spill, each at a shape that
#                            runs it, beside the n = 64 instance of the same plan (which
#                            does not): cuobjdump -res-usage of the step's library, the
#                            step binary's timing case, and one warm launch of each under
#                            Nsight Compute (local-memory sectors against global ones,
#                            DRAM bytes, duration)
#   shared-rows: shared-rows.txt  step 25's binary (against step 24) and its experiments
#                            rows_across_warps and chunks_in_turn (against step 25),
#                            each at the reference shapes and at five shapes whose blocks
#                            have 128 threads or share rows at n = 16;
#                            shared-rows-metrics.txt, one warm launch of each kernel at
#                            256 matrices (n = k = 64): duration, instructions, L2 read
#                            requests and sectors, and steps 24 and 25's LDGSTS requests
#                            and sectors; ncu-source-shared-rows-{24,25}.csv (in
#                            ncu-source-shared-rows.tar.gz), stall samples per SASS
#                            instruction there; ncu-source-shared-rows.txt, what
#                            stalls_by_instruction.py reads in them
#   persistent-choice: persistent-choice.txt  step 21's binary (against step 20) about
#                            its switch (960 to 1,056 matrices, k = 64) and where step 20
#                            ran its other persistent kernels (k = 128; n = 60); and the
#                            experiment 21+from_one_round against step 21 from one round
#                            of resident blocks to the switch (544 to 960 matrices)
#   occupancy: occupancy.txt  the experiments 21+six_blocks and 21+packed_four_blocks,
#                            each checked against step 21 (bit for bit) and timed against
#                            it at 1,024 to 16,384 matrices (k = 64)
#   occupancy-stalls: ncu-source-persistent-21.csv, -six.csv: stall samples per SASS
#                            instruction of step 21's persistent kernel and of six_blocks',
#                            warm, at 16,384 matrices; ncu-source-persistent.txt, what
#                            stalls_by_instruction.py reads in them; ncu-source-persistent.tar.gz,
#                            the two CSVs; ncu-source-persistent-raw.tar.gz, the profiles
#   no-spills: no-spills.txt  step 22's binary (against step 21) at n = 60 and n = 62,
#                            small and large batches, and one warm launch of each step's
#                            kernel at three of them under Nsight Compute (local-memory
#                            and global sectors, registers, duration)
#   loads-and-stages: loads-and-stages.txt  step 22's experiments b_loads_first,
#                            staged_columns and staged_one_wait, each against step 22,
#                            along the batch curve of n = k = 64, at k = 32 and at
#                            n = 60, 62 and 63; sass-sm90-22-experiments.txt.gz, the
#                            sm_90 listing of step 22 and the three;
#                            loads-before-wait.txt, where each kernel issues B's loads
#                            against its wait for A (docs/tools/loads_before_wait.py)
#   predicated-copy: predicated-copy.txt  the experiment 22+predicated_copy
#                            (against step 22) at n = 60, 62 and 63, small and large
#                            batches; ncu-source-predicated-nN-kK-{22,22_variant}.csv (in
#                            ncu-source-predicated.tar.gz): stall samples per SASS
#                            instruction of step 22's and the variant's run-time instance, warm,
#                            at n = 63, k = 6, 8 matrices and n = 62, k = 64, 256;
#                            ncu-source-predicated.txt, what stalls_by_instruction.py
#                            reads in them
#   floors:  floors.txt      the experiment 22+no_solve (step 22 with the solve taken
#                            out: X = B) checked bit for bit against B in every GPU case,
#                            then timed against step 22 at every reference shape in both
#                            modes; the same timing case of 22+predicated_copy;
#                            sass-sm90-22-no-solve.txt.gz, the sm_90 listing of step 22
#                            and the variant; ncu-source-floors-SHAPE-{22,22_variant}.csv
#                            (in ncu-source-floors.tar.gz): stall samples per SASS
#                            instruction of both at the PR's shape and at 256 matrices
#                            (n = k = 64), warm; ncu-source-floors.txt, what
#                            stalls_by_instruction.py reads in them
#   floor-stalls: ncu-source-floor-stalls-SHAPE-{22,22_variant}.csv (in
#                            ncu-source-floor-stalls.tar.gz): stall samples per SASS
#                            instruction of step 22's kernel and 22+no_solve's, warm, a
#                            sample every 32 cycles, at the PR's shape and at 16,384
#                            matrices with k = 32; ncu-source-floor-stalls.txt, what
#                            stalls_by_instruction.py reads in them; floor-metrics.txt,
#                            the same launches' duration, issue, occupancy and DRAM figures
#   sixteen-threads: sixteen-threads.txt  the experiment 22+sixteen_threads (16
#                            threads per column at k <= 32 and small batches) checked bit
#                            for bit against step 22 and timed against it in both modes at
#                            every reference shape and at four more small batches with
#                            k <= 32; then one warm launch of each kernel at the PR's shape
#                            (duration, instructions, issue, cycles)
#   ncu-source-k64: ncu-source-k64-NN.csv  stall samples per SASS instruction
#                            (SourceCounters) of steps 13, 14 and 15's <64, 2>, warm, at
#                            16,384 matrices with k = 64; ncu-source-k64.txt, what
#                            docs/tools/stalls_by_instruction.py reads in them;
#                            ncu-source-k64-raw.tar.gz
#   ncu:     ncu-SHAPE.txt for pr, large_batch, qwen3_next, qwen3_next_32k
#                            (docs/tools/ncu_table.sh)
#            ncu-raw.tar.gz  every metric ncu collected
#   experiments: experiments.txt  meson test --suite experiments: each one-change
#                            variant (steps/NN_name/experiments/*.patch) checked and
#                            timed against its step at every reference shape, after
#                            the registers, local memory and blocks per SM of both
#            experiments-switch.txt  step 19 against its never-persistent and its
#                            no-prefetch variants at 1,056, 1,536, 2,048 and 3,072
#                            matrices (k = 64)
#   test:    meson-test.txt  the whole test suite (all suites, sanitizers included)
#            bit-identity.txt  steps 02 and 03 against their predecessors
#            persistent-probe.txt  the kernel the last step launches for 2,048 matrices
#            every-gpu.txt   every_gpu_test in both device orders, and the report's
#                            --device
# To update the docs: copy these to docs/results/ under the names sync_docs.py
# reads (h200-DATE-*), then run python3 docs/tools/sync_docs.py.
set -uo pipefail
out=${1:?usage: docs/tools/measure.sh OUT_DIR [GPU_ARCH [PART]]}
arch=${2:-native}
part=${3:-all}
build=${SOLVE_TRI_BUILD:-build-measure}
mkdir -p "$out"
out=$(cd "$out" && pwd)
seed=20261201
last_step=$(basename "$(ls -d steps/[0-9][0-9]_* | tail -n 1)")

# What a build log names first: this machine, its GPU (name and UUID) and
# the commit of this checkout.
machine_and_tree() {
    local gpu
    gpu=$(nvidia-smi --query-gpu=name,uuid --format=csv,noheader 2>/dev/null | head -n 1)
    echo "machine: $(nproc) CPU cores; GPU: ${gpu:-none}; $(date -u +%Y-%m-%d)"
    echo "tree: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo ', with changes not committed')"
}

if [ "$part" = choices ]; then
    {
        echo "The README's build in this checkout: meson setup build && meson compile -C build"
        machine_and_tree
        TIMEFORMAT='time: %R s wall, %U s user + %S s sys'
        time (meson setup build >build-setup.log 2>&1 && meson compile -C build >build-compile.log 2>&1) 2>&1
        grep -h 'GPU architectures' build-setup.log
    } >"$out/build-time.txt" 2>&1
    cat "$out/build-time.txt"
    [ -x build/solve_tri_report ] || { tail -30 build-compile.log; exit 1; }
    mkdir -p "$out/report"
    build/solve_tri_report --seed "$seed" --out "$out/report" >"$out/report.txt" 2>&1
    echo "report: exit $?"
    steps=$(ls -d steps/[0-9][0-9]_* | tail -n 3)
    for step in $steps; do
        number=$(basename "$step" | cut -c1-2)
        echo "=== libstep$number.a ==="
        cuobjdump -sass -arch sm_90 "build/$step/libstep$number.a" | c++filt
    done | gzip >"$out/sass-sm90-last3.txt.gz"
    set -- $steps
    for pair in "$1 $2" "$2 $3"; do
        set -- $pair
        echo "=== $(basename "$1") against $(basename "$2") ==="
        python3 docs/tools/same_instances.py "$out/sass-sm90-last3.txt.gz" "libstep$(basename "$1" | cut -c1-2).a" \
            "libstep$(basename "$2" | cut -c1-2).a"
        echo "exit $?"
    done >"$out/same-instances.txt" 2>&1
    cuobjdump -res-usage "build/steps/$last_step/libstep${last_step:0:2}.a" 2>&1 |
        c++filt >"$out/res-usage-last.txt"
    exit 0
fi

if [ "$part" = host-costs ]; then
    ninja -C build plan_host_time >/dev/null && build/plan_host_time >"$out/host-costs.txt" 2>&1
    echo "host-costs: exit $?"
    exit 0
fi

if [ "$part" = suites ]; then
    groups=" ${SOLVE_TRI_SUITES:-cpu-gpu sanitizer steps experiments} "
    # The experiments' variants are built only for their suite, so that a first
    # part without them tests the README's build as it is (a build configured
    # with them before keeps them).
    if [[ $groups == *" experiments "* ]]; then
        meson configure build -Dexperiments=true >/dev/null || exit 1
    fi
    ninja -C build >"$out/suites-build.txt" 2>&1 || { tail -30 "$out/suites-build.txt"; exit 1; }
    # Each invocation runs its GPU tests one at a time; the steps and the
    # experiments are split over four invocations each, all at once, to shorten
    # the wall time (with 29 steps and the experiments, over nine minutes on an
    # H100 after the build; SOLVE_TRI_SUITES runs a part of it). Their timings
    # ran beside each other: not to quote.
    run_tests() {
        local name=$1
        shift
        meson test -C build --no-rebuild --print-errorlogs --logbase "testlog-$name" "$@" 2>&1 |
            sed "s|$PWD/||g" >"$out/meson-test-$name.txt"
    }
    [[ $groups == *" cpu-gpu "* ]] && run_tests cpu-gpu --suite cpu --suite gpu &
    [[ $groups == *" sanitizer "* ]] && run_tests sanitizer --suite sanitizer &
    # The steps' tests are named after their folders, the experiments' STEP+NAME
    # after their patches (steps/meson.build).
    ls -d steps/[0-9][0-9]_* | xargs -n 1 basename >"$out/list-steps"
    for patch in steps/*/experiments/*.patch; do
        echo "$(basename "$(dirname "$(dirname "$patch")")")+$(basename "$patch" .patch)"
    done >"$out/list-experiments"
    for suite in steps experiments; do
        [[ $groups == *" $suite "* ]] || continue
        for group in 0 1 2 3; do
            # shellcheck disable=SC2046
            run_tests "$suite-$group" $(awk -v g="$group" 'NR % 4 == g' "$out/list-$suite") &
        done
    done
    wait
    rm -f "$out"/list-*
    for file in "$out"/meson-test-*.txt; do
        echo "$(basename "$file"): $(grep -E '^(Ok|Fail|Skipped|Timeout):' "$file" | tr -s ' ' | tr '\n' ' ')"
    done
    exit 0
fi

if [ "$part" = build ]; then
    # A fresh copy: the tracked tree, no build folders, no results of earlier runs.
    fresh="${TMPDIR:-/tmp}/solve-tri-fresh-build"
    rm -rf "$fresh" && mkdir -p "$fresh"
    tar -cf - --exclude='./build*' --exclude=./report --exclude=./.git . | tar -xf - -C "$fresh"
    {
        echo "The README's build from a fresh copy: meson setup build && meson compile -C build"
        machine_and_tree
        TIMEFORMAT='time: %R s wall, %U s user + %S s sys'
        time (cd "$fresh" && meson setup build >setup.log 2>&1 && meson compile -C build >compile.log 2>&1) 2>&1
        grep -h 'GPU architectures' "$fresh/setup.log"
        echo "slowest commands (seconds each took, as .ninja_log has them):"
        awk 'NR > 1 { printf "  %7.1f  %s\n", ($2 - $1) / 1000, $4 }' "$fresh/build/.ninja_log" | sort -rn | head -n 8
    } >"$out/build-time.txt" 2>&1
    cat "$out/build-time.txt"
    exit 0
fi

# SOLVE_TRI_TARGETS="steps/14_chunk_copies/14_chunk_copies ..." builds only
# those targets (for a part that needs no more).
# shellcheck disable=SC2086
{ [ -d "$build" ] || meson setup "$build" -Dgpu_arch="$arch" -Dexperiments=true; } >>"$out/setup.txt" 2>&1 &&
    ninja -C "$build" ${SOLVE_TRI_TARGETS:-} >>"$out/setup.txt" 2>&1 || { tail -30 "$out/setup.txt"; exit 1; }

# source_counters NAME LAUNCH_SKIP KERNEL_REGEX COMMAND...: Nsight Compute's
# stall samples per SASS instruction (SourceCounters, and the warp states) of
# one warm launch, the (LAUNCH_SKIP + 1)-th of the kernels matching
# KERNEL_REGEX that COMMAND runs, as $out/NAME.csv; the profile and ncu's
# output go to $out/raw. ncu_options (say "--warp-sampling-interval 0": a sample
# every 32 cycles, for a kernel of a few microseconds) goes to ncu.
source_counters() {
    local name=$1 skip=$2 regex=$3
    shift 3
    # shellcheck disable=SC2086
    ncu --clock-control none --cache-control none ${ncu_options:-} --launch-skip "$skip" --launch-count 1 \
        --kernel-name-base demangled -k "regex:$regex" --section SourceCounters --section WarpStateStats \
        --export "$out/raw/$name" --force-overwrite "$@" >"$out/raw/$name.log" 2>&1 &&
        ncu --import "$out/raw/$name.ncu-rep" --page source --print-source sass --csv >"$out/$name.csv" 2>&1
    echo "ncu SourceCounters $name: exit $? ($(wc -l <"$out/$name.csv") lines)"
}

# stalls_of_22_and_variant PREFIX BINARY "NAME N K NE2 NE3 INSTANCE"...: for
# each shape, source_counters of step 22's solve_tri_kernel<INSTANCE and of
# the variant's that BINARY (an experiment on step 22) launches there, as
# $out/PREFIX-NAME-{22,22_variant}.csv; then what stalls_by_instruction.py
# reads in them, as $out/PREFIX.txt, and the CSVs in $out/PREFIX.tar.gz.
stalls_of_22_and_variant() {
    local prefix=$1 binary=$2 shape name n k ne2 ne3 instance step
    shift 2
    mkdir -p "$out/raw"
    for shape in "$@"; do
        read -r name n k ne2 ne3 instance <<<"$shape"
        for step in 22 22_variant; do
            source_counters "$prefix-$name-$step" 10 "step$step::solve_tri_kernel<(\(int\))?$instance" \
                "$binary" --seed "$seed" --n "$n" --k "$k" --ne2 "$ne2" --ne3 "$ne3" --test-case='*timing*'
        done
    done
    python3 docs/tools/stalls_by_instruction.py "$out/$prefix"-*.csv >"$out/$prefix.txt" 2>&1
    (cd "$out" && tar -czf "$prefix.tar.gz" "$prefix"-*.csv)
}

# warm_metrics REGEX METRICS COMMAND...: Nsight Compute's METRICS of one warm
# launch, the 11th of the kernels whose demangled name matches REGEX that
# COMMAND runs, as CSV rows.
warm_metrics() {
    local regex=$1 metrics=$2
    shift 2
    ncu --clock-control none --cache-control none --launch-skip 10 --launch-count 1 \
        --kernel-name-base demangled -k "regex:$regex" --metrics "$metrics" --csv "$@" 2>&1 | grep -E '^"(ID|[0-9])'
}

# reports_at NAME "N K NE2 NE3"...: build/solve_tri_report (every step, and
# cuBLAS as ggml calls it) at each shape alone, into $out/report-nN-kK-NE2xNE3/,
# its output as $out/NAME.txt; prints how many exited 0.
reports_at() {
    local name=$1 shape n k ne2 ne3
    shift
    for shape in "$@"; do
        read -r n k ne2 ne3 <<<"$shape"
        echo "=== solve_tri_report --n $n --k $k --ne2 $ne2 --ne3 $ne3 ==="
        "$build/solve_tri_report" --seed "$seed" --shapes none --n "$n" --k "$k" --ne2 "$ne2" --ne3 "$ne3" \
            --out "$out/report-n$n-k$k-${ne2}x$ne3" 2>&1
        echo "exit $?"
    done >"$out/$name.txt"
    echo "reports: $(grep -c '^exit 0' "$out/$name.txt") of $# exit 0"
}

if [ "$part" = all ] || [ "$part" = run ]; then
    { [ -d "$build-ieee" ] || meson setup "$build-ieee" -Dgpu_arch="$arch" -Dfast_math=false; } >>"$out/setup.txt" 2>&1 &&
        ninja -C "$build-ieee" steps/04_fmaf_reciprocal/04_fmaf_reciprocal >>"$out/setup.txt" 2>&1 ||
        { tail -30 "$out/setup.txt"; exit 1; }
    {
        for dir in "$build"/steps/[0-9][0-9]_*/; do
            step=$(basename "$dir")
            # The experiments' object folders (NN_name.p) are no steps.
            [ -x "$dir/$step" ] || continue
            # SOLVE_TRI_STEPS="16 17" runs only those steps' binaries.
            [ -z "${SOLVE_TRI_STEPS:-}" ] || [[ " $SOLVE_TRI_STEPS " == *" ${step:0:2} "* ]] || continue
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
            [ -x "$dir/$step" ] || continue
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
    # The run-time instances (n = 0: any n) of steps 07 on, and every instance
    # of the last step's persistent kernel.
    {
        for step in $(cd steps && ls -d 0[7-9]_* [1-9][0-9]_*); do
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

if [ "$part" = all ] || [ "$part" = experiments ]; then
    # Every one-change experiment: its variant against its step, at every
    # reference shape; and step 19's persistent switch, its kernel against
    # step 18's and against itself without the prefetch, at batches about the
    # switch (k = 64).
    meson test -C "$build" --suite experiments --verbose 2>&1 | sed "s|$PWD/||g" >"$out/experiments.txt"
    echo "experiments: exit $? ($(grep -E '^(Ok|Fail|Skipped):' "$out/experiments.txt" | tr -s ' ' | tr '\n' ' '))"
    for ne2 in 33 48 64 96; do
        for variant in never_persistent no_prefetch; do
            echo "=== 19_persistent_prefetch+$variant, $((ne2 * 32)) matrices ==="
            "$build/steps/19_$variant" --seed "$seed" --n 64 --k 64 --ne2 "$ne2" --ne3 32 --test-case='*timing*' 2>&1
        done
    done >"$out/experiments-switch.txt"
    echo "persistent switch: $(grep -c 'Status: SUCCESS' "$out/experiments-switch.txt") of 8 runs passed"
fi

if [ "$part" = report ]; then
    root=$PWD
    (cd "$out" && "$root/$build/solve_tri_report" --seed "$seed" --out . >report.txt 2>/dev/null)
    echo "report: exit $?"
fi

if [ "$part" = sass ]; then
    # Every step's and every experiment's library, "=== LIBRARY ===" each,
    # demangled (docs/tools/sass_listing.py reads it); kept: the n = 64
    # instances of steps 08 on and of the experiments, and the run-time
    # instances (<0>, <0, 1>) of steps 08, 09, 11, 12, 13 and 15 and of step
    # 15's experiments (the rest is tens of MB of unrolled code that no
    # chapter reads).
    for lib in "$build"/steps/[0-9][0-9]_*/libstep*.a "$build"/steps/libvariant*.a; do
        echo "=== $(basename "$lib") ==="
        cuobjdump -sass -arch sm_90 "$lib" | c++filt | sed -E 's/^\s+$//'
    done | python3 -c '
import re, sys
keep = False
for line in sys.stdin:
    section = re.match(r"=== lib(step(\d\d)|variant(\d\d))", line)
    if section:
        step = int(section.group(2) or section.group(3))
        print(line, end="")
        keep = False
        continue
    name = re.match(r"\s+Function : (.*)", line)
    if name:
        keep = step >= 8 and ("<64" in name.group(1) or (step in (8, 9, 11, 12, 13, 15) and re.search(r"<0(, 1)?>", name.group(1))))
    if keep:
        print(line, end="")
' | gzip -9 >"$out/sass-sm90.txt.gz"
    echo "sass: $(zcat "$out/sass-sm90.txt.gz" | grep -c 'Function :') kernels"
    docs/tools/same_code.sh >"$out/same-code.txt" 2>&1
    echo "same_code.sh: exit $? ($(grep -c identical "$out/same-code.txt") identical, $(grep -cE 'DIFFERS|FAILED' "$out/same-code.txt") not)"
fi

if [ "$part" = ncu-warm ]; then
    mkdir -p "$out/raw"
    for shape in pr upstream_perf; do
        docs/tools/ncu_table.sh --warm "$build" "$shape" "$out/raw/ncu-warm-$shape.csv" >"$out/ncu-warm-$shape.txt" 2>&1
        echo "ncu --warm $shape: exit $?"
    done
    # Where the stalls sit, instruction by instruction: steps 01-03, a warm
    # launch each, at the PR's shape (the n = 64 instances) and at n = 63 (the
    # run-time ones).
    for shape in pr n63; do
        case $shape in
            pr) args=(--shapes pr) ;;
            n63) args=(--shapes none --n 63 --k 6 --ne2 4 --ne3 2) ;;
        esac
        for step in 01 02 03; do
            source_counters "ncu-source-$shape-$step" 20 "step$step::" "$build/solve_tri_report" "${args[@]}" \
                --quick --mode back-to-back --out "$out/raw/report-$shape"
        done
    done
    tar -czf "$out/ncu-warm-raw.tar.gz" -C "$out/raw" . && rm -rf "$out/raw"
fi

if [ "$part" = alignment ]; then
    # The last step on strides its predecessor takes (16-byte aligned) and on
    # strides only it takes, timed in one binary: n = 63 contiguous (A's
    # matrices 63 * 63 floats apart) and n = 64 with a gap of one float after
    # each matrix, at the PR's batch (8 matrices, k = 6) and at 16,384 matrices
    # with k = 64; n = 64 also at 16,384 matrices with k = 32 and at 1,024
    # with k = 64.
    for shape in "--n 63 --k 6 --ne2 4 --ne3 2" "--n 64 --k 6 --ne2 4 --ne3 2" "--n 64 --k 32 --ne2 128 --ne3 128" \
        "--n 64 --k 64 --ne2 32 --ne3 32" "--n 63 --k 64 --ne2 512 --ne3 32" "--n 64 --k 64 --ne2 512 --ne3 32"; do
        echo "=== $last_step $shape ==="
        # shellcheck disable=SC2086
        "$build/steps/$last_step/$last_step" --seed "$seed" $shape --test-case='*timing*' 2>&1
    done >"$out/alignment.txt"
    echo "alignment: $(grep -c 'Status: SUCCESS' "$out/alignment.txt") of 6 runs passed"
fi

if [ "$part" = spills ]; then
    # INSTANCE|SHAPE: a kernel of the last step (the start of its demangled
    # name, as a regular expression) and a shape that runs it. The spilling
    # ones (run-time n: 60) each come before the n = 64 instance of the plan.
    int='(\(int\))?'
    cases=("solve_tri_persistent_kernel<${int}64, ${int}128,|--n 64 --k 128 --ne2 512 --ne3 32"
        "solve_tri_persistent_kernel<${int}0, ${int}128,|--n 60 --k 128 --ne2 512 --ne3 32"
        "solve_tri_persistent_kernel<${int}0, ${int}64,|--n 60 --k 64 --ne2 512 --ne3 32"
        "solve_tri_persistent_kernel<${int}64, ${int}64,|--n 64 --k 64 --ne2 512 --ne3 32"
        "solve_tri_kernel<${int}0, ${int}2, ${int}32,|--n 60 --k 32 --ne2 128 --ne3 128"
        "solve_tri_kernel<${int}64, ${int}2, ${int}32,|--n 64 --k 32 --ne2 128 --ne3 128"
        "solve_tri_kernel<${int}0, ${int}2, ${int}64,|--n 60 --k 64 --ne2 8 --ne3 32"
        "solve_tri_kernel<${int}64, ${int}2, ${int}64,|--n 64 --k 64 --ne2 8 --ne3 32")
    metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
    metrics+=,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum
    metrics+=,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
    metrics+=,l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_hit.sum,launch__registers_per_thread
    binary="$build/steps/$last_step/$last_step"
    {
        echo "=== cuobjdump -res-usage ($last_step's library) ==="
        cuobjdump -res-usage "$build"/steps/"$last_step"/libstep*.a | c++filt | grep -A1 'Function' | grep -v '^--'
        for entry in "${cases[@]}"; do
            instance=${entry%%|*} shape=${entry##*|}
            echo "=== $last_step $shape: $instance ==="
            # shellcheck disable=SC2086
            "$binary" --seed "$seed" $shape --test-case='*timing*' 2>&1
            # shellcheck disable=SC2086
            warm_metrics "step${last_step:0:2}::$instance" "$metrics" "$binary" --seed "$seed" $shape --test-case='*timing*'
        done
    } >"$out/spills.txt" 2>&1
    echo "spills: $(grep -c 'Status: SUCCESS' "$out/spills.txt") of ${#cases[@]} runs passed," \
        "$(grep -c '"launch__registers_per_thread"' "$out/spills.txt") profiled"
fi

if [ "$part" = no-spills ]; then
    # Step 22 against step 21 where n is not 64: n = 60 (a multiple of 4:
    # the 16-byte instances, which spill in step 21 with two threads per
    # column) and n = 62 (contiguous, 16-byte aligned: step 21's 16-byte
    # instances, which copy a flat A a float at a time, against step 22's
    # single floats by rows), each at a small and a large batch; then one
    # warm launch of each step's run-time instance (<0, ...>: the reference
    # shapes the timing case also runs are n = 64) under Nsight Compute at
    # three of them (local-memory sectors against global ones, duration).
    shapes=("--n 60 --k 6 --ne2 4 --ne3 2" "--n 60 --k 64 --ne2 8 --ne3 32" "--n 60 --k 32 --ne2 128 --ne3 128"
        "--n 60 --k 64 --ne2 512 --ne3 32" "--n 62 --k 6 --ne2 4 --ne3 2" "--n 62 --k 64 --ne2 8 --ne3 32"
        "--n 62 --k 32 --ne2 128 --ne3 128" "--n 62 --k 64 --ne2 512 --ne3 32")
    metrics=gpu__time_duration.sum,launch__registers_per_thread
    metrics+=,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum
    metrics+=,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
    binary="$build/steps/22_sixteen_byte_rows/22_sixteen_byte_rows"
    {
        for shape in "${shapes[@]}"; do
            echo "=== 22_sixteen_byte_rows $shape ==="
            # shellcheck disable=SC2086
            "$binary" --seed "$seed" $shape --test-case='*timing*' 2>&1
        done
        for shape in "--n 60 --k 64 --ne2 8 --ne3 32" "--n 60 --k 32 --ne2 128 --ne3 128" \
            "--n 62 --k 32 --ne2 128 --ne3 128"; do
            for step in 21 22; do
                echo "=== step $step $shape: Nsight Compute, 11th launch ==="
                # shellcheck disable=SC2086
                warm_metrics "step$step::solve_tri_kernel<(\\(int\\))?0," "$metrics" "$binary" --seed "$seed" $shape \
                    --test-case='*timing*'
            done
        done
    } >"$out/no-spills.txt" 2>&1
    echo "no-spills: $(grep -c 'Status: SUCCESS' "$out/no-spills.txt") of ${#shapes[@]} runs passed," \
        "$(grep -c '"launch__registers_per_thread"' "$out/no-spills.txt") profiled"
fi

if [ "$part" = loads-and-stages ]; then
    # Step 22's experiments b_loads_first, staged_columns and staged_one_wait,
    # each against step 22, at n = 64 along the batch curve and at k = 32,
    # and at run-time n (60, 62, 63); then the sm_90 listing of step 22 and
    # the three, and where each kernel issues its loads of B against its wait
    # for A (docs/tools/loads_before_wait.py).
    shapes=("--n 64 --k 64 --ne2 1 --ne3 8" "--n 64 --k 64 --ne2 4 --ne3 32" "--n 64 --k 64 --ne2 8 --ne3 32"
        "--n 64 --k 64 --ne2 16 --ne3 32" "--n 64 --k 32 --ne2 128 --ne3 128" "--n 63 --k 6 --ne2 4 --ne3 2"
        "--n 62 --k 64 --ne2 8 --ne3 32" "--n 60 --k 32 --ne2 128 --ne3 128" "--n 62 --k 32 --ne2 128 --ne3 128")
    variants=(b_loads_first staged_columns staged_one_wait)
    {
        for shape in "${shapes[@]}"; do
            for variant in "${variants[@]}"; do
                echo "=== 22_sixteen_byte_rows+$variant $shape ==="
                # shellcheck disable=SC2086
                "$build/steps/22_$variant" --seed "$seed" $shape --test-case='*timing*' 2>&1
            done
        done
    } >"$out/loads-and-stages.txt"
    echo "loads-and-stages: $(grep -c 'Status: SUCCESS' "$out/loads-and-stages.txt") of" \
        "$((${#variants[@]} * ${#shapes[@]})) runs passed"
    {
        echo "=== 22_sixteen_byte_rows ==="
        cuobjdump -sass -arch sm_90 "$build/steps/22_sixteen_byte_rows/libstep22.a" | c++filt
        for variant in "${variants[@]}"; do
            echo "=== 22_sixteen_byte_rows+$variant ==="
            cuobjdump -sass -arch sm_90 "$build/steps/libvariant22_$variant.a" | c++filt
        done
    } | gzip >"$out/sass-sm90-22-experiments.txt.gz"
    python3 docs/tools/loads_before_wait.py "$out/sass-sm90-22-experiments.txt.gz" >"$out/loads-before-wait.txt"
fi

if [ "$part" = predicated-copy ]; then
    # Step 22's experiment predicated_copy against step 22 at run-time n
    # (60, 62 and 63: blocks in which threads past row n exist), small and
    # large batches; then where the stalls sit in both run-time instances at
    # two of them, the 11th launch of each (warm).
    shapes=("--n 63 --k 6 --ne2 4 --ne3 2" "--n 62 --k 64 --ne2 8 --ne3 32" "--n 60 --k 64 --ne2 8 --ne3 32"
        "--n 60 --k 32 --ne2 128 --ne3 128" "--n 62 --k 32 --ne2 128 --ne3 128" "--n 62 --k 64 --ne2 512 --ne3 32")
    binary="$build/steps/22_predicated_copy"
    {
        for shape in "${shapes[@]}"; do
            echo "=== 22_sixteen_byte_rows+predicated_copy $shape ==="
            # shellcheck disable=SC2086
            "$binary" --seed "$seed" $shape --test-case='*timing*' 2>&1
        done
    } >"$out/predicated-copy.txt"
    echo "predicated-copy: $(grep -c 'Status: SUCCESS' "$out/predicated-copy.txt") of ${#shapes[@]} runs passed"
    mkdir -p "$out/raw"
    # The run-time instance each shape runs, <0, T, columns, 1>, which the
    # timing case's two reference shapes (n = 64) do not.
    i='(\(int\))?'
    for shape in "63 6 4 2 0, ${i}8, ${i}8, ${i}1>" "62 64 8 32 0, ${i}2, ${i}64, ${i}1>"; do
        read -r n k ne2 ne3 instance <<<"$shape"
        for step in 22 22_variant; do
            source_counters "ncu-source-predicated-n$n-k$k-$step" 10 "step$step::solve_tri_kernel<$i$instance" \
                "$binary" --seed "$seed" --n "$n" --k "$k" --ne2 "$ne2" --ne3 "$ne3" --test-case='*timing*'
        done
    done
    python3 docs/tools/stalls_by_instruction.py "$out"/ncu-source-predicated-*.csv >"$out/ncu-source-predicated.txt" 2>&1
    (cd "$out" && tar -czf ncu-source-predicated.tar.gz ncu-source-predicated-*.csv)
fi

if [ "$part" = floors ]; then
    # Step 22 without its solve (X = B): every GPU case, its output checked
    # against B bit for bit; the timing case against step 22 at the reference
    # shapes, back to back and in graph replay; predicated_copy's timing case,
    # now in both modes; the two listings; and where the stalls sit in the
    # kernel each runs at the PR's shape and at 256 matrices, the 11th launch
    # of each (warm).
    binary="$build/steps/22_no_solve"
    {
        echo "=== 22_sixteen_byte_rows+no_solve, every case ==="
        "$binary" --seed "$seed" 2>&1
        echo "=== 22_sixteen_byte_rows+predicated_copy, timing ==="
        "$build/steps/22_predicated_copy" --seed "$seed" --test-case='*timing*' 2>&1
    } >"$out/floors.txt"
    echo "floors: $(grep -c 'Status: SUCCESS' "$out/floors.txt") of 2 runs passed"
    {
        echo "=== 22_sixteen_byte_rows ==="
        cuobjdump -sass -arch sm_90 "$build/steps/22_sixteen_byte_rows/libstep22.a" | c++filt
        echo "=== 22_sixteen_byte_rows+no_solve ==="
        cuobjdump -sass -arch sm_90 "$build/steps/libvariant22_no_solve.a" | c++filt
    } | gzip >"$out/sass-sm90-22-no-solve.txt.gz"
    i='(\(int\))?'
    stalls_of_22_and_variant ncu-source-floors "$binary" "pr 64 6 4 2 64, ${i}8, ${i}8, ${i}4>" \
        "qwen3_next 64 64 8 32 64, ${i}2, ${i}64, ${i}4>"
fi

if [ "$part" = floor-stalls ]; then
    # Where the stalls sit in step 22's kernel and in 22+no_solve's at the
    # PR's shape (a sample every 32 cycles: the kernel lasts about 2 us) and
    # at 16,384 matrices with k = 32, the 11th launch of each (warm); then the
    # same launches' duration, issue, occupancy and DRAM figures.
    binary="$build/steps/22_no_solve"
    i='(\(int\))?'
    ncu_options="--warp-sampling-interval 0"
    stalls_of_22_and_variant ncu-source-floor-stalls "$binary" "pr 64 6 4 2 64, ${i}8, ${i}8, ${i}4>" \
        "large_batch 64 32 128 128 64, ${i}2, ${i}32, ${i}4>"
    ncu_options=
    metrics=gpu__time_duration.sum,sm__inst_executed.sum,sm__instruction_throughput.avg.pct_of_peak_sustained_active
    metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed
    metrics+=,launch__registers_per_thread,launch__occupancy_limit_registers,sm__cycles_active.avg
    {
        for shape in "64 6 4 2 64, ${i}8, ${i}8, ${i}4>" "64 64 8 32 64, ${i}2, ${i}64, ${i}4>" \
            "64 32 128 128 64, ${i}2, ${i}32, ${i}4>"; do
            read -r n k ne2 ne3 instance <<<"$shape"
            for step in 22 22_variant; do
                echo "=== step$step n $n k $k, $((ne2 * ne3)) matrices ==="
                warm_metrics "step$step::solve_tri_kernel<$i$instance" "$metrics" \
                    "$binary" --seed "$seed" --n "$n" --k "$k" --ne2 "$ne2" --ne3 "$ne3" --test-case='*timing*'
            done
        done
    } >"$out/floor-metrics.txt"
    echo "floor-metrics: $(grep -c '"gpu__time_duration.sum"' "$out/floor-metrics.txt") of 6 profiled"
fi

if [ "$part" = sixteen-threads ]; then
    # Step 22 with 16 threads per column at k <= 32 and small batches: checked
    # against step 22 and timed at the reference shapes, then at more small
    # batches of k <= 32 (n = 63 runs the run-time instance), then one warm
    # launch of each kernel at the PR's shape.
    binary="$build/steps/22_sixteen_threads"
    shapes=("--n 64 --k 32 --ne2 8 --ne3 32" "--n 64 --k 16 --ne2 16 --ne3 32" "--n 64 --k 1 --ne2 8 --ne3 1"
        "--n 63 --k 6 --ne2 4 --ne3 2")
    {
        echo "=== 22_sixteen_byte_rows+sixteen_threads, against step 22, at the reference shapes ==="
        "$binary" --seed "$seed" --test-case='*against the previous*,*timing*' 2>&1
        for shape in "${shapes[@]}"; do
            echo "=== 22_sixteen_byte_rows+sixteen_threads $shape ==="
            # shellcheck disable=SC2086
            "$binary" --seed "$seed" $shape --test-case='*timing*' 2>&1
        done
    } >"$out/sixteen-threads.txt"
    echo "sixteen-threads: $(grep -c 'Status: SUCCESS' "$out/sixteen-threads.txt") of $((${#shapes[@]} + 1)) runs passed"
    i='(\(int\))?'
    metrics=gpu__time_duration.sum,sm__inst_executed.sum,sm__instruction_throughput.avg.pct_of_peak_sustained_active
    metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,sm__cycles_active.avg
    {
        for shape in "64 6 4 2"; do
            read -r n k ne2 ne3 <<<"$shape"
            for kernel in "step22::solve_tri_kernel<${i}64, ${i}8, ${i}8, ${i}4>" \
                "step22_variant::solve_tri_kernel<${i}64, ${i}16, ${i}8, ${i}4>"; do
                echo "=== ${kernel%%::*} n $n k $k, $((ne2 * ne3)) matrices ==="
                warm_metrics "$kernel" "$metrics" \
                    "$binary" --seed "$seed" --n "$n" --k "$k" --ne2 "$ne2" --ne3 "$ne3" --test-case='*timing*'
            done
        done
    } >>"$out/sixteen-threads.txt"
fi

if [ "$part" = shared-rows ]; then
    # Step 25 (a block's threads share A's rows) against step 24, and its
    # experiments rows_across_warps and chunks_in_turn against step 25: each
    # checked and timed at the reference shapes, then at shapes whose blocks
    # have 128 threads (n = k = 64 up to 384 matrices; k = 128) or share rows
    # at n = 16; then one warm launch of each kernel at 256 matrices (n = k =
    # 64: <64, 2, 64, 4>), and where the stalls of steps 24 and 25 sit there.
    shapes=("--n 64 --k 64 --ne2 64 --ne3 1" "--n 64 --k 64 --ne2 192 --ne3 1" "--n 64 --k 64 --ne2 384 --ne3 1"
        "--n 64 --k 128 --ne2 128 --ne3 1" "--n 16 --k 16 --ne2 4096 --ne3 1")
    {
        for binary in 25_every_thread_copies/25_every_thread_copies 25_rows_across_warps 25_chunks_in_turn; do
            echo "=== $(basename "$binary"), against the previous step, at the reference shapes ==="
            "$build/steps/$binary" --seed "$seed" --test-case='*against the previous*,*timing*' 2>&1
            for shape in "${shapes[@]}"; do
                echo "=== $(basename "$binary") $shape ==="
                # shellcheck disable=SC2086
                "$build/steps/$binary" --seed "$seed" $shape --test-case='*timing*' 2>&1
            done
        done
    } >"$out/shared-rows.txt"
    echo "shared-rows: $(grep -c 'Status: SUCCESS' "$out/shared-rows.txt") of $((3 * (${#shapes[@]} + 1))) runs passed"
    i='(\(int\))?'
    instance="${i}64, ${i}2, ${i}64, ${i}4>"
    step25="$build/steps/25_every_thread_copies/25_every_thread_copies"
    # 256 matrices, n = k = 64, the timing case only: where each kernel is profiled.
    at256=(--seed "$seed" --n 64 --k 64 --ne2 8 --ne3 32 --test-case='*timing*')
    metrics=gpu__time_duration.sum,sm__inst_executed.sum,sm__cycles_active.avg
    metrics+=,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum
    {
        for binary in 25_rows_across_warps 25_chunks_in_turn; do
            for kernel in "step25::solve_tri_kernel<$instance" "step25_variant::solve_tri_kernel<$instance"; do
                echo "=== ${kernel%%::*} in $binary, n 64 k 64, 256 matrices ==="
                warm_metrics "$kernel" "$metrics" "$build/steps/$binary" "${at256[@]}"
            done
        done
        echo "=== step24 in 25_every_thread_copies, n 64 k 64, 256 matrices ==="
        warm_metrics "step24::solve_tri_kernel<$instance" "$metrics" "$step25" "${at256[@]}"
        for step in 24 25; do
            echo "=== step$step, LDGSTS requests and sectors, n 64 k 64, 256 matrices ==="
            warm_metrics "step$step::solve_tri_kernel<$instance" \
                l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum \
                "$step25" "${at256[@]}"
        done
    } >"$out/shared-rows-metrics.txt"
    echo "shared-rows-metrics: $(grep -c '"gpu__time_duration.sum"' "$out/shared-rows-metrics.txt") of 5 profiled"
    mkdir -p "$out/raw"
    for step in 24 25; do
        source_counters "ncu-source-shared-rows-$step" 10 "step$step::solve_tri_kernel<$instance" "$step25" \
            "${at256[@]}"
    done
    python3 docs/tools/stalls_by_instruction.py "$out"/ncu-source-shared-rows-*.csv >"$out/ncu-source-shared-rows.txt" 2>&1
    (cd "$out" && tar -czf ncu-source-shared-rows.tar.gz ncu-source-shared-rows-*.csv)
fi

if [ "$part" = blocked ]; then
    # Step 26 (the blocked solve past the persistent window) against step 25,
    # and its experiments blocked_everywhere, tensor_core_products and
    # right_looking_blocks against step 26: each checked and timed at the reference shapes, then at shapes
    # of their own (small batches, where only blocked_everywhere launches the
    # blocked kernel; 8,192 matrices at k = 6, 16, 64 and 128, where step 26
    # does); then the sm_90 listing of steps 25 and 26 and which instances of
    # step 26 are step 25's.
    shapes=("--n 64 --k 64 --ne2 1 --ne3 1" "--n 64 --k 64 --ne2 64 --ne3 1" "--n 64 --k 64 --ne2 256 --ne3 1"
        "--n 64 --k 6 --ne2 128 --ne3 64" "--n 64 --k 16 --ne2 128 --ne3 64" "--n 64 --k 64 --ne2 128 --ne3 64"
        "--n 64 --k 128 --ne2 128 --ne3 64")
    {
        for binary in 26_blocked_solve/26_blocked_solve 26_blocked_everywhere 26_tensor_core_products \
            26_right_looking_blocks; do
            echo "=== $(basename "$binary"), against the previous step, at the reference shapes ==="
            "$build/steps/$binary" --seed "$seed" --test-case='*against the previous*,*timing*' 2>&1
            for shape in "${shapes[@]}"; do
                echo "=== $(basename "$binary") $shape ==="
                # shellcheck disable=SC2086
                "$build/steps/$binary" --seed "$seed" $shape --test-case='*timing*' 2>&1
            done
        done
    } >"$out/blocked.txt"
    echo "blocked: $(grep -c 'Status: SUCCESS' "$out/blocked.txt") of $((4 * (${#shapes[@]} + 1))) runs passed"
    for lib in steps/25_every_thread_copies/libstep25.a steps/26_blocked_solve/libstep26.a \
        steps/libvariant26_tensor_core_products.a; do
        echo "=== $(basename "$lib") ==="
        cuobjdump -sass -arch sm_90 "$build/$lib" | c++filt
    done >"$out/sass-sm90-blocked.txt"
    python3 docs/tools/same_instances.py "$out/sass-sm90-blocked.txt" libstep25.a libstep26.a \
        >"$out/same-instances-blocked.txt" 2>&1
    gzip -f "$out/sass-sm90-blocked.txt"
fi

if [ "$part" = every-shape ]; then
    # Step 27 (A streamed a block row at a time: n = 65 to 256) against step
    # 26 and step 28 (k past 128) against step 27 at the step tests' two
    # timed shapes, step 27's experiment no_prefetch against it at every
    # reference shape, and step 28 alone at test-backend-ops' three shapes
    # with k > 128; then the report (every step, and cuBLAS as ggml calls
    # it) at each of test-backend-ops' correctness shapes past n = 64 or
    # k = 128.
    {
        for binary in 27_streamed_block_rows/27_streamed_block_rows 27_no_prefetch 28_column_tiles/28_column_tiles; do
            echo "=== $(basename "$binary"), against the previous step, at the reference shapes it times ==="
            "$build/steps/$binary" --seed "$seed" --test-case='*against the previous*,*timing*' 2>&1
        done
        for shape in "--n 64 --k 200 --ne2 4 --ne3 4" "--n 64 --k 384 --ne2 4 --ne3 4" "--n 79 --k 417 --ne2 5 --ne3 3"; do
            echo "=== 28_column_tiles $shape ==="
            # shellcheck disable=SC2086
            "$build/steps/28_column_tiles/28_column_tiles" --seed "$seed" $shape --test-case='*timing*' 2>&1
        done
    } >"$out/every-shape.txt"
    echo "every-shape: $(grep -c 'Status: SUCCESS' "$out/every-shape.txt") of 6 runs passed"
    reports_at every-shape-reports "79 417 5 3" "128 32 4 2" "80 80 2 8" "80 79 2 8" "80 81 2 8" "80 80 8 8" \
        "80 79 8 8" "80 81 8 8" "84 32 4 4" "95 40 8 8" "100 41 4 4" "128 31 4 4" "128 32 4 4" "128 32 3 4" \
        "128 32 4 1" "64 200 4 4" "64 384 4 4"
fi

if [ "$part" = tensor-products ]; then
    # Step 29 (past n = 64 the products on the tensor cores) against step 28:
    # its test's every case, its experiment plain_tf32's accuracy, then timed at
    # shapes past n = 64 (test-backend-ops' perf shapes and larger batches), and
    # its experiment one_accumulator
    # against it there and at the reference shapes; Nsight Compute on one warm
    # launch of each step's streamed kernel at n = 256; the sm_90 listing of
    # steps 28 and 29 and of the experiment; the report (every step, and
    # cuBLAS as ggml calls it) at test-backend-ops' perf shapes past n = 64.
    shapes=("--n 80 --k 80 --ne2 8 --ne3 8" "--n 128 --k 32 --ne2 4 --ne3 2" "--n 128 --k 128 --ne2 4 --ne3 32"
        "--n 256 --k 128 --ne2 4 --ne3 2" "--n 256 --k 64 --ne2 66 --ne3 2" "--n 79 --k 417 --ne2 5 --ne3 3")
    {
        echo "=== 29_tensor_core_products, every case ==="
        "$build/steps/29_tensor_core_products/29_tensor_core_products" --seed "$seed" 2>&1
        echo "=== 29_plain_tf32, test-backend-ops' correctness shapes ==="
        "$build/steps/29_plain_tf32" --seed "$seed" --test-case='*inexact experiment*' 2>&1
        echo "=== 29_one_accumulator, against the previous step, at the reference shapes ==="
        "$build/steps/29_one_accumulator" --seed "$seed" --test-case='*against the previous*,*timing*' 2>&1
        for binary in 29_tensor_core_products/29_tensor_core_products 29_one_accumulator; do
            for shape in "${shapes[@]}"; do
                echo "=== $(basename "$binary") $shape ==="
                # shellcheck disable=SC2086
                "$build/steps/$binary" --seed "$seed" $shape --test-case='*timing*' 2>&1
            done
        done
    } >"$out/tensor-products.txt"
    echo "tensor-products: $(grep -c 'Status: SUCCESS' "$out/tensor-products.txt") of $((3 + 2 * ${#shapes[@]})) runs passed"
    for step in 28 29; do
        echo "=== step $step, n = 256, k = 128, 8 matrices: its streamed kernel, the 4th launch of the timing case ==="
        ncu --clock-control none --cache-control none --kernel-name-base mangled \
            -k "regex:step${step}.*streamed" --launch-skip 3 --launch-count 1 \
            --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats \
            --section InstructionStats --section LaunchStats --section Occupancy --section SourceCounters \
            --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed.sum,sm__cycles_elapsed.max \
            "$build/steps/29_tensor_core_products/29_tensor_core_products" --seed "$seed" --n 256 --k 128 --ne2 4 \
            --ne3 2 --test-case='*timing*' 2>&1
    done >"$out/tensor-products-ncu.txt"
    echo "ncu: $(grep -c 'streamed_kernel' "$out/tensor-products-ncu.txt") kernel lines"
    for lib in steps/28_column_tiles/libstep28.a steps/29_tensor_core_products/libstep29.a \
        steps/libvariant29_one_accumulator.a; do
        echo "=== $(basename "$lib") ==="
        cuobjdump -sass -arch sm_90 "$build/$lib" | c++filt
    done | gzip >"$out/sass-sm90-tensor-products.txt.gz"
    python3 docs/tools/same_instances.py "$out/sass-sm90-tensor-products.txt.gz" libstep28.a libstep29.a \
        >"$out/same-instances-tensor-products.txt" 2>&1
    reports_at tensor-products-reports "128 32 4 2" "128 128 4 32" "256 128 4 2"
fi

if [ "$part" = persistent-choice ]; then
    {
        for shape in "--n 64 --k 64 --ne2 30 --ne3 32" "--n 64 --k 64 --ne2 31 --ne3 32" \
            "--n 64 --k 64 --ne2 32 --ne3 32" "--n 64 --k 64 --ne2 33 --ne3 32" "--n 64 --k 128 --ne2 24 --ne3 32" \
            "--n 64 --k 128 --ne2 25 --ne3 32" "--n 64 --k 128 --ne2 512 --ne3 32" "--n 60 --k 128 --ne2 512 --ne3 32" \
            "--n 60 --k 64 --ne2 512 --ne3 32"; do
            echo "=== 21_persistent_threshold $shape ==="
            # shellcheck disable=SC2086
            "$build/steps/21_persistent_threshold/21_persistent_threshold" --seed "$seed" $shape --test-case='*timing*' 2>&1
        done
        for ne2 in 17 20 24 26 28 30; do
            echo "=== 21_persistent_threshold+from_one_round, $((ne2 * 32)) matrices ==="
            "$build/steps/21_from_one_round" --seed "$seed" --n 64 --k 64 --ne2 "$ne2" --ne3 32 --test-case='*timing*' 2>&1
        done
    } >"$out/persistent-choice.txt"
    echo "persistent-choice: $(grep -c 'Status: SUCCESS' "$out/persistent-choice.txt") of 15 runs passed"
fi

if [ "$part" = occupancy ]; then
    # Step 21's persistent kernel with six blocks per SM against four: the
    # experiments 21+six_blocks and 21+packed_four_blocks, each against step
    # 21, from below the switch to 16,384 matrices (k = 64). Where their
    # stalls sit: the part occupancy-stalls.
    {
        for variant in six_blocks packed_four_blocks; do
            echo "=== 21_persistent_threshold+$variant against step 21 ==="
            "$build/steps/21_$variant" --seed "$seed" --test-case='*against the previous*' 2>&1
            for ne2 in 32 40 48 64 128 512; do
                echo "=== 21_persistent_threshold+$variant, $((ne2 * 32)) matrices ==="
                "$build/steps/21_$variant" --seed "$seed" --n 64 --k 64 --ne2 "$ne2" --ne3 32 --test-case='*timing*' 2>&1
            done
        done
    } >"$out/occupancy.txt"
    echo "occupancy: $(grep -c 'Status: SUCCESS' "$out/occupancy.txt") of 14 runs passed"
fi

if [ "$part" = occupancy-stalls ]; then
    # Where the stalls sit in step 21's persistent kernel and in six_blocks'
    # at 16,384 matrices (k = 64), the 11th launch of each (warm): the timing
    # case times the command line's shape before the reference shapes, so
    # that launch is at 16,384 matrices, not at the 8k-token shape's 4,096.
    mkdir -p "$out/raw"
    source_counters ncu-source-persistent-21 10 "step21::solve_tri_persistent_kernel" \
        "$build/steps/21_six_blocks" --seed "$seed" --n 64 --k 64 --ne2 512 --ne3 32 --test-case='*timing*'
    source_counters ncu-source-persistent-six 10 "step21_variant::solve_tri_persistent_kernel" \
        "$build/steps/21_six_blocks" --seed "$seed" --n 64 --k 64 --ne2 512 --ne3 32 --test-case='*timing*'
    (cd "$out" && python3 "$OLDPWD/docs/tools/stalls_by_instruction.py" ncu-source-persistent-21.csv \
        ncu-source-persistent-six.csv >ncu-source-persistent.txt &&
        tar -czf ncu-source-persistent.tar.gz ncu-source-persistent-21.csv ncu-source-persistent-six.csv)
    tar -czf "$out/ncu-source-persistent-raw.tar.gz" -C "$out/raw" . && rm -rf "$out/raw"
fi

if [ "$part" = ncu-source-k64 ]; then
    # Where the stalls sit at k = 64, instruction by instruction: steps 13, 14
    # and 15's <64, 2> at 16,384 matrices, the 11th launch of each (warm), from
    # the step binaries' timing case (step 14's times step 13 too).
    mkdir -p "$out/raw"
    for pair in 14:13 14:14 15:15; do
        binary=${pair%%:*} step=${pair##*:}
        dir=$(ls -d "$build"/steps/"$binary"_*/)
        source_counters "ncu-source-k64-$step" 10 "step$step::solve_tri_kernel<(\\(int\\))?64, (\\(int\\))?2>" \
            "$dir/$(basename "$dir")" --seed "$seed" --n 64 --k 64 --ne2 512 --ne3 32 --test-case='*timing*'
    done
    (cd "$out" && python3 "$OLDPWD/docs/tools/stalls_by_instruction.py" ncu-source-k64-1[345].csv >ncu-source-k64.txt)
    tar -czf "$out/ncu-source-k64-raw.tar.gz" -C "$out/raw" . && rm -rf "$out/raw"
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
    # Every step on every visible GPU, in both orders (SKIP, exit 77, after the
    # checks on the one device, where only one is visible), and the report's
    # choice of device.
    {
        for order in 0,1 1,0; do
            echo "=== every_gpu_test --order $order ==="
            "$build/every_gpu_test" --seed "$seed" --order "$order" 2>&1
            echo "exit $?"
        done
        for device in 0 1; do
            echo "=== solve_tri_report --device $device --check-gpu ==="
            "$build/solve_tri_report" --device "$device" --check-gpu 2>&1
            echo "exit $?"
        done
    } >"$out/every-gpu.txt"
    grep -E '^(===|exit|SKIP|[0-9]+ checks)' "$out/every-gpu.txt"
    for shape in "--n 64 --k 64" "--n 63 --k 128"; do
        # shellcheck disable=SC2086
        ncu --clock-control none --metrics gpu__time_duration.sum "$build/steps/$last_step/$last_step" --seed "$seed" \
            --test-case='*your own*' $shape --ne2 32 --ne3 64 2>&1 | sed "s|$PWD/||g"
    done >"$out/persistent-probe.txt"
fi
