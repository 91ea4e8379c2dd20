/*
 * io_handles.h - a table from a layer's open handles to their files' rows
 * (io_files.h): HDF5's file and dataset identifiers (io_hdf5.c), MPI-IO's
 * file handles (io_mpiio.c). Open addressing with linear probing over
 * atomics, no lock: any thread may open what another closes. A handle
 * that is closed keeps its slot with row -1 (probes go on past it; the
 * library hands the handle out again and the next open sets it), so the
 * table never needs a deletion. Static inline: the lookups are on each
 * call's path, and each table's constant size folds into them.
 */
#ifndef SCOPE_IO_HANDLES_H
#define SCOPE_IO_HANDLES_H

#include <stdatomic.h>
#include <stdint.h>

struct scope__io_handle_slot {
    _Atomic uint64_t handle;    /* 0 empty (no layer's open handle is 0) */
    _Atomic int32_t row;
};

/* The home slot of h in a table of 2^bits slots. */
static inline uint32_t scope__io_handle_home(uint64_t h, unsigned bits)
{
    return (uint32_t)((h * 0x9e3779b97f4a7c15ull) >> (64 - bits)) & ((1u << bits) - 1);
}

/* The row of handle h in table t of 2^bits slots, -1 when it has none (or
 * h is 0). Cost: a probe, no store. */
static inline int32_t scope__io_handle_row(struct scope__io_handle_slot *t, unsigned bits,
                                           uint64_t h)
{
    uint32_t size = 1u << bits;
    for (uint32_t i = scope__io_handle_home(h, bits), k = 0; h && k < size;
         k++, i = (i + 1) & (size - 1)) {
        uint64_t v = atomic_load_explicit(&t[i].handle, memory_order_acquire);
        if (v == h)
            return atomic_load_explicit(&t[i].row, memory_order_relaxed);
        if (!v)
            return -1;
    }
    return -1;
}

/* Gives handle h (not 0) row `row`; row -1 forgets it (a closed handle:
 * no slot is taken for one the table does not hold). A full table keeps
 * nothing. */
static inline void scope__io_handle_set(struct scope__io_handle_slot *t, unsigned bits,
                                        uint64_t h, int32_t row)
{
    uint32_t size = 1u << bits;
    for (uint32_t i = scope__io_handle_home(h, bits), k = 0; h && k < size;
         k++, i = (i + 1) & (size - 1)) {
        uint64_t v = atomic_load_explicit(&t[i].handle, memory_order_acquire);
        if (!v && row < 0)
            return;
        if (v == h || (!v && atomic_compare_exchange_strong(&t[i].handle, &v, h)) || v == h) {
            atomic_store_explicit(&t[i].row, row, memory_order_relaxed);
            return;
        }
    }
}

#endif /* SCOPE_IO_HANDLES_H */
