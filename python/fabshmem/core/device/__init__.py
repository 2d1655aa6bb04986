"""fabshmem.core.device: the device API (include/fabshmem/shmem_device.cuh,
docs/device.md) in Python kernels compiled by NVRTC, as CuPy's RawModule
compiles them (docs/python.md, "Device API in Python kernels").

    import cupy as cp
    import fabshmem.core as nvshmem
    import fabshmem.core.device as dev

    nvshmem.init(device=...)
    mod = dev.RawModule(code=r'''
    #include <fabshmem/shmem_device.cuh>
    extern "C" __global__ void ring(int *dst)
    {
        int me = shmemd_my_pe(), n = shmemd_n_pes();
        shmemd_int_p(dst, me, (me + 1) % n);
    }''')
    dst = nvshmem.array((1,), "int32")
    mod.get_function("ring")((1,), (1,), (dst,))
    cp.cuda.Device().synchronize()
    dev.check()                      # a kernel's error raises here
    nvshmem.barrier_all()            # dst[0] is the previous PE's number

A module's kernels read the PE's state from the module's constant
shmemd_state_c, which load(module) fills (RawModule does it); kernels
reach the PEs whose device heaps this GPU maps (TEAM_SHARED) through the
mapping, and the others through the host's proxy thread where it runs
(proxy(); docs/device.md, "The proxy"), as C kernels do: the headers are
the same.
"""
import os
import struct

from fabshmem.core import _lib
from fabshmem.core._types import NvshmemInvalid, NvshmemNotSupported

__all__ = ["include_dirs", "compile_options", "state_bytes", "proxy", "load", "team_device",
           "check", "RawModule", "TEAM_WORLD", "TEAM_SHARED", "TEAM_NODE", "STATE_SYMBOL"]

# The device handles of the predefined teams (shmemd_team_t in kernels:
# SHMEMD_TEAM_WORLD, SHMEMD_TEAM_SHARED, SHMEMD_TEAM_NODE).
TEAM_WORLD = 0
TEAM_SHARED = 1
TEAM_NODE = 2
# The module's constant that holds the state (unmangled, extern "C").
STATE_SYMBOL = "shmemd_state_c"
_HEADER = os.path.join("fabshmem", "shmem_device.cuh")


def include_dirs():
    """The include directories that hold the device API's headers of the
    libfabshmem this binding runs on (fabshmem/shmem_device.cuh): those the
    binding was built against (the build tree's, or the installed
    PREFIX/include), and the include directory beside the loaded library
    (PREFIX/lib/.. /include).  Raises NvshmemNotSupported when none has
    the header."""
    incs, lib = _lib._device_link()
    cands = list(incs)
    if lib:
        libdir = os.path.dirname(os.path.realpath(lib))
        for up in ("..", os.path.join("..", "..")):
            cands.append(os.path.normpath(os.path.join(libdir, up, "include")))
    found = []
    for d in cands:
        if os.path.isfile(os.path.join(d, _HEADER)) and d not in found:
            found.append(d)
    if not found:
        raise NvshmemNotSupported(
            f"fabshmem.core.device.include_dirs: no {_HEADER} in {', '.join(cands) or '(none)'} "
            f"(the include directories the binding was built against, and the one beside "
            f"{lib or 'libfabshmem'}): install fabshmem's headers (make install) or build the "
            "binding against the tree that has them")
    return found


def compile_options():
    """The NVRTC options a module calling the device API needs (a tuple, as
    cupy.RawModule's options takes): -I for each of include_dirs(), nothing
    else (the headers compile under NVRTC's defaults, C++17 in CUDA 12 and
    13, and C++14; CuPy adds the architecture)."""
    return tuple("-I" + d for d in include_dirs())


def state_bytes():
    """The device API's state of this PE (the shmemd_state_t kernels read,
    from shmemx_device_state): bytes.  Raises NvshmemInvalid before init,
    NvshmemNotSupported on a job without a device heap (the library says
    why)."""
    return _lib._device_state()


# The version of shmemd_state_t (include/fabshmem/device/state.h) and where
# it keeps the proxy's ring (state.proxy.slots, .nslots), from the headers
# the binding was compiled with (tests/python/test_device.py checks them
# against a C compiler's).
_STATE_VERSION, _PROXY_SLOTS_AT, _PROXY_NSLOTS_AT = _lib._device_state_layout()


def proxy():
    """The number of slots of the proxy's request ring through which this
    PE's kernels reach the PEs its GPU does not map, or 0 when there is no
    proxy (every peer is mapped, or FABSHMEM_PROXY=0: a kernel's call for
    an unmapped PE is then refused and check() raises it)."""
    data = state_bytes()
    version, = struct.unpack_from("<i", data, 0)
    if version != _STATE_VERSION:
        raise NvshmemInvalid(f"fabshmem.core.device.proxy: the library's device state is of "
                             f"version {version}, this binding reads version {_STATE_VERSION}")
    slots, = struct.unpack_from("<Q", data, _PROXY_SLOTS_AT)
    nslots, = struct.unpack_from("<I", data, _PROXY_NSLOTS_AT)
    return nslots if slots else 0


def load(module):
    """Fills the state (shmemd_state_c) of a CuPy RawModule compiled with
    compile_options(), on the current device; returns module.  Call it
    after init and before the module's kernels run (RawModule() does)."""
    data = state_bytes()
    try:
        ptr = module.get_global(STATE_SYMBOL)
    except Exception as e:  # CuPy's CUDADriverError, or a module without it
        raise NvshmemInvalid(f"fabshmem.core.device.load: the module has no {STATE_SYMBOL} "
                             "(does its code include <fabshmem/shmem_device.cuh>, compiled "
                             f"by NVRTC?): {type(e).__name__}: {e}") from None
    # CuPy's get_global keeps no size (its memory's size is 0); where a
    # module gives one, it must be this library's.
    size = getattr(getattr(ptr, "mem", None), "size", 0)
    if size and size != len(data):
        raise NvshmemInvalid(f"fabshmem.core.device.load: the module's {STATE_SYMBOL} has "
                             f"{size} bytes, this libfabshmem's state {len(data)}: the module "
                             "was compiled against another fabshmem's headers")
    import ctypes
    host = ctypes.create_string_buffer(data, len(data))
    # (a synchronous copy: the state is in place when load returns)
    ptr.copy_from_host(ctypes.c_void_p(ctypes.addressof(host)), len(data))
    return module


def team_device(team):
    """The handle (shmemd_team_t) kernels take for team (a Teams member or
    a team handle): TEAM_WORLD, TEAM_SHARED, TEAM_NODE for the predefined
    teams, the team's slot for others (shmemx_team_device publishes the
    team to kernels).  Raises NvshmemInvalid for a team this PE is not a
    member of, TEAM_INVALID, or a job without a device heap."""
    return _lib._team_device(team)


def check():
    """Raises the first error that a kernel of this PE recorded since the
    last check (NvshmemNotSupported for a PE this GPU does not map,
    NvshmemInvalid for an address outside the device heap, a PE out of
    range, a team that is not a device team), naming the routine and the
    PE, and clears it (shmemx_device_check).  The library's barrier_all,
    quiet, stream syncs and finalize check too."""
    _lib._device_check()


def RawModule(code=None, *, options=(), **kw):
    """cupy.RawModule(code=code, options=compile_options() + options, **kw)
    with its state loaded (load()): a module whose kernels call the device
    API.  Compiled and loaded on the current device."""
    import cupy
    mod = cupy.RawModule(code=code, options=compile_options() + tuple(options), **kw)
    return load(mod)
