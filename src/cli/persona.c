/*
 * persona.c - the registry of other tools' command lines (persona.h).
 */
#include "cli/persona.h"

#include <string.h>

#include "cli/cli.h"
#include "cli/cli_int.h"

/* The personas' own files define these. */
extern const cli_persona persona_wrk, persona_wrk2, persona_ab, persona_h2load;
extern const cli_persona persona_hey;

/* One line per persona. */
static const cli_persona *const personas[] = {
    &persona_wrk,
    &persona_wrk2,
    &persona_ab,
    &persona_h2load,
    &persona_hey,
};

const cli_persona *persona_find(const char *name)
{
    const char *slash = name ? strrchr(name, '/') : NULL;

    if (!name)
        return NULL;
    if (slash)
        name = slash + 1;
    for (size_t i = 0; i < NOPTS(personas); i++)
        if (strcmp(personas[i]->name, name) == 0)
            return personas[i];
    return NULL;
}

const cli_persona *persona_at(size_t i)
{
    return i < NOPTS(personas) ? personas[i] : NULL;
}

int persona_parse(const cli_persona *p, int argc, char **argv, pc_config *cfg, FILE *out,
                  FILE *err)
{
    return cli_parse_as(p, PC_MODE_RUN, argc, argv, cfg, out, err);
}
