/*
 * test_file_names.c - the file-name rules of format/scope_paths.h (and
 * scope_format.h's rank of a name), which the recorder, the preload, the
 * converter, recovery, the reader and the tool all answer through: host
 * and rank files, the ranks folder and its index, journals and their
 * pointers, temporaries, collisions and region link names. One place
 * decides, so one test pins every rule down.
 */
#include <stdlib.h>

#include "check.h"
#include "scope_format.h"

/* temporaries "<name>.tmp.<pid>": made, recognised, their pid read back */
static void temporaries(void)
{
    char tmp[64];
    CHECK_INT(scope_tmp_path(tmp, sizeof tmp, "/o/run.ranks/rank3.h5", 4242), 30);
    CHECK_STR(tmp, "/o/run.ranks/rank3.h5.tmp.4242");
    CHECK(scope_is_tmp_name(tmp));
    CHECK_INT(scope_tmp_pid(tmp), 4242);
    CHECK_INT(scope_tmp_pid("journals.node1.tmp.77"), 77);
    CHECK(!scope_is_tmp_name("rank3.h5"));
    CHECK_INT(scope_tmp_pid("rank3.h5"), -1);
    CHECK_INT(scope_tmp_pid("x.tmp."), -1);
    CHECK_INT(scope_tmp_pid("x.tmp.12a"), -1);
    CHECK_INT(scope_tmp_pid("x.tmp.0"), -1);
    CHECK_INT(scope_tmp_pid("x.tmp.99999999999"), -1);
    /* a temporary is neither a rank, a host nor a pointer file */
    CHECK(!scope_is_rank_file("rank3.h5.tmp.12"));
    CHECK(!scope_is_host_file("host-a.h5.tmp.12"));
    CHECK(scope_journal_pointer_host("journals.a.tmp.12") == NULL);
}

/* the ranks folder of an output, and the index beside a folder */
static void folders(void)
{
    char out[64];
    CHECK_INT(scope_ranks_dir_of(out, sizeof out, "/o/run.h5"), 12);
    CHECK_STR(out, "/o/run.ranks");
    scope_ranks_dir_of(out, sizeof out, "/o/profile");
    CHECK_STR(out, "/o/profile.ranks");
    CHECK_INT(scope_index_of_ranks_dir(out, sizeof out, "/o/run.ranks"), 0);
    CHECK_STR(out, "/o/run.h5");
    CHECK_INT(scope_index_of_ranks_dir(out, sizeof out, "/o/run.ranks//"), 0);
    CHECK_STR(out, "/o/run.h5");
    CHECK_INT(scope_index_of_ranks_dir(out, sizeof out, "/o/run"), -1);
    CHECK_INT(scope_index_of_ranks_dir(out, sizeof out, ".ranks"), -1);
    CHECK_INT(scope_index_of_ranks_dir(out, 5, "/o/run.ranks"), -1);
    /* the one is the other's inverse */
    scope_ranks_dir_of(out, sizeof out, "a/b.h5");
    char back[64];
    CHECK_INT(scope_index_of_ranks_dir(back, sizeof back, out), 0);
    CHECK_STR(back, "a/b.h5");
}

/* rank files, collisions, journals and their pointers */
static void files(void)
{
    char out[96];
    CHECK(scope_is_rank_file("rank3.h5"));
    CHECK(scope_is_rank_file("/o/run.ranks/rank12.collision1.h5"));
    CHECK(scope_is_rank_file("rank3.pid77.h5"));
    CHECK(!scope_is_rank_file("rank.h5"));
    CHECK(!scope_is_rank_file("rankx.h5"));
    CHECK(!scope_is_rank_file("host-a.h5"));
    CHECK(!scope_is_rank_file("rank3.h5x"));
    scope_rank_pid_file_path(out, sizeof out, "/o/r.ranks", 3, 77);
    CHECK_STR(out, "/o/r.ranks/rank3.pid77.h5");
    scope_collision_path(out, sizeof out, "/o/r.ranks/rank3.h5", 2);
    CHECK_STR(out, "/o/r.ranks/rank3.collision2.h5");
    scope_collision_path(out, sizeof out, "host-a", 1);
    CHECK_STR(out, "host-a.collision1.h5");

    CHECK_INT(scope_journal_path(out, sizeof out, "/j", "node1", 99), 19);
    CHECK_STR(out, "/j/journal.node1.99");
    CHECK(scope_is_journal_name(out + 3));
    scope_journal_prefix(out, sizeof out, "node1");
    CHECK_STR(out, "journal.node1.");
    scope_journal_prefix(out, sizeof out, NULL);
    CHECK_STR(out, "journal.");
    scope_journal_pointer_path(out, sizeof out, "/o/r.ranks", "node1");
    CHECK_STR(out, "/o/r.ranks/journals.node1");
    CHECK(!scope_is_journal_name("journals.node1"));
    CHECK_STR(scope_journal_pointer_host("journals.node1"), "node1");
    CHECK(scope_journal_pointer_host("journal.node1.5") == NULL);
}

/* region link names (docs/format.md "Names") */
static void link_names(void)
{
    char out[32];
    CHECK_INT((int)scope_region_link_name("a/b%c", out, sizeof out), 9);
    CHECK_STR(out, "a%2Fb%25c");
    CHECK_INT((int)scope_region_link_name(".", out, sizeof out), 3);
    CHECK_STR(out, "%2E");
    scope_region_link_name("..", out, sizeof out);
    CHECK_STR(out, "..");
    scope_region_link_name("", out, sizeof out);
    CHECK_STR(out, "");
    /* cut to fit, the whole length returned */
    CHECK_INT((int)scope_region_link_name("a/b", out, 4), 5);
    CHECK_STR(out, "a%2");
    CHECK_INT((int)scope_region_link_name("abc", NULL, 0), 3);
    char *d = scope_region_link_name_dup("100%");
    CHECK_STR(d, "100%25");
    free(d);
}

int main(void)
{
    char name[96];
    scope_host_file_name("node-01.cluster", name, sizeof name);
    CHECK_STR(name, "host-node-01.cluster.h5");
    scope_host_file_name("a b/c", name, sizeof name);
    CHECK_STR(name, "host-a_b_c.h5");
    scope_host_file_name("", name, sizeof name);
    CHECK_STR(name, "host-unknown.h5");

    /* a host file's lock: beside it, hidden, whether a path or a name */
    char lock[96];
    scope_host_lock_path(lock, sizeof lock, "/o/r.ranks/host-a.h5");
    CHECK_STR(lock, "/o/r.ranks/.host-a.h5.lock");
    scope_host_lock_path(lock, sizeof lock, "host-a.h5");
    CHECK_STR(lock, ".host-a.h5.lock");
    CHECK(scope_host_lock_path(lock, 8, "host-a.h5") >= 8);

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
    temporaries();
    folders();
    files();
    link_names();
    return check_result("test_file_names");
}
