/*
 * interpose.c - the engine's driver: for each config entry, find the
 * functions it names in the loaded objects (interpose_match.c), instrument
 * each one once, and report what happened.
 *
 * Matching rules (docs/config.md, and the Fortran rule below):
 *   - an exact pattern is compared with the symbol's (mangled) name, or,
 *     when the entry is a C++ demangled name, with the demangled name;
 *   - a glob is matched against both the mangled and the demangled name;
 *   - an object qualifier keeps only objects whose basename, soname (or,
 *     when it has a '/', path) it matches;
 *   - Fortran: an exact, plain-identifier pattern that matches nothing as
 *     written also matches the names gfortran gives the same procedure:
 *     lowercase + "_" (external procedure) and "__<module>_MOD_<lowercase>"
 *     (module procedure), e.g. `compute` finds `compute_` and
 *     `__solver_MOD_compute`.
 *
 * Aliases (a function and its profiling alias PMPI_Send, __GI_ names,
 * several entries naming one function) share an address and are
 * instrumented once, under the first entry that names them and the name a
 * user would recognise. An IFUNC is resolved to the implementation this
 * CPU gets, which is what is patched.
 *
 * What a function is beyond its name is the captures' (capture.h): the
 * first capture that claims a symbol gives it its kind, maybe its
 * region's name, and an op its calls hand back to that capture; the
 * engine itself knows no paradigm.
 *
 * Method: inline patching (patch.c) first; for a library function it
 * refuses, the GOT slots that import it (got.c); never both.
 *
 * Cost: an object is read only when its string table can hold a name
 * some entry matches (object_filter.c); its symbols are read and hashed
 * once (symbol_index.c), every entry is matched in one pass per object, and the
 * patches of one look (start-up, or a dlopen) are written as one batch
 * (code made writable once per segment, GOT relocations read once), so a
 * start-up grows with what it patches (docs/interposition.md).
 */
#include "interpose.h"
#include "interpose_match.h"

#include <dirent.h>
#include <link.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "clock.h"
#include "got.h"
#include "object_filter.h"
#include "patch.h"
#include "proc_self.h"
#include "scope_internal.h"
#include "callsites.h"
#include "load_segments.h"
#include "log.h"
#include "shadow_stack.h"
#include "symbol_index.h"
#include "symbols.h"
#include "unpatchable.h"

#define MAX_OBJECTS 4096

/* Where a start-up (or a dlopen) spent its time, for SCOPE_VERBOSE. */
struct timing {
    double index, match, patch, got, disasm;    /* seconds */
    size_t objects, unread, symbols, demangled; /* unread: no name can match */
    size_t partial;             /* of objects: only the captures' names (symbols.h) */
    size_t dflt, dflt_inline, dflt_got, dflt_refused; /* the captures' defaults */
};

static struct {
    const scope_config *cfg;
    struct scope__objfilter *filter; /* which objects to read (NULL: all) */
    struct scope__namepat *pats;    /* each entry's pattern, compiled once */
    char *seen[MAX_OBJECTS];    /* paths of objects already handled */
    uintptr_t seen_bias[MAX_OBJECTS];
    uintptr_t seen_lo[MAX_OBJECTS], seen_hi[MAX_OBJECTS];  /* their mapped range */
    uint8_t seen_alive[MAX_OBJECTS];
    size_t n_seen;
    char self_path[4096];
    int rank0;
    size_t *found;              /* per entry: functions instrumented so far */
    uint8_t *matched;           /* per entry: matched some function (even refused) */
    char **pending;             /* per entry: its "matched nothing" (or "none
                                   can be timed") warning, kept until the
                                   process is known to record */
    int warned;
    struct scope__got_fn *got;  /* functions timed through the GOT */
    size_t n_got;
    struct timing t;            /* of the run in progress */
    size_t n_late;              /* looks after start-up (dlopen) */
    double late_wall, late_cpu; /* their time */
    size_t late_fns;            /* functions they instrumented */
    long long subs_seen;        /* the loader's unload count at the last look */
} E;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU time of this thread: on a busy machine wall time also counts the
 * time other processes had the CPU. */
static double cpu_s(void)
{
    return 1e-9 * (double)scope__thread_cpu_ns();
}

/* A function a capture defines itself and times in its own wrapper
 * (capture.h `wrapped`): one mechanism per call. */
static int skipped(const struct match *m, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (scope__capture_wraps(m[i].sym->name))
            return 1;
    return 0;
}

/* ---------------------------------------------------------------- objects */

/* An object the filter said cannot match (object_filter.c): read only if
 * a "did you mean" needs its names, and its GOT still redirected. */
struct unread {
    char *path;
    uintptr_t bias;
    int is_main;
};

struct collect {
    struct loaded *list;
    size_t n, cap;              /* cap: room kept to read the unread ones */
    size_t n_partial;           /* of list: objects given in part (symbols.h) */
    struct unread *unread;
    size_t n_unread;
    int unread_done;            /* they were read (for suggestions) */
};

static int seen_before(const char *path, uintptr_t bias)
{
    for (size_t i = 0; i < E.n_seen; i++)
        if (E.seen_bias[i] == bias && strcmp(E.seen[i], path) == 0)
            return 1;
    return 0;
}

static int collect_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct collect *c = arg;
    const char *name = info->dlpi_name;
    int is_main = !name || !*name;
    if (is_main && !*(name = scope__self_exe()))
        return 0;
    if (strcmp(name, E.self_path) == 0 || strstr(name, "linux-vdso") ||
        (info->dlpi_addr && info->dlpi_addr == scope__patch_disassembler_bias()) ||
        seen_before(name, info->dlpi_addr) || E.n_seen >= MAX_OBJECTS)
        return 0;
    /* no access() first: the filter's open says as much, and an executable
     * deleted since its start is still readable as /proc/self/exe */
    uintptr_t lo, hi;
    scope__load_range(info, &lo, &hi);
    E.seen[E.n_seen] = strdup(name);
    E.seen_lo[E.n_seen] = lo;
    E.seen_hi[E.n_seen] = hi;
    E.seen_bias[E.n_seen++] = info->dlpi_addr;
    struct scope__object partial;
    int look = scope__objfilter_look(E.filter, info, name, is_main, &partial);
    if (look == SCOPE_OBJFILTER_SKIP) {
        struct unread *u = realloc(c->unread, (c->n_unread + 1) * sizeof *u);
        if (!u)
            return 1;
        c->unread = u;
        u[c->n_unread] = (struct unread){ strdup(name), info->dlpi_addr, is_main };
        c->n_unread += u[c->n_unread].path != NULL;
        return 0;
    }
    struct loaded *l = realloc(c->list, (c->n + 1) * sizeof *l);
    if (!l) {
        if (look == SCOPE_OBJFILTER_PARTIAL)
            scope__object_close(&partial);
        return 1;
    }
    c->list = l;
    c->cap = c->n + 1;
    memset(&l[c->n], 0, sizeof *l);
    if (look == SCOPE_OBJFILTER_PARTIAL) {
        l[c->n++].o = partial;
        c->n_partial++;
    } else if (scope__object_read(&l[c->n].o, name, info->dlpi_addr, is_main) == 0) {
        c->n++;
    }
    return 0;
}

/* Reads and indexes the object at path into the next room run() kept,
 * if there is room left. */
static void read_one(struct collect *c, const char *path, uintptr_t bias, int is_main)
{
    if (c->n >= c->cap)
        return;
    struct loaded *l = &c->list[c->n];
    memset(l, 0, sizeof *l);
    if (scope__object_read(&l->o, path, bias, is_main) < 0)
        return;
    if (scope__symindex_build(&l->ix, &l->o) == 0)
        c->n++;
    else
        scope__object_close(&l->o);
}

/* Reads and indexes the objects the filter passed over, and the whole of
 * those it gave in part, into the room run() kept for them, once: only a
 * "did you mean" for an exact name that matched nothing looks at every
 * loaded name. A partial object stays as it is (the matches point into
 * it); its whole read is an object of its own, which only the
 * suggestions look at. */
static void read_unread(struct collect *c)
{
    if (c->unread_done)
        return;
    c->unread_done = 1;
    for (size_t i = 0, n = c->n; i < n; i++)
        if (c->list[i].o.partial)
            read_one(c, c->list[i].o.path, c->list[i].o.bias, c->list[i].o.is_main);
    for (size_t i = 0; i < c->n_unread; i++)
        read_one(c, c->unread[i].path, c->unread[i].bias, c->unread[i].is_main);
}

static void free_objects(struct loaded *list, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        E.t.demangled += list[i].ix.n_demangled;
        scope__symindex_free(&list[i].ix);
        free(list[i].max_end);
        scope__object_close(&list[i].o);
    }
    free(list);
}

/* ---------------------------------------------------------------- applying */

/* Among aliases at one address matched by one entry, the name to show:
 * fewest leading underscores, then the shortest (a function before its
 * profiling alias: MPI_Send, not PMPI_Send), then the first
 * alphabetically. */
static int better_name(const char *a, const char *b)
{
    size_t ua = strspn(a, "_"), ub = strspn(b, "_");
    if (ua != ub)
        return ua < ub;
    size_t la = strlen(a), lb = strlen(b);
    if (la != lb)
        return la < lb;
    return strcmp(a, b) < 0;
}

static int cmp_match(const void *x, const void *y)
{
    const struct match *a = x, *b = y;
    if (a->addr != b->addr)
        return a->addr < b->addr ? -1 : 1;
    return better_name(a->sym->name, b->sym->name) ? -1 :
           better_name(b->sym->name, a->sym->name) ? 1 : 0;
}

static void entry_label(const scope_config_entry *e, char *buf, size_t len)
{
    if (e->line < 0)    /* a capture's default (capture.h `defaults`): "[io] write" */
        snprintf(buf, len, "[%s] %s", scope_kind_name(e->kind), e->pattern);
    else if (e->object)
        snprintf(buf, len, "%s:%s", e->object, e->pattern);
    else
        snprintf(buf, len, "%s", e->pattern);
}

struct report {
    char text[1024];
    size_t off;
    int shown;
    int quiet;                  /* a capture's default: its text is never shown */
    size_t inline_n, got_n, refused_n, already_n;
};

static void report_add(struct report *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void report_add(struct report *r, const char *fmt, ...)
{
    if (r->quiet || r->shown >= 6 || r->off >= sizeof r->text - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(r->text + r->off, sizeof r->text - r->off, fmt, ap);
    va_end(ap);
    if (n > 0)
        r->off += (size_t)n;
    if (r->off > sizeof r->text - 1)
        r->off = sizeof r->text - 1;
    r->shown++;
}

/* Another function symbol whose body contains addr (not at its start):
 * patching addr would rewrite that function's code too. The first such
 * symbol in address order, as a scan from the start would find; found by
 * binary search on the running maximum of the symbols' ends (built once per
 * object), so a large library costs O(log n) per function, not O(n). */
static const struct scope__sym *enclosing(struct loaded *l, uintptr_t addr)
{
    const struct scope__object *o = &l->o;
    if (!o->n_syms)
        return NULL;
    if (!l->max_end) {
        l->max_end = malloc(o->n_syms * sizeof *l->max_end);
        if (!l->max_end)
            return NULL;
        uintptr_t m = 0;
        for (size_t i = 0; i < o->n_syms; i++) {
            uintptr_t end = o->syms[i].addr + o->syms[i].size;
            l->max_end[i] = m = end > m ? end : m;
        }
    }
    size_t lo = 0, hi = o->n_syms;      /* first i with max_end[i] > addr */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->max_end[mid] > addr)
            hi = mid;
        else
            lo = mid + 1;
    }
    /* symbol lo is the first whose end passes addr (the maximum rose there);
     * it contains addr when it starts before it, and no later one can start
     * before it when lo does not (sorted by address) */
    if (lo < o->n_syms && o->syms[lo].addr < addr)
        return &o->syms[lo];
    return NULL;
}

/* A function entry e matched and could not time (`pick` names it, as
 * `shown` in the verbose report): its interposition row and its report
 * line. Returns 0, what instrument() returns then. */
static int refuse(const char *label, const struct match *pick, const char *shown,
                  const char *reason, struct report *rep)
{
    scope__note_interposition(label, pick->sym->name, pick->obj->o.path, "inline", "refused",
                              reason);
    rep->refused_n++;
    report_add(rep, "%s%s in %s refused: %s", rep->shown ? ", " : "", shown,
               pick->obj->o.base, reason);
    return 0;
}

/* Instruments one function (all the aliases `m[0..n)` at one address) for
 * entry e, whose entry_label() is `label`. Returns 1 when instrumented. */
static int instrument(const scope_config_entry *e, const char *label, const struct match *m,
                      size_t n, int atomic, struct report *rep)
{
    const struct match *pick = &m[0];       /* sorted: the best name first */
    const struct scope__sym *s = pick->sym;
    const char *obj = pick->obj->o.path;
    if (skipped(m, n)) {
        scope__note_interposition(label, s->name, obj, "symbol", "patched",
                                  "timed by the preload's own wrapper");
        return 0;
    }
    /* before the GOT stub too: it shares the trampoline (unpatchable.c) */
    const char *never = scope__unpatchable(&pick->obj->o, pick->addr);
    for (size_t i = 0; !never && i < n; i++)
        never = scope__unpatchable_name(m[i].sym->name);   /* an ifunc's target */
    if (never)
        return refuse(label, pick, s->name, never, rep);
    if (scope__patch_done(pick->addr)) {
        scope__note_interposition(label, s->name, obj, "inline", "patched",
                                  "already instrumented by an earlier entry or alias");
        rep->already_n++;
        report_add(rep, "%s%s in %s (already instrumented)", rep->shown ? ", " : "",
                   s->name, pick->obj->o.base);
        return 0;
    }
    const char *dem = strncmp(s->name, "_Z", 2) == 0 ?
        scope__loaded_demangled(pick->obj, (size_t)(s - pick->obj->o.syms)) : NULL;
    const char *shown = dem ? dem : s->name;   /* in the verbose report */
    /* the capture that claims it (the MPI one claims every function of the
     * MPI standard's C names, whatever entry matched it: `*`, `*Send*`) */
    struct scope__claim claim = { .kind = e->kind, .named = e->region != NULL };
    uint32_t cap = (uint32_t)scope__capture_claim(s->name, &claim);
    const char *region = e->region ? e->region : claim.region[0] ? claim.region : shown;
    int32_t id = scope__region_ex(region, claim.kind, s->name, obj);
    uint32_t flags = cap ? cap << SCOPE_FN_CAPTURE_SHIFT | (claim.op & 0xffffu) << SCOPE_FN_OP_SHIFT : 0;
    if (e->callsites > 0 && e->callsites <= SCOPE_CALLSITE_MAX_DEPTH)
        flags |= (uint32_t)e->callsites << SCOPE_FN_DEPTH_SHIFT;
    if (id < 0) {
        scope__note_interposition(label, s->name, obj, "inline", "refused",
                                  "the recorder could not create the region");
        return 0;
    }
    char why[256] = "";
    char reason[400];
    int rc;
    const struct scope__sym *in = enclosing(pick->obj, pick->addr);
    if (in && !scope__patch_at_boundary(in->addr, pick->addr)) {
        snprintf(why, sizeof why, "entry is not at an instruction boundary of %s", in->name);
        rc = SCOPE_EINVAL;
    } else {
        rc = scope__patch_inline(pick->addr, pick->size, id, flags, atomic, why, sizeof why);
    }
    if (rc == 0) {
        reason[0] = 0;
        if (n > 1)
            snprintf(reason, sizeof reason, "%zu aliases at one address", n);
        scope__note_interposition(label, s->name, obj, "inline", "patched", reason);
        rep->inline_n++;
        report_add(rep, "%s%s in %s (inline)", rep->shown ? ", " : "", shown,
                   pick->obj->o.base);
        return 1;
    }
    /* GOT fallback for exported library functions */
    if (!pick->obj->o.is_main && s->bind != STB_LOCAL) {
        uintptr_t stub;
        double t0 = now_s();
        int w = scope__patch_got_stub(pick->addr, id, flags, &stub);
        if (w == 0)
            w = scope__got_redirect(s->name, pick->addr, stub);
        E.t.got += now_s() - t0;
        if (w > 0) {
            scope__patch_mark(pick->addr);
            struct scope__got_fn *g = realloc(E.got, (E.n_got + 1) * sizeof *g);
            if (g) {                        /* libraries loaded later import it too */
                E.got = g;
                g[E.n_got++] = (struct scope__got_fn){ strdup(s->name), pick->addr, stub };
            }
            snprintf(reason, sizeof reason, "inline refused (%s); %d GOT slot%s", why, w,
                     w == 1 ? "" : "s");
            scope__note_interposition(label, s->name, obj, "got", "patched", reason);
            rep->got_n++;
            report_add(rep, "%s%s in %s (GOT, %d slot%s: inline refused: %s)",
                       rep->shown ? ", " : "", shown, pick->obj->o.base, w,
                       w == 1 ? "" : "s", why);
            return 1;
        }
        snprintf(reason, sizeof reason, "%s; no GOT slot imports it either", why);
    } else {
        snprintf(reason, sizeof reason, "%s", why);
    }
    return refuse(label, pick, shown, reason, rep);
}

static int cmp_addr(const void *a, const void *b)
{
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
    return x < y ? -1 : x > y;
}

/* Faults in, in a few calls, the code pages the patches will write (one
 * page fault each otherwise: tens of microseconds apiece on some VMs). */
static void prefault(const scope_config *cfg, struct loaded *objs, const struct hits *hits)
{
    size_t n = 0;
    for (size_t k = 0; k < cfg->n_entries; k++)
        n += hits[k].n;
    uintptr_t *a = n ? malloc(n * sizeof *a) : NULL;
    if (!a)
        return;
    n = 0;
    for (size_t k = 0; k < cfg->n_entries; k++)
        for (size_t i = 0; i < hits[k].n; i++)
            a[n++] = objs[hits[k].v[i].obj].o.syms[hits[k].v[i].sym].addr;
    qsort(a, n, sizeof *a, cmp_addr);
    scope__patch_prefault(a, n);
    free(a);
}

/* Matches the config against objs, then instruments entry by entry, in
 * config order (an alias goes to the first entry that names it). */
static int apply_to(struct collect *c, int atomic, int startup)
{
    const scope_config *cfg = E.cfg;
    struct loaded *objs = c->list;
    size_t n_objs = c->n;
    int total = 0;
    double t_start = now_s(), t_instr = 0, got0 = E.t.got;
    struct hits *hits = calloc(cfg->n_entries, sizeof *hits);
    if (!hits || scope__match_entries(cfg, E.pats, objs, n_objs, hits) < 0) {
        for (size_t k = 0; hits && k < cfg->n_entries; k++)
            free(hits[k].v);
        free(hits);
        return SCOPE_ENOMEM;
    }
    prefault(cfg, objs, hits);
    size_t n_hits = 0;
    for (size_t k = 0; k < cfg->n_entries; k++)
        n_hits += hits[k].n;
    double d0 = now_s();
    if (n_hits && scope__patch_disassembler())  /* loaded by the first patch */
        E.t.disasm = now_s() - d0;
    for (size_t k = 0; k < cfg->n_entries; k++) {
        const scope_config_entry *e = &cfg->entries[k];
        struct match *m = NULL;
        size_t nm = 0;
        for (size_t i = 0; i < hits[k].n; i++)
            scope__match_add(&objs[hits[k].v[i].obj], hits[k].v[i].sym, &m, &nm);
        free(hits[k].v);
        int fortran = 0;
        if (nm == 0 && e->line < 0)
            continue;   /* a capture's default the process does not have */
        if (nm == 0 && !e->is_glob && !e->demangled && scope__plain_identifier(e->pattern)) {
            scope__match_fortran(e, objs, n_objs, &m, &nm);
            fortran = nm > 0;
        }
        char label[700];
        entry_label(e, label, sizeof label);
        if (nm == 0) {
            if (startup && !E.found[k]) {
                char sug[300];
                int loaded = !e->object;
                for (size_t j = 0; j < n_objs && !loaded; j++)
                    loaded = scope__loaded_named(e, &objs[j].o);
                if (loaded) {
                    if (!e->is_glob)    /* its "did you mean" sees every name */
                        read_unread(c);
                    scope__match_suggest(e, c->list, c->n, sug, sizeof sug);
                } else {
                    snprintf(sug, sizeof sug, "no loaded object is '%s' yet (looked for "
                             "again at each dlopen)", e->object);
                }
                scope__note_interposition(label, "", "", "symbol", "not found", sug);
                /* the built-in default (every MPI_*, MPIX_*) finding nothing just
                 * means a program without MPI: no warning for it. The
                 * others wait for scope__interpose_warn_unmatched: a shell
                 * or `hostname` that never records must stay silent. */
                if (e->line > 0 && !E.pending[k]) {
                    char line[1200];
                    snprintf(line, sizeof line, "warning: '%s' (line %d) matched no "
                             "function loaded at start%s%s", label, e->line,
                             sug[0] ? "; " : "", sug);
                    E.pending[k] = strdup(line);
                }
            }
            continue;
        }
        E.matched[k] = 1;
        free(E.pending[k]);     /* "matched nothing at start" no longer holds */
        E.pending[k] = NULL;
        qsort(m, nm, sizeof *m, cmp_match);
        struct report rep = { .quiet = e->line < 0 };
        size_t done = 0;
        double t0 = now_s();
        for (size_t i = 0; i < nm;) {
            size_t j = i + 1;
            while (j < nm && m[j].addr == m[i].addr)
                j++;
            done += (size_t)instrument(e, label, &m[i], j - i, atomic, &rep);
            i = j;
        }
        t_instr += now_s() - t0;
        E.found[k] += done;
        total += (int)done;
        if (e->line < 0) {      /* a capture's default: one line for them all */
            E.t.dflt += done;
            E.t.dflt_inline += rep.inline_n;
            E.t.dflt_got += rep.got_n;
            E.t.dflt_refused += rep.refused_n;
            free(m);
            continue;
        }
        if (!E.found[k] && rep.refused_n && e->line > 0) {
            /* matched, but none could be timed: said at the same moment
             * as "matched nothing", unless a later library gives one */
            char line[2048];
            snprintf(line, sizeof line, "warning: '%s' (line %d) matched %zu "
                     "function%s, none of which can be timed: %s%s", label, e->line,
                     rep.refused_n, rep.refused_n == 1 ? "" : "s", rep.text,
                     rep.refused_n + rep.already_n > 6 ? ", ..." : "");
            free(E.pending[k]);
            E.pending[k] = strdup(line);
        }
        if (cfg->verbose && E.rank0)    /* one copy per job, not one per rank */
            scope__preload_say("'%s' (line %d)%s: %zu inline, %zu GOT, %zu refused%s: %s%s",
                    label, e->line, fortran ? " (Fortran name)" : "", rep.inline_n, rep.got_n,
                    rep.refused_n, rep.already_n ? ", already instrumented" : "", rep.text,
                    rep.inline_n + rep.got_n + rep.refused_n + rep.already_n > 6 ? ", ..." : "");
        free(m);
    }
    free(hits);
    E.t.match += now_s() - t_start - t_instr - E.t.disasm;
    E.t.patch += t_instr - (E.t.got - got0);
    return total;
}

static int mark_alive(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    const char *name = info->dlpi_name;
    for (size_t i = 0; i < E.n_seen; i++)
        if (E.seen_bias[i] == info->dlpi_addr &&
            (!name || !*name || strcmp(E.seen[i], name) == 0))
            E.seen_alive[i] = 1;
    return 0;
}

/* The loader's count of objects unloaded so far (dl_phdr_info's
 * dlpi_subs), read from the first object; -1 when this libc does not say. */
static int read_subs(struct dl_phdr_info *info, size_t size, void *arg)
{
    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs)
        *(long long *)arg = (long long)info->dlpi_subs;
    return 1;                           /* the first object says it */
}

/* Forgets the objects dlclose unloaded since the last look, so that one
 * loaded again (maybe at the same address) is read and patched afresh.
 * Nothing to do when the loader unloaded nothing since the last look: the
 * usual case, and a full pass (a walk matching every object against every
 * one seen) was most of what a look at a dlopen cost. */
void scope__interpose_forget_unloaded(void)
{
    if (!E.cfg)
        return;
    long long subs = -1;
    dl_iterate_phdr(read_subs, &subs);
    if (subs >= 0 && subs == E.subs_seen)
        return;
    E.subs_seen = subs;
    memset(E.seen_alive, 0, E.n_seen);
    dl_iterate_phdr(mark_alive, NULL);
    size_t k = 0;
    for (size_t i = 0; i < E.n_seen; i++) {
        if (!E.seen_alive[i]) {
            scope__patch_forget(E.seen_lo[i], E.seen_hi[i]);
            free(E.seen[i]);
            continue;
        }
        E.seen[k] = E.seen[i];
        E.seen_bias[k] = E.seen_bias[i];
        E.seen_lo[k] = E.seen_lo[i];
        E.seen_hi[k] = E.seen_hi[i];
        k++;
    }
    E.n_seen = k;
}

/* 1 when the process has more than one thread (the entries of
 * /proc/self/task): patching must then use the thread-safe sequence. */
static int multithreaded(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return 1;                       /* cannot tell: be safe */
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (de->d_name[0] != '.')
            n++;
    closedir(d);
    return n > 1;
}

/* One look at the loaded objects: index the new ones, match, patch in one
 * batch (each code segment and stub pool made writable once, its
 * protection given back at the end), and, after a dlopen, point the new
 * objects' GOT slots of the functions timed through the GOT at their
 * stubs. With verbose, rank 0 prints where the time went. */
static int run(int atomic, int startup)
{
    /* the thread's CPU clock is a system call: read for SCOPE_VERBOSE only
     * (a look per dlopen: Open MPI makes ~56 in MPI_Init) */
    int verbose = E.cfg->verbose;
    double t0 = now_s(), c0 = verbose ? cpu_s() : 0;
    size_t mprotects = scope__patch_mprotects();
    memset(&E.t, 0, sizeof E.t);
    struct collect c = { 0 };
    dl_iterate_phdr(collect_object, &c);
    if (startup && c.n_unread + c.n_partial) {  /* room to read them for a "did you mean" */
        struct loaded *l = realloc(c.list, (c.n + c.n_unread + c.n_partial) * sizeof *l);
        if (l) {
            c.list = l;
            c.cap = c.n + c.n_unread + c.n_partial;
        }
    }
    /* indexed once the list stops moving: an index points at its object */
    size_t k = 0;
    for (size_t i = 0; i < c.n; i++) {
        if (k != i)
            c.list[k] = c.list[i];
        if (scope__symindex_build(&c.list[k].ix, &c.list[k].o) == 0)
            E.t.symbols += c.list[k++].o.n_syms;
        else
            scope__object_close(&c.list[k].o);
    }
    c.n = k;
    E.t.objects = c.n;
    E.t.partial = c.n_partial;
    E.t.unread = c.n_unread;
    E.t.index = now_s() - t0;
    scope__patch_batch_begin();
    scope__got_begin();
    int n = c.n || (startup && c.n_unread) ? apply_to(&c, atomic, startup) : 0;
    size_t n_new = c.n + c.n_unread;
    uintptr_t *bias = !startup && E.n_got && n_new ? malloc(n_new * sizeof *bias) : NULL;
    if (bias) {             /* the new objects import GOT-timed functions too */
        double g0 = now_s();
        for (size_t i = 0; i < c.n; i++)
            bias[i] = c.list[i].o.bias;
        for (size_t i = 0; i < c.n_unread; i++)
            bias[c.n + i] = c.unread[i].bias;
        scope__got_redirect_new(E.got, E.n_got, bias, n_new);
        free(bias);
        E.t.got += now_s() - g0;
    }
    scope__got_end();
    scope__patch_batch_end();
    free_objects(c.list, c.n);
    for (size_t i = 0; i < c.n_unread; i++)
        free(c.unread[i].path);
    free(c.unread);
    if (!startup) {
        E.n_late++;
        E.late_wall += now_s() - t0;
        E.late_cpu += verbose ? cpu_s() - c0 : 0;
        E.late_fns += n > 0 ? (size_t)n : 0;
    }
    if (verbose && E.rank0 && E.t.dflt + E.t.dflt_refused > 0)
        scope__preload_say("the captures' own functions (I/O calls): %zu inline, %zu GOT, "
                           "%zu refused", E.t.dflt_inline, E.t.dflt_got, E.t.dflt_refused);
    if (verbose && E.rank0 && (startup || n > 0))
        scope__preload_say("%s: %.1f ms (%.1f ms CPU) for %d functions%s%.0zu%s (index %.1f ms: "
                "%zu objects read, %zu skipped, %zu in part, "
                "%zu symbols; match %.1f ms: %zu demangled; disassembler load %.1f ms; "
                "patch %.1f ms; GOT %.1f ms; "
                "%zu mprotect calls)", startup ? "start-up" : "dlopen",
                1e3 * (now_s() - t0), 1e3 * (cpu_s() - c0),
                n > (int)E.t.dflt ? n - (int)E.t.dflt : 0, E.t.dflt ? " and " : "", E.t.dflt,
                E.t.dflt ? " of the captures' own" : "", 1e3 * E.t.index,
                E.t.objects, E.t.unread, E.t.partial, E.t.symbols, 1e3 * E.t.match, E.t.demangled,
                1e3 * E.t.disasm, 1e3 * E.t.patch, 1e3 * E.t.got,
                scope__patch_mprotects() - mprotects);
    return n;
}

/* With verbose: how many calls could not be observed normally. */
static void report_at_exit(void)
{
    scope__preload_say("interposition: %llu calls closed as unwound (longjmp, exception, "
            "thread exit), %llu not recorded (shadow stack full)",
            (unsigned long long)scope__shadow_unwound(),
            (unsigned long long)scope__shadow_overflows());
    if (E.n_late)
        scope__preload_say("after start-up, %zu dlopen looks at new objects took %.1f ms "
                "(%.1f ms CPU) and instrumented %zu functions", E.n_late, 1e3 * E.late_wall,
                1e3 * E.late_cpu, E.late_fns);
}

/* The pattern a capture says entry e stands for too (capture.h
 * `companion`: an entry naming MPI_SEND also names MPI_Send), into
 * pattern; 1 if one does. */
static int companion(const scope_config_entry *e, char *pattern, size_t len)
{
    for (int k = 1; k <= scope__n_captures; k++)
        if (scope__captures[k].companion && scope__captures[k].companion(e, pattern, len))
            return 1;
    return 0;
}

/* The config with the captures' companion entries added, each after the
 * config's entries (so an entry that names the same function first keeps
 * it), with no line (so it warns of nothing). Returns cfg itself when
 * there are none, else a copy kept for the process's life, or NULL when
 * out of memory. */
static const scope_config *with_companions(const scope_config *cfg)
{
    size_t extra = 0;
    char pattern[256];
    for (size_t i = 0; i < cfg->n_entries; i++)
        extra += (size_t)companion(&cfg->entries[i], pattern, sizeof pattern);
    if (!extra)
        return cfg;
    scope_config *c = malloc(sizeof *c);
    scope_config_entry *v = calloc(cfg->n_entries + extra, sizeof *v);
    if (!c || !v)
        goto fail_alloc;
    *c = *cfg;
    memcpy(v, cfg->entries, cfg->n_entries * sizeof *v);
    size_t n = cfg->n_entries;
    for (size_t i = 0; i < cfg->n_entries; i++) {
        const scope_config_entry *e = &cfg->entries[i];
        if (!companion(e, pattern, sizeof pattern))
            continue;
        v[n] = (scope_config_entry){ .pattern = strdup(pattern), .region = e->region,
                                     .kind = e->kind, .callsites = e->callsites, .line = 0 };
        if (!v[n].pattern)
            goto fail_name;
        n++;
    }
    c->entries = v;
    c->n_entries = n;
    return c;
fail_name:
    while (n > cfg->n_entries)
        free(v[--n].pattern);
fail_alloc:
    free(v);
    free(c);
    return NULL;
}

/* The captures' default entries (capture.h `defaults`: the functions a
 * capture times whatever the config names), after the config's, each
 * with line -1 and the config's call-site depth: no warning, no "not
 * found" row, no Fortran spelling, and never counted as the config
 * matching something. Returns cfg itself
 * when there are none, else a copy kept for the process's life, or NULL
 * when out of memory. */
static const scope_config *with_defaults(const scope_config *cfg)
{
    const char *const *lists[SCOPE_CAPTURE_MAX + 1] = { 0 };
    int kinds[SCOPE_CAPTURE_MAX + 1] = { 0 };
    size_t extra = 0;
    for (int k = 1; k <= scope__n_captures; k++) {
        if (!scope__captures[k].defaults ||
            !(lists[k] = scope__captures[k].defaults(cfg, &kinds[k])))
            continue;
        for (const char *const *p = lists[k]; *p; p++)
            extra++;
    }
    if (!extra)
        return cfg;
    scope_config *c = malloc(sizeof *c);
    scope_config_entry *v = calloc(cfg->n_entries + extra, sizeof *v);
    if (!c || !v) {
        free(v);
        free(c);
        return NULL;
    }
    *c = *cfg;
    memcpy(v, cfg->entries, cfg->n_entries * sizeof *v);
    size_t n = cfg->n_entries;
    for (int k = 1; k <= scope__n_captures; k++)
        for (const char *const *p = lists[k]; p && *p; p++)
            v[n++] = (scope_config_entry){ .pattern = (char *)*p, .kind = kinds[k],
                                           .callsites = cfg->callsites, .line = -1 };
    c->entries = v;
    c->n_entries = n;
    return c;
}

int scope__interpose_apply(const scope_config *cfg)
{
    if (E.cfg)
        return 0;
    int rc = scope__patch_init();
    if (rc < 0)
        return rc;
    cfg = with_companions(cfg);
    if (cfg)
        cfg = with_defaults(cfg);
    if (!cfg)
        return SCOPE_ENOMEM;
    size_t n_e = cfg->n_entries ? cfg->n_entries : 1;
    E.found = calloc(n_e, sizeof *E.found);
    E.matched = calloc(n_e, sizeof *E.matched);
    E.pending = calloc(n_e, sizeof *E.pending);
    if (!E.found || !E.matched || !E.pending)
        return SCOPE_ENOMEM;
    E.cfg = cfg;
    if (scope__objfilter_build(&E.filter, cfg) < 0)
        E.filter = NULL;                    /* out of memory: read every object */
    E.pats = scope__match_compile(cfg);     /* NULL: out of memory, nothing matched */
    Dl_info self;
    if (dladdr((void *)scope__interpose_apply, &self) && self.dli_fname)
        snprintf(E.self_path, sizeof E.self_path, "%s", self.dli_fname);
    E.rank0 = scope__launcher_rank() <= 0;   /* -1: not under a launcher */
    scope__unwind_hooks_init();
    int depth = 0;
    for (size_t i = 0; i < cfg->n_entries; i++)
        if (cfg->entries[i].callsites > depth)
            depth = cfg->entries[i].callsites;
    if (depth > 0)
        scope__callsites_setup(depth, cfg->verbose, scope__shadow_walk_begin,
                               scope__shadow_walk_end);
    if (cfg->verbose)
        atexit(report_at_exit);
    /* registered after the recorder's own handler, so it runs before the
     * recorder finalizes, and after the summary's, so it is counted there */
    atexit(scope__shadow_close_all);
    /* normally the constructor, single-threaded; the preload may also
     * start recording at MPI_Init, when libraries may have started threads */
    return run(multithreaded(), 1);
}

int scope__interpose_new_objects(void)
{
    if (!E.cfg)
        return 0;
    scope__interpose_forget_unloaded();
    return run(1, 0);
}

int scope__interpose_matched_any(void)
{
    for (size_t k = 0; E.cfg && k < E.cfg->n_entries; k++)
        if (E.matched[k] && E.cfg->entries[k].line >= 0)
            return 1;
    return 0;
}

void scope__interpose_warn_unmatched(int skip_kind)
{
    if (!E.cfg || E.warned)
        return;
    E.warned = 1;
    for (size_t k = 0; k < E.cfg->n_entries; k++) {
        if (!E.pending[k] || E.found[k])
            continue;           /* timed in a library dlopen'ed since */
        if (E.cfg->entries[k].kind == skip_kind)
            continue;           /* not this process's business */
        scope__preload_say("%s", E.pending[k]);   /* one write per line */
    }
}
