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

enum { ENV_SIZE, ENV_BOOL, ENV_INT, ENV_STR, ENV_CHOICE };

typedef struct env_desc {
    const char *name;
    int type;
    const char *type_name;
    const char *def;
    const char *doc;
    size_t offset;
    const char *field;
    /* INT: the values allowed (LONG_MIN, LONG_MAX: any). */
    long lo, hi;
} env_desc_t;

/* What each type of env.def gives a row: its kind, its name, its range. */
#define ENV_ROW_SIZE ENV_SIZE, "SIZE", 0, 0
#define ENV_ROW_BOOL ENV_BOOL, "BOOL", 0, 0
#define ENV_ROW_STR  ENV_STR, "STR", 0, 0
#define ENV_ROW_CHOICE ENV_CHOICE, "CHOICE", 0, 0
#define ENV_ROW_INT  ENV_INT, "INT", LONG_MIN, LONG_MAX
#define ENV_ROW_INT_IN(lo, hi) ENV_INT, "INT", (lo), (hi)
#define ENV_ROW(field, var, def, doc, kind, type_name, lo, hi) \
    { #var, kind, type_name, def, doc, offsetof(shmemi_env_t, field), #field, lo, hi },
#define ENV_ROW_(...) ENV_ROW(__VA_ARGS__)

static const env_desc_t env_table[] = {
#define X(field, var, type, def, doc) ENV_ROW_(field, var, def, doc, ENV_ROW_##type)
#include "env.def"
#undef X
};

#define ENV_COUNT (sizeof(env_table) / sizeof(env_table[0]))

/* The values of the CHOICE rows, in the order of enum shmemi_env_choice. */
static const struct env_value {
    const char *field;
    const char *name;
} env_values[] = {
#define X(field, var, type, def, doc)
#define V(field, id, name) { #field, name },
#include "env.def"
#undef V
#undef X
};

const char *shmemi_env_choice_name(int value)
{
    return value >= 0 && value < SHMEMI_ENV_CHOICES ? env_values[value].name : "?";
}

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

/* The value of CHOICE row d that s names (surrounding white space and case
 * ignored; the boolean spellings name "0" and "1" where d has them), or -1. */
static int env_parse_choice(const env_desc_t *d, const char *s)
{
    const char *b, *e;
    size_t len;
    int v, bv;

    env_trim(s, &b, &e);
    len = (size_t)(e - b);
    for (v = 0; v < SHMEMI_ENV_CHOICES; v++)
        if (!strcmp(env_values[v].field, d->field) && strlen(env_values[v].name) == len &&
            !strncasecmp(b, env_values[v].name, len))
            return v;
    if (shmemi_env_parse_bool(s, &bv))
        return -1;
    for (v = 0; v < SHMEMI_ENV_CHOICES; v++)
        if (!strcmp(env_values[v].field, d->field) && !strcmp(env_values[v].name, bv ? "1" : "0"))
            return v;
    return -1;
}

/* The values of CHOICE row d, "auto, 1, 0", into buf. */
static void env_choice_list(const env_desc_t *d, char *buf, size_t len, const char *quote)
{
    size_t used = 0;
    int v;

    buf[0] = '\0';
    for (v = 0; v < SHMEMI_ENV_CHOICES && used < len; v++)
        if (!strcmp(env_values[v].field, d->field))
            used += (size_t)snprintf(buf + used, len - used, "%s%s%s%s", used ? ", " : "",
                                     quote, env_values[v].name, quote);
}

/* The range of INT row d in words ("1 to 4096", "0 or more"), or "". */
static void env_range(const env_desc_t *d, char *buf, size_t len)
{
    buf[0] = '\0';
    if (d->type != ENV_INT || (d->lo == LONG_MIN && d->hi == LONG_MAX))
        return;
    if (d->hi == LONG_MAX)
        snprintf(buf, len, "%ld or more", d->lo);
    else if (d->lo == LONG_MIN)
        snprintf(buf, len, "%ld or less", d->hi);
    else
        snprintf(buf, len, "%ld to %ld", d->lo, d->hi);
}

/* Reports a bad value of variable var: printed, each one, and the first
 * of a parse (*nbad_p 0) also recorded as the calling thread's failure
 * (shmemx_error_get), printed by nobody else: init ends with one line
 * after it. */
static void env_bad(const char *var, int *nbad_p, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void env_bad(const char *var, int *nbad_p, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    shmemi_log_emit(SHMEMI_LOG_ERR, "%s: %s", var, msg);
    if (!(*nbad_p)++)
        (void)shmemi_err_quiet(SHMEMX_ERROR_INVALID_VALUE, var, "%s", msg);
}

/* Parses value into the field of row d; reports a bad value naming the
 * variable and the value (env_bad). */
static int env_set(const env_desc_t *d, const char *value, shmemi_env_t *env, int *nbad_p)
{
    char *field = (char *)env + d->offset;
    const char *str;
    size_t sz;
    long l;
    int b;

    switch (d->type) {
    case ENV_SIZE:
        if (shmemi_env_parse_size(value, &sz)) {
            env_bad(d->name, nbad_p, "invalid size '%s' (expected a number with an optional "
                    "k/M/G/T suffix)", value);
            return -EINVAL;
        }
        memcpy(field, &sz, sizeof(sz));
        break;
    case ENV_BOOL:
        if (shmemi_env_parse_bool(value, &b)) {
            env_bad(d->name, nbad_p, "invalid boolean '%s' (expected 0/1, yes/no, on/off or "
                    "true/false)", value);
            return -EINVAL;
        }
        memcpy(field, &b, sizeof(b));
        break;
    case ENV_INT:
        if (env_parse_int(value, &l)) {
            env_bad(d->name, nbad_p, "invalid integer '%s' (expected a decimal number from %ld "
                    "to %ld)", value, LONG_MIN, LONG_MAX);
            return -EINVAL;
        }
        if (l < d->lo || l > d->hi) {
            char range[64];

            env_range(d, range, sizeof(range));
            env_bad(d->name, nbad_p, "invalid value %ld (expected %s)", l, range);
            return -EINVAL;
        }
        memcpy(field, &l, sizeof(l));
        break;
    case ENV_CHOICE:
        /* An empty string keeps the value (the default), as for STR. */
        if (value[0] == '\0' && d->def != value)
            break;
        b = env_parse_choice(d, value);
        if (b < 0) {
            char list[256];

            env_choice_list(d, list, sizeof(list), "");
            env_bad(d->name, nbad_p, "unknown value '%s' (expected one of: %s)", value, list);
            return -EINVAL;
        }
        memcpy(field, &b, sizeof(b));
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
    int ret = 0, nbad = 0;

    memset(&env, 0, sizeof(env));
    /* The defaults go through the same parser, so a bad default in env.def
     * is caught by the first run of the unit tests. */
    for (i = 0; i < ENV_COUNT; i++)
        if (env_set(&env_table[i], env_table[i].def, &env, &nbad))
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
                if (env_set(&env_table[i], eq + 1, &env, &nbad))
                    ret = -EINVAL;
                env.set[i] = 1;
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
        env_bad("SHMEM_SYMMETRIC_SIZE", &nbad, "invalid size '0' (the symmetric heap needs at "
                "least one byte)");
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
    case ENV_CHOICE:
        memcpy(&b, field, sizeof(b));
        snprintf(buf, len, "%s", shmemi_env_choice_name(b));
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
    "- **INT**: a decimal integer (a C `long`); where the table gives a range\n"
    "  (`INT (1 to 4096)`), a value outside it is an error.\n"
    "- **STR**: any text; an empty value keeps the default.\n"
    "- **CHOICE**: one of the values listed with the type, in any case;\n"
    "  surrounding spaces are ignored, and where the values are `0` and `1`\n"
    "  the other BOOL spellings name them too. An empty value keeps the\n"
    "  default.\n"
    "\n"
    "A value that does not parse (`SHMEM_SYMMETRIC_SIZE=12Q`, a number out of\n"
    "range, `FABSHMEM_DIRECT=maybe`, `FABSHMEM_BOOTSTRAP=mpi`) is an error:\n"
    "`shmem_init` prints a message naming the variable and the value (and, for\n"
    "a CHOICE, the values there are) and fails. `SHMEM_SYMMETRIC_SIZE=0` is an\n"
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
    char val[64], buf[4096], range[64];
    size_t i;

    if (markdown) {
        fputs(env_md_intro, fp);
        fputs("| Variable | Type | Default | Meaning |\n", fp);
        fputs("|----------|------|---------|---------|\n", fp);
        for (i = 0; i < ENV_COUNT; i++) {
            char type[256];

            if (env_table[i].type == ENV_CHOICE) {
                char list[200];

                env_choice_list(&env_table[i], list, sizeof(list), "`");
                snprintf(type, sizeof(type), "CHOICE: %s", list);
            } else {
                env_range(&env_table[i], range, sizeof(range));
                snprintf(type, sizeof(type), "%s%s%s%s", env_table[i].type_name,
                         range[0] ? " (" : "", range, range[0] ? ")" : "");
            }
            fprintf(fp, "| `%s` | %s | %s%s%s | %s |\n", env_table[i].name,
                    type, env_table[i].def[0] ? "`" : "",
                    env_table[i].def[0] ? env_table[i].def : "(empty)",
                    env_table[i].def[0] ? "`" : "",
                    doc && doc(env_table[i].name, buf, sizeof(buf)) ? buf : env_table[i].doc);
        }
        return;
    }
    fputs("fabshmem configuration (environment variables, value [default]):\n", fp);
    for (i = 0; i < ENV_COUNT; i++) {
        if (env)
            env_format(&env_table[i], env, val, sizeof(val));
        else
            snprintf(val, sizeof(val), "%s", env_table[i].def);
        env_range(&env_table[i], range, sizeof(range));
        fprintf(fp, "  %-27s %-4s = %s [%s]%s%s\n", env_table[i].name, env_table[i].type_name,
                val, env_table[i].def[0] ? env_table[i].def : "\"\"", range[0] ? ", " : "",
                range);
        env_print_wrapped(fp, doc && doc(env_table[i].name, buf, sizeof(buf)) ? buf
                                                                            : env_table[i].doc,
                          6);
    }
}
