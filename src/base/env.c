/*
 * The configuration table: parsing, checking and printing of the variables
 * listed in src/base/env.def.  Everything here is generated from that one table
 * with X-macros.  shmemi_env_parse runs once at init; the hot path reads the
 * parsed struct and never calls getenv.
 */
#include "base/state.h"
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>

extern char **environ;

/* Prefix of the variables that belong to this library alone: an unknown name
 * with this prefix is most likely a typo and gets a warning. */
#define ENV_OWN_PREFIX "FABSHMEM_"

enum { ENV_SIZE, ENV_BOOL, ENV_INT, ENV_STR };

typedef struct env_desc {
    const char *name;
    int type;
    const char *type_name;
    const char *def;
    const char *doc;
    size_t offset;
} env_desc_t;

static const env_desc_t env_table[] = {
#define X(field, var, type, def, doc) \
    { #var, ENV_##type, #type, def, doc, offsetof(shmemi_env_t, field) },
#include "env.def"
#undef X
};

#define ENV_COUNT (sizeof(env_table) / sizeof(env_table[0]))

/* Bounds of a string with the surrounding white space left out. */
static void env_trim(const char *s, const char **b_p, const char **e_p)
{
    const char *e = s + strlen(s);

    while (*s && isspace((unsigned char)*s))
        s++;
    while (e > s && isspace((unsigned char)e[-1]))
        e--;
    *b_p = s;
    *e_p = e;
}

int shmemi_env_parse_size(const char *s, size_t *out_p)
{
    const char *p, *e;
    uint64_t whole = 0, frac = 0, frac_div = 1, mult = 1, v;
    int ndigits = 0, shift = 0;

    if (!s)
        return -EINVAL;
    env_trim(s, &p, &e);
    /* The whole part, checked for overflow digit by digit. */
    while (p < e && isdigit((unsigned char)*p)) {
        if (__builtin_mul_overflow(whole, 10, &whole) ||
            __builtin_add_overflow(whole, (uint64_t)(*p - '0'), &whole))
            return -EINVAL;
        p++;
        ndigits++;
    }
    /* The fraction: the first 18 digits count, later ones cannot change the
     * result by a whole byte for any suffix up to T. */
    if (p < e && *p == '.') {
        p++;
        while (p < e && isdigit((unsigned char)*p)) {
            if (frac_div < 1000000000000000000ull) {
                frac = frac * 10 + (uint64_t)(*p - '0');
                frac_div *= 10;
            }
            p++;
            ndigits++;
        }
    }
    if (ndigits == 0)
        return -EINVAL;
    if (p < e) {
        switch (*p) {
        case 'k': case 'K': shift = 10; break;
        case 'm': case 'M': shift = 20; break;
        case 'g': case 'G': shift = 30; break;
        case 't': case 'T': shift = 40; break;
        default: break;
        }
        if (shift) {
            p++;
            /* "KiB" is accepted as a spelling of "KB". */
            if (p + 1 < e && (*p == 'i' || *p == 'I') && (p[1] == 'b' || p[1] == 'B'))
                p++;
        }
        if (p < e && (*p == 'b' || *p == 'B'))
            p++;
    }
    if (p != e)
        return -EINVAL;
    mult = (uint64_t)1 << shift;
    if (__builtin_mul_overflow(whole, mult, &v))
        return -EINVAL;
    /* floor(fraction * mult), exact in 128-bit arithmetic. */
    if (__builtin_add_overflow(v, (uint64_t)((unsigned __int128)frac * mult / frac_div), &v))
        return -EINVAL;
    if (v > SIZE_MAX)
        return -EINVAL;
    *out_p = (size_t)v;
    return 0;
}

int shmemi_env_parse_bool(const char *s, int *out_p)
{
    static const struct { const char *word; int val; } words[] = {
        { "1", 1 }, { "yes", 1 }, { "on", 1 }, { "true", 1 }, { "y", 1 },
        { "0", 0 }, { "no", 0 }, { "off", 0 }, { "false", 0 }, { "n", 0 },
    };
    const char *b, *e;
    size_t i, len;

    if (!s)
        return -EINVAL;
    env_trim(s, &b, &e);
    len = (size_t)(e - b);
    for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        if (strlen(words[i].word) == len && strncasecmp(b, words[i].word, len) == 0) {
            *out_p = words[i].val;
            return 0;
        }
    }
    return -EINVAL;
}

/* A decimal long: surrounding white space is allowed, anything else that is
 * not part of the number, and overflow, are errors. */
static int env_parse_int(const char *s, long *out_p)
{
    const char *b, *e;
    char *end;
    long v;

    env_trim(s, &b, &e);
    if (b == e)
        return -EINVAL;
    errno = 0;
    v = strtol(b, &end, 10);
    if (errno == ERANGE || end != e || isspace((unsigned char)*b))
        return -EINVAL;
    *out_p = v;
    return 0;
}

/* Parses value into the field of row d; reports a bad value naming the
 * variable and the value. */
static int env_set(const env_desc_t *d, const char *value, shmemi_env_t *env)
{
    char *field = (char *)env + d->offset;
    const char *str;
    size_t sz;
    long l;
    int b;

    switch (d->type) {
    case ENV_SIZE:
        if (shmemi_env_parse_size(value, &sz)) {
            shmemi_log_emit(SHMEMI_LOG_ERR, "%s: invalid size '%s' (expected a number with an "
                            "optional k/M/G/T suffix)", d->name, value);
            return -EINVAL;
        }
        memcpy(field, &sz, sizeof(sz));
        break;
    case ENV_BOOL:
        if (shmemi_env_parse_bool(value, &b)) {
            shmemi_log_emit(SHMEMI_LOG_ERR, "%s: invalid boolean '%s' (expected 0/1, yes/no, "
                            "on/off or true/false)", d->name, value);
            return -EINVAL;
        }
        memcpy(field, &b, sizeof(b));
        break;
    case ENV_INT:
        if (env_parse_int(value, &l)) {
            shmemi_log_emit(SHMEMI_LOG_ERR, "%s: invalid integer '%s' (expected a decimal "
                            "number from %ld to %ld)", d->name, value, LONG_MIN, LONG_MAX);
            return -EINVAL;
        }
        memcpy(field, &l, sizeof(l));
        break;
    default:
        /* An empty string keeps the value (the default), except for an
         * empty default itself. */
        memcpy(&str, field, sizeof(str));
        if (value[0] != '\0' || !str)
            memcpy(field, &value, sizeof(value));
        break;
    }
    return 0;
}

/* Levenshtein distance of two names, ignoring case; names longer than 63
 * characters count as far from everything. */
static size_t env_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), i, j;
    size_t row[64], diag, up;

    if (la >= 64 || lb >= 64)
        return SIZE_MAX;
    for (j = 0; j <= lb; j++)
        row[j] = j;
    for (i = 1; i <= la; i++) {
        diag = row[0];
        row[0] = i;
        for (j = 1; j <= lb; j++) {
            size_t cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            size_t best = diag + cost;
            up = row[j];
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    return row[lb];
}

/* Warns about an unknown FABSHMEM_* variable, suggesting the nearest name of
 * the table when one is close enough to be a typo. */
static void env_warn_unknown(const char *name)
{
    size_t i, d, best = SIZE_MAX, limit = strlen(name) / 3;
    const char *near = NULL;

    if (limit < 2)
        limit = 2;
    for (i = 0; i < ENV_COUNT; i++) {
        d = env_distance(name, env_table[i].name);
        if (d < best) {
            best = d;
            near = env_table[i].name;
        }
    }
    if (near && best <= limit)
        shmemi_warn("unknown variable %s ignored; did you mean %s?", name, near);
    else
        shmemi_warn("unknown variable %s ignored (fabshmem_info -c lists the variables)", name);
}

int shmemi_env_parse(char **envp, shmemi_env_t *env_p)
{
    shmemi_env_t env;
    char name[128];
    size_t i, len;
    int ret = 0;

    memset(&env, 0, sizeof(env));
    /* The defaults go through the same parser, so a bad default in env.def
     * is caught by the first run of the unit tests. */
    for (i = 0; i < ENV_COUNT; i++)
        if (env_set(&env_table[i], env_table[i].def, &env))
            ret = -EINVAL;

    if (!envp)
        envp = environ;
    for (; envp && *envp; envp++) {
        const char *kv = *envp, *eq = strchr(kv, '=');
        int own;

        if (!eq)
            continue;
        len = (size_t)(eq - kv);
        own = strncmp(kv, ENV_OWN_PREFIX, sizeof(ENV_OWN_PREFIX) - 1) == 0;
        if (!own && strncmp(kv, "SHMEM_", 6) != 0)
            continue;
        for (i = 0; i < ENV_COUNT; i++) {
            if (strlen(env_table[i].name) == len && strncmp(kv, env_table[i].name, len) == 0) {
                if (env_set(&env_table[i], eq + 1, &env))
                    ret = -EINVAL;
                break;
            }
        }
        if (i == ENV_COUNT && own) {
            if (len >= sizeof(name))
                len = sizeof(name) - 1;
            memcpy(name, kv, len);
            name[len] = '\0';
            env_warn_unknown(name);
        }
    }

    if (env.symmetric_size == 0) {
        shmemi_log_emit(SHMEMI_LOG_ERR, "SHMEM_SYMMETRIC_SIZE: invalid size '0' (the symmetric "
                        "heap needs at least one byte)");
        ret = -EINVAL;
    }
    if (ret)
        return ret;
    *env_p = env;
    return 0;
}

/* Formats the value of field d of env into buf. */
static void env_format(const env_desc_t *d, const shmemi_env_t *env, char *buf, size_t len)
{
    const char *field = (const char *)env + d->offset;
    static const char sfx[] = "kMGT";
    const char *str;
    size_t sz;
    long l;
    int b, k;

    switch (d->type) {
    case ENV_SIZE:
        memcpy(&sz, field, sizeof(sz));
        /* Exact multiples of a power of 1024 are also shown with a suffix. */
        for (k = 4; k >= 1; k--)
            if (sz && (sz & (((size_t)1 << (10 * k)) - 1)) == 0)
                break;
        if (k >= 1)
            snprintf(buf, len, "%zu (%zu%c)", sz, sz >> (10 * k), sfx[k - 1]);
        else
            snprintf(buf, len, "%zu", sz);
        break;
    case ENV_BOOL:
        memcpy(&b, field, sizeof(b));
        snprintf(buf, len, "%d", b);
        break;
    case ENV_INT:
        memcpy(&l, field, sizeof(l));
        snprintf(buf, len, "%ld", l);
        break;
    default:
        memcpy(&str, field, sizeof(str));
        snprintf(buf, len, "\"%s\"", str ? str : "");
        break;
    }
}

/* Prints text wrapped at about 76 columns, each line indented by indent. */
static void env_print_wrapped(FILE *fp, const char *text, int indent)
{
    const char *p = text;
    int col = indent;

    fprintf(fp, "%*s", indent, "");
    while (*p) {
        size_t w = strcspn(p, " ");

        if (col > indent && col + 1 + (int)w > 76) {
            fprintf(fp, "\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', fp);
            col++;
        }
        fwrite(p, 1, w, fp);
        col += (int)w;
        p += w;
        while (*p == ' ')
            p++;
    }
    fputc('\n', fp);
}

static const char env_md_intro[] =
    "# fabshmem environment variables\n"
    "\n"
    "This page is generated by `fabshmem_info -c --markdown` from the one\n"
    "configuration table of the library, `src/base/env.def`; do not edit it by hand.\n"
    "`fabshmem_info -c` prints the same table with the values in effect, and\n"
    "`SHMEM_INFO=1` prints it from PE 0 at `shmem_init`.\n"
    "\n"
    "The variables are read once, at `shmem_init`. The rules:\n"
    "\n"
    "- **BOOL**: `1`, `yes`, `on`, `true` (or `y`) and `0`, `no`, `off`, `false`\n"
    "  (or `n`), in any case; surrounding spaces are ignored. An empty value is\n"
    "  an error.\n"
    "- **SIZE**: a number of bytes with an optional suffix `k`, `M`, `G` or `T`\n"
    "  (powers of 1024, either case) and an optional trailing `B`, such as\n"
    "  `4096`, `64k`, `256M`, `1GB`. Fractions are allowed and rounded down:\n"
    "  `3.1M` is floor(3.1 * 2^20) = 3250585 bytes.\n"
    "- **INT**: a decimal integer (a C `long`).\n"
    "- **STR**: any text; an empty value keeps the default.\n"
    "\n"
    "A value that does not parse (`SHMEM_SYMMETRIC_SIZE=12Q`, a number out of\n"
    "range, `FABSHMEM_DIRECT=maybe`) is an error: `shmem_init` prints a message\n"
    "naming the variable and the value and fails. `SHMEM_SYMMETRIC_SIZE=0` is an\n"
    "error too. An unknown variable whose name starts with `FABSHMEM_` gets a\n"
    "warning with the nearest known name (\"did you mean FABSHMEM_DIRECT?\").\n"
    "\n"
    "Some argument checks are always on, because they cost no communication:\n"
    "the PE number is in range, a symmetric address and length lie inside one\n"
    "symmetric segment (the heap or the global data), element counts times the\n"
    "element size do not overflow, and no routine is called before `shmem_init`\n"
    "or after `shmem_finalize`. A failed check prints the routine, the argument\n"
    "and the PE and ends the whole job. `FABSHMEM_CHECKS=1` adds the checks that\n"
    "cost communication: the arguments of collective calls must agree on every\n"
    "PE of the team (the size of `shmem_malloc` and its kin; for every team\n"
    "collective, reduction, scan and barrier: the routine itself, `nelems`, the\n"
    "broadcast's `PE_root`, the strides of `alltoalls`), compared by one small\n"
    "allreduce before the collective; where they differ, every PE fails, naming\n"
    "the routine, the argument, its values and the PEs that passed them (the job\n"
    "ends, or every PE gets `SHMEMX_ERROR_INVALID_VALUE` in the error-return mode).\n"
    "\n"
    "With `FABSHMEM_CHECKS=0` (the default) a collective whose arguments differ\n"
    "between the PEs is undefined, as OpenSHMEM says: it may hang (a reduction of\n"
    "10 elements on one PE and 1000 on another, on mapped peers), complete with\n"
    "some PEs' data wrong or unchanged (a broadcast of different lengths), or read\n"
    "and write past the shorter buffers of the other PEs. Nothing outside the\n"
    "symmetric segments is touched (each PE checks its own extents), but any\n"
    "symmetric data may be. `FABSHMEM_WATCHDOG` reports such a hang.\n"
    "\n";

void shmemi_env_print(FILE *fp, const shmemi_env_t *env, int markdown)
{
    shmemi_env_print_doc(fp, env, markdown, NULL);
}

void shmemi_env_print_doc(FILE *fp, const shmemi_env_t *env, int markdown,
                          shmemi_env_doc_fn doc)
{
    char val[64], buf[4096];
    size_t i;

    if (markdown) {
        fputs(env_md_intro, fp);
        fputs("| Variable | Type | Default | Meaning |\n", fp);
        fputs("|----------|------|---------|---------|\n", fp);
        for (i = 0; i < ENV_COUNT; i++)
            fprintf(fp, "| `%s` | %s | %s%s%s | %s |\n", env_table[i].name,
                    env_table[i].type_name, env_table[i].def[0] ? "`" : "",
                    env_table[i].def[0] ? env_table[i].def : "(empty)",
                    env_table[i].def[0] ? "`" : "",
                    doc && doc(env_table[i].name, buf, sizeof(buf)) ? buf : env_table[i].doc);
        return;
    }
    fputs("fabshmem configuration (environment variables, value [default]):\n", fp);
    for (i = 0; i < ENV_COUNT; i++) {
        if (env)
            env_format(&env_table[i], env, val, sizeof(val));
        else
            snprintf(val, sizeof(val), "%s", env_table[i].def);
        fprintf(fp, "  %-27s %-4s = %s [%s]\n", env_table[i].name, env_table[i].type_name, val,
                env_table[i].def[0] ? env_table[i].def : "\"\"");
        env_print_wrapped(fp, doc && doc(env_table[i].name, buf, sizeof(buf)) ? buf
                                                                            : env_table[i].doc,
                          6);
    }
}
