#!/usr/bin/env bash
# run_fuzz.sh SECONDS [WORKDIR] - builds the libFuzzer targets with clang
# (ASan + UBSan) from the sources and runs each for SECONDS on a seed
# corpus: journals from make_journal_seeds.py, profiles from the reader's
# fixtures and make_profiles.py. Exits non-zero when a target crashes,
# hangs or leaks; the input that did it is kept in WORKDIR/artifacts.
set -euo pipefail
secs=${1:-30}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
work=${2:-$(mktemp -d /tmp/scope-fuzz.XXXXXX)}
mkdir -p "$work"/{bin,artifacts,corpus_journal,corpus_reader}
cc=${CLANG:-clang}
flags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -D_GNU_SOURCE -std=gnu11"
hdf5=$(pkg-config --cflags --libs hdf5)
"$cc" $flags -I"$top/runtime" "$here/fuzz_journal.c" "$top/runtime/h5writer.c" \
  "$top/runtime/journal_read.c" $hdf5 -o "$work/bin/fuzz_journal"
"$cc" $flags -I"$top/reader" -I"$top/runtime" -fvisibility=hidden "$here/fuzz_reader.c" \
  "$top"/reader/*.c $hdf5 -lm -o "$work/bin/fuzz_reader"

/usr/bin/python3 "$here/make_journal_seeds.py" "$work/corpus_journal"
/usr/bin/python3 "$top/tests/reader/make_profiles.py" "$work/profiles" "$work/profiles.stamp" >/dev/null
find "$work/profiles" "$top/tests/reader/fixtures" -name '*.h5' -size -64k \
  -exec cp {} "$work/corpus_reader/" \; 2>/dev/null || true

status=0
for t in journal reader; do
  echo "== fuzz_$t for ${secs}s"
  (cd "$work/artifacts" && "$work/bin/fuzz_$t" -max_total_time="$secs" -max_len=65536 \
     -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "$work/corpus_$t" 2>&1 |
     grep -E "^#[0-9]+ *DONE|^stat::number_of_executed_units|ERROR|SUMMARY|Test unit written" || true)
  if ls "$work/artifacts"/{crash,leak,timeout,oom}-* >/dev/null 2>&1; then
    echo "fuzz_$t: failing inputs kept in $work/artifacts" >&2
    status=1
  fi
done
exit $status
