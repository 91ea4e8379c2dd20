/*
 * plots.h - the pictures of a profile, drawn as SVG: a timeline with one
 * lane per (rank, thread), a flame graph of the call tree, per-rank bars
 * of each region's total that show load imbalance, and the communication
 * matrix with the message sizes. `scope plot` writes one as a file;
 * `scope report` puts them in its page.
 */
#ifndef SCOPE_TOOLS_PLOTS_H
#define SCOPE_TOOLS_PLOTS_H

#include <stdint.h>
#include <stdio.h>

#include "scope_reader.h"

typedef struct {
    int width;              /* of the picture in px */
    int64_t max_calls;      /* timeline: calls drawn per lane at most; the
                             * longest are kept, and the lane says so */
    int max_regions;        /* imbalance: regions drawn at most (largest
                             * total first) */
} scope__plot_opts;

#define SCOPE__PLOT_DEFAULTS { 1200, 4000, 16 }

/* What a picture drew, for messages and for the report's self-check. */
typedef struct {
    int64_t lanes;          /* timeline lanes */
    int64_t calls;          /* timeline calls drawn */
    int64_t calls_total;    /* timeline calls in the lanes */
    int64_t regions;        /* regions in the legend / imbalance panels */
    int64_t nodes;          /* flame graph boxes */
    int64_t bars;           /* imbalance bars */
    int nesting_lost;       /* timeline: calls overlap partially, so
                             * every call is drawn at depth 0 */
    int64_t messages;       /* timeline: message arrows drawn */
    int64_t messages_total; /* matched messages of the run */
} scope__plot_counts;

/* The thread lane of call k of (region, rank): 0 when the rank recorded
 * one thread (plot_timeline.c; the exports use it too). */
int32_t scope__call_lane(scope_profile *p, int region, int rank, int64_t k);

/* Each writes one <svg> element to out and fills *counts (zeroed first).
 * They read and lay out everything before writing, so on failure nothing
 * has been written. Returns 0, or a SCOPE_E* code; then the message is
 * scope_reader_errmsg(), or "out of memory" for SCOPE_ENOMEM. Cost: the
 * timeline and flame graph build each rank's call stack in turn (about
 * 100 bytes per call of the largest rank); the timeline keeps at most
 * max_calls calls per lane. */
int scope__plot_timeline(FILE *out, scope_profile *p,
                         const scope__plot_opts *o, scope__plot_counts *counts);
int scope__plot_flame(FILE *out, scope_profile *p, const scope__plot_opts *o,
                      scope__plot_counts *counts);
int scope__plot_imbalance(FILE *out, scope_profile *p,
                          const scope__plot_opts *o,
                          scope__plot_counts *counts);

/* The communication picture (plot_comm.c): the point-to-point bytes of
 * every (sender, receiver) pair of world ranks as a heat map, and the
 * message sizes as bars. counts: lanes = world ranks, calls = messages,
 * nodes = cells drawn, bars = size buckets. Same contract as above. */
int scope__plot_comm(FILE *out, scope_profile *p, const scope__plot_opts *o,
                     scope__plot_counts *counts);
/* The same for traffic of `kind` (scope_reader_comm.h: SCOPE_COMM_P2P, or
 * SCOPE_COMM_ONE_SIDED: the one-sided calls, from the rank data left to
 * the rank it reached). */
int scope__plot_comm_kind(FILE *out, scope_profile *p, const scope__plot_opts *o, int kind,
                          scope__plot_counts *counts);

/* The message that goes with a code returned above. */
const char *scope__plot_errmsg(int code);

#endif
