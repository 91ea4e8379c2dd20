/*
 * host_summary.h - opening a host file from its summary table
 * (host_summary.c), for profile_open.c. Not installed.
 */
#ifndef SCOPE_HOST_SUMMARY_H
#define SCOPE_HOST_SUMMARY_H

#include "open_builder.h"

/* Adds, from their files' summary tables, the ranks (with their cached
 * attributes) and cells of every run of pending links (b->pending, sorted
 * by (source, rank)) that names a host file whose table is consistent
 * with exactly those links, and removes those links from b->pending; the
 * others stay for the rank-group path. Returns 0, or SCOPE_ENOMEM. Cost:
 * one file open and four dataset reads per host file; nothing for files
 * that are not host files. */
int scope__host_summary_take(builder *b);

#endif
