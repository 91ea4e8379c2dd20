/*
 * test_damaged_heap.c - a profile whose global heap (where HDF5 keeps the
 * variable-length strings: region names, hosts) is damaged is refused with
 * SCOPE_EFORMAT and a message naming the file, the collection's address and
 * the damage, before libhdf5 1.10 copies from it (reader/heap_guard.c);
 * the same profile undamaged reads as before. This test also runs under
 * valgrind, which would see any copy past a collection.
 *
 * The file is tests/reader/damaged/vlen-global-heap.h5, found by
 * fuzz_reader (object 3's size damaged to 0x500000004: libhdf5 copied 21
 * GB from a 4 KiB collection, a SIGSEGV in a plain process), and copies of
 * it made here, repaired (object 3's size back to 4: opens, the names
 * read) and then with one field changed each:
 *   past_end     object 3 4,017 bytes: runs 8 bytes past its collection
 *   free_zero    the free-space object of size 0 (libhdf5 1.10 would loop
 *                on it for ever)
 *   huge         the collection 1 TiB long, past the end of the file
 *
 * usage: test_damaged_heap DAMAGED_DIR TMPDIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "scope_reader.h"

/* The collection of vlen-global-heap.h5 and its objects' places. */
#define COLL 2152           /* "GCOL" */
#define COLL_SIZE (COLL + 8)
#define OBJ3 2216           /* object 3's header: index, refs, reserved, size */
#define FREE_SPACE 2408     /* the free-space object (index 0), 3,840 bytes */

static unsigned char orig[32768];
static size_t orig_len;

static void put_le(unsigned char *p, unsigned long long v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* Writes the file repaired (object 3 of 4 bytes) with the 8-byte
 * little-endian `value` at `at` to dir/name; returns the path (static). */
static const char *variant(const char *dir, const char *name, long at,
                           unsigned long long value)
{
    static char path[4096];
    static unsigned char buf[sizeof orig];
    memcpy(buf, orig, orig_len);
    put_le(buf + OBJ3 + 8, 4);
    put_le(buf + at, value);
    snprintf(path, sizeof path, "%s/%s.h5", dir, name);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        CHECK_I64(fwrite(buf, 1, orig_len, f), orig_len);
        fclose(f);
    }
    return path;
}

/* Opening `path` fails with SCOPE_EFORMAT and exactly this message. */
static void refused(const char *path, const char *why)
{
    char want[8192];
    snprintf(want, sizeof want, "%s: damaged HDF5 global heap collection at byte %d (%s): "
             "its variable-length strings are not read", path, COLL, why);
    scope_profile *p = (scope_profile *)1;
    CHECK_I64(scope_profile_open(path, &p), SCOPE_EFORMAT);
    CHECK(p == NULL);
    CHECK_STR(scope_reader_errmsg(), want);
}

/* The undamaged profile: tests/reader's nested.h5, names from the heap. */
static void reads(const char *path)
{
    scope_profile *p = NULL;
    CHECK_I64(scope_profile_open(path, &p), 0);
    if (!p)
        return;
    CHECK_I64(scope_profile_region_count(p), 3);
    CHECK_STR(scope_profile_region_name(p, 0), "main");
    CHECK_STR(scope_profile_region_name(p, 1), "work");
    CHECK_STR(scope_profile_region_name(p, 2), "leaf");
    scope_stats s;
    CHECK_I64(scope_profile_stats(p, 0, SCOPE_ALL_RANKS, &s), 0);
    CHECK_I64(s.calls, 3);
    CHECK_I64(s.total_ns, 240);
    char host[64] = "";
    /* returns the length */
    CHECK_I64(scope_profile_rank_attr_string(p, 0, "hostname", host, sizeof host), 5);
    CHECK_STR(host, "node0");
    scope_profile_close(p);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s DAMAGED_DIR TMPDIR\n", argv[0]);
        return 2;
    }
    char found[4096];
    snprintf(found, sizeof found, "%s/vlen-global-heap.h5", argv[1]);
    FILE *f = fopen(found, "rb");
    CHECK(f != NULL);
    if (!f)
        return check_result("test_damaged_heap");
    orig_len = fread(orig, 1, sizeof orig, f);
    fclose(f);
    CHECK_I64(orig_len, 22712);
    CHECK(memcmp(orig + COLL, "GCOL\1", 5) == 0);

    /* as found: object 3 of 21,474,836,484 bytes in a 4,096-byte collection */
    refused(found, "an object larger than its collection");
    const char *dir = argv[2];
    mkdir(dir, 0755);   /* made once; the variants are rewritten each run */
    reads(variant(dir, "repaired", OBJ3 + 8, 4));
    /* 16 + 4,024 bytes from offset 64 of 4,096 */
    refused(variant(dir, "past_end", OBJ3 + 8, 4017), "an object runs past the end of its "
            "collection");
    refused(variant(dir, "free_zero", FREE_SPACE + 8, 0), "free space smaller than its header");
    refused(variant(dir, "huge", COLL_SIZE, 1ULL << 40), "collection runs past the end of the "
            "file");
    /* a refusal leaves nothing behind: the good file still reads, and the
     * damaged one is refused again */
    reads(variant(dir, "repaired", OBJ3 + 8, 4));
    refused(found, "an object larger than its collection");
    return check_result("test_damaged_heap");
}
