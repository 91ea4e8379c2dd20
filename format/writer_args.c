/*
 * writer_args.c - scope-h5write's command line, written and read in one
 * place (scope_writer.h): the recorder's finalize (runtime/writer_spawn.c)
 * and its death handler (runtime/death.c) encode a request into it, and
 * scope-h5write (convert/h5write_main.c) decodes it back. The option words
 * exist only here, so the two sides cannot drift apart.
 *
 *   scope-h5write [DETACH] [--remove-journal] --complete|--incomplete
 *                 JOURNAL RANK_FILE|- [INDEX_FILE]
 *   scope-h5write [DETACH] --host HOST_FILE INDEX_FILE|- [--links] JOURNAL...
 *   scope-h5write --append HOST_FILE INDEX_FILE|- JOURNAL
 *   scope-h5write --host-summary HOST_FILE...
 *
 * where DETACH is `--detach RANK OUTPUT MARKER|- [--pointer FILE]`
 * (scope_writer.h).
 *
 * libc only, no allocation: the death handler prepares its vector with it
 * before any signal, and the recorder links it into applications.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scope_error.h"
#include "scope_writer.h"

#define W_REMOVE "--remove-journal"
#define W_COMPLETE "--complete"
#define W_INCOMPLETE "--incomplete"
#define W_HOST "--host"
#define W_LINKS "--links"
#define W_APPEND "--append"
#define W_SUMMARY "--host-summary"
#define W_DETACH "--detach"
#define W_POINTER "--pointer"
#define W_NONE "-"  /* no rank file path (derive it) / no index / no marker */

#define DETACH_WORDS "[" W_DETACH " RANK OUTPUT MARKER|- [" W_POINTER " FILE]] "
static const char usage_rank[] = "usage: " SCOPE_CONVERT_EXE " " DETACH_WORDS "[" W_REMOVE "] "
                                 W_COMPLETE "|" W_INCOMPLETE " JOURNAL RANK_FILE|- [INDEX_FILE]";
static const char usage_host[] = "usage: " SCOPE_CONVERT_EXE " " DETACH_WORDS W_HOST
                                 " HOST_FILE INDEX_FILE|- [" W_LINKS "] JOURNAL...";
static const char usage_append[] = "usage: " SCOPE_CONVERT_EXE " " W_APPEND
                                   " HOST_FILE INDEX_FILE|- JOURNAL";
static const char usage_summary[] = "usage: " SCOPE_CONVERT_EXE " " W_SUMMARY " HOST_FILE...";

size_t scope_writer_argv_size(const struct scope_convert_request *req)
{
    /* exe, at most 6 words of DETACH and 5 of the mode, the journals of a
     * host, NULL */
    return 13 + (req->mode == SCOPE_CONVERT_HOST ? req->host.n_journals : 0);
}

int scope_writer_encode(const struct scope_convert_request *req, int remove_journal,
                        const char **argv, size_t cap)
{
    return scope_writer_encode_detached(req, remove_journal, NULL, argv, cap);
}

int scope_writer_encode_detached(const struct scope_convert_request *req, int remove_journal,
                                 const struct scope_writer_detach *detach, const char **argv,
                                 size_t cap)
{
    if (cap < scope_writer_argv_size(req))
        return SCOPE_EINVAL;
    size_t a = 1; /* argv[0], the executable, is the caller's */
    if (detach && detach->on) {
        if (req->mode != SCOPE_CONVERT_RANK && req->mode != SCOPE_CONVERT_HOST)
            return SCOPE_EINVAL;
        /* the rank as text is the caller's detach's (no allocation) */
        argv[a++] = W_DETACH;
        argv[a++] = detach->rank_text;
        argv[a++] = detach->output && detach->output[0] ? detach->output : W_NONE;
        argv[a++] = detach->say_marker ? detach->say_marker : W_NONE;
        if (detach->pointer) {
            argv[a++] = W_POINTER;
            argv[a++] = detach->pointer;
        }
    }
    switch (req->mode) {
    case SCOPE_CONVERT_APPEND:
        argv[a++] = W_APPEND;
        argv[a++] = req->append.host_path;
        argv[a++] = req->index_path ? req->index_path : W_NONE;
        argv[a++] = req->append.journal_path;
        break;
    case SCOPE_CONVERT_HOST:
        argv[a++] = W_HOST;
        argv[a++] = req->host.host_path;
        argv[a++] = req->index_path ? req->index_path : W_NONE;
        if (req->host.n_link_files)
            argv[a++] = W_LINKS;
        for (size_t i = 0; i < req->host.n_journals; i++)
            argv[a++] = req->host.journals[i];
        break;
    case SCOPE_CONVERT_RANK:
        if (remove_journal)
            argv[a++] = W_REMOVE;
        argv[a++] = req->complete ? W_COMPLETE : W_INCOMPLETE;
        argv[a++] = req->rank.journal_path;
        argv[a++] = req->rank.rank_path ? req->rank.rank_path : W_NONE;
        if (req->index_path)
            argv[a++] = req->index_path;
        break;
    default:
        return SCOPE_EINVAL;
    }
    argv[a] = NULL;
    return (int)a;
}

static int usage(const char *text, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s", text);
    return SCOPE_EINVAL;
}

static const char *path_or_none(const char *s)
{
    return strcmp(s, W_NONE) == 0 ? NULL : s;
}

static int decode_mode(int argc, char *const *argv, struct scope_writer_command *out,
                       char *err, size_t errlen);

int scope_writer_decode(int argc, char *const *argv, struct scope_writer_command *out,
                        char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (argc < 2 || strcmp(argv[1], W_DETACH) != 0)
        return decode_mode(argc, argv, out, err, errlen);
    /* DETACH, then a rank or host request as the rest of the line (argv
     * shifted so that the word before the mode stands as argv[0]) */
    if (argc < 5)
        return usage(usage_rank, err, errlen);
    struct scope_writer_detach d = { .on = 1, .output = path_or_none(argv[3]),
                                     .say_marker = path_or_none(argv[4]) };
    char *end;
    long rank = strtol(argv[2], &end, 10);
    if (end == argv[2] || *end || rank < -1 || rank > INT32_MAX)
        return usage(usage_rank, err, errlen);
    d.rank = (int)rank;
    snprintf(d.rank_text, sizeof d.rank_text, "%d", d.rank);
    int k = 4;
    if (argc > 6 && strcmp(argv[5], W_POINTER) == 0) {
        d.pointer = argv[6];
        k = 6;
    }
    int rc = decode_mode(argc - k, argv + k, out, err, errlen);
    if (rc == 0 && out->req.mode != SCOPE_CONVERT_RANK && out->req.mode != SCOPE_CONVERT_HOST)
        rc = usage(usage_rank, err, errlen);
    out->detach = d;
    return rc;
}

static int decode_mode(int argc, char *const *argv, struct scope_writer_command *out,
                       char *err, size_t errlen)
{
    struct scope_convert_request *req = &out->req;
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, W_SUMMARY) == 0) {
        if (argc < 3)
            return usage(usage_summary, err, errlen);
        out->summary_paths = (const char *const *)argv + 2;
        out->n_summary_paths = (size_t)(argc - 2);
        return 0;
    }
    if (strcmp(mode, W_HOST) == 0) {
        if (argc < 4)
            return usage(usage_host, err, errlen);
        int a = 4;
        if (a < argc && strcmp(argv[a], W_LINKS) == 0) {
            out->links_on_stdin = 1;
            a++;
        }
        *req = scope_request_host(argv[2], path_or_none(argv[3]), (const char *const *)argv + a,
                                  (size_t)(argc - a), NULL, 0, NULL, 0);
        return 0;
    }
    if (strcmp(mode, W_APPEND) == 0) {
        if (argc != 5)
            return usage(usage_append, err, errlen);
        *req = scope_request_append(argv[2], path_or_none(argv[3]), argv[4], 1, NULL, 0);
        return 0;
    }
    /* the death path asks for the journal's removal once the file is in
     * place: it cannot wait for the writer to remove it itself */
    int w = 1;
    if (strcmp(mode, W_REMOVE) == 0) {
        out->remove_journal = 1;
        w++;
    }
    if (argc - w + 1 < 4 || argc - w + 1 > 5 ||
        (strcmp(argv[w], W_COMPLETE) != 0 && strcmp(argv[w], W_INCOMPLETE) != 0))
        return usage(usage_rank, err, errlen);
    *req = scope_request_rank(argv[w + 1], path_or_none(argv[w + 2]),
                              argc - w + 1 == 5 ? argv[w + 3] : NULL,
                              strcmp(argv[w], W_COMPLETE) == 0, NULL, 0);
    return 0;
}
