/*
 * clock_model.c - the linear clock model of one rank (clock_model.h):
 * parsing the measurements, the error bound over the rank's span, folding
 * the model into the ticks -> ns conversion, and the attributes that record
 * it.
 *
 * Model: offset(t) = o_i + (t - t_i) * (o_f - o_i) / (t_f - t_i) for a
 * rank measured at init (t_i, o_i ± e_i) and at finalize (t_f, o_f ± e_f);
 * o_i alone (no drift) for a rank measured only at init (it crashed, or was
 * recovered). If the true offset is linear in t (constant rate), its error
 * at t is at most |1 - l| e_i + |l| e_f with l = (t - t_i) / (t_f - t_i):
 * max(e_i, e_f) between the two measurements (clock_error_ns: everything
 * the application does between MPI_Init and MPI_Finalize), growing outside
 * them (clock_span_error_ns: the maximum over the rank's whole recorded
 * span, process start and the inside of MPI_Init included). A short run
 * measures the drift poorly ((e_i + e_f) / (t_f - t_i)), so the second
 * bound can be much larger than the first.
 */
#include "clock_model.h"
#include "scope_format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY_PREFIX "scope.clock."

int scope__clock_model_is_key(const char *key)
{
    return strncmp(key, KEY_PREFIX, sizeof KEY_PREFIX - 1) == 0;
}

/* The last value stored under KEY_PREFIX `name`, or NULL. */
static const char *kv(const struct scope_jr *jr, const char *name)
{
    const char *v = NULL;
    for (size_t i = 0; i + 1 < jr->n_kv; i += 2)
        if (scope__clock_model_is_key(jr->kv[i]) &&
            strcmp(jr->kv[i] + sizeof KEY_PREFIX - 1, name) == 0)
            v = jr->kv[i + 1];
    return v;
}

/* Values beyond these are not a clock (a journal is untrusted input): a
 * sample outside them is ignored, which also keeps every product below in
 * range of __int128. */
#define SANE_NS ((int64_t)1 << 61) /* 73 years */

static void parse_sample(struct scope__clock_sample *s, const char *v)
{
    long long a[5];
    s->valid = v && sscanf(v, "%lld %lld %lld %lld %lld", &a[0], &a[1], &a[2], &a[3], &a[4]) == 5 &&
               a[0] >= 0 && a[0] < SANE_NS && a[1] > -SANE_NS && a[1] < SANE_NS && a[2] >= 0 &&
               a[2] < SANE_NS;
    if (!s->valid)
        return;
    s->local_ns = a[0];
    s->offset_ns = a[1];
    s->error_ns = a[2];
    s->round_trip_ns = a[3];
    s->cost_ns = a[4];
}

static int64_t parse_i64(const char *v)
{
    long long x;
    return v && sscanf(v, "%lld", &x) == 1 ? x : -1;
}

/* Two usable measurements: apart in time, and no more than 10 % apart in
 * rate beyond what their error bounds allow (real clocks differ by ppm;
 * more is a damaged journal). The bounds count: in a run of a few
 * milliseconds two honest offsets, each within a few hundred us, may
 * differ by more than a tenth of the span. */
static int has_drift(const struct scope__clock_model *m)
{
    if (!m->init.valid || !m->fin.valid || m->fin.local_ns <= m->init.local_ns)
        return 0;
    int64_t d = m->fin.offset_ns - m->init.offset_ns;
    int64_t noise = m->init.error_ns + m->fin.error_ns; /* each < SANE_NS */
    return (d < 0 ? -d : d) - noise <= (m->fin.local_ns - m->init.local_ns) / 10;
}

/* The error bound at local time t (see the file comment), rounded up. */
static int64_t bound_at(const struct scope__clock_model *m, int64_t t)
{
    if (!has_drift(m))
        return m->init.error_ns;
    long double span = (long double)(m->fin.local_ns - m->init.local_ns);
    long double l = (long double)(t - m->init.local_ns) / span;
    long double e = (l < 1 ? 1 - l : l - 1) * m->init.error_ns + (l < 0 ? -l : l) * m->fin.error_ns;
    return e < 9e18L ? (int64_t)e + 1 : INT64_MAX;
}

void scope__clock_model_from_journal(struct scope__clock_model *m, const struct scope_jr *jr)
{
    memset(m, 0, sizeof *m);
    m->host_index = m->hosts = -1;
    parse_sample(&m->init, kv(jr, "init"));
    parse_sample(&m->fin, kv(jr, "finalize"));
    if (!m->init.valid || !has_drift(m))
        m->fin.valid = 0; /* a finalize measurement alone is not a model */
    long long a, b;
    const char *h = kv(jr, "host");
    if (h && sscanf(h, "%lld %lld", &a, &b) == 2 && a >= 0 && b > a) {
        m->host_index = a;
        m->hosts = b;
    }
    m->worst_init = parse_i64(kv(jr, "worst_init"));
    m->worst_fin = parse_i64(kv(jr, "worst_finalize"));
    if (!m->init.valid)
        return;
    /* the span recorded, in local time: from the run start to finalize,
     * or to the latest calibration of a crashed rank */
    int64_t lo = jr->hdr.start_ns, hi = jr->hdr.end_ns;
    if (jr->last_calib_ns > hi)
        hi = jr->last_calib_ns;
    if (hi < lo)
        hi = lo;
    int64_t e1 = bound_at(m, lo), e2 = bound_at(m, hi);
    m->error_ns = m->init.error_ns;
    if (m->fin.valid && m->fin.error_ns > m->error_ns)
        m->error_ns = m->fin.error_ns;
    m->span_error_ns = e1 > e2 ? e1 : e2;
    if (m->error_ns > m->span_error_ns)
        m->span_error_ns = m->error_ns;
}

/* aligned(t) = t + o_i + (t - t_i) * (o_f - o_i) / (t_f - t_i). Sums
 * wrap instead of overflowing: a damaged journal gives wrong times, never
 * undefined behaviour. */
static int64_t align(const struct scope__clock_model *m, int64_t t)
{
    uint64_t r = (uint64_t)t + (uint64_t)m->init.offset_ns;
    if (has_drift(m))
        r += (uint64_t)(int64_t)(((__int128)t - m->init.local_ns) *
                                 (m->fin.offset_ns - m->init.offset_ns) /
                                 (m->fin.local_ns - m->init.local_ns));
    return (int64_t)r;
}

void scope__clock_model_fold(const struct scope__clock_model *m, struct scope_jr *jr)
{
    if (!m->init.valid)
        return;
    /* ns(ticks) = base_ns + (d * mult) >> 64 is linear, and so is align():
     * the composition is the same form with base_ns -> align(base_ns) and
     * mult scaled by 1 + drift. */
    if (has_drift(m)) {
        /* mult * D / T in two parts: the remainder's product stays in
         * range (|mult % T| < T < 2^62, |D| < 2^62), the quotient's wraps
         * (unsigned) on a damaged journal instead of overflowing */
        __int128 d = m->fin.offset_ns - m->init.offset_ns, t = m->fin.local_ns - m->init.local_ns;
        unsigned __int128 q = (unsigned __int128)(jr->mult / t) * (unsigned __int128)d;
        jr->mult = (__int128)((unsigned __int128)jr->mult + q +
                              (unsigned __int128)(jr->mult % t * d / t));
    }
    jr->base_ns = align(m, jr->base_ns);
    jr->hdr.start_ns = align(m, jr->hdr.start_ns);
    if (jr->hdr.end_ns)
        jr->hdr.end_ns = align(m, jr->hdr.end_ns);
    if (jr->last_calib_ns)
        jr->last_calib_ns = align(m, jr->last_calib_ns);
}

static int attr(hid_t obj, const char *name, hid_t type, const void *v)
{
    if (H5Aexists(obj, name) > 0)
        H5Adelete(obj, name);
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, type, sp, H5P_DEFAULT, H5P_DEFAULT);
    int rc = a >= 0 && H5Awrite(a, type, v) >= 0 ? 0 : -1;
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(sp);
    return rc;
}

static int attr_i64(hid_t obj, const char *name, int64_t v)
{
    return attr(obj, name, H5T_NATIVE_INT64, &v);
}

static int attr_str(hid_t obj, const char *name, const char *v)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    int rc = attr(obj, name, t, &v);
    H5Tclose(t);
    return rc;
}

static int write_sample(hid_t g, const char *when, const struct scope__clock_sample *s)
{
    static const char *const names[5] = { "clock_local_%s_ns", "clock_offset_%s_ns",
                                          "clock_error_%s_ns", "clock_round_trip_%s_ns",
                                          "clock_align_cost_%s_ns" };
    const int64_t v[5] = { s->local_ns, s->offset_ns, s->error_ns, s->round_trip_ns, s->cost_ns };
    int rc = 0;
    for (int i = 0; i < 5; i++) {
        char name[64];
        snprintf(name, sizeof name, names[i], when);
        rc |= attr_i64(g, name, v[i]);
    }
    return rc;
}

int scope__clock_model_write_rank(hid_t g, const struct scope__clock_model *m)
{
    /* an integer, not a string: readers of damaged files must be able to
     * read it without HDF5's global heap (where variable strings live) */
    int8_t state = !m->init.valid ? 0 : m->fin.valid ? 2 : 1;
    int rc = attr(g, SCOPE_A_CLOCK_ALIGNED, H5T_NATIVE_INT8, &state);
    if (!m->init.valid)
        return rc;
    rc |= attr_i64(g, SCOPE_A_CLOCK_HOST_INDEX, m->host_index);
    rc |= attr_i64(g, SCOPE_A_CLOCK_HOSTS, m->hosts);
    rc |= write_sample(g, "init", &m->init);
    if (m->fin.valid)
        rc |= write_sample(g, "finalize", &m->fin);
    double ppm = 0;
    if (has_drift(m))
        ppm = (double)(m->fin.offset_ns - m->init.offset_ns) * 1e6 /
              (double)(m->fin.local_ns - m->init.local_ns);
    rc |= attr(g, SCOPE_A_CLOCK_DRIFT_PPM, H5T_NATIVE_DOUBLE, &ppm);
    rc |= attr_i64(g, SCOPE_A_CLOCK_ERROR_NS, m->error_ns);
    rc |= attr_i64(g, SCOPE_A_CLOCK_SPAN_ERROR_NS, m->span_error_ns);
    return rc;
}

int scope__clock_model_write_run(hid_t g, const struct scope__clock_model *m)
{
    if (!m->init.valid || m->hosts < 1)
        return 0;
    int64_t worst = m->worst_init > m->worst_fin ? m->worst_init : m->worst_fin;
    if (m->error_ns > worst)
        worst = m->error_ns;
    /* rank 0's view: every host's measurement bounds (its own are 0) */
    int rc = attr_i64(g, SCOPE_A_CLOCK_HOSTS, m->hosts);
    rc |= attr_i64(g, SCOPE_A_CLOCK_ERROR_NS, worst);
    rc |= attr_str(g, SCOPE_A_CLOCK_REFERENCE, "CLOCK_MONOTONIC of rank 0's host");
    return rc;
}
