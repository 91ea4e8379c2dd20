/*
 * clock_model.h - from the clock measurements a rank stored in its journal
 * (preload/clock_align.c) to the linear model that puts its timestamps on
 * rank 0's host timeline, and the attributes that say what was applied
 * (docs/format.md, docs/clocks.md). Part of the converter (scope-h5write,
 * `scope recover`).
 *
 * Journal metadata keys (strings, SCOPE_META_KV), all "scope.clock.*":
 *   host            "<host index> <hosts>"   (index 0 = rank 0's host)
 *   init, finalize  "<local_ns> <offset_ns> <error_ns> <round_trip_ns> <cost_ns>"
 *   worst_init, worst_finalize   "<ns>": the largest error bound of any
 *                   host at that measurement (every rank gets rank 0's)
 * These never reach /metadata as strings.
 */
#ifndef SCOPE_CLOCK_MODEL_H
#define SCOPE_CLOCK_MODEL_H

#include <hdf5.h>
#include <stdint.h>

#include "journal_read.h"

struct scope__clock_sample {
    int valid;
    int64_t local_ns;       /* this host's clock at the middle of the exchange */
    int64_t offset_ns;      /* rank 0's host clock minus this host's */
    int64_t error_ns;       /* |true offset - offset_ns| <= error_ns */
    int64_t round_trip_ns;
    int64_t cost_ns;        /* time this rank spent in the measurement */
};

struct scope__clock_model {
    struct scope__clock_sample init, fin;
    int64_t host_index, hosts;          /* -1 when not measured */
    int64_t worst_init, worst_fin;      /* -1 when unknown */
    int64_t error_ns;                   /* bound between the two measurements
                                           (at the init one without finalize) */
    int64_t span_error_ns;              /* bound over the whole recorded span,
                                           extrapolation included */
};

/* Reads the measurements from jr's metadata and computes the bounds
 * (between the measurements, and over the span the rank recorded: jr's
 * header, local times). Call before
 * scope__clock_model_fold. Cost: one pass over the metadata strings. */
void scope__clock_model_from_journal(struct scope__clock_model *m, const struct scope_jr *jr);

/* Folds the model into jr's ticks -> ns conversion (and the header's ns
 * fields), so every timestamp the converter derives afterwards is on rank
 * 0's host timeline: aligned = local + offset_init + (local - local_init) *
 * drift, exact integer arithmetic. Nothing changes without a measurement.
 * Relies on scope__jr_ns() being the one linear map (base_ticks, base_ns,
 * mult) of journal_read.h: a conversion with more parameters must be
 * folded here too (tests/hosts fails by hours if it is not). */
void scope__clock_model_fold(const struct scope__clock_model *m, struct scope_jr *jr);

/* 1 when a metadata key belongs to the clock model (not copied to /metadata). */
int scope__clock_model_is_key(const char *key);

/* Writes the clock_* attributes of /rank<N> (docs/format.md). Returns 0
 * or -1 on an HDF5 error. */
int scope__clock_model_write_rank(hid_t rank_grp, const struct scope__clock_model *m);

/* Writes clock_hosts and clock_error_ns into /metadata when measured.
 * Returns 0 or -1 on an HDF5 error. */
int scope__clock_model_write_run(hid_t metadata_grp, const struct scope__clock_model *m);

#endif /* SCOPE_CLOCK_MODEL_H */
