#!/bin/sh
# check_exports.sh LIB - fails unless every dynamic symbol LIB defines is a
# public scope_* name (no scope__ internals, no helpers, no HDF5 leaks).
set -eu
syms=$(nm -D --defined-only "$1" | awk '{print $3}')
bad=$(printf '%s\n' "$syms" | grep -v '^scope_[a-z]' || true)
internal=$(printf '%s\n' "$syms" | grep '^scope__' || true)
if [ -n "$bad$internal" ]; then
  echo "unexpected exported symbols:"; printf '%s\n' $bad $internal
  exit 1
fi
n=$(printf '%s\n' "$syms" | grep -c '^scope_')
[ "$n" -ge 18 ] || { echo "only $n scope_ symbols exported"; exit 1; }
echo "$n public symbols, all scope_*"
