/*
 * svg.h - the small drawing vocabulary the pictures of `scope plot` and
 * `scope report` share: XML-escaped text, a colour per region name that is
 * the same in every picture and every run, and number formats for axes.
 */
#ifndef SCOPE_TOOLS_SVG_H
#define SCOPE_TOOLS_SVG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "scope_reader.h"

/* The fonts of every picture: readable on Linux, macOS and Windows. */
#define SCOPE__SVG_FONT \
    "font-family=\"'DejaVu Sans', 'Segoe UI', Helvetica, Arial, sans-serif\""

/* Writes s with & < > " ' escaped, for text and attribute values. */
void scope__xml_put(FILE *out, const char *s);

/* "#rrggbb" for a region name (FNV-1a hash -> hue, saturation, lightness):
 * stable across runs and pictures, light enough for dark text on it. */
void scope__region_colour(const char *name, char buf[8]);

typedef char scope__colour[8];

/* The colour of every region of p: OpenMP's regions one per class (work
 * green, waits red); I/O calls one per class (writes amber, reads gold,
 * the others pale tan: docs/io.md); up to 20 other regions get distinct colours
 * of one palette, each starting at the slot its name hashes to (so a name
 * keeps its colour across runs unless another name took it first);
 * further regions get scope__region_colour(). malloc'd, one per region;
 * NULL when out of memory. */
scope__colour *scope__region_colours(const scope_profile *p);

/* A "nice" tick step (1, 2 or 5 x 10^k) so that span / step is about
 * `ticks` or a little more. span > 0. */
double scope__nice_step(double span, int ticks);

/* Opens <svg> of width x height with the shared font, and the style its
 * classes use; `cls` names the picture (timeline, flame, imbalance). */
void scope__svg_open(FILE *out, const char *cls, double width, double height);

/* Roughly how many pixels `s` takes at font size px (for deciding whether
 * a label fits into a box; counts characters, not bytes). */
double scope__text_px(const char *s, double px);

/* Writes at most `maxpx` pixels' worth of s at font size px, escaped, with
 * "…" when cut. Writes nothing when not even one character fits. */
void scope__xml_put_fit(FILE *out, const char *s, double px, double maxpx);

#endif
