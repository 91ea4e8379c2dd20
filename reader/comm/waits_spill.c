/*
 * waits_spill.c - the buckets that bound the wait-state analysis's memory
 * (waits_internal.h, docs/analysis.md "Memory").
 *
 * Matching needs, at one time, only the ends of one (sender, receiver)
 * pair and the collective calls of one communicator. So the gathered ends
 * go into buckets (pairs and communicators hashed), and each bucket is
 * matched on its own. A run whose ends fit the memory budget has one
 * bucket, held in memory exactly as before; a bigger one has enough
 * buckets that each fits, and what gathering appends to a bucket beyond
 * its share of the budget goes to an unlinked temporary file (in $TMPDIR,
 * else /tmp), read back when the bucket's turn comes. Append order is kept
 * (file, then memory), so a bucket sees its ends in the order one bucket
 * would have: the results do not depend on the bucket count, only the
 * order of messages in the result does.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "full_io.h"
#include "reader_internal.h"
#include "scope_error.h"
#include "waits_internal.h"

/* An unlinked temporary file: O_TMPFILE where the file system has it,
 * else a named one removed at once. -1 and errno on failure. */
static int temp_fd(void)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0)
        return fd;
    char path[4096];
    size_t n = strlen(dir);
    if (n + sizeof "/scope-waits-XXXXXX" > sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(path, dir, n);
    memcpy(path + n, "/scope-waits-XXXXXX", sizeof "/scope-waits-XXXXXX");
    fd = mkostemp(path, O_CLOEXEC);
    if (fd >= 0)
        unlink(path);
    return fd;
}

static int spill_fail(const char *what)
{
    const char *dir = getenv("TMPDIR");
    return scope__fail(SCOPE_EIO, "matching messages: cannot %s a temporary file in %s: %s", what,
                       dir && *dir ? dir : "/tmp", strerror(errno));
}

/* Writes the stream's memory to its file and empties it. */
static int flush(struct scope__spill *sp, struct scope__stream *s)
{
    if (s->n == 0)
        return 0;
    if (s->fd < 0 && (s->fd = temp_fd()) < 0)
        return spill_fail("create");
    int e = scope__pwrite_full(s->fd, s->buf, (size_t)s->n * s->elem,
                               (uint64_t)s->in_file * s->elem);
    if (e) {
        errno = e;
        return spill_fail("write");
    }
    s->in_file += s->n;
    s->n = 0;
    sp->spilled = 1;
    return 0;
}

int scope__spill_init(struct scope__spill *sp, int nbuckets, const int64_t *presize,
                      int64_t share)
{
    static const size_t elem[SCOPE__STREAMS] = { sizeof(struct scope__p2p),
                                                 sizeof(struct scope__p2p),
                                                 sizeof(struct scope__coll),
                                                 sizeof(struct scope__p2p_msg),
                                                 sizeof(struct scope__p2p_msg) };
    memset(sp, 0, sizeof *sp);
    sp->nbuckets = nbuckets;
    sp->b = calloc((size_t)nbuckets * SCOPE__STREAMS, sizeof *sp->b);
    if (!sp->b)
        return SCOPE_ENOMEM;
    for (int i = 0; i < nbuckets * SCOPE__STREAMS; i++) {
        struct scope__stream *s = &sp->b[i];
        s->fd = -1;
        s->elem = elem[i % SCOPE__STREAMS];
        /* one bucket: the final size, as counted from the calls; more:
         * each stream's share of the budget, filled then written out */
        s->cap = nbuckets == 1 ? presize[i % SCOPE__STREAMS] + 1
                               : (share / (int64_t)s->elem > 1 ? share / (int64_t)s->elem : 1);
        s->presized = nbuckets == 1;
    }
    return 0;
}

int scope__spill_slot(struct scope__spill *sp, int bucket, int stream, void **slot)
{
    struct scope__stream *s = &sp->b[bucket * SCOPE__STREAMS + stream];
    *slot = NULL;
    if (!s->buf) {
        s->buf = s->presized ? scope__malloc_big((size_t)s->cap * s->elem)
                             : malloc((size_t)s->cap * s->elem);
        if (!s->buf)
            return SCOPE_ENOMEM;
    }
    if (s->n == s->cap) {
        if (s->presized) { /* more calls than counted: grow (cannot happen) */
            void *q = realloc(s->buf, (size_t)s->cap * 2 * s->elem);
            if (!q)
                return SCOPE_ENOMEM;
            s->buf = q;
            s->cap *= 2;
        } else {
            int rc = flush(sp, s);
            if (rc < 0)
                return rc;
        }
    }
    *slot = (char *)s->buf + (size_t)s->n++ * s->elem;
    return 0;
}

int64_t scope__spill_take(struct scope__spill *sp, int bucket, int stream, void **out)
{
    struct scope__stream *s = &sp->b[bucket * SCOPE__STREAMS + stream];
    *out = NULL;
    if (s->in_file == 0) { /* hand the memory over */
        *out = s->buf;
        s->buf = NULL;
        int64_t n = s->n;
        s->n = 0;
        return n;
    }
    int64_t n = s->in_file + s->n;
    char *v = scope__malloc_big((size_t)(n + 1) * s->elem);
    if (!v)
        return SCOPE_ENOMEM;
    int e = scope__pread_full(s->fd, v, (size_t)s->in_file * s->elem, 0);
    if (e) {
        free(v);
        errno = e;
        return spill_fail("read");
    }
    if (s->n)
        memcpy(v + (size_t)s->in_file * s->elem, s->buf, (size_t)s->n * s->elem);
    free(s->buf);
    s->buf = NULL;
    close(s->fd);
    s->fd = -1;
    s->in_file = s->n = 0;
    *out = v;
    return n;
}

void scope__spill_free(struct scope__spill *sp)
{
    for (int i = 0; sp->b && i < sp->nbuckets * SCOPE__STREAMS; i++) {
        free(sp->b[i].buf);
        if (sp->b[i].fd >= 0)
            close(sp->b[i].fd);
    }
    free(sp->b);
    sp->b = NULL;
}

int scope__spill_spilled(const struct scope__spill *sp)
{
    return sp->spilled;
}
