#!/usr/bin/env bash
# check-arm64-files.sh ARM64_BUILDDIR - files an arm64 run wrote read the
# same on x86-64 (issue 32): the format has no CPU in it, so the x86-64
# `scope` must print exactly what the arm64 `scope` (under qemu-user)
# prints for them, byte for byte.
#
# The files: the tutorial workload that the arm64 build recorded with its
# own recorder and writer under qemu (tests/reader/workload, also checked
# value by value by the arm64 reader_workload test), and one profile
# recorded here by the arm64 test_roundtrip with a coarse clock (ties).
# The x86-64 `scope` is built in SCOPE_X86_BUILDDIR (default
# build-arm64/x86), only the `scope` target. Called by tools/test-arm64.sh,
# which sets QEMU_LD_PREFIX.
set -euo pipefail
cd "$(dirname "$0")/.."
arm=${1:?usage: check-arm64-files.sh ARM64_BUILDDIR}
x86=${SCOPE_X86_BUILDDIR:-build-arm64/x86}
: "${QEMU_LD_PREFIX:?set QEMU_LD_PREFIX to the arm64 sysroot (tools/test-arm64.sh does)}"

if [ ! -f "$x86/build.ninja" ]; then
  meson setup "$x86" -Dwerror=true >/dev/null
fi
ninja -C "$x86" tools/scope >/dev/null
file -L "$x86/tools/scope" | grep -q 'x86-64' || { echo "not an x86-64 scope: $x86/tools/scope" >&2; exit 1; }
file -L "$arm/tools/scope" | grep -q 'aarch64' || { echo "not an arm64 scope: $arm/tools/scope" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A profile recorded now by the arm64 recorder, clock rounded to 10 us so
# many records tie (the order-kept datasets begin_seq/depth are written).
mkdir -p "$work/roundtrip"
SCOPE_CLOCK_ROUND_NS=10000 "$arm/tests/runtime/test_roundtrip" "$work/roundtrip" >/dev/null
[ -f "$work/roundtrip/roundtrip.h5" ] || { echo "test_roundtrip wrote no roundtrip.h5" >&2; exit 1; }
files=("$arm/tests/reader/workload/profiling_data.h5" "$work/roundtrip/roundtrip.h5")

fails=0 checks=0
for f in "${files[@]}"; do
  for cmd in "summary --format csv" "summary --per-rank --format csv" "events --format csv" \
             "tree --rank 0" "summary"; do
    # shellcheck disable=SC2086 # the subcommand and its options, one per word
    if ! env -u COLUMNS "$x86/tools/scope" $cmd "$f" >"$work/x86.out" 2>"$work/x86.err"; then
      echo "FAIL x86-64 scope $cmd $f: $(cat "$work/x86.err")"; fails=$((fails + 1)); continue
    fi
    # shellcheck disable=SC2086
    env -u COLUMNS "$arm/tools/scope" $cmd "$f" >"$work/arm.out" 2>"$work/arm.err" || true
    checks=$((checks + 1))
    if [ "$(wc -l <"$work/x86.out")" -lt 2 ]; then
      echo "FAIL x86-64 scope $cmd $f: no rows"; fails=$((fails + 1))
    elif ! cmp -s "$work/x86.out" "$work/arm.out"; then
      echo "FAIL scope $cmd $f: x86-64 and arm64 differ"
      diff -u "$work/arm.out" "$work/x86.out" | head -20
      fails=$((fails + 1))
    fi
  done
done
echo "arm64-written files on x86-64: $checks outputs compared over ${#files[@]} files, $fails differ"
[ "$fails" -eq 0 ]
