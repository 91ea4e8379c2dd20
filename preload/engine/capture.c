/*
 * capture.c - the engine's list of captures (capture.h): each registers
 * itself from a constructor before the engine starts; the engine asks
 * them which functions they own (interpose.c) and calls them at every
 * call of one (shadow_stack.c, through scope__captures).
 */
#include <strings.h>

#include "capture.h"

struct scope__capture scope__captures[SCOPE_CAPTURE_MAX + 1];
int scope__n_captures;

int scope__capture_register(const struct scope__capture *c)
{
    if (scope__n_captures >= SCOPE_CAPTURE_MAX)
        return 0;
    scope__captures[++scope__n_captures] = *c;
    return scope__n_captures;
}

int scope__capture_claim(const char *symbol, struct scope__claim *c)
{
    for (int k = 1; k <= scope__n_captures; k++) {
        struct scope__claim mine = *c;
        mine.region[0] = '\0';
        mine.op = 0;
        if (scope__captures[k].claim && scope__captures[k].claim(symbol, &mine)) {
            *c = mine;
            return k;
        }
    }
    return 0;
}

int scope__capture_wraps(const char *symbol)
{
    for (int k = 1; k <= scope__n_captures; k++)
        for (const char *const *w = scope__captures[k].wrapped; w && *w; w++)
            if (strcasecmp(symbol, *w) == 0)
                return 1;
    return 0;
}
