/*
 * args.c - argument parsing and error reporting shared by the `scope`
 * commands (args.h), so that every command words its usage errors and
 * rank lists the same way.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "settings.h"

int scope__usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "scope: %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (try 'scope %s --help')\n", cmd);
    return 2;
}

/* The bad option getopt_long just returned `c` for (':' a missing value,
 * anything else an unknown option, short or long), in scope__usage_error's
 * words; returns 2. */
static int option_error(const char *cmd, int c, char *const argv[])
{
    if (c == ':')
        return scope__usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
    /* a short option inside a group ("-qx") is not argv[optind - 1] */
    if (optopt > 0 && optopt < 256)
        return scope__usage_error(cmd, "unknown option '-%c'", optopt);
    return scope__usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
}

int scope__next_option(scope__options *o)
{
    if (!o->started) {
        o->started = 1;
        opterr = 0;
        optind = 1;
    }
    int c = getopt_long(o->argc, o->argv, o->shortopts, o->longopts, NULL);
    while (c == 'f' && o->format) {
        if (scope__parse_format(o->cmd, optarg, o->format) != 0) {
            o->status = 2;
            return -1;
        }
        c = getopt_long(o->argc, o->argv, o->shortopts, o->longopts, NULL);
    }
    if (c == -1) {
        if (!o->profile)
            return 0;
        o->status = scope__operands(o->cmd, o->argc, o->argv, o->output != NULL,
                                    o->output ? *o->output : NULL, o->profile);
        return o->status ? -1 : 0;
    }
    if (c == 'h') {
        fputs(o->help, stdout);
        o->status = 0;
        return -1;
    }
    if (c == ':' || c == '?') {
        o->status = option_error(o->cmd, c, o->argv);
        return -1;
    }
    return c;
}

int scope__parse_choice(const char *cmd, const char *what, const char *arg,
                        const char *const *names, int *out)
{
    int n = 0;
    for (; names[n]; n++)
        if (!strcmp(names[n], arg)) {
            *out = n;
            return 0;
        }
    char list[512] = "";
    size_t at = 0;
    for (int k = 0; k < n && at < sizeof list; k++)
        at += (size_t)snprintf(list + at, sizeof list - at, "%s%s",
                               k == 0 ? "" : k == n - 1 ? " or " : ", ", names[k]);
    return scope__usage_error(cmd, "unknown %s '%s' (%s)", what, arg, list);
}

int scope__parse_format(const char *cmd, const char *arg, int *out)
{
    static const char *const formats[] = { "table", "csv", "json", NULL };
    return scope__parse_choice(cmd, "format", arg, formats, out);
}

int scope__operands(const char *cmd, int argc, char **argv, int out, const char *outpath,
                    scope_profile **p)
{
    *p = NULL;
    if (out && !outpath)
        return scope__usage_error(cmd, "no output file given (-o)");
    if (optind >= argc)
        return scope__usage_error(cmd, "no profile path given");
    *p = scope__open_or_report(argv + optind, argc - optind);
    return *p ? 0 : 1;
}

int scope__fail_msg(const char *msg)
{
    fprintf(stderr, "scope: %s\n", msg);
    return 1;
}

int scope__stdout_check(const char *msg)
{
    if (fflush(stdout) != 0 || ferror(stdout))
        return scope__fail_msg(msg);
    return 0;
}

int scope__parse_i64(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end)
        return -1;
    *out = v;
    return 0;
}

/* One non-negative int starting at *s; advances *s. */
static int parse_rank(const char **s, int32_t *out)
{
    char *end;
    if (**s < '0' || **s > '9')
        return -1;
    errno = 0;
    long v = strtol(*s, &end, 10);
    if (errno || v > INT_MAX)
        return -1;
    *s = end;
    *out = (int32_t)v;
    return 0;
}

int scope__parse_ranks(const char *s, int32_t **out)
{
    int32_t *list = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        int32_t a, b;
        if (parse_rank(&s, &a) < 0)
            goto fail_parse;
        b = a;
        if (*s == '-') {
            s++;
            if (parse_rank(&s, &b) < 0 || b < a || b - a > 1000000)
                goto fail_parse;
        }
        for (int64_t r = a; r <= b; r++) {
            if (n == cap) {
                cap = cap ? cap * 2 : 16;
                int32_t *q = realloc(list, cap * sizeof *q);
                if (!q)
                    goto fail_parse;
                list = q;
            }
            list[n++] = (int32_t)r;
        }
        if (*s == '\0')
            break;
        if (*s++ != ',')
            goto fail_parse;
    }
    *out = list;
    return (int)n;
fail_parse:
    free(list);
    return -1;
}

/* libhdf5 1.10 can loop forever or read out of bounds on some damaged
 * files (decoding a variable-length string from a damaged global heap,
 * found by corrupting profiles on purpose); nothing in the reader can see
 * it coming, as the damage is inside libhdf5's own metadata. Those strings
 * are all read while opening, which reads only metadata, so while opening
 * a time limit turns such a hang, and a fault handler such a crash, into a
 * one-line error. Neither limits how long real work on a big run takes. */
static char timeout_msg[512], crash_msg[512];

static void open_timed_out(int sig)
{
    (void)sig;
    ssize_t w = write(STDERR_FILENO, timeout_msg, strlen(timeout_msg));
    (void)w;
    _exit(1);
}

static void open_crashed(int sig)
{
    (void)sig;
    ssize_t w = write(STDERR_FILENO, crash_msg, strlen(crash_msg));
    (void)w;
    _exit(1);
}

scope_profile *scope__open_or_report(char **paths, int n)
{
    char bad[300];
    if (scope__setting(SCOPE_SET_OPEN_TIMEOUT)->state == SCOPE_SETTING_BAD) {
        fprintf(stderr, "scope: %s\n", scope__setting_message(SCOPE_SET_OPEN_TIMEOUT, bad, sizeof bad));
        return NULL;
    }
    uint64_t secs = scope__setting_u(SCOPE_SET_OPEN_TIMEOUT);
    const char *first = n > 0 ? paths[0] : "", *more = n > 1 ? " ..." : "";
    snprintf(timeout_msg, sizeof timeout_msg,
             "scope: %s%s: opening made no progress for %u s; the file is probably "
             "damaged (set SCOPE_OPEN_TIMEOUT to wait longer, 0 for ever)\n", first, more, (unsigned)secs);
    snprintf(crash_msg, sizeof crash_msg,
             "scope: %s%s: libhdf5 crashed reading the file's metadata; the file is "
             "probably damaged\n", first, more);
    static const int faults[] = { SIGSEGV, SIGBUS, SIGFPE, SIGABRT };
    struct sigaction sa = { .sa_handler = open_crashed }, old[4];
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 4; i++)
        sigaction(faults[i], &sa, &old[i]);
    if (secs) {
        signal(SIGALRM, open_timed_out);
        alarm((unsigned)secs);
    }
    scope_profile *p;
    int rc = scope_profile_open_paths((const char *const *)paths, n, &p);
    if (secs) {
        alarm(0);
        signal(SIGALRM, SIG_DFL);
    }
    for (int i = 0; i < 4; i++)
        sigaction(faults[i], &old[i], NULL);
    if (rc < 0) {
        scope__fail_msg(scope_reader_errmsg());
        return NULL;
    }
    return p;
}

int scope__note_compensation(scope_profile *p, int rank, FILE *out)
{
    double in, caller, in_lo = 0, in_hi = 0, c_lo = 0, c_hi = 0;
    int n = 0, missing = 0;
    for (int k = 0; k < scope_profile_rank_count(p); k++) {
        int r = scope_profile_rank(p, k);
        if (rank != SCOPE_ALL_RANKS && r != rank)
            continue;
        if (scope_profile_overhead(p, r, &in, &caller) < 0) {
            missing++;
            continue;
        }
        if (n == 0 || in < in_lo) in_lo = in;
        if (n == 0 || in > in_hi) in_hi = in;
        if (n == 0 || caller < c_lo) c_lo = caller;
        if (n == 0 || caller > c_hi) c_hi = caller;
        n++;
    }
    if (missing)
        return scope__fail_msg(scope_reader_errmsg());
    if (n == 1 || (in_lo == in_hi && c_lo == c_hi))
        fprintf(out, "compensated: each call's measured recording cost is subtracted "
                "(%.1f ns from its time, %.1f ns per child call from its parent's self)\n",
                in_lo, c_lo);
    else
        fprintf(out, "compensated: each call's measured recording cost is subtracted "
                "(%.1f-%.1f ns from its time, %.1f-%.1f ns per child call from its "
                "parent's self; measured by each of %d ranks)\n", in_lo, in_hi, c_lo, c_hi, n);
    return 0;
}

int scope__parse_plot_limit(const char *cmd, int c, const char *arg, scope__plot_opts *po)
{
    int64_t v;
    if (scope__parse_i64(arg, &v) < 0 || v < 1 || v > 100000000)
        return scope__usage_error(cmd, "--%s needs a number >= 1, not '%s'",
                                  c == 'c' ? "max-calls" : "max-regions", arg);
    if (c == 'c')
        po->max_calls = v;
    else
        po->max_regions = (int)v;
    return 0;
}
