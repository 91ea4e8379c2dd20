/*
 * export_hatchet.h - `scope export --to hatchet`: the call tree in the
 * nested "literal" JSON form that LLNL's Hatchet reads with
 * GraphFrame.from_literal() (and Thicket through it).
 */
#ifndef SCOPE_TOOLS_EXPORT_HATCHET_H
#define SCOPE_TOOLS_EXPORT_HATCHET_H

#include <stdio.h>

#include "scope_reader.h"

/* Writes p's call tree to out: one root per rank (a node of type "rank"
 * holding that rank's tree), or with `aggregate` the tree of all ranks
 * added together. Returns 0, or 1 after printing why not. Cost: the
 * reader's call stack of every rank (n log n), and memory for the tree. */
int scope__write_hatchet(FILE *out, scope_profile *p, int aggregate);

#endif
