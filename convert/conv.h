/*
 * conv.h - the state of one journal's conversion (h5writer.c), shared with
 * the files that write parts of its rank group (calls.c, rank_tables.c,
 * call_data.c, requests.c). Internal to convert/.
 */
#ifndef SCOPE_CONV_H
#define SCOPE_CONV_H

#include <hdf5.h>
#include <limits.h>
#include <stdint.h>

#include "clock_model.h"
#include "journal_read.h"
#include "h5writer.h"
#include "scope_convert.h"

/* The windows and datasets of what a region's MPI calls moved
 * (call_data.c); NULL in regions without data records. */
struct region_data {
    int64_t *sent, *received;
    int32_t *dest, *source, *tag, *comm;
    hid_t ds[6];
    int64_t *self;          /* bytes_to_self, when the region has_self */
    hid_t ds_self;
};

struct region_io;   /* io_data.c */

struct region_out {
    uint64_t count, next, base;
    uint32_t win;
    uint32_t first_thread;
    int multi_thread;
    int64_t *start, *end;
    int32_t *tid;
    int32_t *site;          /* callsite_ids window, when has_sites */
    int64_t *seq;           /* begin_seq window, when the rank has ties */
    int32_t *dep;           /* depth window, likewise */
    int has_sites;          /* some call of the region carried a call site */
    int has_data;           /* some call of the region carried a data record */
    int has_self;           /* and some a self record (the bytes_to_self column) */
    struct region_data *data;
    struct region_omp *omp; /* an OpenMP region's columns (omp_calls.c), else NULL */
    int has_io;             /* some call of the region carried an I/O data record */
    struct region_io *io;
    char *link;             /* encoded link name */
    hid_t ds_start, ds_end, ds_tid, ds_site; /* open while windows are being flushed */
    hid_t ds_seq, ds_dep;
    hid_t ds_unwound;       /* created at the region's first unwound call */
};

struct frame {
    uint32_t region;
    uint32_t tag;           /* an OpenMP region's instance (omp_calls.c), else 0 */
    uint64_t slot;
};

struct thread_in {
    struct scope_jr_cursor cur;
    struct scope_rec rec;   /* current record, valid when live */
    int live;
    struct frame *stack;
    size_t depth, cap;
    struct frame closed;    /* the call the latest end closed */
    int has_closed;
    uint64_t last_ticks, first_ticks;
};

struct conv {
    struct scope_jr jr;
    struct scope__shared_table *shared; /* host files only, else NULL */
    const struct scope_convert_request *req;
    int rank;
    hid_t file, rank_grp, regions_grp;
    struct region_out *reg;
    struct thread_in *th;
    uint32_t n_threads_used;
    int write_tid;
    int write_order;        /* begin_seq and depth: a thread had ties */
    uint64_t begins;        /* begin_seq of the next call */
    uint64_t invalid, unterminated;
    int collided;                  /* the rank file went to a collision name */
    char placed[PATH_MAX + 64];    /* where the rank file went */
    struct scope__clock_model clock; /* applied to every timestamp (clock_model.h) */
    struct conv_requests *requests; /* posts and completions (requests.c) */
    struct conv_omp *omp;   /* OpenMP instances (omp_calls.c); NULL without */
    void *windows;          /* every region's windows, in one mapping */
    size_t windows_len;
};

/* calls.c: the two passes over the journal's events. _open_threads
 * opens a cursor per thread; _count_calls is pass 1 (the calls per
 * region, ties); _create_regions makes /rank<N>/regions' groups and
 * windows; _merge_events is pass 2, which fills them. Each returns 0 or
 * SCOPE_E*. _close_region closes a region's datasets once written;
 * _windows_free lets go of the regions' windows (which _create_regions
 * made);
 * _finalize_ns is when the rank stopped recording (the header's end, else
 * its last event). */
int scope__conv_open_threads(struct conv *c);
int scope__conv_count_calls(struct conv *c);
int scope__conv_create_regions(struct conv *c);
int scope__conv_merge_events(struct conv *c);
void scope__conv_close_region(struct region_out *o);
void scope__conv_windows_free(struct conv *c);
int64_t scope__conv_finalize_ns(const struct conv *c);

/* rank_tables.c: /rank<N>/threads, /rank<N>/interposition and
 * /rank<N>/callsites of docs/format.md. Each returns 0 or SCOPE_E*. */
int scope__conv_write_threads(struct conv *c);
int scope__conv_write_interposition(struct conv *c);
int scope__conv_write_callsites(struct conv *c);

/* call_data.c: the columns of what MPI calls moved, following the
 * writer's windows, and /rank<N>/communicators. Each returns 0 or
 * SCOPE_E*. _window_bytes is the memory of a window of `win` calls, which
 * _window lays the region's columns over (the caller owns `mem`); _begin
 * sets window slot i to "no data"; _datasets creates the columns in the
 * region's group g;
 * _flush writes window slots [0, n) at o->base; _set stores one call's
 * values (patching a written window in place; `self`: what its self
 * record gave, the bytes_to_self column's value, or NULL). */
struct scope_call_data;
size_t scope__conv_data_window_bytes(uint32_t win);
int scope__conv_data_window(struct region_out *o, char *mem);
int scope__conv_data_begin(struct region_out *o, uint64_t i);
int scope__conv_data_datasets(struct region_out *o, hid_t g);
int scope__conv_data_flush(struct region_out *o, uint64_t n);
int scope__conv_data_set(struct conv *c, struct frame f, const struct scope_call_data *v,
                         const int64_t *self);
void scope__conv_data_close(struct region_out *o);
void scope__conv_data_free(struct region_out *o);
int scope__conv_write_comms(struct conv *c);
/* A receive post's columns completed from its completion's status: bytes,
 * and source and tag where the post named none (-1 / SCOPE_NO_TAG keep
 * what the post said). */
int scope__conv_data_received(struct conv *c, struct frame f, int64_t bytes, int32_t source,
                              int32_t tag);

/* io_data.c: the columns of what I/O calls did, following the writer's
 * windows as call_data.c's do (the same five calls), and /rank<N>/files
 * from the journal's file table. Each returns 0 or SCOPE_E*. */
struct scope_io_data;
int scope__conv_io_begin(struct region_out *o, uint64_t i);
int scope__conv_io_datasets(struct region_out *o, hid_t g);
int scope__conv_io_flush(struct region_out *o, uint64_t n);
int scope__conv_io_set(struct conv *c, struct frame f, const struct scope_io_data *v);
void scope__conv_io_close(struct region_out *o);
void scope__conv_io_free(struct region_out *o);
int scope__conv_write_files(struct conv *c);

/* requests.c: the request records that followed the end of call `done`
 * (a post names itself; completions name their post), and
 * /rank<N>/requests. Each returns 0 or SCOPE_E*. */
struct scope_rec;
int scope__conv_requests(struct conv *c, struct frame done, const struct scope_rec *req, size_t n);
int scope__conv_write_requests(struct conv *c);
void scope__conv_requests_free(struct conv *c);

/* omp_calls.c: OpenMP regions' columns (docs/format.md "OpenMP").
 * _classify marks the OpenMP regions (before pass 1); _site_aux says
 * whether a begin's aux is a call site (not for parallel regions and
 * implicit tasks), _carries_site whether the region has sites that come
 * with the end (parallel regions); _begin reads a begin's aux into window
 * slot i and gives the frame's tag; _end reads an end's; _task_end is
 * when the parallel region of an implicit task still open ended
 * (INT64_MIN: not known); _datasets, _flush, _close, _free as call_data's.
 * Those returning int return 0 or SCOPE_E*. */
int scope__conv_omp_classify(struct conv *c);
int scope__conv_omp_site_aux(const struct region_out *o);
int scope__conv_omp_carries_site(const struct region_out *o);
int scope__conv_omp_begin(struct conv *c, struct region_out *o, uint64_t i, uint32_t aux,
                          uint32_t *frame_tag);
int scope__conv_omp_end(struct conv *c, struct frame f, uint32_t aux, int64_t ns);
int64_t scope__conv_omp_task_end(const struct conv *c, struct frame f);
/* `ns`, or earlier: the end of the parallel region of the innermost
 * implicit task open on thread `th` when that region ended before `ns`
 * (a worker's late end, docs/openmp.md). For ends of OpenMP regions only;
 * costs a walk of the thread's open calls. */
int64_t scope__conv_omp_clip_end(const struct conv *c, const struct thread_in *th, int64_t ns);
int scope__conv_omp_datasets(struct region_out *o, hid_t g);
int scope__conv_omp_flush(struct region_out *o, uint64_t n);
void scope__conv_omp_close(struct region_out *o);
void scope__conv_omp_free(struct conv *c);

#endif
