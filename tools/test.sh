#!/usr/bin/env bash
# Runs the whole test suite from a fresh clone: installs what is missing,
# configures a build with warnings as errors, builds and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
builddir=${SCOPE_BUILDDIR:-build-test}
if [ ! -f "$builddir/build.ninja" ]; then
  meson setup "$builddir" -Dwerror=true
fi
meson compile -C "$builddir"
meson test -C "$builddir" --print-errorlogs --num-processes 2 "$@"
