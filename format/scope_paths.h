/*
 * scope_paths.h - every file-name rule of scope, one function each: the
 * ranks folder of an output and the index beside a folder, rank files,
 * host files, journals and the pointers to journal folders apart,
 * temporaries ("<name>.tmp.<pid>"), and the link name of a region. The
 * recorder, the preload, the converter, recovery, the reader and the tool
 * all name files through here, so they cannot disagree on a name
 * (docs/format.md "Files" and "Names" are the specification).
 *
 * Header-only, libc only (snprintf, malloc): the recorder includes it
 * inside the profiled process. Included by scope_format.h; the name
 * pieces (SCOPE_*_PREFIX, SCOPE_RANKS_SUFFIX, ...) are defined there.
 * tests/format/test_paths.c checks every rule.
 */
#ifndef SCOPE_PATHS_H
#define SCOPE_PATHS_H

#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SCOPE_FORMAT_H
#include "scope_format.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define SCOPE_TMP_INFIX ".tmp."   /* <name>.tmp.<pid>: a file being written */

/* Whether `s` (a name or a path) ends with `suffix`. Cost: O(length). */
static inline int scope_path_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* The last component of a path (the path itself when it has no '/'). */
static inline const char *scope_path_base(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* --- temporaries: a file is written as "<name>.tmp.<pid>", then renamed --- */

/* The temporary name of `path` for process `pid`, "<path>.tmp.<pid>", into
 * out[len]. Returns what snprintf returns (>= len: cut). Cost: O(len). */
static inline int scope_tmp_path(char *out, size_t len, const char *path, long pid)
{
    return snprintf(out, len, "%s" SCOPE_TMP_INFIX "%ld", path, pid);
}

/* Whether a name (or path) is a temporary of any writer: it holds
 * ".tmp.". Such a file is never read as a rank, host or pointer file. */
static inline int scope_is_tmp_name(const char *name)
{
    return strstr(name, SCOPE_TMP_INFIX) != NULL;
}

/* The writer's pid of a temporary "<name>.tmp.<digits>", or -1 when the
 * name is none (`scope recover` removes those whose writer is gone). */
static inline long scope_tmp_pid(const char *name)
{
    const char *t = strstr(name, SCOPE_TMP_INFIX);
    if (!t || !t[sizeof SCOPE_TMP_INFIX - 1])
        return -1;
    long pid = 0;
    for (t += sizeof SCOPE_TMP_INFIX - 1; *t; t++) {
        if (*t < '0' || *t > '9' || pid > (INT32_MAX - 9) / 10)
            return -1;
        pid = pid * 10 + (*t - '0');
    }
    return pid > 0 ? pid : -1;
}

/* --- the ranks folder and the index --- */

/* The ranks folder of output `output`: "<x>.h5" -> "<x>.ranks" (x not
 * empty), any other name gets ".ranks" appended. Returns what snprintf
 * returns. */
static inline int scope_ranks_dir_of(char *out, size_t len, const char *output)
{
    size_t n = strlen(output);
    if (n > 3 && scope_path_ends_with(output, ".h5"))
        n -= 3;
    return snprintf(out, len, "%.*s" SCOPE_RANKS_SUFFIX, (int)n, output);
}

/* The index beside ranks folder `folder`: "<x>.ranks" (trailing '/'
 * allowed) -> "<x>.h5". Returns 0, or -1 when `folder` is no ranks folder
 * or out[len] is too small. */
static inline int scope_index_of_ranks_dir(char *out, size_t len, const char *folder)
{
    size_t n = strlen(folder), k = sizeof SCOPE_RANKS_SUFFIX - 1;
    while (n > 1 && folder[n - 1] == '/')
        n--;
    if (n <= k || memcmp(folder + n - k, SCOPE_RANKS_SUFFIX, k) != 0)
        return -1;
    int w = snprintf(out, len, "%.*s.h5", (int)(n - k), folder);
    return w >= 0 && (size_t)w < len ? 0 : -1;
}

/* --- rank files --- */

/* The path of rank `rank`'s own file in the ranks folder `dir`,
 * "<dir>/rank<N>.h5", into out[len]. Returns what snprintf returns (>= len:
 * cut). The recorder, the death handler, the converter's index links and
 * `scope recover` must agree on it. Cost: O(len). */
static inline int scope_rank_file_path(char *out, size_t len, const char *dir, int rank)
{
    return snprintf(out, len, "%s/" SCOPE_G_RANK_FMT ".h5", dir, rank);
}

/* The file of rank `rank` in the folder of `path` (a journal, a host
 * file: whatever lives in the ranks folder), "<folder>/rank<N>.h5", or
 * "rank<N>.h5" when `path` has no folder. Returns what snprintf returns. */
static inline int scope_rank_file_beside(char *out, size_t len, const char *path, int rank)
{
    const char *base = scope_path_base(path);
    return snprintf(out, len, "%.*s" SCOPE_G_RANK_FMT ".h5", (int)(base - path), path, rank);
}

/* The file `scope recover` gives a journal of rank `rank` whose rank file
 * is another process's: "<dir>/rank<N>.pid<P>.h5". Returns what snprintf
 * returns. */
static inline int scope_rank_pid_file_path(char *out, size_t len, const char *dir, int rank,
                                           long long pid)
{
    return snprintf(out, len, "%s/" SCOPE_G_RANK_FMT ".pid%lld.h5", dir, rank, pid);
}

/* Whether a name (or path) may be a rank file of a ranks folder:
 * "rank<digit>...h5" (rank<N>.h5 and the collision and pid names), never
 * a temporary. Which ranks it holds is read from the file. Cost:
 * O(length). */
static inline int scope_is_rank_file(const char *path)
{
    const char *base = scope_path_base(path);
    size_t p = sizeof SCOPE_G_RANK_PREFIX - 1;
    return strncmp(base, SCOPE_G_RANK_PREFIX, p) == 0 && base[p] >= '0' && base[p] <= '9' &&
           scope_path_ends_with(base, ".h5") && !scope_is_tmp_name(base);
}

/* --- host files --- */

/* The name of a host's file in the ranks folder, "host-<host>.h5", into
 * out[len]: letters, digits, '.', '-' and '_' of the host name are kept
 * (at most 71 of them), anything else becomes '_', an empty name
 * "unknown"; cut to fit len (len >= 1). The recorder, the preload, the
 * converter and `scope recover` must all agree on it. Cost: O(len). */
static inline void scope_host_file_name(const char *host, char *out, size_t len)
{
    static const char prefix[] = SCOPE_HOST_FILE_PREFIX, unknown[] = "unknown";
    char name[sizeof prefix - 1 + 72 + 4];
    size_t n = 0, kept = 0;
    for (const char *p = prefix; *p; p++)
        name[n++] = *p;
    for (const char *p = host; p && *p && kept < 71; p++, kept++) {
        char ch = *p;
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                 (ch >= '0' && ch <= '9') || ch == '.' || ch == '-' || ch == '_';
        name[n++] = ok ? ch : '_';
    }
    for (const char *p = unknown; kept == 0 && *p; p++)
        name[n++] = *p;
    for (const char *p = ".h5"; *p; p++)
        name[n++] = *p;
    size_t i = 0;
    for (; i + 1 < len && i < n; i++)
        out[i] = name[i];
    if (len > 0)
        out[i] = '\0';
}

/* Whether the file named by `path` (a name or a path: its last component
 * is looked at) is a host file: "host-<x>.h5", collision names included.
 * Never a temporary "<name>.tmp.<pid>" (it does not end in ".h5") nor a
 * rank file. The one answer to "is this a host file?" for the converter,
 * the reader and the tool. Cost: O(length). */
static inline int scope_is_host_file(const char *path)
{
    if (!path)
        return 0;
    const char *base = scope_path_base(path);
    size_t p = sizeof SCOPE_HOST_FILE_PREFIX - 1;
    return strlen(base) > p + 3 && strncmp(base, SCOPE_HOST_FILE_PREFIX, p) == 0 &&
           scope_path_ends_with(base, ".h5");
}

/* The lock file of host file `host_path`, ".<host file name>.lock" in the
 * same folder, into out[len]: the converter takes an exclusive flock on it
 * to append a rank's group, and `scope recover` looks for it to tell a
 * host's folder. Returns what snprintf returns (>= len: cut). Cost:
 * O(length). */
static inline int scope_host_lock_path(char *out, size_t len, const char *host_path)
{
    const char *base = scope_path_base(host_path);
    return snprintf(out, len, "%.*s.%s.lock", (int)(base - host_path), host_path, base);
}

/* --- collisions: a finished file never replaces another process's --- */

/* "<path minus .h5>.collision<K>.h5" into out[len]. Returns what snprintf
 * returns. */
static inline int scope_collision_path(char *out, size_t len, const char *path, long k)
{
    size_t n = strlen(path);
    if (n > 3 && scope_path_ends_with(path, ".h5"))
        n -= 3;
    return snprintf(out, len, "%.*s" SCOPE_G_COLLISION_SUFFIX "%ld.h5", (int)n, path, k);
}

/* Whether `s` is a rank's collision name, "rank<digits>.collision<digits>"
 * followed by exactly `suffix` ("" for a link of the index, ".h5" for a
 * file). Cost: O(length). */
static inline int scope_is_collision_name(const char *s, const char *suffix)
{
    size_t p = sizeof SCOPE_G_RANK_PREFIX - 1, c = sizeof SCOPE_G_COLLISION_SUFFIX - 1;
    if (strncmp(s, SCOPE_G_RANK_PREFIX, p) != 0 || s[p] < '0' || s[p] > '9')
        return 0;
    s += p;
    while (*s >= '0' && *s <= '9')
        s++;
    if (strncmp(s, SCOPE_G_COLLISION_SUFFIX, c) != 0 || s[c] < '0' || s[c] > '9')
        return 0;
    s += c;
    while (*s >= '0' && *s <= '9')
        s++;
    return strcmp(s, suffix) == 0;
}

/* --- journals --- */

/* The journal of process `pid` on host `host`, "<dir>/journal.<host>.<pid>",
 * into out[len]. Returns what snprintf returns. */
static inline int scope_journal_path(char *out, size_t len, const char *dir, const char *host,
                                     long pid)
{
    return snprintf(out, len, "%s/" SCOPE_JOURNAL_PREFIX "%s.%ld", dir, host, pid);
}

/* The start every journal name of host `host` shares, "journal.<host>.",
 * or of every host ("journal.") when host is NULL. Returns what snprintf
 * returns. */
static inline int scope_journal_prefix(char *out, size_t len, const char *host)
{
    return snprintf(out, len, SCOPE_JOURNAL_PREFIX "%s%s", host ? host : "", host ? "." : "");
}

/* Whether a name is a journal's, "journal.<...>" (a pointer
 * "journals.<host>" is not). */
static inline int scope_is_journal_name(const char *name)
{
    return strncmp(name, SCOPE_JOURNAL_PREFIX, sizeof SCOPE_JOURNAL_PREFIX - 1) == 0;
}

/* Whether folder `dir` may still hold a journal of host `host`: 0 only
 * when it was read and holds none (then the host's pointer file, below,
 * can go), 1 when it holds one or cannot be read (the pointer stays: a
 * pointer too many is harmless, one too few loses a journal to
 * `scope recover`). Cost: one pass over the folder. */
static inline int scope_host_journals_left(const char *dir, const char *host)
{
    char prefix[320];
    int n = scope_journal_prefix(prefix, sizeof prefix, host);
    if (n < 0 || (size_t)n >= sizeof prefix)
        return 1;
    DIR *d = opendir(dir);
    if (!d)
        return 1;
    struct dirent *e;
    int left = 0;
    while (!left && (e = readdir(d)))
        left = strncmp(e->d_name, prefix, (size_t)n) == 0;
    closedir(d);
    return left;
}

/* The pointer file of host `host` in ranks folder `ranks_dir`,
 * "<ranks_dir>/journals.<host>", naming the folder that holds the host's
 * journals when it is not the ranks folder. Returns what snprintf
 * returns. */
static inline int scope_journal_pointer_path(char *out, size_t len, const char *ranks_dir,
                                             const char *host)
{
    return snprintf(out, len, "%s/" SCOPE_JOURNAL_POINTER_PREFIX "%s", ranks_dir, host);
}

/* The host of a pointer file's name "journals.<host>", or NULL when the
 * name is no pointer (or a temporary one). */
static inline const char *scope_journal_pointer_host(const char *name)
{
    size_t p = sizeof SCOPE_JOURNAL_POINTER_PREFIX - 1;
    if (strncmp(name, SCOPE_JOURNAL_POINTER_PREFIX, p) != 0 || scope_is_tmp_name(name))
        return NULL;
    return name + p;
}

/* --- link names: docs/format.md "Names" --- */

/* The link name of region `name` under /rank<N>/regions: '%' -> "%25",
 * '/' -> "%2F", a lone "." -> "%2E" (HDF5 link names cannot hold '/' or
 * be "."), into out[len] (cut to fit, len >= 1). Returns the length of
 * the whole encoding (>= len: cut), as snprintf does. Cost: O(length). */
static inline size_t scope_region_link_name(const char *name, char *out, size_t len)
{
    size_t n = 0;
#define SCOPE__PUT(ch) do { if (n + 1 < len) out[n] = (ch); n++; } while (0)
    if (strcmp(name, ".") == 0) {
        SCOPE__PUT('%'); SCOPE__PUT('2'); SCOPE__PUT('E');
    } else {
        for (const char *p = name; *p; p++) {
            if (*p == '%' || *p == '/') {
                SCOPE__PUT('%');
                SCOPE__PUT('2');
                SCOPE__PUT(*p == '%' ? '5' : 'F');
            } else {
                SCOPE__PUT(*p);
            }
        }
    }
#undef SCOPE__PUT
    if (len > 0)
        out[n < len ? n : len - 1] = '\0';
    return n;
}

/* The same, malloc'd (NULL when out of memory); the caller frees it. */
static inline char *scope_region_link_name_dup(const char *name)
{
    size_t n = scope_region_link_name(name, NULL, 0);
    char *out = (char *)malloc(n + 1);
    if (out)
        scope_region_link_name(name, out, n + 1);
    return out;
}

#ifdef __cplusplus
}
#endif

#endif /* SCOPE_PATHS_H */
