#!/usr/bin/env bash
# The machine code of one kernel instance, for one architecture, in the order
# the GPU runs it (cuobjdump -sass; needs a toolkit with cuobjdump).
#
#   docs/tools/sass_of.sh BUILD_DIR STEP INSTANCE [ARCH]
#     BUILD_DIR  a Meson build folder (build)
#     STEP       a step's number or directory (03 or 03_loop_splitting)
#     INSTANCE   the template arguments as the kernel's name shows them: "64, 6" for
#                solve_tri_kernel<64, 6>, "0, 0" for the run-time one; "persistent" or any
#                other text matches the demangled name
#     ARCH       the architecture (default 90: sm_90); the build must have made code for it
#
# Example: docs/tools/sass_of.sh build 03 "64, 6" | less
set -euo pipefail
usage="usage: docs/tools/sass_of.sh BUILD_DIR STEP INSTANCE [ARCH]"
build=${1:?$usage}
step=${2:?$usage}
instance=${3:?$usage}
arch=${4:-90}
number=${step:0:2}
library=$(ls "$build"/steps/"$number"_*/libstep"$number".a 2>/dev/null | head -n 1 || true)
if [ -z "$library" ]; then
    echo "sass_of.sh: no step $number in $build (meson setup $build && meson compile -C $build)" >&2
    exit 2
fi
command -v cuobjdump >/dev/null || { echo "sass_of.sh: cuobjdump not found (it comes with the CUDA toolkit)" >&2; exit 2; }
if ! listing=$(cuobjdump -sass -arch "sm_$arch" "$library" 2>&1); then
    echo "sass_of.sh: $library has no code for sm_$arch: $listing" >&2
    exit 2
fi
pattern=$instance
case "$instance" in
    [0-9]*) pattern="solve_tri_kernel<$instance>" ;;
esac
# Demangled names (c++filt demangles the names in a text; the toolkit's cu++filt
# only a name given alone), then one function: from its "Function :" line to the next.
demangle=$(command -v c++filt || echo cat)
printf '%s\n' "$listing" | "$demangle" | awk -v pattern="$pattern" '
    /Function :/ { on = index($0, pattern) > 0; if (on) found = 1 }
    on { print }
    END { if (!found) exit 1 }' ||
    { echo "sass_of.sh: no kernel of step $number for sm_$arch names '$pattern'" >&2; exit 1; }
