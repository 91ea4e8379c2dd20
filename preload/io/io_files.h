/*
 * io_files.h - which file each I/O call is about (io_files.c): the
 * process's descriptors (what each one is, its position as followed) and
 * its file table (one row per file, standard stream or HDF5 dataset met,
 * defined once in the journal: format/journal.h, SCOPE_META_FILE).
 *
 * The hot path reads a descriptor's entry with one load; everything that
 * asks the system (fstat, readlink, the mount table) runs once per file
 * met, or once per descriptor met without an open (inherited ones, or
 * opened before recording started), inside scope's own work
 * (self_depth.h), so that none of it is recorded.
 */
#ifndef SCOPE_IO_FILES_H
#define SCOPE_IO_FILES_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/stat.h>

#include "scope_config.h"

/* A descriptor's state: not met yet (its first use looks at it), met and
 * not a file recorded here (a socket, a pipe, an excluded folder's file),
 * else the file's row + SCOPE_IO_FD_ROW0. */
#define SCOPE_IO_FD_UNKNOWN 0u
#define SCOPE_IO_FD_UNTRACKED 1u
#define SCOPE_IO_FD_ROW0 2u
#define SCOPE_IO_POS_UNKNOWN (-1)

/* An open file description: what the descriptors an open made and every
 * copy of them (dup, dup2, fcntl's F_DUPFD) share, their position. */
struct scope__io_ofd {
    _Atomic int64_t pos;            /* the position as followed; -1 not known */
    _Atomic int64_t spos;           /* a stream's on it, as its stdio calls move it */
    _Atomic uint32_t refs;          /* descriptors on it; 0: free */
    _Atomic uint32_t next_free;
};

struct scope__io_fd {
    _Atomic uint32_t state;
    _Atomic uint32_t ofd;           /* its open file description, 0 none */
    _Atomic uint8_t opener;         /* the layer whose call opened it (stdio: fopen) */
};

extern struct scope__io_ofd *scope__io_ofds;

/* The open file description of descriptor entry e (entry 0, which always
 * reads -1, when it has none). */
static inline struct scope__io_ofd *scope__io_ofd_of(const struct scope__io_fd *e)
{
    return &scope__io_ofds[atomic_load_explicit(&e->ofd, memory_order_relaxed)];
}

/* Its position (spos: its stream's), -1 not known; and setting them. */
static inline int64_t scope__io_pos(const struct scope__io_fd *e, int stream)
{
    const struct scope__io_ofd *o = scope__io_ofd_of(e);
    return atomic_load_explicit(stream ? &o->spos : &o->pos, memory_order_relaxed);
}

static inline void scope__io_set_pos(const struct scope__io_fd *e, int stream, int64_t v)
{
    uint32_t k = atomic_load_explicit(&e->ofd, memory_order_relaxed);
    if (k)
        atomic_store_explicit(stream ? &scope__io_ofds[k].spos : &scope__io_ofds[k].pos, v,
                              memory_order_relaxed);
}

/* The table of descriptors, by number (mapped once, pages touched as far
 * as the program's numbers go); descriptors past its end are not
 * followed. */
extern struct scope__io_fd *scope__io_fds;
extern uint32_t scope__io_nfds;

/* Builds the tables for `cfg` (io_exclude, io_files). Slow path, once, when
 * the engine starts. Returns 0, or -1 (no memory: the capture stays off). */
int scope__io_files_init(const scope_config *cfg);

static inline struct scope__io_fd *scope__io_fd(int64_t fd)
{
    return fd >= 0 && (uint64_t)fd < scope__io_nfds ? &scope__io_fds[fd] : (struct scope__io_fd *)0;
}

/* The row of the file behind `fd` at its first use without an open: a
 * standard stream's (0, 1, 2), or the file /proc/self/fd names. Returns
 * the row, -1 when it is not followed (sets the state either way). Slow
 * path, once per descriptor. */
int32_t scope__io_fd_probe(int fd);

#define SCOPE_IO_ROW_FIRST_USE (-2)   /* scope__io_fd_known_row: not met yet */

/* As scope__io_fd_row, but never asking the system: the row, -1, or
 * SCOPE_IO_ROW_FIRST_USE for a descriptor not met yet (whose first use
 * scope__io_fd_row probes). */
static inline int32_t scope__io_fd_known_row(int64_t fd)
{
    struct scope__io_fd *e = scope__io_fd(fd);
    if (!e)
        return -1;
    uint32_t st = atomic_load_explicit(&e->state, memory_order_relaxed);
    if (__builtin_expect(st < SCOPE_IO_FD_ROW0, 0))
        return st == SCOPE_IO_FD_UNKNOWN ? SCOPE_IO_ROW_FIRST_USE : -1;
    return (int32_t)(st - SCOPE_IO_FD_ROW0);
}

/* The row of `fd` (probed at its first use), -1 when not followed. Hot. */
static inline int32_t scope__io_fd_row(int64_t fd)
{
    int32_t row = scope__io_fd_known_row(fd);
    return __builtin_expect(row == SCOPE_IO_ROW_FIRST_USE, 0) ? scope__io_fd_probe((int)fd) : row;
}

/* A call opened `fd` (open, mkstemp, dup of an unknown one, ...) on the
 * file the program named `name` (NULL: /proc/self/fd names it), `layer`
 * the outermost layer open (stdio for fopen's open), `flags` the open
 * flags (O_APPEND, O_TRUNC). Learns the file: its row (defined when new),
 * or untracked. Returns the row or -1. Slow path: one fstat per open, a
 * readlink and the mount table per new file. */
int32_t scope__io_opened(int fd, const char *name, int layer, int flags);

/* The row of the file `path` names, as stat left it in *st (NULL: stat
 * it; nofollow: lstat), defining it when new: for calls that name a file
 * without a descriptor (stat, unlink, rename, MPI_File_open, H5Fopen).
 * -1 when it is no regular file, excluded, or does not exist. */
int32_t scope__io_path_row(const char *path, const struct stat *st, int nofollow, int layer);

/* The file `st` describes was removed (unlink, or renamed over) by this
 * process: its device and inode may name another file from now on. */
void scope__io_file_gone(const struct stat *st);

/* 1 when an absolute `path` lies in an excluded folder (io_exclude), by
 * its text alone: the calls that name such a file are never recorded. */
int scope__io_path_excluded(const char *path);

/* A row for HDF5 dataset `name` of the file in row `parent`, defined when
 * new (per parent and name). -1 when the table is full or out of memory. */
int32_t scope__io_dataset_row(int32_t parent, const char *name);

/* Descriptors going away or copied: the program's close, close_range and
 * closefrom (lo .. hi), dup2 and dup3 (to), fcntl's F_DUPFD. */
void scope__io_fd_closed(int fd);
void scope__io_fd_range_closed(uint64_t lo, uint64_t hi);
void scope__io_fd_copied(int from, int to);

/* Opens of files past the table's bound (their calls count under one row
 * of kind SCOPE_FILE_OTHER). */
uint64_t scope__io_files_past_bound(void);

#endif
