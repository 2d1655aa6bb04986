/*
 * The configuration table (src/base/env.def): the parsed values of every
 * environment variable, and the parser.
 */
#ifndef SHMEMI_ENV_H
#define SHMEMI_ENV_H

#include "base/base.h"

/* ---- configuration (src/base/env.def) ---- */
#define SHMEMI_ENV_T_SIZE size_t
#define SHMEMI_ENV_T_BOOL int
#define SHMEMI_ENV_T_INT  long
#define SHMEMI_ENV_T_STR  const char *
#define SHMEMI_ENV_T_CHOICE int
/* The values of the CHOICE variables (the V rows of env.def): a CHOICE
 * field holds one of these, SHMEMI_ENV_<ID>. */
enum shmemi_env_choice {
#define X(field, var, type, def, doc)
#define V(field, id, name) SHMEMI_ENV_##id,
#include "env.def"
#undef V
#undef X
    SHMEMI_ENV_CHOICES
};
/* The rows of the table, for their "is set" bits. */
enum {
#define X(field, var, type, def, doc) SHMEMI_ENV_ROW_##field,
#include "env.def"
#undef X
    SHMEMI_ENV_ROWS
};
#define SHMEMI_ENV_T_INT_IN(lo, hi) long
/* The least FABSHMEM_TEAMS_MAX: the predefined teams' slots, the active
 * sets' and one more (src/team/team.h checks it against its slots). */
#define SHMEMI_ENV_TEAMS_MAX_MIN 73
typedef struct shmemi_env {
#define X(field, var, type, def, doc) SHMEMI_ENV_T_##type field;
#include "env.def"
#undef X
    /* Whether each row's variable is in the environment (even empty):
     * shmemi_env_is_set. */
    unsigned char set[SHMEMI_ENV_ROWS];
} shmemi_env_t;
/* 1 when the variable of env.def's row field was set (in the environment,
 * even to an empty value), 0 when field has its default. */
#define shmemi_env_is_set(env, field) ((env)->set[SHMEMI_ENV_ROW_##field] != 0)
/* The name of a CHOICE value ("auto"), or "?" for none. */
const char *shmemi_env_choice_name(int value);

/* Parses every variable of the table from envp (NULL: environ) into *env_p.
 * A bad value (one that does not parse, or an INT_IN out of its range) is
 * reported (naming the variable, the value and what is expected) and
 * returns -EINVAL; an unknown FABSHMEM_* name gets a "did you mean"
 * warning. */
int shmemi_env_parse(char **envp, shmemi_env_t *env_p);
/* "256M", "3.1M", "1g", "4096" -> bytes.  0 or -EINVAL (garbage, overflow). */
int shmemi_env_parse_size(const char *s, size_t *out_p);
/* "1/0/yes/no/on/off/true/false" (any case) -> 1/0.  0 or -EINVAL. */
int shmemi_env_parse_bool(const char *s, int *out_p);
/* Prints the table with current values (SHMEM_INFO, fabshmem_info -c). */
void shmemi_env_print(FILE *fp, const shmemi_env_t *env, int markdown);
/* The same, where doc supplies the documentation of the variables whose
 * rows in env.def leave it to a higher layer (the collectives' registry
 * documents FABSHMEM_*_ALGO: shmemi_coll_env_doc): it writes it into buf
 * and returns 1, or returns 0 for the other variables. */
typedef int (*shmemi_env_doc_fn)(const char *var, char *buf, size_t len);
void shmemi_env_print_doc(FILE *fp, const shmemi_env_t *env, int markdown,
                          shmemi_env_doc_fn doc);

#endif
