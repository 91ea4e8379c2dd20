/*
 * host_file.c - the ranks of one host written into one file,
 * <output>.ranks/host-<hostname>.h5 (docs/format.md "The files of a run"):
 * the request's SCOPE_CONVERT_HOST mode.
 *
 * At thousands of ranks a file per rank is a metadata storm on a parallel
 * file system (creating files in one folder serialises), so at
 * MPI_Finalize the ranks of a host hand their finished journals to their
 * host's leader, whose scope-h5write converts them all here. Each
 * journal is converted exactly as into its own rank file (the same
 * /rank<N> group, h5writer.c), one after the other, so memory stays that
 * of one journal whatever the number of ranks per host. The root
 * attributes and /metadata are the leader's (the first journal's).
 *
 * What can go wrong, and what is kept:
 *   - a journal that cannot be read (missing, damaged) is skipped: the
 *     others are written, it stays where it is for `scope recover`, and
 *     the call fails with SCOPE_EJOURNAL naming it;
 *   - the file cannot be written (full, read-only, I/O error): its
 *     temporary is removed and every journal is kept;
 *   - a journal is removed only once the file holding its group is in
 *     place (fsync'd, renamed).
 * Once every group is written, the file gets its summary table
 * (host_summary.c), a cache of what the reader's open reads from them.
 * The file is placed like a rank file (placement.c): never over a file of
 * another host of the same run; on a collision it becomes
 * host-<name>.collision<K>.h5 and the index's links follow it.
 */
#include <hdf5.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "convert_warn.h"
#include "h5writer.h"
#include "scope_error.h"
#include "scope_format.h"

/* Writes the index of the run from the leader's journal (journals[0]).
 * Returns 0 or SCOPE_E* with a message. */
static int write_host_index(const struct scope_convert_request *req, const char *journal)
{
    struct conv *c = NULL;
    int rc = scope__conv_open(&c, req, journal, 0);
    if (rc < 0)
        return rc;
    rc = scope__conv_write_index(c, req->index_path, req->host.host_path, req->host.link_files,
                                 req->host.n_link_files);
    scope__conv_free(c);
    return rc;
}

int scope__convert_host(const struct scope_convert_request *req)
{
    const char *path = req->host.host_path;
    char tmp[PATH_MAX + 64];
    int n = scope_tmp_path(tmp, sizeof tmp, path, (long)getpid());
    if (n < 0 || (size_t)n >= sizeof tmp) {
        snprintf(req->err, req->errlen, "%s: path too long", path);
        return SCOPE_ELIMIT;
    }
    char *written = calloc(req->host.n_journals ? req->host.n_journals : 1, 1);
    if (!written) {
        snprintf(req->err, req->errlen, "%s: out of memory", path);
        return SCOPE_ENOMEM;
    }
    char jerr[1024], first_missing[1024] = "", output[1100] = "";
    struct scope_convert_request sub = *req;
    sub.err = jerr;
    sub.errlen = sizeof jerr;
    hid_t f = H5I_INVALID_HID;
    int64_t since = 0;
    size_t missing = 0;
    struct scope__shared_table shared = { "", NULL, 0 };
    int rc = 0;
    for (size_t i = 0; i < req->host.n_journals && rc == 0; i++) {
        struct conv *c = NULL;
        jerr[0] = 0;
        if (scope__conv_open(&c, &sub, req->host.journals[i], 1) < 0) {
            if (!missing++)
                snprintf(first_missing, sizeof first_missing, "%s", jerr);
            continue;
        }
        if (f < 0) {
            since = scope__conv_since(c);
            scope__conv_output(c, output, sizeof output);
            f = scope__conv_create(req, tmp, path);
            rc = f < 0 ? (int)f : scope__conv_write_metadata(c, f);
        }
        if (rc == 0)
            rc = scope__conv_write_rank(c, f, &shared);
        if (rc < 0 && !req->err[0])
            snprintf(req->err, req->errlen, "%s", jerr[0] ? jerr : scope_strerror(rc));
        scope__conv_free(c);
        if (rc == 0)
            written[i] = 1;
    }
    scope__shared_table_free(&shared);
    if (f < 0 && rc == 0) {
        snprintf(req->err, req->errlen, "%s: no journal of the host could be read (%s)", path,
                 first_missing);
        free(written);
        return SCOPE_EJOURNAL;
    }
    /* every group is in: the reader's summary of them, so that opening
     * the file costs one read, not one per rank (host_summary.c) */
    if (f >= 0 && rc == 0 && (rc = scope__host_summary_write(f)) < 0)
        snprintf(req->err, req->errlen, "%s: cannot write its summary table: %s", path,
                 scope_strerror(rc));
    if (f >= 0)
        rc = scope__conv_close_sync(req, f, rc, tmp, path);
    char placed[PATH_MAX + 64] = "";
    if (rc == 0) {
        char err[PATH_MAX * 2 + 128] = "";
        int pr = scope__place_rank_file(tmp, path, since, 0, placed, sizeof placed, err,
                                        sizeof err);
        if (pr < 0) {
            snprintf(req->err, req->errlen, "%s", err);
            if (pr != SCOPE_EACCES)
                unlink(tmp);
            rc = pr;
        } else if (pr == 1 && output[0] && !req->index_path) {
            /* another host of this run has the name: relink our ranks */
            char dir[PATH_MAX];
            snprintf(dir, sizeof dir, "%s", path);
            char *slash = strrchr(dir, '/');
            if (slash)
                *slash = 0;
            if (scope__index_note_host_collision(output, slash ? dir : ".", since) < 0)
                scope__convert_warn(req, "%s: cannot link the collision file %s; it stays next "
                                    "to the other files", output, placed);
        }
    }
    if (rc < 0) {
        free(written); /* every journal is kept */
        return rc;
    }
    /* the index needs the leader's journal: written before it goes, and
     * when it cannot be, that journal stays (`scope recover` sees its
     * rank in the host file and writes only the index) */
    if (req->index_path && req->host.n_journals && written[0]) {
        rc = write_host_index(req, req->host.journals[0]);
        if (rc < 0)
            written[0] = 0;
    }
    for (size_t i = 0; i < req->host.n_journals; i++)
        if (written[i])
            unlink(req->host.journals[i]);
    free(written);
    if (rc == 0 && missing) {
        snprintf(req->err, req->errlen, "%s: %zu journal%s of the host could not be read and %s "
                 "kept for `scope recover` (%s)", placed, missing, missing == 1 ? "" : "s",
                 missing == 1 ? "is" : "are", first_missing);
        rc = SCOPE_EJOURNAL;
    }
    return rc;
}
