/*
 * test_memory.c - 50,000,000 calls recorded with the default 64 MiB budget:
 * the process's peak resident memory grows by less than the budget over
 * recording and finalize, the writer process that converts the journal
 * peaks below the budget too, and all 50,000,000 calls reach the HDF5
 * file.
 *
 * usage: test_memory [CALLS] OUTDIR   (run_in_dir.sh puts OUTDIR last)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "check.h"
#include "scope.h"
#include "scope_reader.h"

/* VmHWM (peak resident set) in KiB, from /proc/self/status. */
static long peak_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0)
            v = atol(line + 6);
    if (f)
        fclose(f);
    return v;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    long long calls = argc > 2 ? atoll(argv[1]) : 50000000;
    char out[4096];
    snprintf(out, sizeof out, "%s/memory.h5", argv[argc - 1]);
    scope_options o = { .output = out };
    CHECK_I64(scope_init(&o), 0);
    int32_t a = scope_region("step"), b = scope_region("kernel");
    long before = peak_kib();
    for (long long i = 0; i < calls / 2; i++) {
        scope_begin(a);
        scope_begin(b);
        scope_end(b);
        scope_end(a);
    }
    long recorded = peak_kib();
    CHECK_I64(scope_finalize(), 0);
    long after = peak_kib();
    fprintf(stderr, "peak RSS: %ld KiB before, %ld KiB after recording, %ld KiB after finalize\n",
            before, recorded, after);
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    fprintf(stderr, "writer process peak RSS: %ld KiB\n", ru.ru_maxrss);
    CHECK(after - before < 64 * 1024);
    CHECK(ru.ru_maxrss > 0 && ru.ru_maxrss < 64 * 1024);
    CHECK_I64(scope_dropped_events(), 0);

    scope_profile *p = NULL;
    CHECK_I64(scope_profile_open(out, &p), 0);
    if (!p)
        return check_result("test_memory");
    CHECK_I64(scope_profile_calls(p, scope_profile_region_index(p, "step"), 0), calls / 2);
    CHECK_I64(scope_profile_calls(p, scope_profile_region_index(p, "kernel"), 0), calls / 2);
    scope_profile_close(p);
    return check_result("test_memory");
}
