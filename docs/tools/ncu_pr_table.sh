#!/usr/bin/env bash
# The PR's Nsight Compute rows, per step, at the PR's shape (A {64,64,4,2},
# B {6,64,4,2}): duration, executed instructions, achieved and theoretical
# occupancy, eligible warps per scheduler, warp cycles per issued instruction,
# DRAM throughput, registers and shared-memory bank conflicts, one column per
# step, as the PR laid its table out. solve_tri_report prints the rows that
# need no profiler; these need one.
#
# usage: docs/tools/ncu_pr_table.sh [BUILD_DIR [STEP ...]]
#   BUILD_DIR  a Meson build folder where the step test binaries are built (default: build)
#   STEP       step folders to profile, e.g. 03_loop_splitting (default: every step built there)
#
# Each step's test binary runs only its "shape of your own" case, on the PR's
# shape, and ncu profiles the first launch of a kernel whose name matches
# NCU_KERNEL_REGEX (default solve_tri), with the GPU's clocks left as they are.
# Exits 1 where ncu is missing, 2 on bad arguments, 1 if a step could not be profiled.
set -euo pipefail

build=${1:-build}
shift || true
kernel_regex=${NCU_KERNEL_REGEX:-solve_tri}

ncu=$(command -v ncu || true)
if [ -z "$ncu" ]; then
    for candidate in "${CUDA_HOME:-/usr/local/cuda}/bin/ncu" /opt/nvidia/nsight-compute/*/ncu; do
        if [ -x "$candidate" ]; then
            ncu=$candidate
        fi
    done
fi
if [ -z "$ncu" ]; then
    echo "ncu_pr_table.sh: ncu (Nsight Compute) not found on PATH, in \$CUDA_HOME/bin or /opt/nvidia/nsight-compute:" >&2
    echo "  install Nsight Compute to collect the PR's profiler rows; solve_tri_report prints the ones that need no profiler" >&2
    exit 1
fi
if [ ! -d "$build/steps" ]; then
    echo "ncu_pr_table.sh: $build/steps not found: give the Meson build folder (meson setup build && ninja -C build)" >&2
    exit 2
fi

steps=("$@")
if [ ${#steps[@]} -eq 0 ]; then
    for folder in "$build"/steps/*/; do
        name=$(basename "$folder")
        if [ -x "$folder$name" ]; then
            steps+=("$name")
        fi
    done
fi
if [ ${#steps[@]} -eq 0 ]; then
    echo "ncu_pr_table.sh: no step test binary built in $build/steps: run ninja -C $build" >&2
    exit 2
fi

# label | metric | scale | printf format. Names valid for ncu 2025 on sm_90.
rows=(
    "duration (us)|gpu__time_duration.sum|1e-3|%.2f"
    "executed instructions|smsp__inst_executed.sum|1|%.0f"
    "theoretical occupancy (%)|sm__maximum_warps_per_active_cycle_pct|1|%.1f"
    "achieved occupancy (%)|sm__warps_active.avg.pct_of_peak_sustained_active|1|%.1f"
    "eligible warps per scheduler|smsp__warps_eligible.avg.per_cycle_active|1|%.2f"
    "warp cycles per issued instruction|smsp__average_warp_latency_per_inst_issued.ratio|1|%.2f"
    "DRAM throughput (GB/s)|dram__bytes.sum.per_second|1e-9|%.1f"
    "DRAM throughput (% of peak)|gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed|1|%.2f"
    "registers per thread|launch__registers_per_thread|1|%.0f"
    "shared bank conflicts, loads|l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum|1|%.0f"
    "shared bank conflicts, stores|l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum|1|%.0f"
)
# The GPU's name comes with the figures, so that the table says where it was measured.
metrics=$(printf '%s\n' "${rows[@]}" | cut -d'|' -f2 | paste -sd, -),device__attribute_display_name

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

failed=0
for step in "${steps[@]}"; do
    binary="$build/steps/$step/$step"
    if [ ! -x "$binary" ]; then
        echo "ncu_pr_table.sh: $binary is not built: skipped" >&2
        failed=1
        continue
    fi
    echo "profiling $step ..." >&2
    if ! "$ncu" --clock-control none -k "regex:$kernel_regex" --launch-count 1 --metrics "$metrics" \
            --export "$work/$step" --force-overwrite \
            "$binary" -tc="*your own*" --n 64 --k 6 --ne2 4 --ne3 2 --seed 1 >"$work/$step.log" 2>&1; then
        echo "ncu_pr_table.sh: ncu failed on $step; its output:" >&2
        tail -n 20 "$work/$step.log" >&2
        failed=1
        continue
    fi
    if [ ! -f "$work/$step.ncu-rep" ]; then
        echo "ncu_pr_table.sh: no kernel of $step matched regex:$kernel_regex; ncu said:" >&2
        grep '==' "$work/$step.log" | tail -n 5 >&2 || true
        failed=1
        continue
    fi
    "$ncu" --import "$work/$step.ncu-rep" --csv --page raw --print-units base >"$work/$step.csv"
    # The raw page: a header of metric names, a line of units, a line per kernel;
    # every field quoted. Keep "metric<TAB>value" for the one kernel, and its name.
    awk 'function split_fields(line, out) {
             sub(/^"/, "", line); sub(/"\r?$/, "", line)
             return split(line, out, /","/)
         }
         /^"ID"/ { n = split_fields($0, header); state = 1; next }
         state == 1 { state = 2; next }   # the units
         state == 2 { split_fields($0, value)
                      for (i = 1; i <= n; ++i) print header[i] "\t" value[i]
                      exit }' "$work/$step.csv" >"$work/$step.values"
done

profiled=()
for step in "${steps[@]}"; do
    if [ -s "$work/$step.values" ]; then
        profiled+=("$step")
    fi
done
if [ ${#profiled[@]} -eq 0 ]; then
    echo "ncu_pr_table.sh: no step could be profiled" >&2
    exit 1
fi

device=$(awk -F'\t' '$1 == "device__attribute_display_name" { print $2 }' "$work/${profiled[0]}.values")
echo "Nsight Compute at the PR's shape A {64,64,4,2}, B {6,64,4,2}: first launch of each step's kernel"
echo "GPU: ${device:-?}; $("$ncu" --version | tail -n 1); --clock-control none; $(date -u +%Y-%m-%d)"
for step in "${profiled[@]}"; do
    kernel=$(awk -F'\t' '$1 == "Kernel Name" { print $2 }' "$work/$step.values")
    echo "  ${step:0:2} = $step: $kernel"
done
echo
printf '%-36s' "metric"
for step in "${profiled[@]}"; do
    printf '%12s' "${step:0:2}"
done
printf '\n'
for row in "${rows[@]}"; do
    IFS='|' read -r label metric scale format <<<"$row"
    printf '%-36s' "$label"
    for step in "${profiled[@]}"; do
        value=$(awk -F'\t' -v m="$metric" '$1 == m { gsub(/,/, "", $2); print $2 }' "$work/$step.values")
        if [[ "$value" =~ ^[-+0-9.eE]+$ ]]; then
            printf '%12s' "$(awk -v v="$value" -v s="$scale" -v f="$format" 'BEGIN { printf f, v * s }')"
        else
            printf '%12s' "n/a"
        fi
    done
    printf '\n'
done
exit $failed
