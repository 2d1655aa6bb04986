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
typedef struct shmemi_env {
#define X(field, var, type, def, doc) SHMEMI_ENV_T_##type field;
#include "env.def"
#undef X
} shmemi_env_t;

/* Parses every variable of the table from envp (NULL: environ) into *env_p.
 * A bad value is reported (naming the variable and the value) and returns
 * -EINVAL; an unknown FABSHMEM_* name gets a "did you mean" warning. */
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
