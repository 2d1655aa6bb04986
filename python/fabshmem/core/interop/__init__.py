"""Interoperability with array libraries: ``interop.numpy`` (host
arrays), ``interop.cupy`` (GPU arrays, for a PE bound to a GPU) and
``interop.torch`` (CPU or CUDA tensors through DLPack, as the PE's heap
is).  The submodules are imported when first used, so that importing
fabshmem.core imports neither torch nor CuPy."""
import importlib

__all__ = ["numpy", "cupy", "torch"]


def __getattr__(name):
    if name in __all__:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
