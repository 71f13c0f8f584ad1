#!/usr/bin/env bash
# The build's ways of saving compile time (common/scripts/gpu_arch.py) change
# no machine code. For every step's kernel file, this compiles each kernel both
# ways and compares the machine code byte for byte:
#   PTX of an older GPU  sm_86 and sm_89 compiled from compute_80's PTX, sm_120 from
#                        compute_100's, against from their own
#   --split-compile=0    a file's kernels optimized in parallel (a build for one GPU below
#                        sm_100), against one after another: sm_75, sm_80 and sm_90
#
#   docs/tools/same_code.sh [STEP...]   (default: every step; run from the repository's root)
#
# Compares every kernel's .text section of the two cubins (readelf), so it
# needs no cuobjdump. Prints one line per step and comparison; exits 1 if any
# machine code differs or a compile fails.
set -uo pipefail
steps=("$@")
if [ ${#steps[@]} -eq 0 ]; then
    mapfile -t steps < <(ls -d steps/[0-9][0-9]_* | xargs -n 1 basename)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=(-lineinfo -use_fast_math -std=c++17 -O3 -Icommon/kernel -Icommon/harness)

# The kernels' machine code of a cubin: each .text section's name and bytes.
text_of() {
    readelf -S -W "$1" 2>/dev/null | sed -E 's/^ *\[ *[0-9]+\] //' | awk '$1 ~ /^\.text\./ { print $1 }' | sort |
        while read -r section; do
            echo "$section $(readelf -x "$section" "$1" 2>/dev/null | tail -n +3 | md5sum | cut -d' ' -f1)"
        done
}

# One comparison: STEP LABEL FLAGS_A -- FLAGS_B
compare() {
    local step=$1 label=$2
    shift 2
    local a=() b=() side=a
    for word in "$@"; do
        if [ "$word" = -- ]; then
            side=b
        elif [ $side = a ]; then
            a+=("$word")
        else
            b+=("$word")
        fi
    done
    local base="$work/$step-${label// /_}"
    if ! nvcc "${flags[@]}" "${a[@]}" -cubin "steps/$step/solve_tri.cu" -o "$base.a.cubin" 2>"$base.log" ||
        ! nvcc "${flags[@]}" "${b[@]}" -cubin "steps/$step/solve_tri.cu" -o "$base.b.cubin" 2>>"$base.log"; then
        echo "$step, $label: FAILED to compile: $(head -n 3 "$base.log")"
        return
    fi
    text_of "$base.a.cubin" >"$base.a.text"
    text_of "$base.b.cubin" >"$base.b.text"
    local kernels
    kernels=$(wc -l <"$base.a.text")
    if [ "$kernels" -gt 0 ] && cmp -s "$base.a.text" "$base.b.text"; then
        echo "$step, $label: identical ($kernels kernels)"
    else
        echo "$step, $label: DIFFERS ($(diff "$base.a.text" "$base.b.text" | grep -c '^<') of $kernels kernels)"
    fi
}
export -f compare text_of
export work
export flags_text="${flags[*]}"

jobs=()
for step in "${steps[@]}"; do
    for gpu in 75 80 90; do
        jobs+=("$step|--split-compile=0, sm_$gpu|-gencode=arch=compute_$gpu,code=sm_$gpu -- -gencode=arch=compute_$gpu,code=sm_$gpu --split-compile=0")
    done
    for gpu in 86 89; do
        jobs+=("$step|sm_$gpu from compute_80|-gencode=arch=compute_$gpu,code=sm_$gpu -- -gencode=arch=compute_80,code=sm_$gpu")
    done
    jobs+=("$step|sm_120 from compute_100|-gencode=arch=compute_120,code=sm_120 -- -gencode=arch=compute_100,code=sm_120")
done
printf '%s\n' "${jobs[@]}" |
    xargs -P "$(nproc)" -I{} bash -c 'IFS="|" read -r step label args <<<"{}"; flags=($flags_text); compare "$step" "$label" $args' |
    sort >"$work/result.txt"
cat "$work/result.txt"
echo "nvcc: $(nvcc --version | tail -n 1)"
! grep -qE 'DIFFERS|FAILED' "$work/result.txt"
