/*
 * dump_times.c - records a few regions with the real clock (nested, on two
 * threads, with names that need link-name encoding), finalizes, then prints
 * what the reader returns for the index file, one line per (region, rank):
 *     <name>\t<rank>\t<start>,<start>,...\t<end>,<end>,...
 * check_h5py.py compares that with what h5py reads from the same file.
 *
 * usage: dump_times OUTDIR
 */
#include <pthread.h>
#include <stdio.h>

#include "scope.h"
#include "scope_reader.h"

static int32_t r_a, r_b;

static void *thread_work(void *arg)
{
    (void)arg;
    for (int i = 0; i < 3; i++) {
        scope_begin(r_b);
        scope_end(r_b);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    char out[4096];
    snprintf(out, sizeof out, "%s/dump.h5", argv[1]);
    scope_options o = { .output = out };
    if (scope_init(&o) < 0)
        return 1;
    r_a = scope_region("solve/phase 1");
    r_b = scope_region("100% λ");
    for (int i = 0; i < 4; i++) {
        scope_begin(r_a);
        scope_begin(r_b);
        scope_end(r_b);
        scope_end(r_a);
    }
    pthread_t t;
    pthread_create(&t, NULL, thread_work, NULL);
    pthread_join(t, NULL);
    if (scope_finalize() < 0)
        return 1;

    scope_profile *p;
    if (scope_profile_open(out, &p) < 0) {
        fprintf(stderr, "%s\n", scope_reader_errmsg());
        return 1;
    }
    for (int r = 0; r < scope_profile_region_count(p); r++) {
        const int64_t *s, *e;
        int64_t n;
        if (scope_profile_times(p, r, 0, &s, &e, &n) < 0)
            return 1;
        printf("%s\t0\t", scope_profile_region_name(p, r));
        for (int64_t i = 0; i < n; i++)
            printf("%s%lld", i ? "," : "", (long long)s[i]);
        printf("\t");
        for (int64_t i = 0; i < n; i++)
            printf("%s%lld", i ? "," : "", (long long)e[i]);
        printf("\n");
    }
    scope_profile_close(p);
    return 0;
}
