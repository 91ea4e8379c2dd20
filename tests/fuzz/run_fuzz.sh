#!/usr/bin/env bash
# run_fuzz.sh SECONDS [WORKDIR] - builds the libFuzzer targets (journal,
# config, profile reader) with clang
# (ASan + UBSan) from the sources and runs each for SECONDS on a seed
# corpus: journals from make_journal_seeds.py, profiles from the reader's
# fixtures, make_profiles.py and the damaged files that once harmed a
# reader (tests/reader/damaged). Exits non-zero when a target crashes,
# hangs or leaks; the input that did it is kept in WORKDIR/artifacts.
#
# With SCOPE_FUZZ_SEED the runs are the same on every machine: the seeds
# are the same bytes under names of their own (a profile's path below its
# folder, so the many run.h5 and rank0.h5 of make_profiles.py all stay;
# copied by basename, which one survived depended on the file system's
# directory order), handed to libFuzzer as one sorted list
# (-seed_inputs), not a folder it lists in that order; the reader reads
# with one job (its worker count follows the CPUs); libFuzzer does not
# reread its corpus folder on a timer (-reload=0); and the targets run
# without address-space randomisation (setarch -R) where the kernel
# allows it, with an environment and arguments of the same length on
# every machine (env -i, paths relative to WORKDIR: they lie on the
# stack, and so decide its addresses): libFuzzer keeps the operands of
# compared pointers and inserts them into inputs. Any of these made two
# runs of one seed differ (on one machine, or in two folders). Each
# target's log line "seeds: N, sha256 H" names the corpus, to compare
# machines.
set -euo pipefail
secs=${1:-30}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
work=${2:-$(mktemp -d /tmp/scope-fuzz.XXXXXX)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
rm -rf "$work"/{corpus,seeds}_{journal,reader,config}
mkdir -p "$work"/{bin,journal_artifacts,config_artifacts,reader_artifacts} \
  "$work"/{corpus,seeds}_{journal,reader,config}
rm -f "$work"/{journal,config,reader}_artifacts/* 2>/dev/null || true
cc=${CLANG:-clang}
# Compiled from the top of the tree with paths relative to it, and the
# folder itself mapped away: the same binary wherever the clone is (source
# paths are in its strings and debug info, and so move its data; clang 14
# keeps a sanitizer's file names as given, whatever -ffile-prefix-map).
flags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -D_GNU_SOURCE -std=gnu11 -ffile-prefix-map=$top=scope"
hdf5=$(pkg-config --cflags --libs hdf5)
cd "$top"
# every file of the converter but its command's main(): a file added there
# is linked here without anyone having to remember this list
convert_src=$(ls convert/*.c | grep -v '/h5write_main\.c$')
# and every file of the floors below (base/, format/): the same reason
floor_src=$(ls base/*.c format/*.c)
# the three targets compile at once, and run at once below: the phase's
# wall time is the longest target's, not their sum (2 cores in CI)
"$cc" $flags -Iconvert -Iformat -Ibase -I"arch/$(uname -m)" tests/fuzz/fuzz_journal.c $convert_src \
  $floor_src $hdf5 \
  -o "$work/bin/fuzz_journal" &
cc_journal=$!
"$cc" $flags -Ireader -Ireader/comm -Iformat -Ibase -fvisibility=hidden tests/fuzz/fuzz_reader.c \
  reader/*.c reader/comm/*.c $floor_src $hdf5 -lm -o "$work/bin/fuzz_reader" &
cc_reader=$!
"$cc" $flags -Iconfig -Iformat -Ibase tests/fuzz/fuzz_config.c config/*.c \
  $floor_src \
  -o "$work/bin/fuzz_config" &
cc_config=$!
wait $cc_journal
wait $cc_reader
wait $cc_config

/usr/bin/python3 "$here/make_journal_seeds.py" "$work/seeds_journal"
cp "$top"/tests/config/check-config/*.conf "$top"/tools/demo/demo.conf "$work/seeds_config/"
/usr/bin/python3 "$top/tests/reader/make_profiles.py" "$work/profiles" "$work/profiles.stamp" >/dev/null
# every profile under 64 KiB, named by its path below its folder
# ("hosts/perhost/run.h5" -> "profiles%hosts%perhost%run.h5")
for src in "$work/profiles" "$top/tests/reader/fixtures" "$top/tests/reader/damaged"; do
  (cd "$src" && find . -name '*.h5' -size -64k -printf '%P\n') | LC_ALL=C sort |
    while IFS= read -r f; do
      cp "$src/$f" "$work/seeds_reader/$(basename "$src")%${f//\//%}"
    done
done
# SEEDS_FLAG_<target>: how libFuzzer gets the seeds. With a fixed seed,
# one sorted list (the corpus folder stays for what it finds); without,
# the seed folder as a second corpus folder, as exploration does.
for t in journal config reader; do
  list="$work/seeds_$t.list"
  # relative to the targets' folders ($work/<target>_artifacts)
  (cd "$work/seeds_$t" && LC_ALL=C ls) | sed "s|^|../seeds_$t/|" >"$list.lines"
  paste -sd, "$list.lines" >"$list"
  echo "== fuzz_$t seeds: $(wc -l <"$list.lines"), sha256" \
    "$(cd "$work/seeds_$t" && LC_ALL=C ls | xargs sha256sum | sha256sum | cut -c1-16)"
  if [ -n "${SCOPE_FUZZ_SEED:-}" ]; then
    printf -v "SEEDS_FLAG_$t" '%s' "-seed_inputs=@../seeds_$t.list"
  else
    printf -v "SEEDS_FLAG_$t" '%s' "../seeds_$t"
  fi
done

# fuzz_journal must come out clean. fuzz_reader runs in fork mode and
# carries on past failures, which are then sorted by where they happened:
# libhdf5 1.10 loops or reads out of bounds on some damaged metadata
# (docs/format.md), which the reader cannot see coming; a failure whose
# innermost frames are all inside libhdf5 is listed as that, any other
# fails the run.
# huge allocations fail with NULL, as they do outside the sanitizer
export ASAN_OPTIONS=allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1
# The targets' whole environment (see the top); the reader's job count
# follows the machine's CPUs, so one, everywhere.
target_env=(env -i PATH=/usr/bin:/bin ASAN_OPTIONS="$ASAN_OPTIONS"
            UBSAN_OPTIONS="$UBSAN_OPTIONS" SCOPE_READER_JOBS=1)
# SCOPE_FUZZ_SEED=N: the same inputs every time (CI): a fixed seed and a
# fixed number of runs (scaled from SECONDS by each target's speed here)
# instead of a time limit, and fuzz_reader not forked (it stops at its
# first failure, which the triage then sorts). Without it: exploration.
limit_j="-max_total_time=$secs" limit_c="-max_total_time=$secs"
reader_mode="-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=0 -max_total_time=$secs"
norand=()
if [ -n "${SCOPE_FUZZ_SEED:-}" ]; then
  limit_j="-seed=$SCOPE_FUZZ_SEED -runs=$((secs * 150)) -reload=0"
  limit_c="-seed=$SCOPE_FUZZ_SEED -runs=$((secs * 30000)) -reload=0"
  # libhdf5 leaks on its error paths; the reader's own leaks are checked
  # under valgrind (tests/reader), so here leaks do not stop the run
  reader_mode="-seed=$SCOPE_FUZZ_SEED -runs=$((secs * 60)) -detect_leaks=0 -reload=0"
  if setarch "$(uname -m)" -R true 2>/dev/null; then
    norand=(setarch "$(uname -m)" -R)
  else
    echo "run_fuzz.sh: address-space randomisation cannot be turned off here" \
      "(setarch -R): the runs may differ from another machine's" >&2
  fi
fi
status=0
# Each target in its own artifacts folder and log, all three at once; the
# logs are shown in order once all are done.
(cd "$work/journal_artifacts" && "${target_env[@]}" "${norand[@]}" ../bin/fuzz_journal $limit_j \
   -max_len=65536 -timeout=10 -rss_limit_mb=2048 ../corpus_journal "$SEEDS_FLAG_journal" \
   >"$work/journal.log" 2>&1 || true) &
run_journal=$!
(cd "$work/config_artifacts" && "${target_env[@]}" "${norand[@]}" ../bin/fuzz_config $limit_c \
   -max_len=4096 -timeout=10 ../corpus_config "$SEEDS_FLAG_config" >"$work/config.log" 2>&1 \
   || true) &
run_config=$!
(cd "$work/reader_artifacts" && "${target_env[@]}" "${norand[@]}" ../bin/fuzz_reader $reader_mode \
   -max_len=65536 -timeout=10 -rss_limit_mb=2048 ../corpus_reader "$SEEDS_FLAG_reader" \
   >"$work/reader.log" 2>&1 || true) &
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
