/*
 * test_bad_input.c - every kind of bad input gives its own SCOPE_E* code
 * and a one-line message naming the path and the problem, never a crash
 * (this test also runs under valgrind): a missing path, a text file, an
 * empty file, an HDF5 file that is not a profile, a truncated profile, an
 * unknown format version, an index whose link points nowhere, a region
 * whose arrays disagree or are missing, a columnar index pointing outside
 * the events, a folder without rank files (and one a run was written
 * into: the message names its index), a bad path among good ones.
 *
 * usage: test_bad_input PROFILE_DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "scope_reader.h"

static const char *dir;

/* Opens DIR/name, expects `code` and the message "DIR/<want>". */
static void expect(const char *name, int code, const char *want)
{
    char path[4096], msg[8192];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    scope_profile *p = (scope_profile *)1;
    int rc = scope_profile_open(path, &p);
    CHECK_I64(rc, code);
    CHECK(p == NULL);
    snprintf(msg, sizeof msg, "%s/%s", dir, want);
    CHECK_STR(scope_reader_errmsg(), msg);
    if (rc == 0)
        scope_profile_close(p);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s PROFILE_DIR\n", argv[0]);
        return 2;
    }
    dir = argv[1];
    expect("missing.h5", SCOPE_ENOENT, "missing.h5: no such file or directory");
    expect("notes.txt", SCOPE_ENOTHDF5, "notes.txt: not an HDF5 file");
    expect("empty.h5", SCOPE_ENOTHDF5, "empty.h5: not an HDF5 file");
    expect("not_profile.h5", SCOPE_EFORMAT, "not_profile.h5: an HDF5 file "
           "but not a scope profile (no /rank<N> groups)");
    expect("future.h5", SCOPE_EVERSION, "future.h5: scope_format 7 is not "
           "supported (this reader knows 1)");
    char want[8192];
    snprintf(want, sizeof want, "dangling.h5: /rank0 links to %s/gone.ranks/"
             "rank0.h5, which does not exist", dir);
    expect("dangling.h5", SCOPE_ENOENT, want);
    expect("mismatch.h5", SCOPE_EFORMAT, "mismatch.h5: region group "
           "/rank0/regions/solve has 3 start times but 2 end times");
    expect("no_ends.h5", SCOPE_EFORMAT, "no_ends.h5: missing dataset "
           "/rank0/regions/solve/end_times");
    expect("bad_index.h5", SCOPE_EFORMAT, "bad_index.h5: rank_region_index "
           "row 0 points outside region_table or events");
    expect("empty_folder", SCOPE_ENOENT, "empty_folder: folder holds no "
           "rank<N>.h5 files");
    snprintf(want, sizeof want, "run_folder: folder holds no rank<N>.h5 files; it holds "
             "a run: open its index, %s/run_folder/p.h5", dir);
    expect("run_folder", SCOPE_ENOENT, want);

    /* Truncated: the message carries HDF5's own numbers, so check its
     * start and the code only. */
    char path[4096], start[4200];
    snprintf(path, sizeof path, "%s/truncated.h5", dir);
    snprintf(start, sizeof start, "%s: file is truncated or damaged (HDF5: "
             "truncated file: eof = ", path);
    scope_profile *p = NULL;
    CHECK_I64(scope_profile_open(path, &p), SCOPE_ETRUNC);
    CHECK(strncmp(scope_reader_errmsg(), start, strlen(start)) == 0);
    CHECK(p == NULL);

    /* A bad path among good ones fails the whole open, naming the bad one. */
    char good[4096];
    snprintf(good, sizeof good, "%s/merged.h5", dir);
    snprintf(path, sizeof path, "%s/notes.txt", dir);
    const char *paths[2] = { good, path };
    CHECK_I64(scope_profile_open_paths(paths, 2, &p), SCOPE_ENOTHDF5);
    snprintf(start, sizeof start, "%s: not an HDF5 file", path);
    CHECK_STR(scope_reader_errmsg(), start);

    CHECK_I64(scope_profile_open(NULL, &p), SCOPE_EINVAL);
    CHECK_I64(scope_profile_open("", &p), SCOPE_EINVAL);
    CHECK_STR(scope_reader_errmsg(), "empty path");
    return check_result("test_bad_input");
}
