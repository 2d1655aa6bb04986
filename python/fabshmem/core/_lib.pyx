# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: embedsignature=True, binding=True
"""The compiled part of fabshmem.core: every call into libfabshmem.

The library runs in its error-return mode (shmemx_set_error_mode with
SHMEMX_ERRORS_RETURN, set when this module is imported): a routine that
fails returns at once, having done nothing, and records a class of error
and a message for the calling thread.  After each call the binding reads
the class (shmemx_error_get(NULL, 0), a load of a thread-local word) and,
when there is one, raises NvshmemInvalid or NvshmemError with the message.

The module is one Cython unit made of the files included below, one per
topic (errors, init, teams, memory, RMA and signals, atomics, collectives,
streams, DLPack).
"""

cimport cython
from cpython.ref cimport PyObject, Py_INCREF, Py_DECREF
from cpython.buffer cimport (PyObject_GetBuffer, PyBuffer_Release, PyBUF_ANY_CONTIGUOUS,
                             PyBUF_WRITABLE, PyBUF_SIMPLE)
from cpython.pycapsule cimport (PyCapsule_New, PyCapsule_IsValid, PyCapsule_GetPointer)
from libc.stdint cimport (int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t,
                          uint64_t, uintptr_t)
from libc.stdlib cimport malloc, free as c_free
from libc.string cimport memcpy, memset

cimport numpy as cnp
import numpy as np
import sys
import os
import warnings
import weakref
import bisect
import atexit

from fabshmem.core._capi cimport *
from fabshmem.core._types import (ErrorCode, NvshmemError, NvshmemInvalid,
                                  NvshmemNotSupported, NvshmemLeakWarning, Teams,
                                  InitStatus, SignalOp, ComparisonType, Version, TeamConfig,
                                  UniqueID, TeamUniqueID)

cnp.import_array()
fabpy_tables_init()
# Bindings get status codes and messages instead of an ended job.
shmemx_set_error_mode(SHMEMX_ERRORS_RETURN)
shmemx_error_clear()

UniqueID._SIZE = sizeof(shmemx_uniqueid_t)
TeamUniqueID._SIZE = sizeof(shmemx_team_uniqueid_t)

# The directory of the package: frames there are not an allocation site.
_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# What a routine knows of an argument that names memory (_views.pxi).
ctypedef struct _View:
    char *ptr
    Py_ssize_t nbytes
    Py_ssize_t itemsize
    int tidx    # FABPY_* element type, -1 when the C API has none
    char kind   # NumPy's kind character; 0 for untyped bytes (a Buffer)
    int dev     # the GPU whose memory it is, -1 for host memory

# Whether another thread may need the GIL while this one waits in the
# library: the waits that are short when every PE is there (quiet, the
# barriers and syncs, signal_wait) keep the GIL when no other Python thread
# exists and no function launched on a stream is pending (its worker takes
# the GIL to run it), since releasing and taking it back is a good part of
# the call.  A thread that is not Python's yet (a C thread calling
# PyGILState_Ensure) waits until the call returns.
cdef extern from "Python.h":
    ctypedef struct PyThreadState
    ctypedef struct PyInterpreterState
    PyThreadState *PyThreadState_Get()
    PyInterpreterState *PyThreadState_GetInterpreter(PyThreadState *tstate)
    PyThreadState *PyInterpreterState_ThreadHead(PyInterpreterState *interp)
    PyThreadState *PyThreadState_Next(PyThreadState *tstate)

# Functions launched on streams and not yet run (changed with the GIL held).
cdef long _kernels_pending = 0


cdef inline bint _gil_wanted():
    cdef PyThreadState *ts
    if _kernels_pending:
        return True
    ts = PyThreadState_Get()
    return (PyInterpreterState_ThreadHead(PyThreadState_GetInterpreter(ts)) != ts
            or PyThreadState_Next(ts) != NULL)

include "_errors.pxi"
include "_init.pxi"
include "_teams.pxi"
include "_memory.pxi"
include "_views.pxi"
include "_rma.pxi"
include "_amo.pxi"
include "_coll.pxi"
include "_stream.pxi"
include "_device.pxi"
