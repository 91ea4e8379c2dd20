/*
 * recorder_settings.c - where the recorder writes and how much memory it
 * may map: SCOPE_OUTPUT and SCOPE_MEMORY_BUDGET (which win over the
 * program's scope_options), and the chunk size and chunk count that the
 * budget gives.
 *
 * Apart from recorder.c because it is the recorder's only reading of the
 * environment besides the launcher's variables (launcher.c). The budget is
 * read with the one byte-count grammar (size_parse.c) that the config
 * layer uses, so a value the preload refuses is refused here too; a
 * program linked with libscope.so alone has nobody else to tell it, so a
 * bad value is said here, once, and the default used.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "journal_dir.h"
#include "journal_storage.h"
#include "recorder_internal.h"
#include "size_parse.h"

#define DEFAULT_OUTPUT "scope_profile.h5"
#define DEFAULT_BUDGET (64ull << 20)
#define MIN_CHUNK (64u << 10)
#define MAX_CHUNK (1u << 20)

/* SCOPE_MEMORY_BUDGET's bytes, or `dflt` when it is unset or empty; a
 * value that is not a byte count above zero is said once per process on
 * stderr, naming it, and `dflt` is used. */
static uint64_t env_budget(uint64_t dflt)
{
    static atomic_int said;
    const char *s = getenv("SCOPE_MEMORY_BUDGET");
    if (!s || !*s)
        return dflt;
    uint64_t v = 0;
    size_t bad;
    int rc = scope__parse_size(s, strlen(s), &v, &bad);
    if (rc == SCOPE__SIZE_OK && v > 0)
        return v;
    if (!atomic_exchange(&said, 1))
        fprintf(stderr, "scope: SCOPE_MEMORY_BUDGET='%s' ignored (%s); using %llu bytes\n", s,
                rc == SCOPE__SIZE_RANGE ? "number too large"
                : rc == SCOPE__SIZE_OK  ? "must be greater than 0"
                                        : "not a byte count such as 64M or 1GiB",
                (unsigned long long)dflt);
    return dflt;
}

/* The config file's journal_dir (preload/lifecycle.c sets it before
 * scope_init; SCOPE_JOURNAL_DIR wins). */
static char cfg_journal_dir[PATH_MAX];
static char cfg_journal_dir_origin[PATH_MAX + 32];

void scope__set_journal_dir(const char *dir, const char *origin)
{
    snprintf(cfg_journal_dir, sizeof cfg_journal_dir, "%s",
             dir ? dir : "");
    snprintf(cfg_journal_dir_origin, sizeof cfg_journal_dir_origin, "%s",
             origin ? origin : "journal_dir");
}

int scope__rec_settings(const scope_options *opts)
{
    const char *out = getenv("SCOPE_OUTPUT");
    if (!out || !*out)
        out = opts && opts->output && *opts->output ? opts->output : DEFAULT_OUTPUT;
    int rc = scope__absolute_path(out, scope__rec.output, sizeof scope__rec.output);
    if (rc < 0)
        return rc;
    scope__ranks_dir_of(scope__rec.output, scope__rec.ranks_dir, sizeof scope__rec.ranks_dir);
    const char *jd = getenv("SCOPE_JOURNAL_DIR");
    const char *origin = "SCOPE_JOURNAL_DIR";
    if (!jd || !*jd) {
        jd = cfg_journal_dir;
        origin = cfg_journal_dir_origin;
    }
    scope__rec.journal_apart = scope__journal_dir_choose(jd, origin, scope__rec.ranks_dir,
                                                         scope__rec.journal_dir,
                                                         sizeof scope__rec.journal_dir);

    uint64_t budget = env_budget(opts && opts->memory_budget ? opts->memory_budget : DEFAULT_BUDGET);
    if (budget < 4 * (uint64_t)MIN_CHUNK)
        budget = 4 * (uint64_t)MIN_CHUNK;
    uint64_t chunk = budget / 256;
    chunk = chunk < MIN_CHUNK ? MIN_CHUNK : chunk > MAX_CHUNK ? MAX_CHUNK : chunk;
    chunk &= ~(uint64_t)4095;
    scope__rec.budget = budget;
    scope__rec.chunk_size = (uint32_t)chunk;
    /* One chunk's worth stays for the header page and the meta chunk. */
    scope__rec.max_live = (uint32_t)(budget / chunk) - 1;
    return 0;
}
