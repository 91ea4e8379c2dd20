#!/usr/bin/env bash
# Runs the whole test suite from a fresh clone: installs what is missing,
# configures a build with warnings as errors, builds and runs every test,
# and the interposition suites once more in the trampoline's other mode
# (meson test --setup redirect); then runs the recorder, reader, config and tool tests again under
# AddressSanitizer + UndefinedBehaviorSanitizer, and the recorder's under
# ThreadSanitizer, and fuzzes the journal and profile readers for a bounded
# time (tests/fuzz). (The preload's tests need no sanitizer runtime loaded
# first into mpirun and the shells, so they run in the plain build only.)
#
#   tools/test.sh [--quick]   --quick: the plain build only
set -euo pipefail
cd "$(dirname "$0")/.."
# each phase says when it starts, so a slow CI run shows where its time went
t0=$SECONDS
phase() { echo "== $1 ($((SECONDS - t0)) s since the start)"; }
tools/install-deps.sh
phase "plain build, every test"
quick=0
if [ "${1:-}" = "--quick" ]; then quick=1; shift; fi

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
  SCOPE_FUZZ_RESULT=${fuzz:-} /usr/bin/python3 - "${logs[@]}" <<'PY'
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
fuzz = os.environ.get("SCOPE_FUZZ_RESULT")
if fuzz == "passed":
    passed += 1
elif fuzz == "failed":
    failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
PY
  exit $status
}

builddir=${SCOPE_BUILDDIR:-build-test}
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

phase "libFuzzer: journal reader/writer and profile reader, ${SCOPE_FUZZ_SECONDS:-25} s each"
# a fixed seed: every run tries the same inputs (tests/fuzz/run_fuzz.sh)
if SCOPE_FUZZ_SEED=${SCOPE_FUZZ_SEED:-20261130} \
   tests/fuzz/run_fuzz.sh "${SCOPE_FUZZ_SECONDS:-25}" "$PWD/$builddir-fuzz"; then
  fuzz=passed
else
  fuzz=failed
  status=1
fi
finish
