#!/bin/sh
# check_libscope_exports.sh LIB SCOPE_H - fails unless the dynamic symbols
# LIB (libscope.so) defines are exactly the SCOPE_API functions scope.h
# declares: no scope__ internal, no helper, nothing missing.
set -eu
lib=$1; header=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
nm -D --defined-only "$lib" | awk '$2 ~ /^[TtWwDdBbRrVvi]$/ {print $3}' | sed 's/@.*//' | sort -u >"$tmp/exported"
sed -n 's/^SCOPE_API[^(]*[ *]\(scope_[a-z_]*\)(.*/\1/p' "$header" | sort -u >"$tmp/declared"
if [ ! -s "$tmp/declared" ]; then echo "no SCOPE_API declarations found in $header"; exit 1; fi
if ! diff -u "$tmp/declared" "$tmp/exported"; then
  echo "libscope.so exports differ from scope.h's API (- declared only, + exported only)"
  exit 1
fi
echo "$(wc -l <"$tmp/exported") symbols exported, exactly scope.h's API"
