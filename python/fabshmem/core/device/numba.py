"""fabshmem.core.device.numba: the device API in Numba-CUDA kernels, as
nvshmem4py's nvshmem.core.device.numba (docs/python.md, "Device API in
Python kernels").

    from numba import cuda
    import fabshmem.core as nvshmem
    import fabshmem.core.device.numba as fnb

    @fnb.jit
    def ring(dst):
        me, n = fnb.my_pe(), fnb.n_pes()
        if cuda.threadIdx.x == 0:
            fnb.int_p(dst, me, (me + 1) % n)
        fnb.barrier_all_block()

    nvshmem.init(device=...)
    dst = nvshmem.array((1,), "int32")
    ring[1, 32](dst)                 # dst[0]: the previous PE's number

The routines are extern "C" __device__ wrappers around the inline shmemd_
routines of <fabshmem/shmem_device.cuh>, in a .cu file (the headers
inlined) that numba-cuda compiles with NVRTC and links into each kernel
(numba.cuda.declare_device, link=).  Each kernel's module has its own
state (shmemd_state_c), which jit() fills when a specialization is first
launched, and load() for kernels made with cuda.jit(link=link_files()).
Arrays are passed where the C routine takes an address (their first
element); sizes of put/get are the source array's bytes.
"""
import hashlib
import os
import tempfile

import numpy as _np

# numba 0.68's CUDA target calls np.row_stack, which NumPy 2.5 removed
# (every @cuda.jit kernel then fails with AttributeError): the alias is
# restored, as the same function (np.vstack), before numba is imported.
if not hasattr(_np, "row_stack"):
    _np.row_stack = _np.vstack

from numba import cuda  # noqa: E402
try:  # numba-cuda's own typing (newer numba-cuda), else numba's
    from numba.cuda import types  # noqa: E402
    from numba.cuda.extending import intrinsic  # noqa: E402
except ImportError:
    from numba.core import types  # noqa: E402
    from numba.core.extending import intrinsic  # noqa: E402

from fabshmem.core import device as _dev  # noqa: E402
from fabshmem.core.device import _numba_shim  # noqa: E402
from fabshmem.core._types import NvshmemInvalid  # noqa: E402

__all__ = ["jit", "load", "link_files", "my_pe", "n_pes", "int_p", "long_p", "float_p",
           "double_p", "int_g", "long_g", "float_g", "double_g", "put", "put_warp",
           "put_block", "get", "get_warp", "get_block", "put_signal", "put_signal_block",
           "int_atomic_fetch_add", "long_atomic_fetch_add", "signal_op",
           "signal_wait_until", "signal_fetch", "barrier_all", "barrier_all_warp",
           "barrier_all_block", "sync_all", "sync_all_block", "quiet", "fence",
           "int_sum_reduce", "int_sum_reduce_block", "float_sum_reduce",
           "float_sum_reduce_block", "SIGNAL_SET", "SIGNAL_ADD", "CMP_EQ", "CMP_NE",
           "CMP_GT", "CMP_GE", "CMP_LT", "CMP_LE"]

SIGNAL_SET, SIGNAL_ADD = 0, 1
CMP_EQ, CMP_NE, CMP_GT, CMP_GE, CMP_LT, CMP_LE = 0, 1, 2, 3, 4, 5

_SHIM = []


def link_files():
    """[the .cu file of the wrappers] for cuda.jit(link=...): the device
    API's headers of this libfabshmem inlined, then the wrappers
    (_numba_shim.py); written once per content under the temporary
    directory."""
    if _SHIM:
        return list(_SHIM)
    src = _numba_shim.source(_dev.include_dirs()[0])
    h = hashlib.sha256(src.encode()).hexdigest()[:16]
    path = os.path.join(tempfile.gettempdir(), f"fabshmem-numba-{os.getuid()}-{h}.cu")
    if not os.path.isfile(path):
        fd, tmp = tempfile.mkstemp(suffix=".cu", dir=os.path.dirname(path))
        with os.fdopen(fd, "w") as f:
            f.write(src)
        os.replace(tmp, path)
    _SHIM.append(path)
    return list(_SHIM)


# ---- the state of each kernel's module ----

_loaded = set()  # ids of the kernels (specializations) whose state is in place


def _load_kernel(kernel, data=None):
    if id(kernel) in _loaded:
        return
    data = _dev.state_bytes() if data is None else data
    mod = kernel._codelibrary.get_cufunc().module
    try:
        ptr, size = mod.get_global_symbol(_dev.STATE_SYMBOL)
    except Exception as e:  # numba's CudaAPIError: the kernel links no wrapper
        raise NvshmemInvalid(f"fabshmem.core.device.numba.load: the kernel's module has no "
                             f"{_dev.STATE_SYMBOL} (was it made with link=link_files()?): "
                             f"{type(e).__name__}: {e}") from None
    if size != len(data):
        raise NvshmemInvalid(f"fabshmem.core.device.numba.load: the module's "
                             f"{_dev.STATE_SYMBOL} has {size} bytes, this libfabshmem's state "
                             f"{len(data)}: the wrappers were compiled against another "
                             "fabshmem's headers")
    cuda.driver.host_to_device(ptr, _np.frombuffer(data, dtype=_np.uint8), len(data))
    _loaded.add(id(kernel))


def load(dispatcher):
    """Fills the state of every compiled specialization of a kernel made
    with cuda.jit(link=link_files()) (compile it first: dispatcher.compile
    (signature), or launch it through jit()); returns dispatcher."""
    data = _dev.state_bytes()
    for kernel in dispatcher.overloads.values():
        _load_kernel(kernel, data)
    return dispatcher


class _Kernel:
    """A kernel of jit(): launched as a numba one (kernel[grid, block](...)),
    each specialization compiled and its state filled before its first
    launch."""

    def __init__(self, dispatcher):
        self.dispatcher = dispatcher

    def __getitem__(self, config):
        launch = self.dispatcher[config]

        def run(*args):
            sig = tuple(self.dispatcher.typeof_pyval(a) for a in args)
            _load_kernel(self.dispatcher.compile(sig))
            return launch(*args)
        return run

    def __getattr__(self, name):
        return getattr(self.dispatcher, name)


def jit(func=None, **kw):
    """numba.cuda.jit for kernels that call this module's routines: links
    the wrappers and fills each specialization's state at its first launch
    (after init)."""
    def wrap(f):
        link = list(kw.pop("link", ())) + link_files()
        return _Kernel(cuda.jit(f, link=link, **kw))
    return wrap(func) if func is not None else wrap


# ---- the routines ----

@intrinsic
def _addr(typingctx, arr):
    """The address of an array's first element, as void *."""
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, sig, args):
        a = context.make_array(arr)(context, builder, value=args[0])
        return builder.bitcast(a.data, context.get_value_type(types.voidptr))
    return types.voidptr(arr), codegen


def _decl(name, sig):
    assert name in _numba_shim.NAMES, name  # a wrapper that nvrtc.sh checks
    return cuda.declare_device("fabshmem_nb_" + name, sig)


my_pe = _decl("my_pe", "int32()")
n_pes = _decl("n_pes", "int32()")
quiet = _decl("quiet", "int32()")
fence = _decl("fence", "int32()")
barrier_all = _decl("barrier_all", "int32()")
barrier_all_warp = _decl("barrier_all_warp", "int32()")
barrier_all_block = _decl("barrier_all_block", "int32()")
sync_all = _decl("sync_all", "int32()")
sync_all_block = _decl("sync_all_block", "int32()")

_p = {n: _decl(f"{n}_p", f"int32(voidptr, {t}, int32)")
      for n, t in (("int", "int32"), ("long", "int64"), ("float", "float32"),
                   ("double", "float64"))}
_g = {n: _decl(f"{n}_g", f"{t}(voidptr, int32)")
      for n, t in (("int", "int32"), ("long", "int64"), ("float", "float32"),
                   ("double", "float64"))}
_fadd = {n: _decl(f"{n}_atomic_fetch_add", f"{t}(voidptr, {t}, int32)")
         for n, t in (("int", "int32"), ("long", "int64"))}
_mem = {(w, s): _decl(f"{w}mem{s}", "int32(voidptr, voidptr, uint64, int32)")
        for w in ("put", "get") for s in ("", "_warp", "_block")}
_psig = {s: _decl(f"putmem_signal{s}",
                  "int32(voidptr, voidptr, uint64, voidptr, uint64, int32, int32)")
         for s in ("", "_block")}
_red = {(n, s): _decl(f"{n}_sum_reduce{s}", "int32(int32, voidptr, voidptr, uint64)")
        for n in ("int", "float") for s in ("", "_block")}
_sigop = _decl("signal_op", "int32(voidptr, uint64, int32, int32)")
_sigwait = _decl("signal_wait_until", "uint64(voidptr, int32, uint64)")
_sigfetch = _decl("signal_fetch", "uint64(voidptr)")

_i_p, _l_p, _f_p, _d_p = _p["int"], _p["long"], _p["float"], _p["double"]
_i_g, _l_g, _f_g, _d_g = _g["int"], _g["long"], _g["float"], _g["double"]
_i_fadd, _l_fadd = _fadd["int"], _fadd["long"]
_put, _put_w, _put_b = _mem["put", ""], _mem["put", "_warp"], _mem["put", "_block"]
_get, _get_w, _get_b = _mem["get", ""], _mem["get", "_warp"], _mem["get", "_block"]
_ps, _ps_b = _psig[""], _psig["_block"]
_ired, _ired_b = _red["int", ""], _red["int", "_block"]
_fred, _fred_b = _red["float", ""], _red["float", "_block"]


def _device(f):
    return cuda.jit(device=True)(f)


# p and g: dest[0] of PE pe (int32, int64, float32, float64 arrays).
@_device
def int_p(dest, value, pe):
    _i_p(_addr(dest), value, pe)


@_device
def long_p(dest, value, pe):
    _l_p(_addr(dest), value, pe)


@_device
def float_p(dest, value, pe):
    _f_p(_addr(dest), value, pe)


@_device
def double_p(dest, value, pe):
    _d_p(_addr(dest), value, pe)


@_device
def int_g(src, pe):
    return _i_g(_addr(src), pe)


@_device
def long_g(src, pe):
    return _l_g(_addr(src), pe)


@_device
def float_g(src, pe):
    return _f_g(_addr(src), pe)


@_device
def double_g(src, pe):
    return _d_g(_addr(src), pe)


# put and get of the source array's bytes (thread, warp, block scopes).
@_device
def put(dest, src, pe):
    _put(_addr(dest), _addr(src), src.size * src.itemsize, pe)


@_device
def put_warp(dest, src, pe):
    _put_w(_addr(dest), _addr(src), src.size * src.itemsize, pe)


@_device
def put_block(dest, src, pe):
    _put_b(_addr(dest), _addr(src), src.size * src.itemsize, pe)


@_device
def get(dest, src, pe):
    _get(_addr(dest), _addr(src), src.size * src.itemsize, pe)


@_device
def get_warp(dest, src, pe):
    _get_w(_addr(dest), _addr(src), src.size * src.itemsize, pe)


@_device
def get_block(dest, src, pe):
    _get_b(_addr(dest), _addr(src), src.size * src.itemsize, pe)


@_device
def put_signal(dest, src, sig, value, op, pe):
    _ps(_addr(dest), _addr(src), src.size * src.itemsize, _addr(sig), value, op, pe)


@_device
def put_signal_block(dest, src, sig, value, op, pe):
    _ps_b(_addr(dest), _addr(src), src.size * src.itemsize, _addr(sig), value, op, pe)


@_device
def int_atomic_fetch_add(dest, value, pe):
    return _i_fadd(_addr(dest), value, pe)


@_device
def long_atomic_fetch_add(dest, value, pe):
    return _l_fadd(_addr(dest), value, pe)


# Signals: sig is a uint64 array (its first word).
@_device
def signal_op(sig, value, op, pe):
    _sigop(_addr(sig), value, op, pe)


@_device
def signal_wait_until(sig, cmp, value):
    return _sigwait(_addr(sig), cmp, value)


@_device
def signal_fetch(sig):
    return _sigfetch(_addr(sig))


# Sum reductions over a device team (fabshmem.core.device.team_device):
# dest = the sum of every member's src, src.size elements; 0 or -1.
@_device
def int_sum_reduce(team, dest, src):
    return _ired(team, _addr(dest), _addr(src), src.size)


@_device
def int_sum_reduce_block(team, dest, src):
    return _ired_b(team, _addr(dest), _addr(src), src.size)


@_device
def float_sum_reduce(team, dest, src):
    return _fred(team, _addr(dest), _addr(src), src.size)


@_device
def float_sum_reduce_block(team, dest, src):
    return _fred_b(team, _addr(dest), _addr(src), src.size)
