#!/usr/bin/env bash
# run_fuzz.sh SECONDS [WORKDIR] - builds the libFuzzer targets (journal,
# config, profile reader) with clang
# (ASan + UBSan) from the sources and runs each for SECONDS on a seed
# corpus: journals from make_journal_seeds.py, profiles from the reader's
# fixtures and make_profiles.py. Exits non-zero when a target crashes,
# hangs or leaks; the input that did it is kept in WORKDIR/artifacts.
set -euo pipefail
secs=${1:-30}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
work=${2:-$(mktemp -d /tmp/scope-fuzz.XXXXXX)}
mkdir -p "$work"/{bin,journal_artifacts,config_artifacts,reader_artifacts,corpus_journal,corpus_reader,corpus_config}
rm -f "$work"/{journal,config,reader}_artifacts/* 2>/dev/null || true
cc=${CLANG:-clang}
flags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -D_GNU_SOURCE -std=gnu11"
hdf5=$(pkg-config --cflags --libs hdf5)
# every file of the converter but its command's main(): a file added there
# is linked here without anyone having to remember this list
convert_src=$(ls "$top"/convert/*.c | grep -v '/h5write_main\.c$')
# and every file of the floors below (base/, format/): the same reason
floor_src=$(ls "$top"/base/*.c "$top"/format/*.c)
# the three targets compile at once, and run at once below: the phase's
# wall time is the longest target's, not their sum (2 cores in CI)
"$cc" $flags -I"$top/convert" -I"$top/format" -I"$top/base" -I"$top/arch/$(uname -m)" "$here/fuzz_journal.c" $convert_src \
  $floor_src $hdf5 \
  -o "$work/bin/fuzz_journal" &
cc_journal=$!
"$cc" $flags -I"$top/reader" -I"$top/format" -I"$top/base" -fvisibility=hidden "$here/fuzz_reader.c" \
  "$top"/reader/*.c $floor_src $hdf5 -lm -o "$work/bin/fuzz_reader" &
cc_reader=$!
"$cc" $flags -I"$top/config" -I"$top/format" -I"$top/base" "$here/fuzz_config.c" "$top"/config/*.c \
  $floor_src \
  -o "$work/bin/fuzz_config" &
cc_config=$!
wait $cc_journal
wait $cc_reader
wait $cc_config

/usr/bin/python3 "$here/make_journal_seeds.py" "$work/corpus_journal"
cp "$top"/tests/config/check-config/*.conf "$top"/tools/demo/demo.conf "$work/corpus_config/"
/usr/bin/python3 "$top/tests/reader/make_profiles.py" "$work/profiles" "$work/profiles.stamp" >/dev/null
find "$work/profiles" "$top/tests/reader/fixtures" -name '*.h5' -size -64k \
  -exec cp {} "$work/corpus_reader/" \; 2>/dev/null || true

# fuzz_journal must come out clean. fuzz_reader runs in fork mode and
# carries on past failures, which are then sorted by where they happened:
# libhdf5 1.10 loops or reads out of bounds on some damaged metadata
# (docs/format.md), which the reader cannot see coming; a failure whose
# innermost frames are all inside libhdf5 is listed as that, any other
# fails the run.
# huge allocations fail with NULL, as they do outside the sanitizer
export ASAN_OPTIONS=allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1
# SCOPE_FUZZ_SEED=N: the same inputs every time (CI): a fixed seed and a
# fixed number of runs (scaled from SECONDS by each target's speed here)
# instead of a time limit, and fuzz_reader not forked (it stops at its
# first failure, which the triage then sorts). Without it: exploration.
limit_j="-max_total_time=$secs" limit_c="-max_total_time=$secs"
reader_mode="-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=0 -max_total_time=$secs"
if [ -n "${SCOPE_FUZZ_SEED:-}" ]; then
  limit_j="-seed=$SCOPE_FUZZ_SEED -runs=$((secs * 150))"
  limit_c="-seed=$SCOPE_FUZZ_SEED -runs=$((secs * 30000))"
  # libhdf5 leaks on its error paths; the reader's own leaks are checked
  # under valgrind (tests/reader), so here leaks do not stop the run
  reader_mode="-seed=$SCOPE_FUZZ_SEED -runs=$((secs * 60)) -detect_leaks=0"
fi
status=0
# Each target in its own artifacts folder and log, all three at once; the
# logs are shown in order once all are done.
(cd "$work/journal_artifacts" && "$work/bin/fuzz_journal" $limit_j -max_len=65536 \
   -timeout=10 -rss_limit_mb=2048 "$work/corpus_journal" >"$work/journal.log" 2>&1 || true) &
run_journal=$!
(cd "$work/config_artifacts" && "$work/bin/fuzz_config" $limit_c -max_len=4096 \
   -timeout=10 "$work/corpus_config" >"$work/config.log" 2>&1 || true) &
run_config=$!
(cd "$work/reader_artifacts" && "$work/bin/fuzz_reader" $reader_mode -max_len=65536 -timeout=10 \
   -rss_limit_mb=2048 "$work/corpus_reader" >"$work/reader.log" 2>&1 || true) &
run_reader=$!
wait $run_journal $run_config $run_reader

# fuzz_journal and fuzz_config must come out clean
must_be_clean() { # must_be_clean TARGET LIMITS
  echo "== fuzz_$1 ($2)"
  grep -E "DONE|ERROR|SUMMARY|Test unit written" "$work/$1.log" || true
  if ls "$work/$1_artifacts"/{crash,leak,timeout,oom}-* >/dev/null 2>&1; then
    echo "fuzz_$1: failing inputs kept in $work/$1_artifacts" >&2
    status=1
  fi
}
must_be_clean journal "$limit_j"
must_be_clean config "$limit_c"

echo "== fuzz_reader ($reader_mode)"
grep -E "^#[0-9]+: cov|INFO: exiting|DONE|Test unit written" "$work/reader.log" | tail -n 2
set -- "$work/reader_artifacts"/{crash,timeout,leak,oom}-*
arts=()
for a in "$@"; do [ -e "$a" ] && arts+=("$a"); done
if [ "${#arts[@]}" -gt 0 ]; then
  /usr/bin/python3 "$here/triage.py" "$work/bin/fuzz_reader" "${arts[@]}" | sort | uniq -c |
    sed 's/^/  /' || true
  /usr/bin/python3 "$here/triage.py" "$work/bin/fuzz_reader" "${arts[@]}" >/dev/null || status=1
fi
exit $status
