#!/bin/sh
# run_in_dir.sh DIR CMD ARGS... - runs CMD ARGS... DIR in a fresh, empty
# DIR (the test's output folder), and removes DIR when the test passes.
set -e
dir=$1; shift
rm -rf "$dir"; mkdir -p "$dir"
"$@" "$dir"
rm -rf "$dir"
