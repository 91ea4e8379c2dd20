/*
 * load_segments.h - the PT_LOAD segments of a loaded object as the
 * loader reports them (dl_iterate_phdr), asked the two ways the engine
 * needs: which segment holds an address, and the range they span. Kept
 * inline and libc only: callers run inside dl_iterate_phdr callbacks.
 */
#ifndef SCOPE_PRELOAD_LOAD_SEGMENTS_H
#define SCOPE_PRELOAD_LOAD_SEGMENTS_H

#include <link.h>
#include <stddef.h>
#include <stdint.h>

/* A program header of this machine's ELF class (a name of our own: a
 * function returning ElfW(...) reads, to a tag parser, as a definition
 * of ElfW). */
typedef ElfW(Phdr) scope__phdr;

/* The PT_LOAD segment of `info` whose memory holds `addr`, or NULL.
 * Cost: a pass over the program headers. */
static inline const scope__phdr *scope__load_segment_of(const struct dl_phdr_info *info,
                                                        uintptr_t addr)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const scope__phdr *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && addr - (info->dlpi_addr + ph->p_vaddr) < ph->p_memsz)
            return ph;
    }
    return NULL;
}

/* [*lo, *hi): from the start of the first PT_LOAD segment of `info` to
 * the end of the last; UINTPTR_MAX and 0 when it has none. */
static inline void scope__load_range(const struct dl_phdr_info *info, uintptr_t *lo,
                                     uintptr_t *hi)
{
    *lo = UINTPTR_MAX;
    *hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const scope__phdr *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t a = info->dlpi_addr + ph->p_vaddr, b = a + ph->p_memsz;
        *lo = a < *lo ? a : *lo;
        *hi = b > *hi ? b : *hi;
    }
}

#endif /* SCOPE_PRELOAD_LOAD_SEGMENTS_H */
