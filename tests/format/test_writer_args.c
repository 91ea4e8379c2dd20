/*
 * test_writer_args.c - scope-h5write's command line (format/scope_writer.h,
 * writer_args.c): every request the recorder sends (built with the
 * function of its mode) survives
 * scope_writer_encode() and scope_writer_decode() exactly (a writer that
 * outlives its rank too: scope_writer_encode_detached()); the words on
 * the line are the ones scope-h5write has always taken (an older writer
 * installed beside a newer recorder still understands it); and what is
 * not a command line is refused with the usage of the mode asked for.
 */
#include <string.h>

#include "check.h"
#include "scope_error.h"
#include "scope_writer.h"

/* Encodes `req` (argv[0] "W"), checks the words against `want` (NULL
 * terminated), decodes them back and returns the decoded command. */
static struct scope_writer_command round_trip_d(const struct scope_convert_request *req,
                                                int remove_journal,
                                                const struct scope_writer_detach *detach,
                                                const char *const *want)
{
    const char *argv[32];
    argv[0] = "W";
    size_t need = scope_writer_argv_size(req);
    CHECK(need <= 32);
    int n = detach ? scope_writer_encode_detached(req, remove_journal, detach, argv, need)
                   : scope_writer_encode(req, remove_journal, argv, need);
    int k = 0;
    while (want[k])
        k++;
    CHECK_I64(n, k + 1);
    for (int i = 0; i < k && i + 1 < n; i++)
        CHECK_STR(argv[i + 1], want[i]);
    CHECK(n < 0 || argv[n] == NULL);
    struct scope_writer_command cmd;
    char err[256] = "";
    CHECK_I64(scope_writer_decode(n, (char *const *)argv, &cmd, err, sizeof err), 0);
    CHECK_STR(err, "");
    return cmd;
}

static struct scope_writer_command round_trip(const struct scope_convert_request *req,
                                              int remove_journal, const char *const *want)
{
    return round_trip_d(req, remove_journal, NULL, want);
}

static void check_same(const char *got, const char *want)
{
    if (!want)
        CHECK(got == NULL);
    else
        CHECK(got && strcmp(got, want) == 0);
}

static void rank_files(void)
{
    /* finalize: complete, rank 0 with its index */
    struct scope_convert_request req = scope_request_rank(
        "/o/run.ranks/journal.h.7", "/o/run.ranks/rank0.h5", "/o/run.h5", 1, NULL, 0);
    const char *w1[] = { "--complete", "/o/run.ranks/journal.h.7", "/o/run.ranks/rank0.h5",
                         "/o/run.h5", NULL };
    struct scope_writer_command c = round_trip(&req, 0, w1);
    CHECK_I64(c.req.mode, SCOPE_CONVERT_RANK);
    check_same(c.req.rank.journal_path, req.rank.journal_path);
    check_same(c.req.rank.rank_path, req.rank.rank_path);
    check_same(c.req.index_path, req.index_path);
    CHECK_I64(c.req.complete, 1);
    CHECK_I64(c.remove_journal, 0);
    CHECK_I64(c.links_on_stdin, 0);
    CHECK_I64(c.n_summary_paths, 0);

    /* the death handler: incomplete, removed by the writer, no index */
    req.index_path = NULL;
    req.complete = 0;
    const char *w2[] = { "--remove-journal", "--incomplete", "/o/run.ranks/journal.h.7",
                         "/o/run.ranks/rank0.h5", NULL };
    c = round_trip(&req, 1, w2);
    CHECK_I64(c.req.mode, SCOPE_CONVERT_RANK);
    CHECK_I64(c.remove_journal, 1);
    CHECK_I64(c.req.complete, 0);
    check_same(c.req.index_path, NULL);
    check_same(c.req.rank.rank_path, req.rank.rank_path);

    /* no rank file path: the writer derives it ("-") */
    req.rank.rank_path = NULL;
    const char *w3[] = { "--incomplete", "/o/run.ranks/journal.h.7", "-", NULL };
    c = round_trip(&req, 0, w3);
    check_same(c.req.rank.rank_path, NULL);
    check_same(c.req.rank.journal_path, req.rank.journal_path);
}

/* A writer that outlives its rank (MPI_Finalize does not wait for it):
 * the marker of the job's failure message and the pointer file travel
 * before the request; without them, "-" and no --pointer. */
static void detached(void)
{
    struct scope_convert_request req = scope_request_rank(
        "/o/run.ranks/journal.h.7", "/o/run.ranks/rank0.h5", "/o/run.h5", 1, NULL, 0);
    struct scope_writer_detach d = scope_writer_detach_init(
        12, "/o/run.h5", "/o/run.ranks/.scope_fault.job1", "/o/run.ranks/journals.h");
    const char *w1[] = { "--detach", "12", "/o/run.h5", d.say_marker, "--pointer", d.pointer,
                         "--remove-journal", "--complete", "/o/run.ranks/journal.h.7",
                         "/o/run.ranks/rank0.h5", "/o/run.h5", NULL };
    struct scope_writer_command c = round_trip_d(&req, 1, &d, w1);
    CHECK_I64(c.detach.on, 1);
    CHECK_I64(c.detach.rank, 12);
    check_same(c.detach.output, "/o/run.h5");
    check_same(c.detach.say_marker, d.say_marker);
    check_same(c.detach.pointer, d.pointer);
    CHECK_I64(c.remove_journal, 1);
    CHECK_I64(c.req.mode, SCOPE_CONVERT_RANK);
    CHECK_I64(c.req.complete, 1);
    check_same(c.req.rank.journal_path, req.rank.journal_path);
    check_same(c.req.index_path, req.index_path);

    struct scope_writer_detach bare = scope_writer_detach_init(-1, NULL, NULL, NULL);
    req.index_path = NULL;
    const char *w2[] = { "--detach", "-1", "-", "-", "--remove-journal", "--complete",
                         "/o/run.ranks/journal.h.7", "/o/run.ranks/rank0.h5", NULL };
    c = round_trip_d(&req, 1, &bare, w2);
    CHECK_I64(c.detach.on, 1);
    CHECK_I64(c.detach.rank, -1);
    check_same(c.detach.output, NULL);
    check_same(c.detach.say_marker, NULL);
    check_same(c.detach.pointer, NULL);
    check_same(c.req.index_path, NULL);

    const char *journals[] = { "/o/r.ranks/journal.a.1", "/o/r.ranks/journal.a.2" };
    struct scope_convert_request host = scope_request_host("/o/r.ranks/host-a.h5", NULL,
                                                           journals, 2, NULL, 0, NULL, 0);
    const char *w3[] = { "--detach", "-1", "-", "-", "--host", "/o/r.ranks/host-a.h5", "-",
                         journals[0], journals[1], NULL };
    c = round_trip_d(&host, 0, &bare, w3);
    CHECK_I64(c.detach.on, 1);
    CHECK_I64(c.req.mode, SCOPE_CONVERT_HOST);
    CHECK_I64(c.req.host.n_journals, 2);
    check_same(c.req.host.journals[1], journals[1]);

    /* the plain encoder says nothing of it */
    c = round_trip(&host, 0, w3 + 4);
    CHECK_I64(c.detach.on, 0);

    /* only a rank or a host file outlives its rank */
    struct scope_convert_request app = scope_request_append("H", "I", "J", 1, NULL, 0);
    const char *v[16];
    CHECK_I64(scope_writer_encode_detached(&app, 0, &bare, v, 16), SCOPE_EINVAL);
}

static void host_files(void)
{
    const char *journals[] = { "/o/r.ranks/journal.a.1", "/o/r.ranks/journal.a.2",
                               "/o/r.ranks/journal.a.3" };
    const char *links[] = { "", "host-a.h5" };
    struct scope_convert_request req = scope_request_host("/o/r.ranks/host-a.h5", "/o/r.h5",
                                                          journals, 3, links, 2, NULL, 0);
    const char *w1[] = { "--host", "/o/r.ranks/host-a.h5", "/o/r.h5", "--links", journals[0],
                         journals[1], journals[2], NULL };
    struct scope_writer_command c = round_trip(&req, 0, w1);
    CHECK_I64(c.req.mode, SCOPE_CONVERT_HOST);
    check_same(c.req.host.host_path, req.host.host_path);
    check_same(c.req.index_path, req.index_path);
    CHECK_I64(c.links_on_stdin, 1);
    CHECK_I64(c.req.host.n_journals, 3);
    for (size_t i = 0; i < 3 && i < c.req.host.n_journals; i++)
        check_same(c.req.host.journals[i], journals[i]);
    CHECK_I64(c.req.complete, 1);

    /* a leader that is not rank 0: no index, no links */
    req.index_path = NULL;
    req.host.n_link_files = 0;
    req.host.n_journals = 1;
    const char *w2[] = { "--host", "/o/r.ranks/host-a.h5", "-", journals[0], NULL };
    c = round_trip(&req, 0, w2);
    check_same(c.req.index_path, NULL);
    CHECK_I64(c.links_on_stdin, 0);
    CHECK_I64(c.req.host.n_journals, 1);

    /* no MPI, SCOPE_HOST_FILES=1: one journal appended under the lock */
    struct scope_convert_request app = scope_request_append("/o/r.ranks/host-a.h5", "/o/r.h5",
                                                            journals[2], 1, NULL, 0);
    const char *w3[] = { "--append", "/o/r.ranks/host-a.h5", "/o/r.h5", journals[2], NULL };
    c = round_trip(&app, 0, w3);
    CHECK_I64(c.req.mode, SCOPE_CONVERT_APPEND);
    CHECK_I64(c.req.complete, 1);
    check_same(c.req.append.journal_path, journals[2]);
    check_same(c.req.append.host_path, app.append.host_path);
    check_same(c.req.index_path, app.index_path);
}

/* Decoding `args` (argv[0] added) fails with the usage line `usage`. */
static void refused(const char *const *args, int n, const char *usage)
{
    const char *argv[16] = { "W" };
    for (int i = 0; i < n; i++)
        argv[i + 1] = args[i];
    struct scope_writer_command c;
    char err[256] = "";
    CHECK_I64(scope_writer_decode(n + 1, (char *const *)argv, &c, err, sizeof err),
              SCOPE_EINVAL);
    CHECK_STR(err, usage);
}

static void bad_lines(void)
{
    static const char rank_usage[] = "usage: scope-h5write [--detach RANK OUTPUT MARKER|- "
                                     "[--pointer FILE]] "
                                     "[--remove-journal] "
                                     "--complete|--incomplete JOURNAL RANK_FILE|- [INDEX_FILE]";
    refused(NULL, 0, rank_usage);
    const char *a1[] = { "--complete", "J" };
    refused(a1, 2, rank_usage);
    const char *a2[] = { "--complete", "J", "R", "I", "extra" };
    refused(a2, 5, rank_usage);
    const char *a3[] = { "--finished", "J", "R" };
    refused(a3, 3, rank_usage);
    const char *a4[] = { "--remove-journal", "--host", "H", "I", "J" };
    refused(a4, 5, rank_usage);
    const char *a5[] = { "--remove-journal" };
    refused(a5, 1, rank_usage);
    const char *a6[] = { "--host", "H" };
    refused(a6, 2, "usage: scope-h5write [--detach RANK OUTPUT MARKER|- [--pointer FILE]] --host "
                   "HOST_FILE INDEX_FILE|- [--links] JOURNAL...");
    const char *a9[] = { "--detach" };
    refused(a9, 1, rank_usage);
    const char *a10[] = { "--detach", "0", "-", "-", "--append", "H", "I", "J" };
    refused(a10, 8, rank_usage);
    const char *a11[] = { "--detach", "zero", "-", "-", "--complete", "J", "R" };
    refused(a11, 7, rank_usage);
    const char *a7[] = { "--append", "H", "I", "J", "K" };
    refused(a7, 5, "usage: scope-h5write --append HOST_FILE INDEX_FILE|- JOURNAL");
    const char *a8[] = { "--host-summary" };
    refused(a8, 1, "usage: scope-h5write --host-summary HOST_FILE...");

    /* --host-summary takes files, not a request */
    const char *argv[] = { "W", "--host-summary", "a.h5", "b.h5", NULL };
    struct scope_writer_command c;
    char err[256] = "";
    CHECK_I64(scope_writer_decode(4, (char *const *)argv, &c, err, sizeof err), 0);
    CHECK_I64(c.n_summary_paths, 2);
    check_same(c.summary_paths[1], "b.h5");

    /* the encoder never writes past the vector, nor sends what
     * scope-h5write cannot do (writing an index only is recovery's) */
    struct scope_convert_request req = scope_request_rank("J", "R", "I", 0, NULL, 0);
    const char *v[16];
    CHECK_I64(scope_writer_encode(&req, 0, v, scope_writer_argv_size(&req) - 1), SCOPE_EINVAL);
    req = scope_request_index("J", "R", "I", 0, NULL, 0);
    CHECK_I64(req.mode, SCOPE_CONVERT_INDEX_ONLY);
    CHECK_I64(scope_writer_encode(&req, 0, v, 16), SCOPE_EINVAL);
    req.mode = (enum scope_convert_mode)0;
    CHECK_I64(scope_writer_encode(&req, 0, v, 16), SCOPE_EINVAL);
}

int main(void)
{
    rank_files();
    detached();
    host_files();
    bad_lines();
    return check_result("test_writer_args");
}
