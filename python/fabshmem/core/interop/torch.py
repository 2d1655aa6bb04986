"""PyTorch tensors on the symmetric heap, through DLPack (nvshmem4py's
interop.torch): CUDA tensors on the device heap for a PE bound to a GPU
(init(device=...)), CPU tensors otherwise.  A tensor made here keeps its Buffer alive; free it with
free_tensor (collective)."""
import numpy as _np
import torch as _torch

from fabshmem.core import _lib
from fabshmem.core._types import NvshmemInvalid

__all__ = ["tensor", "empty", "bytetensor", "free_tensor", "tensor_get_buffer",
           "get_peer_tensor"]


def _dtype(dtype, rtn):
    if dtype is None:
        return _torch.float32
    if isinstance(dtype, _torch.dtype):
        return dtype
    try:
        return _torch.from_numpy(_np.empty(0, dtype=_np.dtype(dtype))).dtype
    except TypeError as e:
        raise NvshmemInvalid(f"{rtn}: dtype {dtype!r} is not a torch dtype ({e})") from None


def _shape(shape):
    return (int(shape),) if isinstance(shape, int) else tuple(int(d) for d in shape)


def _bytes(shape, dtype):
    n = _torch.empty((), dtype=dtype).element_size()
    for d in shape:
        n *= d
    return n


def _wrap(buf, dtype, shape):
    return _registered(_torch.from_dlpack(buf).view(dtype).reshape(shape), buf)


def _registered(t, buf):
    # The binding knows the tensor's storage from now on: every routine
    # refuses it (and its views) once buf is freed.
    _lib._torch_register(t, buf)
    return t


def tensor(shape, dtype=None):
    """A torch tensor of shape and dtype (torch.float32 when None) on the
    symmetric heap (collective)."""
    dtype = _dtype(dtype, "tensor")
    shape = _shape(shape)
    return _wrap(_lib._buffer(_bytes(shape, dtype), "tensor"), dtype, shape)


empty = tensor


def bytetensor(shape, dtype=None):
    """A flat uint8 tensor with the bytes of a tensor of shape and dtype
    (collective); view it with .view(dtype)."""
    dtype = _dtype(dtype, "bytetensor")
    buf = _lib._buffer(_bytes(_shape(shape), dtype), "bytetensor")
    return _registered(_torch.from_dlpack(buf), buf)


def free_tensor(tensor):
    """Frees a tensor from tensor() or bytetensor() (collective)."""
    _lib.free(tensor)


def tensor_get_buffer(tensor):
    """(Buffer, size in bytes, dtype name) of a tensor on the heap."""
    return _lib.array_get_buffer(tensor)


def get_peer_tensor(tensor, peer_pe=None):
    """A tensor on PE peer_pe's copy of tensor, for loads and stores
    (TEAM_SHARED)."""
    return _wrap(_lib.get_peer_buffer(tensor, peer_pe), tensor.dtype, tuple(tensor.shape))
