/*
 * settings_dump.c - prints the settings table (base/settings_table.c) one
 * row a line, tab-separated: variable, config key, grammar, default as
 * docs/config.md writes it, documentation line. check_settings_docs.py
 * compares docs/config.md with it, so the documentation is checked against
 * the table the code reads, not against a copy.
 */
#include <stdio.h>

#include "settings.h"

int main(void)
{
    for (int i = 0; i < SCOPE_SET_COUNT; i++) {
        const scope_setting *d = scope__setting_def(i);
        char grammar[128];
        scope__setting_grammar(i, grammar, sizeof grammar);
        char dflt[160];
        if (d->dflt)
            snprintf(dflt, sizeof dflt, "`%s`", d->dflt);
        else
            snprintf(dflt, sizeof dflt, "%s", d->unset ? d->unset : "");
        printf("%s\t%s\t%s\t%s\t%s\n", d->var ? d->var : "", d->key ? d->key : "", grammar,
               dflt, d->doc);
    }
    return 0;
}
