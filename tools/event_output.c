/*
 * event_output.c - the long-form event listing in three formats
 * (event_output.h). It streams: events are read in batches and written
 * at once, so listing a run with more events than memory works, and the
 * table's column widths are known before the first row (names come from
 * the region list, numbers have fixed widths).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "event_output.h"
#include "output.h"
#include "symbolize.h"

#define BATCH 4096
#define PROGRESS_MIN 2000000

void scope__progress(const char *what, int64_t done, int64_t total)
{
    static int last = -1;
    if (total < PROGRESS_MIN || !isatty(2))
        return;
    int pct = (int)(done * 100 / total);
    if (done >= total) {
        fprintf(stderr, "\r%*s\r", (int)strlen(what) + 16, "");
        last = -1;
    } else if (pct != last) {
        fprintf(stderr, "\rscope: %s: %d%%", what, pct);
        last = pct;
    }
}

int64_t scope__rank_events(scope_profile *p, int rank)
{
    int64_t n = 0;
    for (int r = 0; r < scope_profile_region_count(p); r++) {
        int64_t c = scope_profile_calls(p, r, rank);
        if (c > 0)
            n += c;
    }
    return n;
}

/* Display width of a UTF-8 string (characters, not bytes). */
static int width(const char *s)
{
    int w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

int scope__site_names_init(scope_profile *p, scope__site_names *sn)
{
    memset(sn, 0, sizeof *sn);
    if ((sn->n = scope_profile_site_count(p)) < 0) {
        sn->n = 0;
        fprintf(stderr, "scope: %s\n", scope_reader_errmsg());
        return -1;
    }
    if (sn->n > 0 && (!(sn->sym = scope__symbolizer_new()) ||
                      !(sn->locs = calloc((size_t)sn->n, sizeof *sn->locs)))) {
        fprintf(stderr, "scope: out of memory\n");
        return -1;
    }
    return 0;
}

const char *scope__site_name(scope_profile *p, scope__site_names *sn, int site)
{
    if (site < 0 || site >= sn->n)
        return "";
    if (!sn->locs[site]) {
        const scope_callsite_frame *fr;
        int depth;
        if (scope_profile_site_frames(p, site, &fr, &depth) < 0 || depth < 1)
            return "";
        sn->locs[site] = scope__symbolize(sn->sym, &fr[0]);
    }
    return sn->locs[site];
}

void scope__site_names_free(scope__site_names *sn)
{
    for (int i = 0; sn->locs && i < sn->n; i++)
        free(sn->locs[i]);
    free(sn->locs);
    scope__symbolizer_free(sn->sym);
    memset(sn, 0, sizeof *sn);
}

/* site: the callsite cell, or NULL when the listing has no such column. */
static void put_row(FILE *out, scope_profile *p, const scope_event *ev,
                    int format, int ids, int namew, int64_t nrow,
                    const char *site)
{
    const char *name = scope_profile_region_name(p, ev->region);
    char st[40], en[40], du[40];
    scope__fmt_seconds_i64(st, sizeof st, ev->start_ns);
    scope__fmt_seconds_i64(en, sizeof en, ev->end_ns);
    scope__fmt_seconds_i64(du, sizeof du, ev->end_ns - ev->start_ns);
    if (format == SCOPE__EV_CSV) {
        scope__put_csv_field(out, name);
        fprintf(out, ",%d,%lld,%s,%s,%s", ev->rank, (long long)ev->call_index, st, en, du);
        if (ids)
            fprintf(out, ",%lld,%lld", (long long)ev->call_id,
                    (long long)ev->parent_id);
        fprintf(out, ",%d", ev->thread);
        if (site) {
            fputc(',', out);
            scope__put_csv_field(out, site);
        }
        fputc('\n', out);
    } else if (format == SCOPE__EV_JSON) {
        fputs(nrow ? ",\n  {\"name\": " : "\n  {\"name\": ", out);
        scope__put_json_string(out, name);
        fprintf(out, ", \"rank\": %d, \"call_index\": %lld, \"start\": %s, "
                "\"end\": %s, \"duration\": %s", ev->rank,
                (long long)ev->call_index, st, en, du);
        if (ids)
            fprintf(out, ", \"call_id\": %lld, \"parent_id\": %lld",
                    (long long)ev->call_id, (long long)ev->parent_id);
        fprintf(out, ", \"thread\": %d", ev->thread);
        if (site) {
            fputs(", \"callsite\": ", out);
            scope__put_json_string(out, site);
        }
        fputc('}', out);
    } else {
        fprintf(out, "%s%*s  %4d  %10lld  %14s  %14s  %14s", name,
                namew - width(name), "", ev->rank,
                (long long)ev->call_index, st, en, du);
        if (ids)
            fprintf(out, "  %7lld  %9lld", (long long)ev->call_id,
                    (long long)ev->parent_id);
        fprintf(out, "  %6d", ev->thread);
        if (site)
            fprintf(out, "  %s", site);
        fputc('\n', out);
    }
}

int scope__write_events(FILE *out, scope_profile *p,
                        const scope_event_query *q, int format)
{
    scope_events *it;
    if (scope_profile_events_open(p, q, &it) < 0) {
        fprintf(stderr, "scope: %s\n", scope_reader_errmsg());
        return 1;
    }
    scope_event *buf = malloc(BATCH * sizeof *buf);
    int namew = 4, status = 1, ids = q->call_ids != 0;
    scope__site_names sn;
    memset(&sn, 0, sizeof sn);
    for (int r = 0; r < scope_profile_region_count(p); r++) {
        int w = width(scope_profile_region_name(p, r));
        if (w > namew)
            namew = w;
    }
    if (!buf) {
        fprintf(stderr, "scope: out of memory\n");
        goto fail_buf;
    }
    if (q->call_sites && scope__site_names_init(p, &sn) < 0)
        goto fail_buf;
    /* the column only for profiles that hold call sites, so listings of
     * other runs keep their columns */
    int with_sites = sn.n > 0;
    if (format == SCOPE__EV_CSV) {
        fputs(ids ? "name,rank,call_index,start,end,duration,call_id,parent_id,thread"
                  : "name,rank,call_index,start,end,duration,thread", out);
        fputs(with_sites ? ",callsite\n" : "\n", out);
    } else if (format == SCOPE__EV_JSON)
        fputs("{\"events\": [", out);
    else {
        fprintf(out, "name%*s  rank  call_index  %14s  %14s  %14s", namew - 4, "",
                "start", "end", "duration");
        if (ids)
            fputs("  call_id  parent_id", out);
        fputs(with_sites ? "  thread  callsite\n" : "  thread\n", out);
    }
    int64_t got, done = 0, total = scope_events_count(it);
    while ((got = scope_events_read(it, buf, BATCH)) > 0) {
        for (int64_t i = 0; i < got; i++) {
            const char *site = with_sites ? scope__site_name(p, &sn, buf[i].site) : NULL;
            if (with_sites && !site) {
                fprintf(stderr, "scope: out of memory\n");
                goto fail_buf;
            }
            put_row(out, p, &buf[i], format, ids, namew, done + i, site);
        }
        done += got;
        scope__progress("events", done, total);
    }
    scope__progress("events", total, total);
    if (got < 0) {
        fprintf(stderr, "scope: %s\n", scope_reader_errmsg());
        goto fail_buf;
    }
    if (format == SCOPE__EV_JSON)
        fputs(done ? "\n]}\n" : "]}\n", out);
    if (fflush(out) != 0 || ferror(out)) {
        fprintf(stderr, "scope: cannot write the events\n");
        goto fail_buf;
    }
    status = 0;
fail_buf:
    scope__site_names_free(&sn);
    free(buf);
    scope_events_close(it);
    return status;
}
