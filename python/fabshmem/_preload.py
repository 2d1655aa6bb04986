"""Makes MPI's symbols visible to libfabshmem before it is loaded.

libfabshmem's MPI bootstrap (initializer_method "mpi") reaches MPI through
weak references, which the dynamic linker resolves when it loads the
library: against the symbols loaded with RTLD_GLOBAL at that moment.
Python loads extension modules (and the libmpi that mpi4py's links) with
RTLD_LOCAL, so without this, importing fabshmem.core before mpi4py.MPI
would leave the library without MPI.  When mpi4py is installed, libmpi is
loaded here with RTLD_GLOBAL (it is not initialized: that is mpi4py's
business); FABPY_PRELOAD_MPI=0 turns this off.
"""
import ctypes
import importlib.util
import os
import sys

_CANDIDATES = ("libmpi.so.40", "libmpi.so.12", "libmpi.so")


def preload_mpi():
    if os.environ.get("FABPY_PRELOAD_MPI", "1").lower() in ("0", "no", "off"):
        return None
    try:
        if importlib.util.find_spec("mpi4py") is None:
            return None
    except (ImportError, ValueError):
        return None
    for name in _CANDIDATES:
        try:
            ctypes.CDLL(name, mode=os.RTLD_GLOBAL | os.RTLD_NOW)
            return name
        except OSError:
            continue
    return None


# What was loaded before libfabshmem: an init over MPI that fails says why.
MODULES_AT_LOAD = frozenset(m for m in ("mpi4py.MPI",) if m in sys.modules)
PRELOADED_MPI = preload_mpi()
