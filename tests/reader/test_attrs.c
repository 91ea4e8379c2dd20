/*
 * test_attrs.c - /metadata and /rank<N> attributes through
 * scope_profile_metadata_* and scope_profile_rank_attr_*: values, the
 * snprintf-style string contract (full length returned, truncated copy),
 * missing attributes, unknown ranks, files without /metadata, and a
 * scope-profiler columnar file (no rank groups).
 *
 * usage: test_attrs PROFILE_DIR
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "scope_reader.h"

static scope_profile *open_in(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    scope_profile *p = NULL;
    int rc = scope_profile_open(path, &p);
    CHECK_I64(rc, 0);
    if (rc < 0)
        fprintf(stderr, "%s\n", scope_reader_errmsg());
    return p;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s PROFILE_DIR\n", argv[0]);
        return 2;
    }
    int64_t v = -1;
    char buf[64];
    scope_profile *p = open_in(argv[1], "nested.h5");
    if (p) {
        CHECK_I64(scope_profile_metadata_int(p, "mpi_size", &v), 0);
        CHECK_I64(v, 2);
        CHECK_I64(scope_profile_metadata_int(p, "start_time_ns", &v), 0);
        CHECK_I64(v, 1000);
        CHECK_I64(scope_profile_metadata_string(p, "hostname", buf,
                                                sizeof buf), 5);
        CHECK_STR(buf, "nodeA");
        CHECK_I64(scope_profile_metadata_string(p, "hostname", buf, 3), 5);
        CHECK_STR(buf, "no");
        CHECK_I64(scope_profile_metadata_string(p, "hostname", NULL, 0), 5);
        CHECK_I64(scope_profile_metadata_int(p, "hostname", &v),
                  SCOPE_ENOTFOUND);
        CHECK_STR(scope_reader_errmsg(), "/metadata has no integer "
                  "attribute \"hostname\"");
        CHECK_I64(scope_profile_metadata_string(p, "nope", buf, sizeof buf),
                  SCOPE_ENOTFOUND);

        for (int r = 0; r < 2; r++) {
            CHECK_I64(scope_profile_rank_attr_int(p, r, "dropped_events", &v), 0);
            CHECK_I64(v, 3 * r);
            CHECK_I64(scope_profile_rank_attr_int(p, r, "unterminated_calls",
                                                  &v), 0);
            CHECK_I64(v, r);
            CHECK_I64(scope_profile_rank_attr_int(p, r, "complete", &v), 0);
            CHECK_I64(v, 1 - r);
        }
        CHECK_I64(scope_profile_rank_attr_string(p, 1, "hostname", buf,
                                                 sizeof buf), 5);
        CHECK_STR(buf, "node1");
        CHECK_I64(scope_profile_rank_attr_int(p, 1, "pid", &v),
                  SCOPE_ENOTFOUND);
        CHECK_STR(scope_reader_errmsg(), "/rank1 has no integer attribute "
                  "\"pid\"");
        CHECK_I64(scope_profile_rank_attr_int(p, 2, "pid", &v),
                  SCOPE_ENOTFOUND);
        CHECK_STR(scope_reader_errmsg(), "no rank 2 in this profile");
        scope_profile_close(p);
    }
    /* An index file: /metadata from the index, rank attrs through links. */
    if ((p = open_in(argv[1], "run.h5"))) {
        CHECK_I64(scope_profile_metadata_string(p, "hostname", buf,
                                                sizeof buf), 8);
        CHECK_STR(buf, "testhost");
        CHECK_I64(scope_profile_rank_attr_int(p, 1, "pid", &v), 0);
        CHECK_I64(v, 101);
        CHECK_I64(scope_profile_rank_attr_int(p, 0, "complete", &v), 0);
        CHECK_I64(v, 1);
        scope_profile_close(p);
    }
    /* No /metadata; a columnar file has no rank groups. */
    if ((p = open_in(argv[1], "two_ranks.h5"))) {
        CHECK_I64(scope_profile_metadata_int(p, "mpi_size", &v),
                  SCOPE_ENOTFOUND);
        CHECK_STR(scope_reader_errmsg(), "the profile has no /metadata");
        scope_profile_close(p);
    }
    if ((p = open_in(argv[1], "schema3_two.h5"))) {
        CHECK_I64(scope_profile_rank_attr_int(p, 0, "rank", &v),
                  SCOPE_ENOTFOUND);
        CHECK_STR(scope_reader_errmsg(), "rank 0 has no rank group (a "
                  "scope-profiler columnar file)");
        scope_profile_close(p);
    }
    /* The clock's step: stated by ties.h5's rank 0, by nobody in nested.h5. */
    if ((p = open_in(argv[1], "ties.h5"))) {
        CHECK_I64(scope_profile_clock_resolution_ns(p, 0, &v), 0);
        CHECK_I64(v, 1000);
        v = -1;
        CHECK_I64(scope_profile_clock_resolution_ns(p, SCOPE_ALL_RANKS, &v), 0);
        CHECK_I64(v, 1000);
        scope_profile_close(p);
    }
    if ((p = open_in(argv[1], "nested.h5"))) {
        CHECK_I64(scope_profile_clock_resolution_ns(p, SCOPE_ALL_RANKS, &v), SCOPE_ENOTFOUND);
        CHECK_STR(scope_reader_errmsg(), "no rank states its clock resolution");
        CHECK_I64(scope_profile_clock_resolution_ns(p, 1, &v), SCOPE_ENOTFOUND);
        scope_profile_close(p);
    }
    return check_result("test_attrs");
}
