/*
 * cmd_merge.c - `scope merge PATH... -o FILE`: one self-contained profile
 * file from an index and its rank folder, a folder of rank files, several
 * runs' files, or scope-profiler files, so a run can be moved as one file.
 * The reader says where each rank lives; the converter's
 * scope_convert_merge() (convert/merge.c) writes the file, so the reader
 * library holds no writer of the format. This file is the command line
 * and the policy around them: which existing file may be replaced.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "args.h"
#include "commands.h"
#include "event_output.h"
#include "scope_merge.h"

static const char merge_help[] =
    "usage: scope merge -o FILE PATH...\n"
    "\n"
    "Copies /metadata and every rank of the profiles named by PATH (index\n"
    "files, merged files, rank files, folders of rank files, scope-profiler\n"
    "files) into FILE: one file with the same layout and no external links,\n"
    "which opens alone in scope, h5py and scope-profiler. The same rank in\n"
    "two PATHs is an error. FILE is written under a temporary name and\n"
    "renamed; an existing FILE is replaced only if it is a scope profile.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE\n"
    "  -h, --help     this text\n";

static void show_progress(void *ctx, int64_t done, int64_t total)
{
    (void)ctx;
    scope__progress("merge", done, total);
}

/* 0 when `path` may be written: absent, or an existing scope profile.
 * Anything else (a folder, a text file, someone else's HDF5) is kept;
 * 1 (said) otherwise. */
static int check_target(const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0) {
        if (errno == ENOENT)
            return 0;
        fprintf(stderr, "scope: %s: %s\n", path, strerror(errno));
        return 1;
    }
    if (!S_ISREG(st.st_mode)) {
        fprintf(stderr, "scope: %s exists and is not a file; not replacing it\n", path);
        return 1;
    }
    scope_profile *old;
    if (scope_profile_open(path, &old) < 0) {
        fprintf(stderr, "scope: %s exists and is not a scope profile; not replacing it\n",
                path);
        return 1;
    }
    scope_profile_close(old);
    return 0;
}

static const char *region_name(void *ctx, int region)
{
    return scope_profile_region_name(ctx, region);
}

/* The times of a columnar rank (kept by the profile until it is closed). */
static int rank_times(void *ctx, int region, int i, const int64_t **s, const int64_t **e,
                      int64_t *n)
{
    scope_profile *p = ctx;
    *n = 0;
    if (scope_profile_calls(p, region, scope_profile_rank(p, i)) <= 0)
        return 0;
    return scope_profile_times(p, region, scope_profile_rank(p, i), s, e, n);
}

/* p into a merged file at outpath: where each rank lives, from the
 * reader; the writing is the converter's. Returns the exit status. */
static int merge(scope_profile *p, const char *outpath)
{
    int nranks = scope_profile_rank_count(p), nfiles = scope_profile_file_count(p);
    struct scope_merge_rank *ranks = calloc((size_t)nranks + 1, sizeof *ranks);
    const char **files = calloc((size_t)nfiles + 1, sizeof *files);
    if (!ranks || !files) {
        free(ranks);
        free(files);
        return scope__fail_msg("out of memory");
    }
    for (int i = 0; i < nranks; i++) {
        ranks[i].rank = scope_profile_rank(p, i);
        scope_profile_rank_source(p, i, &ranks[i].file, &ranks[i].group);
        for (int r = 0; r < scope_profile_region_count(p); r++)
            ranks[i].events += scope_profile_calls(p, r, ranks[i].rank);
    }
    for (int s = 0; s < nfiles; s++)
        files[s] = scope_profile_file(p, s);
    struct scope_merge m = {
        .metadata_file = scope_profile_metadata_file(p),
        .ranks = ranks, .nranks = nranks, .files = files, .nfiles = nfiles,
        .nregions = scope_profile_region_count(p), .region_name = region_name,
        .times = rank_times, .progress = show_progress, .ctx = p,
    };
    char err[PATH_MAX * 2 + 512];
    int status = 0;
    if (scope_convert_merge(&m, outpath, err, sizeof err) < 0)
        status = scope__fail_msg(err[0] ? err : scope_reader_errmsg());
    free(ranks);
    free(files);
    return status;
}

int scope_cmd_merge(int argc, char **argv)
{
    static const struct option opts[] = {
        { "output", required_argument, NULL, 'o' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    const char *outpath = NULL;
    int c;
    scope_profile *p;
    scope__options parse = { .cmd = "merge", .help = merge_help, .argc = argc, .argv = argv,
                              .shortopts = ":ho:", .longopts = opts, .profile = &p, .output = &outpath };
    while ((c = scope__next_option(&parse)) > 0) {
        switch (c) {
        case 'o':
            outpath = optarg;
            break;
        }
    }
    if (c < 0)
        return parse.status;
    int status = check_target(outpath);
    if (!status)
        status = merge(p, outpath);
    scope_profile_close(p);
    return status;
}
