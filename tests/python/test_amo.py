"""Atomics on an element of a heap array."""
import numpy as np
import pytest

import fabshmem.core as nvshmem
from fabtest import me, npes, needs_return_mode, job_still_works

INT_AMO = ["int32", "int64", "uint32", "uint64"]


@pytest.mark.parametrize("dtype", INT_AMO)
def test_fetch_add_inc(dtype):
    c = nvshmem.array((3,), dtype)
    c[:] = 0
    nvshmem.barrier_all()
    old = nvshmem.atomic_fetch_add(c, 2, 0, index=1)
    assert 0 <= old <= 2 * (npes() - 1) and old % 2 == 0
    nvshmem.atomic_add(c, 1, remote_pe=0, index=2)
    nvshmem.atomic_inc(c, 0)
    assert 0 <= nvshmem.atomic_fetch_inc(c, 0) < 2 * npes()
    nvshmem.barrier_all()
    assert nvshmem.atomic_fetch(c, 0, index=1) == 2 * npes()
    assert nvshmem.atomic_fetch(c, 0, index=2) == npes()
    assert nvshmem.atomic_fetch(c, 0, index=0) == 2 * npes()
    nvshmem.barrier_all()
    nvshmem.free_array(c)


@pytest.mark.parametrize("dtype", INT_AMO)
def test_swap_compare_swap(dtype):
    c = nvshmem.array((1,), dtype)
    c[:] = 0
    nvshmem.barrier_all()
    # One PE wins the compare-and-swap from 0.
    won = nvshmem.atomic_compare_swap(c, 0, me() + 1, 0) == 0
    nvshmem.barrier_all()
    winner = nvshmem.atomic_fetch(c, 0)
    assert 1 <= winner <= npes() and (winner == me() + 1) == won
    nvshmem.barrier_all()
    if me() == 0:
        assert nvshmem.atomic_swap(c, 42, npes() - 1) in range(0, npes() + 1)
    nvshmem.barrier_all()
    nvshmem.atomic_set(c, 5, me())
    assert nvshmem.atomic_fetch(c, me()) == 5
    nvshmem.barrier_all()
    nvshmem.free_array(c)


@pytest.mark.parametrize("dtype", INT_AMO)
def test_bitwise(dtype):
    c = nvshmem.array((3,), dtype)
    c[:] = [0, -1 if dtype.startswith("int") else np.iinfo(dtype).max, 0]
    nvshmem.barrier_all()
    bit = 1 << me()
    nvshmem.atomic_or(c, bit, 0, index=0)
    nvshmem.atomic_fetch_and(c, ~bit if dtype.startswith("int") else np.iinfo(dtype).max ^ bit,
                             0, index=1)
    nvshmem.atomic_xor(c, bit, 0, index=2)
    nvshmem.atomic_fetch_xor(c, bit, 0, index=2)
    nvshmem.atomic_fetch_or(c, 0, 0)
    nvshmem.atomic_and(c, -1 if dtype.startswith("int") else np.iinfo(dtype).max, 0, index=2)
    nvshmem.barrier_all()
    mask = (1 << npes()) - 1
    assert nvshmem.atomic_fetch(c, 0, index=0) == mask
    assert int(nvshmem.atomic_fetch(c, 0, index=1)) & mask == 0
    assert nvshmem.atomic_fetch(c, 0, index=2) == 0
    nvshmem.barrier_all()
    nvshmem.free_array(c)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float(dtype):
    c = nvshmem.array((npes(),), dtype)
    c[:] = 0
    nvshmem.barrier_all()
    nvshmem.atomic_set(c, me() + 0.5, 0, index=me())
    nvshmem.barrier_all()
    assert nvshmem.atomic_fetch(c, 0, index=me()) == me() + 0.5
    assert nvshmem.atomic_swap(c, 2.25, 0, index=me()) == me() + 0.5
    nvshmem.barrier_all()
    if me() == 0:
        assert (c == 2.25).all()
    nvshmem.barrier_all()
    nvshmem.free_array(c)


def test_amo_errors_in_the_binding():
    c = nvshmem.array((2,), "int64")
    f = nvshmem.array((1,), "float32")
    i8 = nvshmem.array((1,), "int8")
    with pytest.raises(nvshmem.NvshmemInvalid, match="no atomic for dtype int8"):
        nvshmem.atomic_add(i8, 1, 0)
    with pytest.raises(nvshmem.NvshmemInvalid, match="no atomic for dtype float32"):
        nvshmem.atomic_fetch_add(f, 1.0, 0)
    with pytest.raises(nvshmem.NvshmemInvalid, match="index 2 is beyond dst"):
        nvshmem.atomic_fetch(c, 0, index=2)
    with pytest.raises(nvshmem.NvshmemInvalid, match="does not fit"):
        nvshmem.atomic_set(c, 2 ** 70, 0)
    with pytest.raises(nvshmem.NvshmemInvalid, match="not a Buffer"):
        nvshmem.atomic_fetch(nvshmem.array_get_buffer(c)[0], 0)
    for a in (c, f, i8):
        nvshmem.free_array(a)
    job_still_works()


@needs_return_mode("amo")
def test_amo_errors_in_the_library():
    c = nvshmem.array((1,), "int64")
    with pytest.raises(nvshmem.NvshmemInvalid):
        nvshmem.atomic_fetch_add(c, 1, npes())
    with pytest.raises(nvshmem.NvshmemInvalid):
        nvshmem.atomic_set(np.zeros(1, np.int64), 1, 0)
    nvshmem.barrier_all()
    nvshmem.free_array(c)
    job_still_works()
