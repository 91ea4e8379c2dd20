/*
 * event_output.c - the long-form event listing in three formats
 * (event_output.h). It streams: events are read in batches and written
 * at once, so listing a run with more events than memory works, and the
 * table's column widths are known before the first row (names come from
 * the region list, times from the run's first start and last end, the
 * other numbers have fixed widths), fitted to the terminal if asked.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "event_output.h"
#include "io_cells.h"
#include "output.h"
#include "scope_reader_comm.h"
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
    return (int)scope__text_width(s);
}

/* Decimal digits of v >= 0. */
static int digits(int64_t v)
{
    int d = 1;
    while (v >= 10) {
        v /= 10;
        d++;
    }
    return d;
}

/* The widest start, end or duration the query can print (sign, whole
 * seconds, point, 9 decimals), at least "duration"'s 8: known before the
 * first row from the run's first start and last end. 14 when unknown. */
static int time_width(scope_profile *p, const scope_event_query *q)
{
    int64_t lo, hi, origin = 0;
    if (scope_profile_min_start_ns(p, &lo) < 0 || scope_profile_max_end_ns(p, &hi) < 0)
        return 14;
    if (q->time_mode == SCOPE_TIME_ORIGIN)
        origin = q->origin_ns;
    else if (q->time_mode == SCOPE_TIME_RELATIVE &&
             scope_profile_time_origin_ns(p, &origin) < 0)
        return 14;
    /* in double seconds: no overflow whatever --origin says; rounding is
     * monotonic, so the whole seconds are never counted short */
    double a = ((double)lo - (double)origin) / 1e9, b = ((double)hi - (double)origin) / 1e9;
    double m = a < 0 ? -a : a, mb = b < 0 ? -b : b, d = ((double)hi - (double)lo) / 1e9;
    m = m > mb ? m : mb;
    m = m > d ? m : d;
    int w = (a < 0 || b < 0) + digits(m < 9e18 ? (int64_t)m : INT64_MAX) + 10;
    return w > 8 ? w : 8;
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

/* The table's layout: widths, and the names as shown when elided to fit
 * the terminal (per region, made once). */
typedef struct {
    int namew, timew, sitew;    /* sitew 0: no limit on the callsite */
    char **shown;               /* per region; NULL entries: the full name */
    int nshown;
} layout;

/* The data columns of the (region, rank) of the events being written:
 * consecutive events share them, so the lookup is made once per cell. */
typedef struct {
    int on;                 /* the listing has the columns */
    int region, rank;       /* of m below; region -1: none yet */
    scope_moved m;
} moved_cache;

/* Writes an event's data columns (csv: six cells after a comma; json:
 * six keys), empty (csv) or absent (json) for a call of a region that
 * records none. Returns 0 or -1 (the reader's message is set). */
static int put_moved(FILE *out, scope_profile *p, const scope_event *ev, int format,
                     moved_cache *mc)
{
    if (mc->region != ev->region || mc->rank != ev->rank) {
        if (scope_profile_moved(p, ev->region, ev->rank, &mc->m) < 0)
            return -1;
        mc->region = ev->region;
        mc->rank = ev->rank;
    }
    const scope_moved *m = &mc->m;
    int64_t i = ev->call_index;
    int has = m->bytes_sent && i >= 0 && i < m->n;
    if (format == SCOPE__EV_CSV) {
        if (!has) {
            fputs(",,,,,,", out);
            return 0;
        }
        fprintf(out, ",%lld,%lld,%d,%d,", (long long)m->bytes_sent[i],
                (long long)m->bytes_received[i], m->dest[i], m->source[i]);
        if (m->tag[i] != SCOPE_NO_TAG_VALUE)
            fprintf(out, "%d", m->tag[i]);
        fprintf(out, ",%d", m->comm[i]);
    } else if (has) {
        fprintf(out, ", \"bytes_sent\": %lld, \"bytes_received\": %lld, \"dest\": %d, "
                "\"source\": %d, \"tag\": ", (long long)m->bytes_sent[i],
                (long long)m->bytes_received[i], m->dest[i], m->source[i]);
        if (m->tag[i] != SCOPE_NO_TAG_VALUE)
            fprintf(out, "%d", m->tag[i]);
        else
            fputs("null", out);
        fprintf(out, ", \"comm\": %d", m->comm[i]);
    }
    return 0;
}

/* Writes an event's I/O columns (csv: four cells after a comma; json:
 * four keys), empty (csv) or absent (json) for a call that is not an I/O
 * call, the offset likewise when the call has none. 0, -1 (the
 * reader's message is set) or -2 (out of memory). */
static int put_io(FILE *out, const scope_event *ev, int format, scope__io_cache *ic)
{
    scope__io_cell c;
    int rc = scope__io_cell_of(ic, ev->region, ev->rank, ev->call_index, &c);
    if (rc < 0)
        return rc;
    if (format == SCOPE__EV_CSV) {
        if (!rc) {
            fputs(",,,,", out);
            return 0;
        }
        fprintf(out, ",%s,", scope_io_layer_name(c.layer));
        scope__put_csv_field(out, c.file_name);
        fprintf(out, ",%lld,", (long long)c.bytes);
        if (c.offset >= 0)
            fprintf(out, "%lld", (long long)c.offset);
    } else if (rc) {
        fprintf(out, ", \"io_layer\": \"%s\", \"io_file\": ", scope_io_layer_name(c.layer));
        scope__put_json_string(out, c.file_name);
        fprintf(out, ", \"io_bytes\": %lld", (long long)c.bytes);
        if (c.offset >= 0)
            fprintf(out, ", \"io_offset\": %lld", (long long)c.offset);
    }
    return 0;
}

#define IO_CELL_W 40     /* the table's io column, elided to fit */

/* The table's io cell of an event: "<layer> <bytes> B <file>[ @<offset>]"
 * for an I/O call, the file's name cut at its start to fit IO_CELL_W (a
 * path's end says most), padded; blank for other calls. 0, or as put_io. */
static int put_io_table(FILE *out, const scope_event *ev, scope__io_cache *ic)
{
    scope__io_cell c;
    int rc = scope__io_cell_of(ic, ev->region, ev->rank, ev->call_index, &c);
    if (rc <= 0) {
        if (rc == 0)
            fprintf(out, "  %*s", IO_CELL_W, "");
        return rc;
    }
    char head[64], off[32] = "";
    snprintf(head, sizeof head, "%s %lld B ", scope_io_layer_name(c.layer), (long long)c.bytes);
    if (c.offset >= 0)
        snprintf(off, sizeof off, " @%lld", (long long)c.offset);
    int room = IO_CELL_W - (int)strlen(head) - (int)strlen(off);
    char *file = scope__elide_start(c.file_name, room);
    if (!file)
        return -2;
    int w = (int)strlen(head) + (int)scope__text_width(file) + (int)strlen(off);
    fprintf(out, "  %s%s%s%*s", head, file, off, w < IO_CELL_W ? IO_CELL_W - w : 0, "");
    free(file);
    return 0;
}

/* A CSV row's or JSON object's separator before the field `key` (CSV
 * rows name no keys: the header does). */
static void put_key(FILE *out, int csv, const char *key)
{
    if (csv)
        fputc(',', out);
    else
        fprintf(out, ", \"%s\": ", key);
}

/* Text as a CSV field (quoted when needed) or a JSON string. */
static void put_text(FILE *out, int csv, const char *s)
{
    if (csv)
        scope__put_csv_field(out, s);
    else
        scope__put_json_string(out, s);
}

/* site: the callsite cell, or NULL when the listing has no such column;
 * ic: the I/O columns' cache, NULL when the listing has none. */
static int put_row(FILE *out, scope_profile *p, const scope_event *ev,
                   int format, int ids, const layout *lay, int64_t nrow,
                   const char *site, moved_cache *mc, scope__io_cache *ic)
{
    int rc;
    const char *name = scope_profile_region_name(p, ev->region);
    if (format == SCOPE__EV_TABLE && lay->shown && ev->region >= 0 &&
        ev->region < lay->nshown && lay->shown[ev->region])
        name = lay->shown[ev->region];
    char st[40], en[40], du[40];
    scope__fmt_seconds_i64(st, sizeof st, ev->start_ns);
    scope__fmt_seconds_i64(en, sizeof en, ev->end_ns);
    scope__fmt_seconds_i64(du, sizeof du, ev->end_ns - ev->start_ns);
    if (format != SCOPE__EV_TABLE) {
        int csv = format == SCOPE__EV_CSV;
        if (!csv)
            fputs(nrow ? ",\n  {\"name\": " : "\n  {\"name\": ", out);
        put_text(out, csv, name);
        put_key(out, csv, "rank");
        fprintf(out, "%d", ev->rank);
        put_key(out, csv, "call_index");
        fprintf(out, "%lld", (long long)ev->call_index);
        put_key(out, csv, "start");
        fputs(st, out);
        put_key(out, csv, "end");
        fputs(en, out);
        put_key(out, csv, "duration");
        fputs(du, out);
        if (ids) {
            put_key(out, csv, "call_id");
            fprintf(out, "%lld", (long long)ev->call_id);
            put_key(out, csv, "parent_id");
            fprintf(out, "%lld", (long long)ev->parent_id);
        }
        put_key(out, csv, "thread");
        fprintf(out, "%d", ev->thread);
        if (site) {
            put_key(out, csv, "callsite");
            put_text(out, csv, site);
        }
        if (mc->on && put_moved(out, p, ev, format, mc) < 0)
            return -2;
        if (ic && (rc = put_io(out, ev, format, ic)) < 0)
            return rc == -1 ? -2 : -1;
        fputc(csv ? '\n' : '}', out);
    } else {
        int tw = lay->timew;
        fprintf(out, "%s%*s  %4d  %10lld  %*s  %*s  %*s", name,
                lay->namew - width(name), "", ev->rank,
                (long long)ev->call_index, tw, st, tw, en, tw, du);
        if (ids)
            fprintf(out, "  %7lld  %9lld", (long long)ev->call_id,
                    (long long)ev->parent_id);
        fprintf(out, "  %6d", ev->thread);
        if (ic && (rc = put_io_table(out, ev, ic)) < 0)
            return rc == -1 ? -2 : -1;
        if (site && lay->sitew > 0 && width(site) > lay->sitew) {
            char *cut = scope__elide(site, lay->sitew);
            if (!cut)
                return -1;
            fprintf(out, "  %s", cut);
            free(cut);
        } else if (site) {
            fprintf(out, "  %s", site);
        }
        fputc('\n', out);
    }
    return 0;
}

/* Fits the table into max_width columns (0: no limit): the names give
 * up characters first, down to SCOPE__MIN_NAME_WIDTH, keeping room for
 * a callsite column of 24; the callsite takes what is left. Returns 0 or
 * -1 (out of memory). */
static int fit_layout(scope_profile *p, layout *lay, int max_width, int ids, int sites)
{
    int fixed = 2 + 4 + 2 + 10 + 3 * (2 + lay->timew) + (ids ? 2 + 7 + 2 + 9 : 0) + 2 + 6;
    if (max_width <= 0)
        return 0;
    int room = max_width - fixed - (sites ? 2 + 24 : 0);
    if (room < SCOPE__MIN_NAME_WIDTH)
        room = SCOPE__MIN_NAME_WIDTH;
    if (lay->namew > room) {
        lay->nshown = scope_profile_region_count(p);
        if (!(lay->shown = calloc((size_t)lay->nshown + 1, sizeof *lay->shown)))
            return -1;
        for (int r = 0; r < lay->nshown; r++) {
            const char *name = scope_profile_region_name(p, r);
            if (width(name) > room && !(lay->shown[r] = scope__elide(name, room)))
                return -1;
        }
        lay->namew = room;
    }
    if (sites) {
        lay->sitew = max_width - fixed - lay->namew - 2;
        if (lay->sitew < SCOPE__MIN_NAME_WIDTH)
            lay->sitew = SCOPE__MIN_NAME_WIDTH;
    }
    return 0;
}

int scope__write_events(FILE *out, scope_profile *p,
                        const scope_event_query *q, int format, int max_width, int io)
{
    scope_events *it;
    if (scope_profile_events_open(p, q, &it) < 0) {
        fprintf(stderr, "scope: %s\n", scope_reader_errmsg());
        return 1;
    }
    scope_event *buf = malloc(BATCH * sizeof *buf);
    int status = 1, ids = q->call_ids != 0;
    layout lay = { .namew = 4, .timew = 14 };
    scope__site_names sn;
    memset(&sn, 0, sizeof sn);
    scope__io_cache ic;
    scope__io_cache_init(&ic, p);
    for (int r = 0; r < scope_profile_region_count(p); r++) {
        int w = width(scope_profile_region_name(p, r));
        if (w > lay.namew)
            lay.namew = w;
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
    if (format == SCOPE__EV_TABLE) {
        lay.timew = time_width(p, q);
        if (fit_layout(p, &lay, max_width, ids, with_sites) < 0) {
            fprintf(stderr, "scope: out of memory\n");
            goto fail_buf;
        }
    }
    /* likewise the data columns, in csv and json, for profiles that record
     * what MPI calls moved */
    moved_cache mc = { format != SCOPE__EV_TABLE && scope_profile_has_moved(p), -1, -1, { 0 } };
    /* and the I/O columns for profiles that record I/O calls (io: -1
     * never, 1 even when the profile says it has none) */
    int has_io = io > 0 || (io == 0 && scope_profile_has_io(p) > 0);
    scope__io_cache *icp = has_io ? &ic : NULL;
    if (format == SCOPE__EV_CSV) {
        fputs(ids ? "name,rank,call_index,start,end,duration,call_id,parent_id,thread"
                  : "name,rank,call_index,start,end,duration,thread", out);
        fputs(with_sites ? ",callsite" : "", out);
        fputs(mc.on ? ",bytes_sent,bytes_received,dest,source,tag,comm" : "", out);
        fputs(icp ? ",io_layer,io_file,io_bytes,io_offset\n" : "\n", out);
    } else if (format == SCOPE__EV_JSON)
        fputs("{\"events\": [", out);
    else {
        fprintf(out, "name%*s  rank  call_index  %*s  %*s  %*s", lay.namew - 4, "",
                lay.timew, "start", lay.timew, "end", lay.timew, "duration");
        if (ids)
            fputs("  call_id  parent_id", out);
        fputs("  thread", out);
        if (icp)
            fprintf(out, "  %-*s", IO_CELL_W, "io");
        fputs(with_sites ? "  callsite\n" : "\n", out);
    }
    int64_t got, done = 0, total = scope_events_count(it);
    while ((got = scope_events_read(it, buf, BATCH)) > 0) {
        for (int64_t i = 0; i < got; i++) {
            const char *site = with_sites ? scope__site_name(p, &sn, buf[i].site) : NULL;
            if (with_sites && !site) {
                fprintf(stderr, "scope: out of memory\n");
                goto fail_buf;
            }
            int rc = put_row(out, p, &buf[i], format, ids, &lay, done + i, site, &mc, icp);
            if (rc < 0) {
                fprintf(stderr, "scope: %s\n", rc == -2 ? scope_reader_errmsg() : "out of memory");
                goto fail_buf;
            }
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
    for (int r = 0; lay.shown && r < lay.nshown; r++)
        free(lay.shown[r]);
    free(lay.shown);
    scope__site_names_free(&sn);
    scope__io_cache_free(&ic);
    free(buf);
    scope_events_close(it);
    return status;
}
