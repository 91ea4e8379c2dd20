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

/* The same for a host file opened itself (or found in a folder), open as
 * `file`, whose root links are names[0 .. n): when it is a host file whose
 * /rank<N> links are all groups (hard links) and its table lists exactly
 * them, they are added from the table. Returns 1 (added: the caller adds
 * none of them), 0 (read the groups), SCOPE_ENOMEM. */
int scope__host_summary_file(builder *b, int source, hid_t file, char *const *names, size_t n);

#endif
