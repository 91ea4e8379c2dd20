/*
 * event_output.h - writes the events of a query (one line or object per
 * call) as an aligned table, csv or json; shared by `scope events` and
 * `scope export --to csv|json`.
 */
#ifndef SCOPE_TOOLS_EVENT_OUTPUT_H
#define SCOPE_TOOLS_EVENT_OUTPUT_H

#include <stdio.h>

#include "scope_reader.h"

enum { SCOPE__EV_TABLE, SCOPE__EV_CSV, SCOPE__EV_JSON };

/* Streams the events of q to out in `format`. Columns, the names and order
 * of the Python module's events() (the seed tutorial's, then scope's own):
 * name, rank, call_index, start, end, duration (plain seconds, as in the
 * tutorial: the unit is documented, not part of the name), then, when
 * q->call_ids, call_id and parent_id, then thread, and, when q->call_sites
 * and the profile holds call sites, callsite: the call's immediate caller
 * resolved by symbolize.c ("fn (file.c:12)"; "" for a call without a
 * site), then, in csv and json of a profile that records what MPI calls
 * moved, bytes_sent, bytes_received, dest, source, tag, comm (empty cells,
 * absent keys, for calls of other regions; a tag of none is empty or
 * null), then, in csv and json of a profile that records I/O calls
 * (`io` 0; -1 never, 1 always), io_layer, io_file, io_bytes, io_offset:
 * what each I/O call did (layer name, the file's name as resolved, else as
 * given, bytes, offset; empty cells or absent keys for other calls and for
 * an offset of none); the table has them in one io column before the
 * callsite ("stdio 4096 B /path @0", elided to 40). The table fits max_width
 * characters (0: no limit; see scope__out_width) by eliding long names.
 * Prints a one-line error and returns 1 on failure, 0 on success. Memory:
 * one batch of events. */
int scope__write_events(FILE *out, scope_profile *p,
                        const scope_event_query *q, int format, int max_width, int io);

/* Call sites by name for event listings: frame 0 of each merged site,
 * resolved by symbolize.c when first asked and kept. */
typedef struct scope__symbolizer scope__symbolizer;
typedef struct {
    scope__symbolizer *sym;
    char **locs;
    int n;              /* sites in the profile; 0: it holds none */
} scope__site_names;

/* Loads the profile's sites; 0, or -1 with a one-line error printed. */
int scope__site_names_init(scope_profile *p, scope__site_names *sn);
/* "fn (file.c:12)" for a merged site, "" for -1; NULL when out of memory. */
const char *scope__site_name(scope_profile *p, scope__site_names *sn, int site);
void scope__site_names_free(scope__site_names *sn);

/* Shows "scope: <what>: N%" on stderr when it is a terminal and total is
 * large; done == total clears the line. Cheap enough to call per batch. */
void scope__progress(const char *what, int64_t done, int64_t total);

/* Calls recorded on `rank` over all regions (SCOPE_ALL_RANKS: the run);
 * what per-rank loops report progress in. Cost: no file access. */
int64_t scope__rank_events(scope_profile *p, int rank);

#endif
