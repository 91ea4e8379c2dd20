/*
 * test_config_entries.c - function entries beyond bare names: quoting,
 * `as` region names, object qualifiers, C++ demangled names (scopes,
 * templates with blanks, cv-qualifiers, operators), escapes, kinds, and
 * per-entry / global callsites.
 */
#include "parse_check.h"

/* Checks one entry of a single-entry config. */
static void entry_is_(const char *text, const char *pattern, const char *object,
                      const char *region, int is_glob, int object_is_glob, int demangled,
                      int kind, int callsites, const char *file, int line)
{
    scope_config *cfg = parse_ok_(text, file, line);
    if (!cfg)
        return;
    check_i64((long long)cfg->n_entries, 1, "n_entries", file, line);
    const scope_config_entry *e = &cfg->entries[0];
    check_str(e->pattern, pattern, "pattern", file, line);
    check_str(e->object, object, "object", file, line);
    check_str(e->region, region, "region", file, line);
    check_i64(e->is_glob, is_glob, "is_glob", file, line);
    check_i64(e->object_is_glob, object_is_glob, "object_is_glob", file, line);
    check_i64(e->demangled, demangled, "demangled", file, line);
    check_i64(e->kind, kind, "kind", file, line);
    check_i64(e->callsites, callsites, "callsites", file, line);
    check_i64(e->line, 1, "line", file, line);
    scope__config_free(cfg);
}
#define ENTRY_IS(text, pat, obj, region, glob, oglob, dem, kind, cs) \
    entry_is_((text), (pat), (obj), (region), (glob), (oglob), (dem), (kind), (cs), __FILE__, __LINE__)

enum { F = SCOPE_KIND_FUNCTION, M = SCOPE_KIND_MPI };

static void test_region_names(void)
{
    ENTRY_IS("dgemm_ as blas\n", "dgemm_", NULL, "blas", 0, 0, 0, F, 0);
    ENTRY_IS("dgemm_ as \"BLAS dgemm\"\n", "dgemm_", NULL, "BLAS dgemm", 0, 0, 0, F, 0);
    ENTRY_IS("dgemm_   as   x.y/z # c\n", "dgemm_", NULL, "x.y/z", 0, 0, 0, F, 0);
    ENTRY_IS("dgemm_ as \"say \\\"hi\\\" # not a comment\"\n", "dgemm_", NULL,
             "say \"hi\" # not a comment", 0, 0, 0, F, 0);
    /* `as` is only a keyword after the pattern: alone it is a function. */
    ENTRY_IS("as\n", "as", NULL, NULL, 0, 0, 0, F, 0);
    ENTRY_IS("as as as\n", "as", NULL, "as", 0, 0, 0, F, 0);
}

static void test_quoting(void)
{
    ENTRY_IS("\"ns::Solver::*\"  as solver\n", "ns::Solver::*", NULL, "solver", 1, 0, 1, F, 0);
    ENTRY_IS("\"foo\"\n", "foo", NULL, NULL, 0, 0, 0, F, 0);
    ENTRY_IS("\"a # b\"\n", "a # b", NULL, NULL, 0, 0, 0, F, 0);
    /* Escapes: removed from exact names, kept for fnmatch in globs. */
    ENTRY_IS("\"lit\\*eral\"\n", "lit*eral", NULL, NULL, 0, 0, 0, F, 0);
    ENTRY_IS("lit\\*eral\n", "lit*eral", NULL, NULL, 0, 0, 0, F, 0);
    ENTRY_IS("a\\*b*\n", "a\\*b*", NULL, NULL, 1, 0, 0, F, 0);
    ENTRY_IS("\"f\\\"q\"\n", "f\"q", NULL, NULL, 0, 0, 0, F, 0);
    ENTRY_IS("f[abc]?\n", "f[abc]?", NULL, NULL, 1, 0, 0, F, 0);
    ENTRY_IS("f[]x]\n", "f[]x]", NULL, NULL, 1, 0, 0, F, 0);
    ENTRY_IS("f[[:digit:]]\n", "f[[:digit:]]", NULL, NULL, 1, 0, 0, F, 0);
}

static void test_objects(void)
{
    ENTRY_IS("libblas.so.3:dgemm_\n", "dgemm_", "libblas.so.3", NULL, 0, 0, 0, F, 0);
    ENTRY_IS("libblas*:d*\n", "d*", "libblas*", NULL, 1, 1, 0, F, 0);
    ENTRY_IS("libblas.so.[0-9]:dgemm_\n", "dgemm_", "libblas.so.[0-9]", NULL, 0, 1, 0, F, 0);
    ENTRY_IS("/opt/lib/libx.so:f\n", "f", "/opt/lib/libx.so", NULL, 0, 0, 0, F, 0);
    ENTRY_IS("libmpi.so.40:MPI_Send as send\n", "MPI_Send", "libmpi.so.40", "send", 0, 0, 0, M, 0);
    ENTRY_IS("libsolver.so:ns::Solver::step(int)\n", "ns::Solver::step(int)", "libsolver.so",
             NULL, 0, 0, 1, F, 0);
    ENTRY_IS("\"libsolver.so:ns::Solver::operator==(ns::Solver const&) const\"\n",
             "ns::Solver::operator==(ns::Solver const&) const", "libsolver.so", NULL, 0, 0, 1, F, 0);
    /* "::" is a C++ scope, and a ':' inside [...] or (...) is no qualifier. */
    ENTRY_IS("ns::f\n", "ns::f", NULL, NULL, 0, 0, 1, F, 0);
    ENTRY_IS("ns::f[abi:cxx11]()\n", "ns::f[abi:cxx11]()", NULL, NULL, 1, 0, 1, F, 0);
    ENTRY_IS("ns::f\\[abi:cxx11\\]()\n", "ns::f[abi:cxx11]()", NULL, NULL, 0, 0, 1, F, 0);
    ENTRY_IS("f(std::map<int, int>::iterator)\n", "f(std::map<int, int>::iterator)", NULL, NULL,
             0, 0, 1, F, 0);
}

static void test_cxx_names(void)
{
    ENTRY_IS("ns::Solver::step(int)\n", "ns::Solver::step(int)", NULL, NULL, 0, 0, 1, F, 0);
    ENTRY_IS("std::vector<int, std::allocator<int> >::push_back(int const&) as push\n",
             "std::vector<int, std::allocator<int> >::push_back(int const&)", NULL, "push",
             0, 0, 1, F, 0);
    ENTRY_IS("ns::Solver::*\n", "ns::Solver::*", NULL, NULL, 1, 0, 1, F, 0);
    ENTRY_IS("max<double>\n", "max<double>", NULL, NULL, 0, 0, 1, F, 0);
    /* '*' in a pointer type is a wildcard (it also matches itself); "\*"
     * makes the name exact. */
    ENTRY_IS("(anonymous namespace)::helper(double*, int)\n",
             "(anonymous namespace)::helper(double*, int)", NULL, NULL, 1, 0, 1, F, 0);
    ENTRY_IS("(anonymous namespace)::helper(double\\*, int)\n",
             "(anonymous namespace)::helper(double*, int)", NULL, NULL, 0, 0, 1, F, 0);
    /* cv/ref qualifiers after a blank belong to the name. */
    ENTRY_IS("A::get() const\n", "A::get() const", NULL, NULL, 0, 0, 1, F, 0);
    ENTRY_IS("A::get()   const   &&  as g callsites=2\n", "A::get() const &&", NULL, "g",
             0, 0, 1, F, 2);
    ENTRY_IS("A::v() volatile & # c\n", "A::v() volatile &", NULL, NULL, 0, 0, 1, F, 0);
    /* Operators are written quoted. */
    ENTRY_IS("\"ns::T::operator<(ns::T const&) const\"\n", "ns::T::operator<(ns::T const&) const",
             NULL, NULL, 0, 0, 1, F, 0);
    ENTRY_IS("\"operator new(unsigned long)\" as new\n", "operator new(unsigned long)", NULL,
             "new", 0, 0, 1, F, 0);
    ENTRY_IS("\"ns::T::operator()()\"\n", "ns::T::operator()()", NULL, NULL, 0, 0, 1, F, 0);
    /* A word merely containing "operator" is an ordinary name. */
    ENTRY_IS("my_operator_fn\n", "my_operator_fn", NULL, NULL, 0, 0, 0, F, 0);
    ENTRY_IS("ns::operators(int)\n", "ns::operators(int)", NULL, NULL, 0, 0, 1, F, 0);
}

static void test_kinds(void)
{
    ENTRY_IS("MPI_*\n", "MPI_*", NULL, NULL, 1, 0, 0, M, 0);
    ENTRY_IS("PMPI_Allreduce\n", "PMPI_Allreduce", NULL, NULL, 0, 0, 0, M, 0);
    /* an MPI library's extensions (Open MPI 4.1's persistent collectives
     * MPIX_Bcast_init & co) are MPI calls; a name that only starts alike
     * is not */
    ENTRY_IS("MPIX_foo\n", "MPIX_foo", NULL, NULL, 0, 0, 0, M, 0);
    ENTRY_IS("MPIX_*\n", "MPIX_*", NULL, NULL, 1, 0, 0, M, 0);
    ENTRY_IS("PMPIX_Bcast_init\n", "PMPIX_Bcast_init", NULL, NULL, 0, 0, 0, M, 0);
    ENTRY_IS("MPIXY\n", "MPIXY", NULL, NULL, 0, 0, 0, F, 0);
    ENTRY_IS("mpi_send_\n", "mpi_send_", NULL, NULL, 0, 0, 0, F, 0);
    ENTRY_IS("MPI*\n", "MPI*", NULL, NULL, 1, 0, 0, F, 0);
}

static void test_callsites(void)
{
    ENTRY_IS("f callsites=4\n", "f", NULL, NULL, 0, 0, 0, F, 4);
    ENTRY_IS("f callsites = 16 as r\n", "f", NULL, "r", 0, 0, 0, F, 16);
    ENTRY_IS("f as r callsites=0\n", "f", NULL, "r", 0, 0, 0, F, 0);
    ENTRY_IS("f callsites=\"3\"\n", "f", NULL, NULL, 0, 0, 0, F, 3);
    /* The global default applies to entries without their own, wherever
     * the setting stands in the file. */
    scope_config *cfg = PARSE_OK("a\nb callsites=0\ncallsites = 5\nc callsites=7\n");
    if (cfg) {
        CHECK_INT(cfg->callsites, 5);
        CHECK_INT(cfg->callsites_from.source, SCOPE_SRC_FILE);
        CHECK_INT(cfg->callsites_from.line, 3);
        CHECK_INT(cfg->n_entries, 3);
        if (cfg->n_entries == 3) {
            CHECK_INT(cfg->entries[0].callsites, 5);
            CHECK_INT(cfg->entries[1].callsites, 0);
            CHECK_INT(cfg->entries[2].callsites, 7);
        }
        scope__config_free(cfg);
    }
    /* ...and to the default list of a file naming no function. */
    cfg = PARSE_OK("callsites = 2\n");
    if (cfg) {
        CHECK_INT(cfg->entries_defaulted, 1);
        CHECK_INT(cfg->entries[0].callsites, 2);
        scope__config_free(cfg);
    }
}

/* Same function, different object or glob-ness: not duplicates. */
static void test_near_duplicates(void)
{
    scope_config *cfg = PARSE_OK("MPI_Send\nlibmpi.so.40:MPI_Send\nlibother.so:MPI_Send\n"
                                 "f\\*\nf*\n");
    if (cfg) {
        CHECK_INT(cfg->n_entries, 5);
        scope__config_free(cfg);
    }
}

int main(void)
{
    test_region_names();
    test_quoting();
    test_objects();
    test_cxx_names();
    test_kinds();
    test_callsites();
    test_near_duplicates();
    return check_result("test_config_entries");
}
