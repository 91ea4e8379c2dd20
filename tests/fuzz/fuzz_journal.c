/*
 * fuzz_journal.c - libFuzzer target: any bytes given to the journal reader
 * (as `scope recover` does with what a crash left) and, when they parse,
 * to the HDF5 writer, must give an error or a file, never a crash, a hang
 * or a leak.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "scope_convert.h"
#include "journal_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char dir[] = "/tmp/scope-fuzz-journal-XXXXXX";
    if (!mkdtemp(dir))
        return 0;
    char jpath[128], rpath[128], ipath[128], err[512];
    snprintf(jpath, sizeof jpath, "%s/journal.host.1", dir);
    snprintf(rpath, sizeof rpath, "%s/rank0.h5", dir);
    snprintf(ipath, sizeof ipath, "%s/index.h5", dir);
    FILE *f = fopen(jpath, "wb");
    if (f) {
        fwrite(data, 1, size, f);
        fclose(f);
        struct scope_jr jr;
        if (scope__jr_open(&jr, jpath, err, sizeof err) == 0) {
            for (uint32_t t = 0; t < jr.n_threads; t++) {
                struct scope_jr_cursor c;
                struct scope_rec r;
                if (scope__jr_cursor_init(&c, &jr, t) == 0)
                    while (scope__jr_cursor_next(&c, &r) > 0)
                        ;
                scope__jr_cursor_free(&c);
            }
            /* An index links every rank of the job: linear in the size by
             * design (a million ranks take minutes), so only small jobs
             * get one here. */
            int small = jr.hdr.size <= 1024;
            scope__jr_close(&jr);
            struct scope_convert_request req = scope_request_rank(
                jpath, rpath, small ? ipath : NULL, 0, err, sizeof err);
            scope_convert(&req);
        }
    }
    unlink(jpath);
    unlink(rpath);
    unlink(ipath);
    rmdir(dir);
    return 0;
}
