#!/usr/bin/env bash
# Cross-builds scope for aarch64-linux-gnu and runs its tests under
# qemu-user (issue 32), from a fresh clone on an x86-64 Debian 12 machine.
# tools/test.sh runs it as its last phase (CI); alone:
#
#   1. installs what the test suite needs on the build machine (its
#      Python checkers, h5py, the x86-64 build of `scope` for step 5) and
#      the cross toolchain, qemu-user-static and mmdebstrap
#      (tools/install-deps.sh test arm64);
#   2. makes the arm64 sysroot the cross file names (arch/aarch64/cross.ini)
#      from Debian's arm64 packages, unpacked without emulation
#      (mmdebstrap --variant=extract), outside the tree and so outside git;
#      remade only when the package list below changes;
#   3. registers qemu-aarch64 with binfmt_misc when it is not, so the
#      tests' scripts and the recorder's own child (scope-h5write) run
#      arm64 programs as they would on an arm64 machine;
#   4. cross-builds into build-arm64/build what the chosen tests use and
#      runs them under qemu-user, asserting how many ran: a test that
#      silently disappears fails the script (tests/README.md lists what is
#      left out and why);
#   5. checks that files the arm64 recorder wrote read the same with the
#      x86-64 `scope` as with the arm64 one (the format has no CPU in it).
#
#   tools/test-arm64.sh [--full] [--no-x86-check]
#   tools/test-arm64.sh --sysroot     steps 1 and 2 only
#
# Without --full it runs the CI set (below: what only an arm64 build can
# test, about a third of the time under qemu); --full runs every test that
# works under qemu-user. --sysroot: tools/test.sh makes the sysroot (a
# download, little CPU) in the background while its x86-64 phases build.
#
# Environment: SCOPE_ARM64_BUILDDIR (default build-arm64/build),
# SCOPE_X86_BUILDDIR (the x86-64 build whose `scope` step 5 uses; default
# build-arm64/x86, made if missing; tools/test.sh passes its own).
#
# Prints a closing "N passed, N failed" line and exits non-zero on any
# failure. Besides meson's testlog.json, writes the script's own checks
# (the count, step 5) in meson's log format to meson-logs/
# testlog-arm64-checks.json, for tools/test.sh's closing line. Needs root
# (or sudo) for the packages, the sysroot in /var/cache and binfmt_misc.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$SECONDS
phase() { echo "== arm64: $1 ($((SECONDS - t0)) s since the start)"; }
x86_check=1 full=0 sysroot_only=0
while [ $# -gt 0 ]; do
  case $1 in
    --no-x86-check) x86_check=0 ;;
    --full) full=1 ;;
    --sysroot) sysroot_only=1 ;;
    *) echo "usage: tools/test-arm64.sh [--full] [--no-x86-check] | --sysroot" >&2; exit 2 ;;
  esac
  shift
done
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

phase "packages"
tools/install-deps.sh test arm64

# --- the sysroot ----------------------------------------------------------
# Must be the path arch/aarch64/cross.ini names.
sysroot=$(sed -n "s/^sysroot = '\(.*\)'$/\1/p" arch/aarch64/cross.ini)
[ -n "$sysroot" ] || { echo "test-arm64: no sysroot in arch/aarch64/cross.ini" >&2; exit 1; }
# What the tree's meson.build files look for (dependency(), find_library())
# and what the programs load at run time, for arm64; MPICH's launcher
# (mpich) beside its library and headers (libmpich-dev) for tests/arm64.
sysroot_pkgs=libc6-dev,libstdc++-12-dev,libhdf5-dev,libopenmpi-dev,libelf-dev,libdw-dev,libunwind-dev,zlib1g-dev,libsz2,libaec-dev,libmpich-dev,mpich
if [ "$(cat "$sysroot/.scope-packages" 2>/dev/null)" != "$sysroot_pkgs" ]; then
  phase "sysroot: Debian arm64 packages into $sysroot"
  $SUDO rm -rf "$sysroot.tmp"
  $SUDO mkdir -p "$(dirname "$sysroot")"
  # the machine's own Debian sources (the same mirror and suites as the
  # amd64 packages), in whatever format this machine keeps them
  sources=$(mktemp /tmp/scope-arm64-sources.XXXXXX)
  tools/debian-sources.sh >"$sources"
  $SUDO mmdebstrap --quiet --variant=extract --architectures=arm64 \
    --aptopt='Acquire::Check-Valid-Until "false"' \
    --include="$sysroot_pkgs" bookworm "$sysroot.tmp" "$sources"
  rm -f "$sources"
  # extract runs no maintainer scripts: the alternative that names the
  # serial HDF5 as plain `hdf5` is made by hand, as update-alternatives would
  $SUDO ln -sf hdf5-serial.pc "$sysroot.tmp/usr/lib/aarch64-linux-gnu/pkgconfig/hdf5.pc"
  echo "$sysroot_pkgs" | $SUDO tee "$sysroot.tmp/.scope-packages" >/dev/null
  $SUDO rm -rf "$sysroot"
  $SUDO mv "$sysroot.tmp" "$sysroot"
fi
if [ "$sysroot_only" = 1 ]; then phase "sysroot in place"; exit 0; fi

# --- binfmt ---------------------------------------------------------------
if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
  phase "binfmt_misc: registering qemu-aarch64"
  if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
    $SUDO mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
  fi
  # Debian's own line (qemu-user-static), flags OPF: F opens the
  # interpreter now, so it works in any mount namespace
  $SUDO sh -c 'cat /usr/lib/binfmt.d/qemu-aarch64.conf > /proc/sys/fs/binfmt_misc/register'
fi
# arm64 programs started by binfmt find their loader and libraries here
export QEMU_LD_PREFIX=$sysroot

# --- which tests ----------------------------------------------------------
# --full: the suites that run under qemu-user (the x86-64 ones minus what
# tests/README.md "arm64" lists, plus the preload's arm64 suite,
# tests/arm64), every test of them.
full_suites=(runtime config reader tools format layering arm64)
full_expected=119
# The CI set: what only an arm64 build can test - the preload (patching,
# BTI, PAC, MPI, call sites, exceptions: tests/arm64), the recorder with
# the generic timer, its coarse-clock reruns for ties, the reader on
# arm64-written files, the config and format code compiled for arm64 -
# without the slowest tests of the same C code as on x86-64 (the reader's
# and the tools' suites are pure C over HDF5, checked on x86-64 and under
# the sanitizers there; under qemu they are the slowest: tools_corrupt
# alone 3 minutes). Two tools tests stay as the `scope` command's smoke
# test on arm64; step 5 runs it on arm64-written files too.
ci_suites=(runtime config reader format layering arm64)
ci_also=(tools_call_order tools_diff)
ci_skip=(arm64_mpi_fortran_redirect    # 36 s; the redirect mode's MPI path: arm64_mpi_c_redirect
         runtime_names                 # 10,000 region names through HDF5: 87 s under qemu
         runtime_memory runtime_memory_coarse_1us runtime_memory_coarse_10us
         runtime_memory_coarse_1ms     # 50 million calls against the memory budget: 71 s, 3x20 s
         runtime_threads_coarse_10us runtime_threads_coarse_1ms  # 1 us stays: threads at ties
         reader_parallel_open)         # 39 s: opening files from many processes
ci_expected=96
if [ "$full" = 1 ]; then
  suites=("${full_suites[@]}") also=() skip=() expected=$full_expected
else
  suites=("${ci_suites[@]}") also=("${ci_also[@]}") skip=("${ci_skip[@]}") expected=$ci_expected
fi

# --- build and test -------------------------------------------------------
builddir=${SCOPE_ARM64_BUILDDIR:-build-arm64/build}
phase "cross build in $builddir"
if [ ! -f "$builddir/build.ninja" ]; then
  meson setup "$builddir" --cross-file arch/aarch64/cross.ini -Dwerror=true
fi
# The chosen tests' names (one line) and what they use (the next): only
# those are built (the benchmarks, the Python module and the tests left
# out are not), plus what step 5 runs.
sel=$(/usr/bin/python3 - "$builddir" "${suites[*]}" "${also[*]}" "${skip[*]}" <<'PY'
import json, os, subprocess, sys
d = sys.argv[1]
suites, also, skip = (set(a.split()) for a in sys.argv[2:5])
def intro(what):
    return json.loads(subprocess.run(["meson", "introspect", what, d], check=True,
                                     capture_output=True, text=True).stdout)
files = {t["id"]: t["filename"] for t in intro("--targets")}
names, want = [], {"tools/scope", "tests/runtime/test_roundtrip",
                   "tests/reader/workload.stamp"}
for t in intro("--tests"):
    in_suite = suites & {s.split(":")[-1] for s in t["suite"]}
    if (in_suite and t["name"] not in skip) or t["name"] in also:
        names.append(t["name"])
        for dep in t["depends"]:
            want.update(os.path.relpath(f, d) for f in files[dep])
missing = (also | skip) - {t["name"] for t in intro("--tests")}
if missing:
    sys.exit("test-arm64: no such tests: " + " ".join(sorted(missing)))
print(" ".join(names))
print(" ".join(sorted(want)))
PY
)
read -r -a tests <<<"$(sed -n 1p <<<"$sel")"
read -r -a outs <<<"$(sed -n 2p <<<"$sel")"
ninja -C "$builddir" -j 2 "${outs[@]}"

phase "${#tests[@]} tests under qemu-user ($([ "$full" = 1 ] && echo every test of: || echo the CI set of:) ${suites[*]}${also[*]:+ ${also[*]}})"
status=0
rm -f "$builddir/meson-logs/testlog.json"
# qemu runs every instruction several times slower: three times each
# test's timeout, a hang is still caught
meson test -C "$builddir" --no-rebuild --print-errorlogs --num-processes 2 \
  --timeout-multiplier 3 "${tests[@]}" || status=1

# The script's own checks, as lines of meson's log (tools/test.sh counts
# them with the tests).
checks="$builddir/meson-logs/testlog-arm64-checks.json"
: >"$checks"
check() { # check NAME OK|FAIL
  printf '{"name": "%s", "result": "%s"}\n' "$1" "$2" >>"$checks"
  if [ "$2" != OK ]; then status=1; fi
}

# The exact count, and the closing line, from meson's own log.
read -r passed failed skipped < <(/usr/bin/python3 - "$builddir/meson-logs/testlog.json" <<'PY'
import json, sys
p = f = s = 0
try:
    lines = open(sys.argv[1]).readlines()
except OSError:
    lines = []
for line in lines:
    r = json.loads(line)["result"]
    if r in ("OK", "EXPECTEDFAIL"):
        p += 1
    elif r == "SKIP":
        s += 1
    else:
        f += 1
print(p, f, s)
PY
)
ran=$((passed + failed + skipped))
if [ "$ran" -eq "$expected" ] && [ "${#tests[@]}" -eq "$expected" ]; then
  check arm64_test_count OK
else
  echo "test-arm64: ${#tests[@]} tests chosen, $ran ran, $expected expected (a test was" \
       "added or left out: update tools/test-arm64.sh and tests/README.md)" >&2
  check arm64_test_count FAIL
fi

# --- arm64-written files, read on x86-64 ----------------------------------
if [ "$x86_check" = 1 ]; then
  phase "arm64-written files read by the x86-64 scope"
  if tools/check-arm64-files.sh "$builddir"; then
    check arm64_files_read_on_x86 OK
  else
    check arm64_files_read_on_x86 FAIL
  fi
fi
read -r cp cf < <(/usr/bin/python3 -c '
import json, sys
r = [json.loads(l)["result"] for l in open(sys.argv[1])]
print(r.count("OK"), len(r) - r.count("OK"))' "$checks")

phase "done"
echo "arm64: $((passed + cp)) passed, $((failed + cf)) failed, $skipped skipped"
exit $status
