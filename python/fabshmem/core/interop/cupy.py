"""CuPy arrays on the device heap (nvshmem4py's interop.cupy), for a PE
bound to a GPU by init(device=...).  The arrays are GPU memory of the
symmetric heap: CuPy's operations, CuPy and Numba kernels and every
fabshmem routine take them.  Free them with free_array (collective)."""
import numpy as _np

from fabshmem.core import _lib
from fabshmem.core._types import NvshmemNotSupported

__all__ = ["array", "empty", "bytearray", "free_array", "array_get_buffer", "get_peer_array"]


def _need_gpu(rtn):
    if not _lib._gpu_bound():
        raise NvshmemNotSupported(f"interop.cupy.{rtn}: CuPy arrays are GPU memory, and this "
                                  f"PE is not bound to a GPU (init(device=...)); "
                                  f"interop.numpy gives host arrays")


def array(shape, dtype="float32"):
    """A CuPy array of shape and dtype on the device heap (collective)."""
    _need_gpu("array")
    return _lib.array(shape, dtype)


empty = array


def bytearray(shape, dtype="float32", device_id=None):
    """A flat uint8 CuPy array with the bytes of an array of shape and dtype
    (collective); view it with .view(dtype).  device_id, when given, must
    be the PE's device."""
    _need_gpu("bytearray")
    if device_id is not None and device_id != _lib._gpu_bound_device():
        raise NvshmemNotSupported(f"interop.cupy.bytearray: device_id={device_id}: this PE's "
                                  f"device heap is on device {_lib._gpu_bound_device()}")
    n = _np.dtype(str(dtype)).itemsize * int(_np.prod(shape, dtype=_np.int64))
    return _lib.array((n,), _np.uint8)


def free_array(array):
    """Frees an array from array() or bytearray() (collective)."""
    _lib.free_array(array)


def array_get_buffer(array):
    """(Buffer, size in bytes, dtype name) of an array on the device heap."""
    return _lib.array_get_buffer(array)


def get_peer_array(array, peer_pe=None):
    """A CuPy array on PE peer_pe's copy of array, which kernels load from
    and store to (TEAM_SHARED: over NVLink between two GPUs)."""
    return _lib.get_peer_array(array, peer_pe)
