#!/usr/bin/env bash
# The README's first command: installs what is missing, builds scope,
# profiles the demo MPI application (tools/demo/scope-demo: a few phases of
# different cost, imbalanced between ranks) under `mpirun -n 4` with
# `scope run` and the demo config, then prints `scope summary` of the run
# (per region, then per rank, where the imbalance shows).
#
# Usage: tools/demo.sh [OUTPUT]   (default ./demo_profile.h5)
# Works on a fresh Debian 12 machine as root or as a user with sudo.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh build
builddir=${SCOPE_BUILDDIR:-build}
if [ ! -f "$builddir/build.ninja" ]; then
  meson setup "$builddir"
fi
meson compile -C "$builddir"

output=${1:-demo_profile.h5}
rm -rf "$output" "${output%.h5}.ranks"
# 4 ranks on a machine with fewer cores, and as root in containers
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
"$builddir/tools/scope" run -c tools/demo/demo.conf -o "$output" -- \
  mpirun --oversubscribe -n 4 "$builddir/tools/demo/scope-demo"
echo
"$builddir/tools/scope" summary "$output"
echo
"$builddir/tools/scope" summary --per-rank "$output"
