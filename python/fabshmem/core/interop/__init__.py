"""Interoperability with array libraries: ``interop.numpy`` and
``interop.torch`` (CPU tensors through DLPack).  The submodules are
imported when first used, so that importing fabshmem.core does not import
torch."""
import importlib

__all__ = ["numpy", "torch"]


def __getattr__(name):
    if name in __all__:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
