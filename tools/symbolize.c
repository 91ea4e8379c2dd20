/*
 * symbolize.c - call-site frames to source locations with libdw
 * (symbolize.h).
 *
 * A stored frame is (object path, build-id, offset), the offset being a
 * file address of the object (the return address minus the load bias the
 * preload got from dl_iterate_phdr's dlpi_addr). So each object is
 * reported to libdwfl offline, on its own, and file address + the
 * module's bias is the address libdwfl wants. Lookups:
 *  - DWARF (dwfl_module_addrdie + dwarf_getscopes): the innermost
 *    function and, for inlined code, each inlined_subroutine's caller with
 *    its DW_AT_call_file:DW_AT_call_line, out to the real function;
 *  - no DWARF: the ELF symbol covering the address (dwfl_module_addrinfo);
 *  - nothing: object+offset.
 * libdw gives linkage names; C++ ones are demangled with libstdc++'s
 * __cxa_demangle (the tool links libstdc++; the profiled process never
 * does).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolize.h"

/* libstdc++'s demangler (C++ ABI), declared here so this file stays C. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len,
                            int *status);

typedef struct object {
    char *path;
    Dwfl *dwfl;             /* NULL when the file did not open */
    Dwfl_Module *mod;
    Dwarf_Addr bias;
    char *build_id;         /* the file's own, lowercase hex ("" if none) */
} object;

struct scope__symbolizer {
    object *objs;
    int n, cap;
};

static const Dwfl_Callbacks offline_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

scope__symbolizer *scope__symbolizer_new(void)
{
    return calloc(1, sizeof(scope__symbolizer));
}

void scope__symbolizer_free(scope__symbolizer *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->n; i++) {
        if (s->objs[i].dwfl)
            dwfl_end(s->objs[i].dwfl);
        free(s->objs[i].path);
        free(s->objs[i].build_id);
    }
    free(s->objs);
    free(s);
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* The cached object for `path`, opened on first use; NULL when out of
 * memory. An object that does not open is cached too (dwfl NULL). */
static object *get_object(scope__symbolizer *s, const char *path)
{
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->objs[i].path, path) == 0)
            return &s->objs[i];
    if (s->n == s->cap) {
        int ncap = s->cap ? s->cap * 2 : 8;
        object *no = realloc(s->objs, (size_t)ncap * sizeof *no);
        if (!no)
            return NULL;
        s->objs = no;
        s->cap = ncap;
    }
    object *o = &s->objs[s->n];
    memset(o, 0, sizeof *o);
    if (!(o->path = strdup(path)))
        return NULL;
    s->n++;
    if (access(path, R_OK) != 0 || !(o->dwfl = dwfl_begin(&offline_callbacks)))
        return o;
    o->mod = dwfl_report_offline(o->dwfl, base_name(path), path, -1);
    dwfl_report_end(o->dwfl, NULL, NULL);
    if (!o->mod || !dwfl_module_getelf(o->mod, &o->bias)) {
        dwfl_end(o->dwfl);
        o->dwfl = NULL;
        o->mod = NULL;
        return o;
    }
    const unsigned char *bits;
    GElf_Addr vaddr;
    int len = dwfl_module_build_id(o->mod, &bits, &vaddr);
    o->build_id = calloc((size_t)(len > 0 ? len : 0) * 2 + 1, 1);
    if (!o->build_id)
        return NULL;
    for (int i = 0; i < len; i++)
        snprintf(o->build_id + 2 * i, 3, "%02x", bits[i]);
    return o;
}

/* A demangled copy of a linkage name (or a copy of it as it is). */
static char *demangle(const char *name)
{
    if (strncmp(name, "_Z", 2) == 0) {
        int status = -1;
        char *d = __cxa_demangle(name, NULL, NULL, &status);
        if (d && status == 0)
            return d;
        free(d);
    }
    return strdup(name);
}

static char *die_name(Dwarf_Die *die)
{
    Dwarf_Attribute a;
    const char *n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
    if (!n)
        n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
    if (!n)
        n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
    return demangle(n ? n : "??");
}

/* Appends printf output to a growing malloc'd string; returns 0 or -1. */
static int appendf(char **buf, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int appendf(char **buf, size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return -1;
    char *nb = realloc(*buf, *len + (size_t)n + 1);
    if (!nb)
        return -1;
    va_start(ap, fmt);
    vsnprintf(nb + *len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    *buf = nb;
    *len += (size_t)n;
    return 0;
}

/* DWARF lookup: "fn (file:line)", with inline frames. NULL when the
 * address has no DWARF (no CU, or no enclosing function). */
static char *from_dwarf(object *o, Dwarf_Addr addr)
{
    Dwarf_Addr cubias;
    Dwarf_Die *cu = dwfl_module_addrdie(o->mod, addr, &cubias);
    /* without .debug_aranges (clang writes none unless asked) libdw finds
     * no CU by address: look through the CUs' own ranges */
    for (Dwarf_Die *c = NULL; !cu && (c = dwfl_module_nextcu(o->mod, c, &cubias));)
        if (dwarf_haspc(c, addr - cubias) > 0)
            cu = c;
    if (!cu)
        return NULL;
    Dwarf_Die *scopes = NULL;
    int ns = dwarf_getscopes(cu, addr - cubias, &scopes);
    if (ns <= 0) {
        free(scopes);
        return NULL;
    }
    const char *file = NULL;
    int line = 0;
    Dwfl_Line *dl = dwfl_module_getsrc(o->mod, addr);
    if (dl) {
        file = dwfl_lineinfo(dl, NULL, &line, NULL, NULL, NULL);
    } else {
        Dwarf_Line *l = dwarf_getsrc_die(cu, addr - cubias);
        if (l && (file = dwarf_linesrc(l, NULL, NULL)))
            dwarf_lineno(l, &line);
    }
    Dwarf_Files *files = NULL;
    size_t nfiles = 0;
    if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0)
        files = NULL;
    char *out = NULL;
    size_t len = 0;
    int nfn = 0, err = 0, i = 0;
    /* The innermost function-like scope; after an inlined_subroutine,
     * dwarf_getscopes_die gives the concrete scopes around it (plain
     * dwarf_getscopes would continue into the inline's abstract
     * definition), where the next one out is the caller. */
    while (!err) {
        while (i < ns && dwarf_tag(&scopes[i]) != DW_TAG_subprogram &&
               dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
            i++;
        if (i >= ns)
            break;
        Dwarf_Die fn = scopes[i];
        int tag = dwarf_tag(&fn);
        char *name = die_name(&fn);
        err = !name || appendf(&out, &len, "%s%s (%s:%d)", nfn ? " inlined in " : "",
                               name, file ? base_name(file) : "??", line) < 0;
        free(name);
        nfn++;
        if (err || tag == DW_TAG_subprogram)
            break;
        /* the caller's location is where this inline copy was called */
        Dwarf_Attribute a;
        Dwarf_Word cf = 0, cl = 0;
        if (dwarf_formudata(dwarf_attr(&fn, DW_AT_call_file, &a), &cf) == 0 &&
            files && cf < nfiles)
            file = dwarf_filesrc(files, cf, NULL, NULL);
        else
            file = NULL;
        line = dwarf_formudata(dwarf_attr(&fn, DW_AT_call_line, &a), &cl) == 0
                   ? (int)cl : 0;
        free(scopes);
        scopes = NULL;
        ns = dwarf_getscopes_die(&fn, &scopes);
        i = 1;                  /* scopes[0] is fn itself */
    }
    free(scopes);
    if (err || nfn == 0) {
        free(out);
        return NULL;
    }
    return out;
}

char *scope__symbolize(scope__symbolizer *s, const scope_callsite_frame *f)
{
    char *out = NULL;
    const char *obj = base_name(f->object);
    object *o = get_object(s, f->object);
    if (!o)
        return NULL;
    if (!o->dwfl) {
        if (asprintf(&out, "%s+%#llx (object missing)", obj,
                     (unsigned long long)f->offset) < 0)
            return NULL;
        return out;
    }
    if (f->build_id[0] && o->build_id[0] && strcmp(f->build_id, o->build_id)) {
        if (asprintf(&out, "%s+%#llx (build-id differs)", obj,
                     (unsigned long long)f->offset) < 0)
            return NULL;
        return out;
    }
    /* the call instruction is just before the return address */
    Dwarf_Addr call = f->offset ? f->offset - 1 : 0;
    if ((out = from_dwarf(o, call + o->bias)))
        return out;
    GElf_Off off = 0;
    GElf_Sym sym;
    const char *name = dwfl_module_addrinfo(o->mod, call + o->bias, &off, &sym,
                                            NULL, NULL, NULL);
    int rc;
    Dwfl_Line *dl = name ? dwfl_module_getsrc(o->mod, call + o->bias) : NULL;
    const char *file = NULL;
    int line = 0;
    if (dl)
        file = dwfl_lineinfo(dl, NULL, &line, NULL, NULL, NULL);
    if (name && file && line > 0) {
        /* a line table but no scope for the function (GCC's outlined
         * OpenMP bodies, main._omp_fn.0): the symbol with the line */
        char *d = demangle(name);
        if (!d)
            return NULL;
        rc = asprintf(&out, "%s (%s:%d)", d, base_name(file), line);
        free(d);
    } else if (name) {
        char *d = demangle(name);
        if (!d)
            return NULL;
        rc = asprintf(&out, "%s+%#llx (%s)", d, (unsigned long long)off + 1, obj);
        free(d);
    } else {
        rc = asprintf(&out, "%s+%#llx", obj, (unsigned long long)f->offset);
    }
    return rc < 0 ? NULL : out;
}

char *scope__symbolize_site(scope__symbolizer *s,
                            const scope_callsite_frame *frames, int depth)
{
    char *out = NULL;
    size_t len = 0;
    if (depth == 0)
        return strdup("");
    for (int i = 0; i < depth; i++) {
        char *one = scope__symbolize(s, &frames[i]);
        int rc = one ? appendf(&out, &len, "%s%s", i ? " <- " : "", one) : -1;
        free(one);
        if (rc < 0) {
            free(out);
            return NULL;
        }
    }
    return out;
}
