#!/usr/bin/env bash
# Cross-builds scope for aarch64-linux-gnu and runs its tests under
# qemu-user (issue 32), from a fresh clone on an x86-64 Debian 12 machine:
#
#   1. installs what the test suite needs on the build machine (its
#      Python checkers, h5py, the x86-64 build of `scope` for step 5) and
#      the cross toolchain, qemu-user-static and mmdebstrap
#      (tools/install-deps.sh, then tools/install-deps.sh arm64);
#   2. makes the arm64 sysroot the cross file names (arch/aarch64/cross.ini)
#      from Debian's arm64 packages, unpacked without emulation
#      (mmdebstrap --variant=extract), outside the tree and so outside git;
#      remade only when the package list below changes;
#   3. registers qemu-aarch64 with binfmt_misc when it is not, so the
#      tests' scripts and the recorder's own child (scope-h5write) run
#      arm64 programs as they would on an arm64 machine;
#   4. cross-builds into build-arm64/build and runs the suites that make
#      sense under qemu-user, asserting how many ran: a test that silently
#      disappears fails the script (tests/README.md lists what is left out
#      and why);
#   5. checks that files the arm64 recorder wrote read the same with the
#      x86-64 `scope` as with the arm64 one (the format has no CPU in it).
#
#   tools/test-arm64.sh [--no-x86-check]
#
# Prints a closing "N passed, N failed" line and exits non-zero on any
# failure. Needs root (or sudo) for the packages, the sysroot in
# /var/cache and binfmt_misc.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$SECONDS
phase() { echo "== arm64: $1 ($((SECONDS - t0)) s since the start)"; }
x86_check=1
if [ "${1:-}" = "--no-x86-check" ]; then x86_check=0; shift; fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

phase "packages"
tools/install-deps.sh
tools/install-deps.sh arm64

# --- the sysroot ----------------------------------------------------------
# Must be the path arch/aarch64/cross.ini names.
sysroot=$(sed -n "s/^sysroot = '\(.*\)'$/\1/p" arch/aarch64/cross.ini)
[ -n "$sysroot" ] || { echo "test-arm64: no sysroot in arch/aarch64/cross.ini" >&2; exit 1; }
# What the tree's meson.build files look for (dependency(), find_library())
# and what the programs load at run time, for arm64.
sysroot_pkgs=libc6-dev,libstdc++-12-dev,libhdf5-dev,libopenmpi-dev,libelf-dev,libdw-dev,libunwind-dev,zlib1g-dev,libsz2,libaec-dev
if [ "$(cat "$sysroot/.scope-packages" 2>/dev/null)" != "$sysroot_pkgs" ]; then
  phase "sysroot: Debian arm64 packages into $sysroot"
  $SUDO rm -rf "$sysroot.tmp"
  $SUDO mkdir -p "$(dirname "$sysroot")"
  # the machine's own Debian sources (the same mirror and suites as the
  # amd64 packages)
  sources=/etc/apt/sources.list.d/debian.sources
  [ -f "$sources" ] || sources=/etc/apt/sources.list
  $SUDO mmdebstrap --quiet --variant=extract --architectures=arm64 \
    --aptopt='Acquire::Check-Valid-Until "false"' \
    --include="$sysroot_pkgs" bookworm "$sysroot.tmp" "$sources"
  # extract runs no maintainer scripts: the alternative that names the
  # serial HDF5 as plain `hdf5` is made by hand, as update-alternatives would
  $SUDO ln -sf hdf5-serial.pc "$sysroot.tmp/usr/lib/aarch64-linux-gnu/pkgconfig/hdf5.pc"
  echo "$sysroot_pkgs" | $SUDO tee "$sysroot.tmp/.scope-packages" >/dev/null
  $SUDO rm -rf "$sysroot"
  $SUDO mv "$sysroot.tmp" "$sysroot"
fi

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

# --- build and test -------------------------------------------------------
builddir=${SCOPE_ARM64_BUILDDIR:-build-arm64/build}
phase "cross build in $builddir"
if [ ! -f "$builddir/build.ninja" ]; then
  meson setup "$builddir" --cross-file arch/aarch64/cross.ini -Dwerror=true
fi
meson compile -C "$builddir" -j 2

# The suites that run under qemu-user, and how many tests they hold on
# arm64 (the x86-64 counts minus what tests/README.md "arm64" lists, plus
# the preload's arm64 suite, tests/arm64).
suites=(runtime config reader tools format layering arm64)
expected=101
phase "tests under qemu-user: ${suites[*]}"
status=0
suite_args=()
for s in "${suites[@]}"; do suite_args+=(--suite "$s"); done
# qemu runs every instruction several times slower: three times each
# test's timeout, a hang is still caught
meson test -C "$builddir" --no-rebuild --print-errorlogs --num-processes 2 \
  --timeout-multiplier 3 "${suite_args[@]}" || status=1

# The exact count, and the closing line, from meson's own log.
read -r passed failed skipped < <(/usr/bin/python3 - "$builddir/meson-logs/testlog.json" <<'PY'
import json, sys
p = f = s = 0
for line in open(sys.argv[1]):
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
if [ "$ran" -ne "$expected" ]; then
  echo "test-arm64: $ran tests ran, $expected expected (a test was added or left out:" \
       "update tools/test-arm64.sh and tests/README.md)" >&2
  failed=$((failed + 1))
  status=1
fi

# --- arm64-written files, read on x86-64 ----------------------------------
if [ "$x86_check" = 1 ]; then
  phase "arm64-written files read by the x86-64 scope"
  if tools/check-arm64-files.sh "$builddir"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    status=1
  fi
fi

phase "done"
echo "arm64: $passed passed, $failed failed, $skipped skipped"
exit $status
