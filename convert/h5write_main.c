/*
 * h5write_main.c - scope-h5write, the recorder's HDF5 writer process.
 *
 *   scope-h5write [--remove-journal] --complete|--incomplete JOURNAL
 *                 RANK_FILE|- [INDEX_FILE]
 *
 * Converts one journal into its rank file (and the index file when given)
 * with scope_convert(), the converter's one entry point (scope_convert.h).
 * Started by the recorder at finalize and by its death handler
 * (runtime/writer_spawn.c explains why it is a process of its own); not
 * meant to be run by hand. Exits 0 on success, 1 with a one-line "scope: ..."
 * message on stderr on failure, 2 on a usage error.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "scope_convert.h"

int main(int argc, char **argv)
{
    /* --remove-journal: the recorder's death path, which cannot wait for
     * the journal to be removed after the file is in place */
    int remove_journal = argc > 1 && strcmp(argv[1], "--remove-journal") == 0;
    if (remove_journal) {
        argv++;
        argc--;
    }
    if (argc < 4 || argc > 5 ||
        (strcmp(argv[1], "--complete") != 0 && strcmp(argv[1], "--incomplete") != 0)) {
        fprintf(stderr, "usage: scope-h5write [--remove-journal] --complete|--incomplete "
                        "JOURNAL RANK_FILE|- [INDEX_FILE]\n");
        return 2;
    }
    char err[8192] = { 0 };
    struct scope_convert_request req = {
        .journal_path = argv[2],
        .rank_path = strcmp(argv[3], "-") == 0 ? NULL : argv[3],
        .index_path = argc == 5 ? argv[4] : NULL,
        .complete = strcmp(argv[1], "--complete") == 0,
        .err = err,
        .errlen = sizeof err,
    };
    if (scope_convert(&req) < 0) {
        fprintf(stderr, "scope: %s\n", err[0] ? err : "writing the profile failed");
        fflush(stderr);
        if (scope_convert_hdf5_broken())
            _exit(1); /* libhdf5's exit handler would crash (h5writer.c) */
        return 1;
    }
    if (remove_journal)
        unlink(argv[2]);
    return 0;
}
