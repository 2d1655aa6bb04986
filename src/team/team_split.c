/*
 * Teams made at run time by splitting a parent (shmem_team_split_strided,
 * shmem_team_split_2d), and their destruction.
 */
#include "core/dev.h"
#include "team/team.h"
#include <stdlib.h>

/* Makes this PE's team of a family of disjoint teams split from parent:
 * every parent member calls it once per family, with the world PEs of its
 * own new team (n >= 1, in team order) or n == 0 when it is in none.  The
 * teams of one family share a slot number, agreed over the whole parent.
 * Returns 0 (and *new_team, SHMEM_TEAM_INVALID for non-members) or
 * SHMEMX_ERROR_OUT_OF_MEMORY (no slot) on every parent member; what names
 * the output argument in the message. */
static int split_family(struct shmemi_team *parent, const int *pes, int n,
                        const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team,
                        const char *rtn, const char *what)
{
    struct shmemi_team *t = NULL;
    int slot, rc;

    *new_team = SHMEM_TEAM_INVALID;
    if ((rc = shmemi_team_slot_agree(parent, n > 0, &slot)))
        return rc;
    if (slot < 0) {
        if ((rc = shmemi_team_sync(parent)))
            return rc;
        return shmemi_err(SHMEMX_ERROR_OUT_OF_MEMORY, rtn, "%s: no free team slot on some PE "
                          "of the parent team (FABSHMEM_TEAMS_MAX=%d; destroy unused teams or "
                          "raise it)", what, shmemi_teams_max);
    }
    if (n > 0) {
        t = calloc(1, sizeof(*t));
        if (!t || shmemi_team_set_members(t, pes, n)) {
            free(t);
            return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: out of memory", rtn);
        }
        t->slot = slot;
        t->parent = parent;
        t->config_mask = config_mask;
        if (config && (config_mask & SHMEM_TEAM_NUM_CONTEXTS))
            t->config.num_contexts = config->num_contexts;
        shmemi_team_slot_clear(slot);
        *new_team = t;
    }
    /* Nobody signals into the new slot before every member cleared it. */
    return shmemi_team_sync(parent);
}

/* A refused split: no team, and the message as a warning, or (quiet) at
 * debug level only, for the outcomes that the specification defines as
 * ordinary (a parent of SHMEM_TEAM_INVALID, which a PE left out of an
 * earlier split holds; a split of no PEs). */
static int bad_split(shmem_team_t *new_team, int quiet, const char *rtn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int bad_split(shmem_team_t *new_team, int quiet, const char *rtn, const char *fmt, ...)
{
    char msg[200];
    va_list ap;

    if (new_team)
        *new_team = SHMEM_TEAM_INVALID;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (quiet)
        return shmemi_err_quiet(SHMEMX_ERROR_INVALID_VALUE, rtn, "%s", msg);
    return shmemi_err_warn(SHMEMX_ERROR_INVALID_VALUE, rtn, "%s", msg);
}

/* The parent checks of both splits: 0, or the refusal (bad_split). */
static int check_parent(struct shmemi_team *p, shmem_team_t *new_team, const char *rtn)
{
    if (p == SHMEM_TEAM_INVALID)
        return bad_split(new_team, 1, rtn, "parent_team is SHMEM_TEAM_INVALID: no team is made");
    if (shmemi_team_destroyed(p))
        return bad_split(new_team, 0, rtn, "parent_team %s", shmemi_team_bad_msg(p));
    if (!shmemi_team_ok(p))
        return bad_split(new_team, 0, rtn, "parent_team is not a team of this PE");
    return 0;
}

int shmemi_team_split_strided(struct shmemi_team *p, int start, int stride, int size,
                              const shmem_team_config_t *config, long config_mask,
                              shmem_team_t *new_team, const char *rtn)
{
    int *pes, n, ret;
    long long last;

    if ((ret = shmemi_check_init(rtn)))
        return ret;
    if (!new_team)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "new_team is NULL");
    if ((ret = check_parent(p, new_team, rtn)))
        return ret;
    if (size == 0)
        return bad_split(new_team, 1, rtn, "size 0: a team of no PEs, no team is made");
    if (size < 0 || start < 0 || start >= p->n_pes)
        return bad_split(new_team, 0, rtn, "start %d / size %d out of range (parent has %d PEs)",
                         start, size, p->n_pes);
    if (stride == 0 && size != 1)
        return bad_split(new_team, 0, rtn, "stride 0 needs size 1 (size is %d)", size);
    last = (long long)start + (long long)stride * (size - 1);
    if (last < 0 || last >= p->n_pes)
        return bad_split(new_team, 0, rtn, "start %d + stride %d * (size %d - 1) = %lld is outside "
                         "the parent (%d PEs)", start, stride, size, last, p->n_pes);
    pes = malloc(sizeof(int) * size);
    if (!pes)
        return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: out of memory", rtn);
    n = shmemi_team_strided_pes(p, p->my_pe, start, stride, size, pes);
    ret = split_family(p, pes, n, config, config_mask, new_team, rtn, "new_team");
    free(pes);
    return ret;
}

int shmemi_team_split_2d(struct shmemi_team *p, int xrange,
                         const shmem_team_config_t *xaxis_config, long xaxis_mask,
                         shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                         long yaxis_mask, shmem_team_t *yaxis_team, const char *rtn)
{
    int *pes, n, ret, ret_y;

    if ((ret = shmemi_check_init(rtn)))
        return ret;
    if (!xaxis_team || !yaxis_team)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "%s is NULL",
                          !xaxis_team ? "xaxis_team" : "yaxis_team");
    *xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
    if ((ret = check_parent(p, NULL, rtn)))
        return ret;
    /* OpenSHMEM 1.6 asks for a nonnegative xrange.  xrange 0 is a grid of
     * no columns: no PE has a place in it, so neither team is made (both
     * SHMEM_TEAM_INVALID) and the call returns nonzero, the same on every
     * PE (recorded as a debug message, which the API does not print). */
    if (xrange < 0)
        return bad_split(NULL, 0, rtn, "xrange %d is negative", xrange);
    if (xrange == 0)
        return bad_split(NULL, 1, rtn, "xrange 0: a grid without columns, no team is made");
    if (xrange > p->n_pes)
        xrange = p->n_pes;
    pes = malloc(sizeof(int) * p->n_pes);
    if (!pes)
        return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: out of memory", rtn);
    /* Each axis is made on its own: a y-axis team that cannot be made (no
     * team slot) leaves a good x-axis team alone, as the specification
     * asks ("if either team cannot be created, that team will be assigned
     * SHMEM_TEAM_INVALID"), and the return is nonzero unless both were
     * made.  Both results are the same on every parent member (each split
     * agrees over the whole parent). */
    n = shmemi_team_2d_pes(p, p->my_pe, xrange, 0, pes);
    ret = split_family(p, pes, n, xaxis_config, xaxis_mask, xaxis_team, rtn, "xaxis_team");
    if (ret && ret != SHMEMX_ERROR_OUT_OF_MEMORY) { /* the transport failed */
        free(pes);
        return ret;
    }
    n = shmemi_team_2d_pes(p, p->my_pe, xrange, 1, pes);
    ret_y = split_family(p, pes, n, yaxis_config, yaxis_mask, yaxis_team, rtn, "yaxis_team");
    free(pes);
    return ret ? ret : ret_y;
}

/* The tombstones of destroyed teams, oldest first from tomb_next: a
 * ring, so that a program that makes and destroys teams without end keeps
 * SHMEMI_TEAM_TOMBS small structs at most. */
static struct shmemi_team *tombs[SHMEMI_TEAM_TOMBS];
static unsigned tomb_next;

/* Turns team, whose members were freed, into a tombstone. */
static void team_bury(struct shmemi_team *team)
{
    struct shmemi_team *old = tombs[tomb_next];

    team->destroyed = 1;
    team->my_pe = -1;
    team->n_pes = 0;
    team->slot = -1;
    team->pes = team->world_to_team = NULL;
    team->parent = NULL;
    tombs[tomb_next] = team;
    tomb_next = (tomb_next + 1) % SHMEMI_TEAM_TOMBS;
    if (old)
        shmemi_team_forget(old);
    free(old);
}

void shmemi_team_tombs_fini(void)
{
    unsigned i;

    for (i = 0; i < SHMEMI_TEAM_TOMBS; i++) {
        if (tombs[i])
            shmemi_team_forget(tombs[i]);
        free(tombs[i]);
        tombs[i] = NULL;
    }
    tomb_next = 0;
}

int shmemi_team_destroy(struct shmemi_team *team, const char *rtn)
{
    int rc;

    if ((rc = shmemi_check_init(rtn)))
        return rc;
    if (team == SHMEM_TEAM_INVALID)
        return 0;
    if (shmemi_team_unknown(team))
        return shmemi_err_warn(SHMEMX_ERROR_INVALID_VALUE, rtn, "team %s",
                               shmemi_team_bad_msg(team));
    if (team->destroyed)
        return shmemi_err_warn(SHMEMX_ERROR_INVALID_VALUE, rtn, "team "
                               SHMEMI_TEAM_DESTROYED_MSG " (destroyed twice)");
    if (team->predefined)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "team is a predefined team "
                          "(SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED, SHMEMX_TEAM_*), which cannot be "
                          "destroyed");
    if (team->my_pe < 0)
        return 0;
    /* The contexts of the team go with it. */
    if ((rc = shmemi_ctxs_release(team, rtn)))
        return rc;
    /* Every member is done with the team: no signal is in flight to us. */
    if ((rc = shmemi_team_sync(team)))
        return rc;
    /* Nor is a write of its synchronizations on CUDA streams (the program
     * has synchronized the streams that had the team's work, as with its
     * contexts): the next team in the slot starts from zero. */
    if (team->gpu_epoch && (rc = shmemi_dev_sync_clear(team->slot, rtn)))
        return rc;
    shmemi_team_slot_release(team->slot);
    shmemi_team_free_members(team);
    team_bury(team);
    return 0;
}
