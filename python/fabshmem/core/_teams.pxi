# Teams.  A team is an int, as in NVSHMEM: the Teams members for the
# predefined teams, TEAM_INVALID (-1), and handles from FIRST_USER_TEAM up
# for the teams the program makes (splits, team_init), each mapped to the
# library's shmem_team_t here until team_destroy or finalize.

cdef dict _user_teams = {}
cdef long _next_team = 16
FIRST_USER_TEAM = 16


cdef int _team(object team, str rtn, shmem_team_t *out) except -1:
    """The shmem_team_t of a team number (a Teams member or a handle)."""
    cdef long t
    try:
        # An int (a Teams member is one) converts in C.
        t = team if isinstance(team, int) else team.__index__()
    except (AttributeError, TypeError):
        raise NvshmemInvalid(f"{rtn}: team must be a Teams member or a team handle, "
                             f"not {type(team).__name__}") from None
    except OverflowError:
        raise NvshmemInvalid(f"{rtn}: {team!r} is not a team (out of range)") from None
    if 0 <= t < FABPY_TEAM_PREDEFINED:
        out[0] = fabpy_predefined_team(t)
        return 0
    if t == -1:
        out[0] = SHMEM_TEAM_INVALID
        return 0
    p = _user_teams.get(t)
    if p is None:
        raise NvshmemInvalid(f"{rtn}: {t} is not a team (never made, or destroyed)")
    out[0] = <shmem_team_t><uintptr_t>p
    return 0


cdef object _new_team(shmem_team_t t):
    global _next_team
    if t == SHMEM_TEAM_INVALID:
        return Teams.TEAM_INVALID
    h = _next_team
    _next_team += 1
    _user_teams[h] = <uintptr_t>t
    return h


cdef _reset_teams():
    # finalize destroyed them.
    _user_teams.clear()


cdef int _config(object config, str rtn, shmem_team_config_t *c) except -1:
    memset(c, 0, sizeof(c[0]))
    if config is None:
        return 0
    n = getattr(config, "num_contexts", None)
    if n is None:
        raise NvshmemInvalid(f"{rtn}: config must be a TeamConfig, not {type(config).__name__}")
    c.num_contexts = _int_arg(n, rtn, "config.num_contexts")
    return 0


def team_my_pe(team):
    """This PE's number in team (-1 when not a member)."""
    cdef shmem_team_t t
    _team(team, "team_my_pe", &t)
    cdef int r = shmem_team_my_pe(t)
    _chk()
    return r


def team_n_pes(team):
    """The number of PEs in team (-1 for TEAM_INVALID)."""
    cdef shmem_team_t t
    _team(team, "team_n_pes", &t)
    cdef int r = shmem_team_n_pes(t)
    _chk()
    return r


def team_translate_pe(src_team, src_pe, dest_team):
    """The number in dest_team of PE src_pe of src_team (-1 when it is not a
    member of dest_team)."""
    cdef shmem_team_t s, d
    cdef int spe = _int_arg(src_pe, "team_translate_pe", "src_pe")
    _team(src_team, "team_translate_pe", &s)
    _team(dest_team, "team_translate_pe", &d)
    cdef int r = shmem_team_translate_pe(s, spe, d)
    _chk()
    return r


def team_get_config(team, config_mask=SHMEM_TEAM_NUM_CONTEXTS):
    """The configuration of team (a TeamConfig)."""
    cdef shmem_team_t t
    cdef shmem_team_config_t c
    cdef long mask = _long_arg(config_mask, "team_get_config", "config_mask")
    _team(team, "team_get_config", &t)
    memset(&c, 0, sizeof(c))
    _chk_rc(shmem_team_get_config(t, mask, &c), "team_get_config")
    return TeamConfig(num_contexts=c.num_contexts)


def team_split_strided(parent_team, start, stride, size, config=None, config_mask=0,
                       new_team_name=None):
    """A team of the PEs start, start + stride, ... (size of them) of
    parent_team (collective over parent_team).  Returns the new team, or
    Teams.TEAM_INVALID on the PEs that are not in it.  new_team_name is
    accepted for nvshmem4py's sake and not used."""
    cdef shmem_team_t parent, new_team = SHMEM_TEAM_INVALID
    cdef shmem_team_config_t c
    cdef int rc
    cdef int c_start = _int_arg(start, "team_split_strided", "start")
    cdef int c_stride = _int_arg(stride, "team_split_strided", "stride")
    cdef int c_size = _int_arg(size, "team_split_strided", "size")
    cdef long mask = _long_arg(config_mask, "team_split_strided", "config_mask")
    _team(parent_team, "team_split_strided", &parent)
    _config(config, "team_split_strided", &c)
    with nogil:
        rc = shmem_team_split_strided(parent, c_start, c_stride, c_size, &c, mask, &new_team)
    _chk_rc(rc, "team_split_strided")
    return _new_team(new_team)


def team_split_2d(parent_team, xrange, xaxis_config=None, xaxis_mask=0,
                  yaxis_config=None, yaxis_mask=0, new_team_name=None):
    """Splits parent_team into a 2-D grid with rows of xrange PEs
    (collective over parent_team); returns (x-axis team, y-axis team)."""
    cdef shmem_team_t parent, xt = SHMEM_TEAM_INVALID, yt = SHMEM_TEAM_INVALID
    cdef shmem_team_config_t xc, yc
    cdef int rc
    cdef int c_xrange = _int_arg(xrange, "team_split_2d", "xrange")
    cdef long xmask = _long_arg(xaxis_mask, "team_split_2d", "xaxis_mask")
    cdef long ymask = _long_arg(yaxis_mask, "team_split_2d", "yaxis_mask")
    _team(parent_team, "team_split_2d", &parent)
    _config(xaxis_config, "team_split_2d", &xc)
    _config(yaxis_config, "team_split_2d", &yc)
    with nogil:
        rc = shmem_team_split_2d(parent, c_xrange, &xc, xmask, &xt, &yc, ymask, &yt)
    _chk_rc(rc, "team_split_2d")
    return _new_team(xt), _new_team(yt)


def team_get_uniqueid():
    """An id for team_init (shmemx_team_get_uniqueid).  One PE makes it and
    hands it to the members (in config.uniqueid or uid=); it must stay
    initialized until they have returned from team_init."""
    cdef shmemx_team_uniqueid_t u
    cdef int rc
    with nogil:
        rc = shmemx_team_get_uniqueid(&u)
    _chk_rc(rc, "team_get_uniqueid")
    return TeamUniqueID((<char *>&u)[:sizeof(u)])


def team_init(config=None, config_mask=0, n_pes=None, my_pe=None, new_team_name=None,
              uid=None):
    """A team from any set of PEs (shmemx_team_init): each of its n_pes
    members calls it with its index my_pe in the team and the same id,
    given as uid= or as config.uniqueid (a TeamUniqueID from
    team_get_uniqueid)."""
    cdef shmem_team_t t = SHMEM_TEAM_INVALID
    cdef shmem_team_config_t c
    cdef shmemx_team_uniqueid_t cu
    cdef int rc, npes, idx
    if uid is None and config is not None:
        uid = getattr(config, "uniqueid", None)
    if not isinstance(uid, TeamUniqueID):
        raise NvshmemInvalid(
            f"team_init: the team id (uid= or config.uniqueid) must be a TeamUniqueID from "
            f"team_get_uniqueid(), not {type(uid).__name__} (fabshmem's ids carry the "
            f"rendezvous of the PE that made them, so the program cannot choose a number)")
    if n_pes is None or my_pe is None:
        raise NvshmemInvalid("team_init: n_pes and my_pe (this PE's index in the team) "
                             "are required")
    cdef long mask = _long_arg(config_mask, "team_init", "config_mask")
    npes = _int_arg(n_pes, "team_init", "n_pes")
    idx = _int_arg(my_pe, "team_init", "my_pe")
    _config(config, "team_init", &c)
    data = uid._data.tobytes()
    memcpy(&cu, <const char *>data, sizeof(cu))
    with nogil:
        rc = shmemx_team_init(&t, &c, mask, npes, idx, &cu)
    _chk_rc(rc, "team_init")
    return _new_team(t)


def team_destroy(team):
    """Destroys a team the program made (collective over its members)."""
    cdef shmem_team_t t
    _team(team, "team_destroy", &t)
    h = team.__index__()
    if h == -1:
        return
    if h < FIRST_USER_TEAM:
        raise NvshmemInvalid(f"team_destroy: {Teams(h).name} is predefined")
    with nogil:
        shmem_team_destroy(t)
    _chk()
    del _user_teams[h]
