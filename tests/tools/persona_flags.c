/*
 * persona_flags.c - the flags of each persona's option table (src/cli/),
 * one spelling a line, for tests/integration/test_completion.sh to hold
 * contrib/completion/ to:
 *
 *     PERSONA FLAG KIND STATE
 *
 * KIND: "value" (the flag takes one) or "switch". STATE: "shown" (accepted,
 * and spelled so by the persona's --help: the completion must offer it),
 * "hidden" (accepted too, another spelling of a shown flag: the completion
 * may offer it) or "refused" (in the table to be refused, exit 2: a
 * REFUSE("why") entry, or one of a subcommand's only; the completion must
 * not offer it). A flag in no line is unknown to the persona.
 *
 * Usage: persona_flags [PERSONA...] (default: all of them, in the order
 * `pacer --help` lists them); "-p": the personas' names only; "-P": the
 * rows of the peer-flag table (src/cli/peer_hints.c), for
 * tests/integration/test_peer_hints.sh, one a line:
 *
 *     TOOL FLAG KIND HINT
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli_int.h"
#include "cli/persona.h"

static void line(const char *persona, const char *dash, const char *name, const cli_opt *o,
                 const char *state)
{
    printf("%s %s%s %s %s\n", persona, dash, name, o->value ? "value" : "switch", state);
}

static void list(const cli_persona *p)
{
    pc_config cfg;
    const cli_table *t = p->table;

    memset(&cfg, 0, sizeof cfg);
    p->defaults(&cfg); /* wrk's table is built there */
    for (size_t i = 0; i < t->n; i++) {
        const cli_opt *o = &t->opts[i];
        bool refused = o->take == take_refuse ||
                       (o->modes && !(o->modes & (1u << PC_MODE_RUN)));
        const char *dash = t->long_only ? "-" : "--"; /* hey: -host */
        char letter[2] = {o->letter, 0};

        if (o->letter)
            line(p->name, "-", letter, o, refused ? "refused" : "shown");
        /* A long_only tool's --help shows a long name only for a flag
         * without a letter (hey: -n, -host); the others show both. */
        if (o->name)
            line(p->name, dash, o->name, o,
                 refused ? "refused" : (t->long_only && o->letter) ? "hidden" : "shown");
        if (o->name && t->long_only)
            line(p->name, "--", o->name, o, refused ? "refused" : "hidden");
        if (o->alias && !(t->long_only && strcmp(o->alias, letter) == 0))
            line(p->name, dash, o->alias, o, refused ? "refused" : "shown");
        if (o->alias && t->long_only)
            line(p->name, "--", o->alias, o, refused ? "refused" : "hidden");
    }
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "-p") == 0) {
        for (size_t i = 0; persona_at(i); i++)
            printf("%s\n", persona_at(i)->name);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "-P") == 0) {
        for (size_t i = 0; peer_flag_at(i); i++) {
            const peer_flag *r = peer_flag_at(i);

            printf("%s %s %s %s\n", r->tool, r->flag, r->value ? "value" : "switch", r->hint);
        }
        return 0;
    }
    if (argc == 1)
        for (size_t i = 0; persona_at(i); i++)
            list(persona_at(i));
    for (int i = 1; i < argc; i++) {
        const cli_persona *p = persona_find(argv[i]);

        if (!p) {
            fprintf(stderr, "persona_flags: no persona '%s'\n", argv[i]);
            return 2;
        }
        list(p);
    }
    return 0;
}
