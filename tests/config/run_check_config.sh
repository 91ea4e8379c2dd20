#!/bin/sh
# run_check_config.sh BIN DATADIR - runs `scope check-config` (through the
# test main BIN) on the configs in DATADIR and compares stdout, stderr and
# the exit status with what each case must give, exactly.
set -u
case $1 in /*) bin=$1 ;; *) bin=$PWD/$1 ;; esac
cd "$2" || exit 1
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT
fails=0

# expect NAME STATUS STDOUT-FILE|- STDERR-TEXT -- ARGS...: runs
# `env -i PATH=... $extra_env BIN ARGS` and compares.
expect() {
    name=$1 want_rc=$2 want_out=$3 want_err=$4
    shift 5
    # QEMU_LD_PREFIX: an arm64 build under qemu-user (tools/test-arm64.sh)
    # finds its loader there; the program itself never reads it
    env -i PATH="$PATH" ${QEMU_LD_PREFIX:+QEMU_LD_PREFIX="$QEMU_LD_PREFIX"} $extra_env "$bin" "$@" \
        >"$out/stdout" 2>"$out/stderr"
    rc=$?
    if [ "$rc" != "$want_rc" ]; then
        echo "$name: exit status $rc, want $want_rc"; fails=$((fails + 1))
    fi
    if [ "$want_out" = - ]; then : >"$out/want"; else cp "$want_out" "$out/want"; fi
    if ! diff -u "$out/want" "$out/stdout"; then
        echo "$name: stdout differs"; fails=$((fails + 1))
    fi
    printf '%s' "$want_err" >"$out/want_err"
    if ! diff -u "$out/want_err" "$out/stderr"; then
        echo "$name: stderr differs"; fails=$((fails + 1))
    fi
}

nl='
'
usage="usage: scope check-config FILE [--quiet]
  Checks a scope config file (SCOPE_* variables applied) and prints what it
  means: each setting with where it came from, each function entry.
  -q, --quiet  print nothing when the file is valid (exit status only)
  -h, --help   this text
"

extra_env="SCOPE_OUTPUT=/tmp/from-env.h5 SCOPE_VERBOSE=1 SCOPE_IO_FILES=100"
expect full 0 full.out "" -- full.conf
extra_env=""
expect simple 0 simple.out "" -- simple.conf
expect settings-only 0 settings-only.out "" -- settings-only.conf
expect quiet-ok 0 - "" -- --quiet full.conf
expect bad 1 - "scope: bad.conf:3:19: bad number '12X'$nl" -- bad.conf
expect quiet-bad 1 - "scope: bad.conf:3:19: bad number '12X'$nl" -- bad.conf -q
expect missing 1 - "scope: nope.conf:0:0: cannot read: No such file or directory$nl" -- nope.conf
extra_env="SCOPE_MEMORY_BUDGET=12X"
expect bad-env 1 - "scope: SCOPE_MEMORY_BUDGET: bad number '12X'$nl" -- simple.conf
extra_env="SCOPE_IO=maybe"
expect bad-io-env 1 - "scope: SCOPE_IO: must be 0, 1, off or on, not 'maybe'$nl" -- simple.conf
extra_env=""
expect bad-io-files 1 - "scope: bad-io.conf:2:12: io_files must be between 16 and 4194304, not '8'$nl" -- bad-io.conf
extra_env=""
try="(try 'scope check-config --help')"
expect no-args 2 - "scope: check-config: no config file given $try$nl" --
expect two-files 2 - "scope: check-config: one config file only, not also 'b.conf' $try$nl" -- a.conf b.conf
expect bad-option 2 - "scope: check-config: unknown option '--loud' $try$nl" -- --loud a.conf
printf '%s' "$usage" >"$out/usage"
expect help 0 "$out/usage" "" -- --help

if [ "$fails" -ne 0 ]; then echo "$fails check(s) failed"; exit 1; fi
exit 0
