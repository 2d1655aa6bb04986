"""fabshmem: the Python binding of fabshmem, a PGAS communication library
(OpenSHMEM 1.6 with NVSHMEM's programming model) over libfabric.

``fabshmem.core`` has the shape of nvshmem4py's ``nvshmem.core``: a
nvshmem4py program runs on fabshmem with ``import fabshmem.core as
nvshmem`` and NumPy arrays (or CPU torch tensors) instead of CuPy ones.
See docs/python.md.
"""
from fabshmem._version import __version__

__all__ = ["__version__"]
