#!/bin/sh
# record_workload.sh PROGRAM OUTPUT.h5 STAMP - runs the tutorial workload
# into a fresh folder (the recorder refuses nothing, but old rank files
# would be merged in by a reader) and touches STAMP.
set -e
dir=$(dirname "$2")
rm -rf "$dir"; mkdir -p "$dir"
"$1" "$2"
touch "$3"
