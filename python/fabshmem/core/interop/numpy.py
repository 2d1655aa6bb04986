"""NumPy arrays on the symmetric heap (nvshmem4py's interop.cupy helpers
for NumPy).  Every array is host memory that NumPy uses as its own."""
import numpy as _np

from fabshmem.core import _lib

__all__ = ["array", "empty", "bytearray", "free_array", "array_get_buffer", "get_peer_array"]


def array(shape, dtype="float32"):
    """A NumPy array of shape and dtype on the symmetric heap (collective).
    Any later view of it (.view, slices, reshape) shares its memory."""
    return _lib.array(shape, dtype)


empty = array


def bytearray(shape, dtype="float32"):
    """A flat uint8 array on the symmetric heap with the bytes of an array
    of shape and dtype (collective); view it with .view(dtype)."""
    dt = _np.dtype(dtype)
    n = dt.itemsize * int(_np.prod(shape, dtype=_np.int64))
    return _lib.array((n,), _np.uint8)


def free_array(array):
    """Frees an array from array() or bytearray() (collective)."""
    _lib.free_array(array)


def array_get_buffer(array):
    """(Buffer, size in bytes, dtype name) of an array on the heap."""
    return _lib.array_get_buffer(array)


def get_peer_array(array, peer_pe=None):
    """The array of PE peer_pe's copy, for loads and stores (TEAM_SHARED)."""
    return _lib.get_peer_array(array, peer_pe)
