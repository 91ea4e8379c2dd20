/*
 * export_otf2.h - `scope export --to otf2 -o DIR`: the profile as an OTF2
 * archive (Vampir, Scalasca, Pipit), written through libotf2. What the
 * archive holds and how scope's concepts map to OTF2's: docs/export.md.
 */
#ifndef SCOPE_TOOLS_EXPORT_OTF2_H
#define SCOPE_TOOLS_EXPORT_OTF2_H

#include "scope_reader.h"

/* 1 when this `scope` was built with libotf2, else 0. */
int scope__otf2_available(void);

/* Writes p as an OTF2 archive in folder `dir` (created when missing; an
 * existing one must be empty): DIR/traces.otf2, DIR/traces.def and
 * DIR/traces/. Returns 0, or 1 after printing one line naming the problem
 * (and removing what it wrote). Memory: one rank's call stack (64 bytes
 * per call, 8 more for the lane order) plus libotf2's buffer of one
 * location at a time. Without libotf2, prints that and returns 1. */
int scope__export_otf2(scope_profile *p, const char *dir);

#endif
