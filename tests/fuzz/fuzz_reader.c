/*
 * fuzz_reader.c - libFuzzer target: any bytes opened as a profile by
 * libscope_reader, then walked the way the tools walk it (statistics,
 * times, events, call stacks), give an error or answers, never a crash, a
 * hang or a leak.
 *
 * The input is a memfd named by /proc/self/fd/N, not a temporary file: its
 * path is the same text on every run and machine (a random name reached
 * libFuzzer's table of compared strings through HDF5's error messages,
 * and a fixed-seed run then mutated differently), and two fuzz runs at
 * once share nothing.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "scope_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = memfd_create("scope-fuzz-reader.h5", MFD_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t w = write(fd, data, size);
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    scope_profile *p = NULL;
    if (w == (ssize_t)size && scope_profile_open(path, &p) == 0) {
        int nreg = scope_profile_region_count(p), nrank = scope_profile_rank_count(p);
        int64_t v;
        scope_profile_time_span_ns(p, &v);
        for (int i = 0; i < nrank; i++) {
            int rank = scope_profile_rank(p, i);
            for (int r = 0; r < nreg; r++) {
                scope_stats st;
                const int64_t *s, *e;
                int64_t n;
                scope_profile_stats(p, r, rank, &st);
                scope_profile_times(p, r, rank, &s, &e, &n);
            }
            scope_call_stack *cs = NULL;
            int ranks[1] = { rank };
            scope_event_query q = { 0 };
            q.ranks = ranks;
            q.nranks = 1;
            q.call_ids = 1;
            scope_events *it = NULL;
            if (scope_profile_events_open(p, &q, &it) == 0) {
                scope_event ev[64];
                while (scope_events_read(it, ev, 64) > 0)
                    ;
                scope_events_close(it);
            }
            if (scope_profile_call_stack(p, rank, SCOPE_ALL_THREADS, &cs) == 0)
                scope_call_stack_free(cs);
        }
        scope_profile_close(p);
    }
    close(fd);
    return 0;
}
