/*
 * test_file_names.c - the file-name rules of format/scope_format.h, which
 * the converter, the reader and the tool all answer through: a host
 * file's name from a host name, "is this a host file?", and a rank from a
 * group or rank-file name. One place decides, so one test pins it down.
 */
#include "check.h"
#include "scope_format.h"

int main(void)
{
    char name[96];
    scope_host_file_name("node-01.cluster", name, sizeof name);
    CHECK_STR(name, "host-node-01.cluster.h5");
    scope_host_file_name("a b/c", name, sizeof name);
    CHECK_STR(name, "host-a_b_c.h5");
    scope_host_file_name("", name, sizeof name);
    CHECK_STR(name, "host-unknown.h5");

    /* host files: a name or a path, collision names too */
    CHECK(scope_is_host_file("host-node01.h5"));
    CHECK(scope_is_host_file("/runs/x.ranks/host-node01.h5"));
    CHECK(scope_is_host_file("host-node01" SCOPE_G_COLLISION_SUFFIX "1.h5"));
    CHECK(scope_is_host_file("host-a.h5"));
    /* not host files: temporaries, rank files, the bare prefix, others */
    CHECK(!scope_is_host_file("host-node01.h5.tmp.1234"));
    CHECK(!scope_is_host_file("host-.h5"));
    CHECK(!scope_is_host_file("rank3.h5"));
    CHECK(!scope_is_host_file("/runs/host-x.ranks/rank3.h5"));
    CHECK(!scope_is_host_file("host-node01"));
    CHECK(!scope_is_host_file("Host-node01.h5"));
    CHECK(!scope_is_host_file(""));
    CHECK(!scope_is_host_file(NULL));
    /* what scope_host_file_name makes is a host file */
    scope_host_file_name("x", name, sizeof name);
    CHECK(scope_is_host_file(name));

    char path[64];
    CHECK_INT(scope_rank_file_path(path, sizeof path, "/out/run.ranks", 7), 23);
    CHECK_STR(path, "/out/run.ranks/rank7.h5");
    CHECK_INT(scope_rank_of_name(path + 15, ".h5"), 7);

    CHECK_INT(scope_rank_of_name("rank12", ""), 12);
    CHECK_INT(scope_rank_of_name("rank12.h5", ".h5"), 12);
    CHECK_INT(scope_rank_of_name("rank-1", ""), -1);
    CHECK_INT(scope_rank_of_name("rank1x", ""), -1);
    CHECK_INT(scope_rank_of_name("rank12.h5", ""), -1);
    return check_result("test_file_names");
}
