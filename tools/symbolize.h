/*
 * symbolize.h - turns a stored call-site frame (object, build-id, file
 * offset) into "function (file:line)" with libdw, at analysis time, in the
 * `scope` tool. The reader stays HDF5-only; this is the one place that
 * reads the profiled program's ELF and DWARF.
 */
#ifndef SCOPE_TOOLS_SYMBOLIZE_H
#define SCOPE_TOOLS_SYMBOLIZE_H

#include "scope_reader.h"

typedef struct scope__symbolizer scope__symbolizer;

/* A symbolizer caches one opened ELF (and its DWARF) per object path.
 * NULL when out of memory. */
scope__symbolizer *scope__symbolizer_new(void);
void scope__symbolizer_free(scope__symbolizer *s);

/* The location of one frame as a malloc'd string (NULL only when out of
 * memory), the best the object allows:
 *   "fn (file.c:12)"                      DWARF: function, the call's line
 *   "inl (a.h:3) inlined in fn (b.c:9)"   DWARF with inline frames
 *   "fn (file.c:12)"                      a line but no function scope in
 *                                         the DWARF: the ELF symbol's name
 *   "fn+0x1f (prog)"                      no DWARF: the ELF symbol table
 *   "prog+0x1234"                         no symbol covers the address
 *   "prog+0x1234 (object missing)"        the stored path does not open
 *   "prog+0x1234 (build-id differs)"      the file was rebuilt since
 * Files are basenames; function names are demangled. fn+0x.. and
 * prog+0x.. give the return address (the stored offset), as backtraces
 * do; file:line is that of the call instruction (offset - 1). Cost: the
 * first frame of an object opens it and indexes its DWARF. */
char *scope__symbolize(scope__symbolizer *s, const scope_callsite_frame *f);

/* All frames of a site, frame 0 first, joined by " <- ". malloc'd. */
char *scope__symbolize_site(scope__symbolizer *s,
                            const scope_callsite_frame *frames, int depth);

#endif
