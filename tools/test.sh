#!/usr/bin/env bash
# Runs the whole test suite from a fresh clone: installs what is missing,
# configures a build with warnings as errors, builds and runs every test,
# and the interposition suites once more in the trampoline's other mode
# (meson test --setup redirect); then runs the recorder, reader, config
# and tool tests again under AddressSanitizer + UndefinedBehaviorSanitizer,
# and the recorder's under ThreadSanitizer, builds the product as a release
# (-O3) build, where warnings are errors too, and fuzzes the journal and
# profile readers for a bounded time (tests/fuzz). (The preload's tests need no sanitizer runtime loaded
# first into mpirun and the shells, so they run in the plain build only.)
# Then the README's first command in a minimal Debian 12 root made for it,
# from a clone, with nothing of this machine's packages
# (tools/test-fresh-root.sh).
# Last, the aarch64 cross build and its CI set of tests under qemu-user
# (tools/test-arm64.sh; its sysroot is downloaded in the background while
# the x86-64 phases build).
#
#   tools/test.sh [--quick]   --quick: the plain x86-64 build only
set -euo pipefail
cd "$(dirname "$0")/.."
# each phase says when it starts, so a slow CI run shows where its time went
t0=$SECONDS
phase() { echo "== $1 ($((SECONDS - t0)) s since the start)"; }
quick=0
if [ "${1:-}" = "--quick" ]; then quick=1; shift; fi
builddir=${SCOPE_BUILDDIR:-build-test}
if [ "$quick" = 1 ]; then
  tools/install-deps.sh test
else
  tools/install-deps.sh test arm64
  # The arm64 sysroot (tools/test-arm64.sh --sysroot): a download and an
  # unpack, half a minute of CPU for a minute and a half of waiting, so it
  # runs beside the x86-64 phases; the arm64 phase waits for it. Every
  # other phase keeps both cores busy (meson test -j 2, three fuzzers at
  # once), so the arm64 tests themselves run after them, not beside.
  arm64_sysroot_log=$(mktemp /tmp/scope-arm64-sysroot.XXXXXX)
  tools/test-arm64.sh --sysroot >"$arm64_sysroot_log" 2>&1 &
  arm64_sysroot_pid=$!
  # a phase that stops the script early stops the download too (its log
  # is printed by the arm64 phase when it failed)
  trap 'kill "$arm64_sysroot_pid" 2>/dev/null || true; rm -f "$arm64_sysroot_log"' EXIT
fi
phase "plain build, every test"

setup() { # setup BUILDDIR [meson options...]
  local dir=$1; shift
  if [ ! -f "$dir/build.ninja" ]; then
    meson setup "$dir" -Dwerror=true "$@"
  fi
}

# Builds only what the tests of the given suites use: the sanitizer builds
# run a few suites, and building everything else there (the preload, its
# test programs, the benchmarks) cost a minute for nothing. The tests'
# `depends` (meson adds every target named in a test's command) are the
# list; their own link dependencies come with them.
build_suites() { # build_suites BUILDDIR SUITE...
  local dir=$1; shift
  local outs
  outs=$(/usr/bin/python3 - "$dir" "$@" <<'PY'
import json, os, subprocess, sys
d, suites = sys.argv[1], set(sys.argv[2:])
def intro(what):
    return json.loads(subprocess.run(["meson", "introspect", what, d], check=True,
                                     capture_output=True, text=True).stdout)
files = {t["id"]: t["filename"] for t in intro("--targets")}
want = set()
for t in intro("--tests"):
    if suites & {s.split(":")[-1] for s in t["suite"]}:
        for dep in t["depends"]:
            want.update(os.path.relpath(f, d) for f in files[dep])
print("\n".join(sorted(want)))
PY
)
  # shellcheck disable=SC2086 # one output path per word
  ninja -C "$dir" $outs
}

# Prints the closing "N passed, N failed" line over every build's test log
# and exits with the suite's status.
status=0
logs=()
finish() {
  phase "done"
  SCOPE_FUZZ_RESULT=${fuzz:-} SCOPE_FRESH_RESULT=${fresh:-} SCOPE_ARM64_RESULT=${arm64:-} \
    /usr/bin/python3 - "${logs[@]}" <<'PY'
import json, os, sys
passed = failed = skipped = 0
for path in sys.argv[1:]:
    for line in open(path):
        r = json.loads(line)["result"]
        if r in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif r == "SKIP":
            skipped += 1
        else:
            failed += 1
for var in ("SCOPE_FUZZ_RESULT", "SCOPE_FRESH_RESULT", "SCOPE_ARM64_RESULT"):
    r = os.environ.get(var)
    if r == "passed":
        passed += 1
    elif r == "failed":
        failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
PY
  exit $status
}

setup "$builddir"
meson compile -C "$builddir"
meson test -C "$builddir" --print-errorlogs --num-processes 2 "$@" || status=1
logs+=("$builddir/meson-logs/testlog.json")
# the suites whose programs run through the trampoline's entry and exit
# (calls, stack arguments, exceptions, call-site walks, deaths inside a
# timed call, calibration); the others do not depend on its mode
phase "the trampoline's suites again in its other mode (SCOPE_TRAMPOLINE=redirect)"
meson test -C "$builddir" --setup redirect --print-errorlogs --num-processes 2 \
  --suite patch --suite exceptions --suite callsites --suite faults \
  --suite compensate || status=1
logs+=("$builddir/meson-logs/testlog-redirect.json")
if [ "$quick" = 1 ]; then finish; fi

# Sanitizer builds run several times slower (ASan: every fork copies the
# shadow memory's mappings; TSan: every access checked), so their tests get
# three times each test's timeout; a hang is still caught.
phase "AddressSanitizer + UndefinedBehaviorSanitizer"
setup "$builddir-asan" -Db_sanitize=address,undefined -Db_lundef=false
build_suites "$builddir-asan" runtime reader config tools
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  meson test -C "$builddir-asan" --no-rebuild --print-errorlogs --num-processes 2 --timeout-multiplier 3 \
  --suite runtime --suite reader --suite config --suite tools || status=1
logs+=("$builddir-asan/meson-logs/testlog.json")

phase "ThreadSanitizer"
setup "$builddir-tsan" -Db_sanitize=thread -Db_lundef=false
build_suites "$builddir-tsan" runtime
# not 'memory' (one thread, 50 million calls: a minute for nothing) nor
# 'coarse' (the same threads and races as at the fine clock)
TSAN_OPTIONS=halt_on_error=1 \
  meson test -C "$builddir-tsan" --no-rebuild --print-errorlogs --num-processes 2 \
  --timeout-multiplier 3 --suite runtime --no-suite memory --no-suite coarse || status=1
logs+=("$builddir-tsan/meson-logs/testlog.json")

# A user's release build (-O3) inlines further and warns where -O2 did
# not (a variable GCC cannot see set on every path); warnings are errors
# by default, so such a build must compile. The product only (the
# preload, the libraries, the tools), not the tests and benchmarks.
phase "release build (-O3, warnings as errors) of the product"
setup "$builddir-release" --buildtype=release
# shellcheck disable=SC2046 # one output path per word
ninja -C "$builddir-release" $(meson introspect --targets "$builddir-release" | /usr/bin/python3 -c '
import json, os, sys
d = sys.argv[1]
for t in json.load(sys.stdin):
    for f in t["filename"]:
        r = os.path.relpath(f, d)
        if not r.startswith(("tests/", "bench/")):
            print(r)' "$builddir-release") || status=1

phase "libFuzzer: journal reader/writer and profile reader, ${SCOPE_FUZZ_SECONDS:-25} s each"
# a fixed seed: every run tries the same inputs (tests/fuzz/run_fuzz.sh)
if SCOPE_FUZZ_SEED=${SCOPE_FUZZ_SEED:-20261130} \
   tests/fuzz/run_fuzz.sh "${SCOPE_FUZZ_SECONDS:-25}" "$PWD/$builddir-fuzz"; then
  fuzz=passed
else
  fuzz=failed
  status=1
fi

phase "the README's first command in a fresh minimal Debian 12 root (tools/test-fresh-root.sh)"
if tools/test-fresh-root.sh; then
  fresh=passed
else
  fresh=failed
  status=1
fi

# The aarch64 build under qemu-user: the CI set of tools/test-arm64.sh
# (tests/README.md "arm64"; `tools/test-arm64.sh --full` runs every test),
# with this script's x86-64 `scope` reading the arm64-written files.
phase "arm64: cross build, the CI set under qemu-user (tools/test-arm64.sh)"
a64="$builddir-arm64"
rm -f "$a64/meson-logs/testlog.json" "$a64/meson-logs/testlog-arm64-checks.json"
if ! wait "$arm64_sysroot_pid"; then
  cat "$arm64_sysroot_log" >&2
  echo "tools/test.sh: the arm64 sysroot could not be made (above)" >&2
  arm64=failed
  status=1
elif ! SCOPE_ARM64_BUILDDIR=$a64 SCOPE_X86_BUILDDIR=$builddir tools/test-arm64.sh; then
  status=1
  # stopped before its tests (a build error): one failure in the count
  [ -f "$a64/meson-logs/testlog-arm64-checks.json" ] || arm64=failed
fi
for f in "$a64/meson-logs/testlog.json" "$a64/meson-logs/testlog-arm64-checks.json"; do
  if [ -f "$f" ]; then logs+=("$f"); fi
done
finish
