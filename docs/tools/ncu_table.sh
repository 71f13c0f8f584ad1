#!/usr/bin/env bash
# The Nsight Compute rows the cost model needs, per step, at one reference
# shape: duration, instructions, issue and pipe use, shared-memory wavefronts
# and bank conflicts, DRAM throughput, occupancy, and each kernel's top stall
# reasons. solve_tri_report prints what needs no profiler; these need one.
#
# usage: docs/tools/ncu_table.sh [--warm] BUILD_DIR SHAPE_ID [RAW_CSV]
#   --warm     profile a warm launch, as the report times them (see below)
#   BUILD_DIR  a Meson build folder with build/solve_tri_report
#   SHAPE_ID   a reference shape of the report (pr, large_batch, ...)
#   RAW_CSV    where to keep every metric ncu collected (optional)
#
# ncu profiles the report's launches of each step at that shape, with the
# GPU's clocks left as they are. Without --warm: the first launch of every
# step's kernel, its check, which comes before any timing, with the caches
# flushed (ncu's default): a cold launch, slower than the timed ones. With
# --warm: the 21st launch of each kernel and launch configuration (after its
# check, its warm-up and the first timed ones), caches left as the previous
# launch left them: the kernel as the report times it. Exits 1 where ncu is
# missing or profiled nothing, 2 on bad arguments.
set -euo pipefail

warm=0
if [ "${1:-}" = --warm ]; then
    warm=1
    shift
fi
build=${1:?usage: docs/tools/ncu_table.sh [--warm] BUILD_DIR SHAPE_ID [RAW_CSV]}
shape=${2:?usage: docs/tools/ncu_table.sh [--warm] BUILD_DIR SHAPE_ID [RAW_CSV]}
raw_out=${3:-}
report=$build/solve_tri_report
if [ ! -x "$report" ]; then
    echo "ncu_table.sh: $report is not built (meson setup $build && ninja -C $build)" >&2
    exit 2
fi
ncu=$(command -v ncu || true)
for candidate in "${CUDA_HOME:-/usr/local/cuda}/bin/ncu" /opt/nvidia/nsight-compute/*/ncu; do
    if [ -z "$ncu" ] && [ -x "$candidate" ]; then
        ncu=$candidate
    fi
done
if [ -z "$ncu" ]; then
    echo "ncu_table.sh: ncu (Nsight Compute) not found on PATH, in \$CUDA_HOME/bin or /opt/nvidia/nsight-compute" >&2
    exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sections="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables
          --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats"
# profile WHICH_KERNELS LAUNCH_OPTIONS...: one ncu run of the report at the
# shape, its profile imported as raw CSV into $work/raw-WHICH.csv.
profile() {
    local which=$1
    shift
    # shellcheck disable=SC2086
    if ! "$ncu" --clock-control none --kernel-name-base demangled -k "regex:$which" "$@" $sections \
            --export "$work/profile" --force-overwrite "$report" --shapes "$shape" --quick --mode "$mode" \
            --out "$work/report" >"$work/ncu.log" 2>&1; then
        echo "ncu_table.sh: ncu failed; its output:" >&2
        tail -n 20 "$work/ncu.log" >&2
        exit 1
    fi
    "$ncu" --import "$work/profile.ncu-rep" --csv --page raw --print-units base >"$work/raw-${which//[^0-9a-z]/}.csv"
}
# Every step's kernel is named stepNN::solve_tri_...; cuBLAS's are not.
if [ $warm = 1 ]; then
    # ncu counts launches to skip over all the kernels it matches, so one run per step.
    what="a warm launch of each step's kernel (its 21st launch: after its check, warm-up and first timed launches), caches not flushed"
    mode=back-to-back
    for dir in "$build"/steps/[0-9][0-9]_*/; do
        step=$(basename "$dir")
        profile "step${step:0:2}::" --cache-control none --launch-skip 20 --launch-count 1
    done
else
    what="the first launch of each step's kernel (its check; cold: caches flushed)"
    mode=graph
    profile "step[0-9][0-9]::" --launch-count 32
fi
python3 "$(dirname "$0")/ncu_rows.py" --merge "$work"/raw-*.csv >"$work/raw.csv"
if [ -n "$raw_out" ]; then
    cp "$work/raw.csv" "$raw_out"
fi
echo "Nsight Compute, report shape $shape: $what"
echo "GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1); $("$ncu" --version | tail -n 1); --clock-control none; $(date -u +%Y-%m-%d)"
python3 "$(dirname "$0")/ncu_rows.py" "$work/raw.csv"
