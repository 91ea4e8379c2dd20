/*
 * h5write_main.c - scope-h5write, the recorder's HDF5 writer process.
 *
 *   scope-h5write --complete|--incomplete JOURNAL RANK_FILE|- [INDEX_FILE]
 *
 * Converts one journal into its rank file (and the index file when given),
 * as described in h5writer.h. Started by the recorder at finalize
 * (writer_spawn.c explains why it is a process of its own); not meant to
 * be run by hand. Exits 0 on success, 1 with a one-line "scope: ..."
 * message on stderr on failure, 2 on a usage error.
 */
#include <stdio.h>
#include <string.h>

#include "h5writer.h"

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 5 ||
        (strcmp(argv[1], "--complete") != 0 && strcmp(argv[1], "--incomplete") != 0)) {
        fprintf(stderr, "usage: %s --complete|--incomplete JOURNAL RANK_FILE|- [INDEX_FILE]\n",
                argv[0]);
        return 2;
    }
    char err[8192] = { 0 };
    struct scope_writer_request req = {
        .journal_path = argv[2],
        .rank_path = strcmp(argv[3], "-") == 0 ? NULL : argv[3],
        .index_path = argc == 5 ? argv[4] : NULL,
        .complete = strcmp(argv[1], "--complete") == 0,
        .err = err,
        .errlen = sizeof err,
    };
    if (scope_writer_convert(&req) < 0) {
        fprintf(stderr, "scope: %s\n", err[0] ? err : "writing the profile failed");
        return 1;
    }
    return 0;
}
