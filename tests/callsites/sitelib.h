/* sitelib.h - see sitelib.c. */
#ifndef SITELIB_H
#define SITELIB_H
void site_target(int x);
void via_lib(int n);
#endif
