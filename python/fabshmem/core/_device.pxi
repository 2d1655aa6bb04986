# The device API's host side for Python kernels (fabshmem.core.device):
# the state that kernels read, team handles for kernels, the check that
# reports a kernel's error, and where the headers are.


def _device_state():
    """The device API's state (shmemd_state_t of this libfabshmem) as bytes
    (shmemx_device_state)."""
    cdef size_t n = fabpy_device_state_size()
    cdef bytearray buf = bytearray(n)
    cdef char *p = buf
    cdef int rc
    rc = shmemx_device_state(p, n)
    _chk_rc(rc, "shmemx_device_state")
    return bytes(buf)


def _device_state_size():
    """sizeof(shmemd_state_t) in the headers the binding was built with."""
    return fabpy_device_state_size()


def _device_state_layout():
    """(SHMEMD_STATE_VERSION, the offsets of proxy.slots and proxy.nslots in
    shmemd_state_t) in the headers the binding was built with."""
    return (fabpy_device_state_version(), fabpy_device_proxy_slots_at(),
            fabpy_device_proxy_nslots_at())


def _team_device(team):
    """The device handle (shmemd_team_t) of team (shmemx_team_device)."""
    cdef shmem_team_t t
    _team(team, "team_device", &t)
    cdef int r = shmemx_team_device(t)
    _chk()
    if r < 0:
        raise NvshmemInvalid(f"team_device: team {team!r} has no device handle (TEAM_INVALID, "
                             "a team this PE is not a member of, or a job without a device "
                             "heap)", int(ErrorCode.INVALID_VALUE))
    return r


def _device_check():
    """Raises the first error a kernel of this PE recorded since the last
    check (shmemx_device_check), and clears it."""
    cdef int rc
    with nogil:
        rc = shmemx_device_check()
    _chk_rc(rc, "shmemx_device_check")


def _device_link():
    """(the include directories the extension was built against, the path
    of the libfabshmem loaded)."""
    cdef const char *lib = fabpy_lib_path()
    incs = [d for d in fabpy_link_include_dirs().decode().split(":") if d]
    return incs, (lib.decode() if lib != NULL else None)
