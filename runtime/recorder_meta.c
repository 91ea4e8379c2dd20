/*
 * recorder_meta.c - the metadata records of the journal (journal.h,
 * SCOPE_META_*): regions, interposition rows, call paths, key/values and
 * the run's identity, appended to the current meta chunk; and the
 * key/values themselves (scope__set_metadata), kept for a journal made
 * later: the calibration (calibrate.c) stores its figures through it
 * without calling up into recorder.c.
 *
 * Apart from the hot path because these are encodings, written once per
 * region, row or path under the recorder lock, never per event; the
 * converter (journal_read.c) decodes exactly what is encoded here.
 */
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "clock.h"
#include "journal.h"
#include "proc_self.h"
#include "recorder_state.h"

/* Appends one meta record; caller holds the lock. Returns 0 or SCOPE_E*. */
static int meta_append(uint32_t type, const void *const *parts, const size_t *lens, int nparts)
{
    size_t len = 0;
    for (int i = 0; i < nparts; i++)
        len += lens[i];
    size_t need = sizeof(struct scope_meta) + ((len + 7) & ~(size_t)7);
    size_t room = scope__rec.chunk_size - CHUNK_HDR;
    if (need > room)
        return SCOPE_ELIMIT;
    if (!scope__rec.meta || scope__rec.meta->used + need > room) {
        uint64_t idx = atomic_fetch_add((_Atomic uint64_t *)&scope__rec.hdr->chunk_count, 1);
        struct scope_chunk_header *c = scope__rec_map_chunk(idx);
        if (!c)
            return SCOPE_EIO;
        if (scope__rec.meta)
            munmap(scope__rec.meta, scope__rec.chunk_size);
        c->type = SCOPE_CHUNK_META;
        c->seq = scope__rec.meta_seq++;
        scope__clock_pair(&c->calib_ticks, &c->calib_ns);
        c->magic = SCOPE_CHUNK_MAGIC;
        scope__rec.meta = c;
    }
    char *p = (char *)scope__rec.meta + CHUNK_HDR + scope__rec.meta->used;
    struct scope_meta m = { type, (uint32_t)len };
    memcpy(p, &m, sizeof m);
    p += sizeof m;
    for (int i = 0; i < nparts; i++) {
        memcpy(p, parts[i], lens[i]);
        p += lens[i];
    }
    __atomic_store_n(&scope__rec.meta->used, scope__rec.meta->used + need, __ATOMIC_RELEASE);
    return 0;
}

int scope__rec_meta_region(int32_t id, const struct scope__region *r)
{
    uint32_t head[2] = { (uint32_t)id, (uint32_t)r->kind };
    const char *sym = r->symbol ? r->symbol : "", *obj = r->object ? r->object : "";
    const void *parts[] = { head, r->name, sym, obj };
    size_t lens[] = { sizeof head, strlen(r->name) + 1, strlen(sym) + 1, strlen(obj) + 1 };
    return meta_append(SCOPE_META_REGION, parts, lens, 4);
}

int scope__rec_meta_row(const struct scope__rec_row *r)
{
    const void *parts[6];
    size_t lens[6];
    for (int i = 0; i < 6; i++) {
        parts[i] = r->f[i];
        lens[i] = strlen(r->f[i]) + 1;
    }
    return meta_append(SCOPE_META_INTERPOSE, parts, lens, 6);
}

int scope__rec_meta_site(int32_t id, const struct scope__rec_site *st)
{
    const void *parts[1 + 3 * SCOPE_CALLSITE_MAX_DEPTH];
    size_t lens[1 + 3 * SCOPE_CALLSITE_MAX_DEPTH];
    uint32_t head[2] = { (uint32_t)id, (uint32_t)st->depth };
    int n = 0;
    parts[n] = head;
    lens[n++] = sizeof head;
    for (int i = 0; i < st->depth; i++) {
        parts[n] = &st->f[i].offset;
        lens[n++] = sizeof st->f[i].offset;
        parts[n] = st->f[i].build_id;
        lens[n++] = strlen(st->f[i].build_id) + 1;
        parts[n] = st->f[i].object;
        lens[n++] = strlen(st->f[i].object) + 1;
    }
    return meta_append(SCOPE_META_CALLSITE, parts, lens, n);
}

int scope__rec_meta_kv(const char *key, const char *value)
{
    const void *parts[] = { key, value };
    size_t lens[] = { strlen(key) + 1, strlen(value) + 1 };
    return meta_append(SCOPE_META_KV, parts, lens, 2);
}

int scope__rec_meta_comm(int32_t id, int32_t size, int32_t remote_size, const int32_t *world,
                         const char *creator, const char *name)
{
    int32_t head[3] = { id, size, remote_size };
    const void *parts[] = { head, world, creator, name };
    size_t lens[] = { sizeof head, ((size_t)size + (size_t)remote_size) * sizeof *world,
                      strlen(creator) + 1, strlen(name) + 1 };
    return meta_append(SCOPE_META_COMM, parts, lens, 4);
}

int scope__rec_meta_file(const struct scope_file_meta *m, const struct scope_file_names *n)
{
    char buf[4 * PATH_MAX + 256];
    size_t len = scope_file_meta_pack(m, n, buf, sizeof buf);
    if (!len)
        return SCOPE_ELIMIT;
    const void *parts[] = { buf };
    size_t lens[] = { len };
    return meta_append(SCOPE_META_FILE, parts, lens, 1);
}

void scope__rec_write_run_metadata(void)
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n > 0) {
        buf[n] = 0;
        scope__rec_meta_kv("executable", buf);
    }
    char *cmd = scope__read_proc("/proc/self/cmdline");
    if (cmd) {
        scope__rec_meta_kv("command_line", cmd);
        free(cmd);
    }
    if (getcwd(buf, sizeof buf))
        scope__rec_meta_kv("working_directory", buf);
    scope__rec_meta_kv("scope_version", SCOPE_VERSION_STRING);
    scope__rec_meta_kv("clock", "CLOCK_MONOTONIC");
    if (scope__rec.config_text)
        scope__rec_meta_kv("config", scope__rec.config_text);
    for (size_t i = 0; i < scope__rec.n_kv; i++)
        scope__rec_meta_kv(scope__rec.kv[i].key, scope__rec.kv[i].value);
    for (size_t i = 0; i < scope__rec.n_rows; i++)
        scope__rec_meta_row(&scope__rec.rows[i]);
    for (uint32_t id = 0; id < scope__regions_count(); id++)
        scope__rec_meta_region((int32_t)id, scope__regions_get((int32_t)id));
    for (size_t i = 0; i < scope__rec.n_sites; i++)
        scope__rec_meta_site((int32_t)(i + 1), &scope__rec.sites[i]);
}

/* Kept for every journal (a journal made later gets it with the run's
 * metadata) and written now if the journal exists. */
int scope__set_metadata(const char *key, const char *value)
{
    if (!key || !*key || !value)
        return SCOPE_EINVAL;
    int rc = 0;
    scope__rec_lock();
    struct kv *kv = realloc(scope__rec.kv, (scope__rec.n_kv + 1) * sizeof *kv);
    if (!kv) {
        rc = SCOPE_ENOMEM;
        goto out;
    }
    scope__rec.kv = kv;
    kv[scope__rec.n_kv].key = strdup(key);
    kv[scope__rec.n_kv].value = strdup(value);
    if (!kv[scope__rec.n_kv].key || !kv[scope__rec.n_kv].value) {
        free(kv[scope__rec.n_kv].key);
        free(kv[scope__rec.n_kv].value);
        rc = SCOPE_ENOMEM;
        goto out;
    }
    scope__rec.n_kv++;
    if (scope__rec.hdr)
        rc = scope__rec_meta_kv(key, value);
out:
    scope__rec_unlock();
    return rc;
}
