"""The NVSHMEM4Py tutorial notebook (tutorial page) on fabshmem, cell by
cell, with CuPy arrays replaced by NumPy ones, cuda.core's streams by
fabshmem.core.Stream, and the Numba kernel by NumPy stores.  Every step
checks what it did; the exit status is 1 when a check failed.

    mpirun -n 4 /usr/bin/python3 examples/python/tutorial.py
    scripts/oshrun -n 4 /usr/bin/python3 examples/python/tutorial.py   (no mpi4py needed)
"""
import sys

import numpy as np

import fabshmem.core as nvshmem
from fabshmem.core import Teams

failed = []


def check(cond, what):
    if not cond:
        failed.append(what)
        print(f"PE {nvshmem.my_pe()}: FAIL {what}", file=sys.stderr, flush=True)


# ---- Initializing NVSHMEM (over MPI as the notebook does, when mpi4py is
# there; otherwise by the launcher's PMIx) ----
try:
    from mpi4py import MPI
    nvshmem.init(mpi_comm=MPI.COMM_WORLD, initializer_method="mpi")
except ImportError:
    nvshmem.init()

# ---- Querying and status ----
my_pe = nvshmem.my_pe()
n_pes = nvshmem.n_pes()
if my_pe == 0:
    print(nvshmem.get_version())
print(f"PE {my_pe} of {n_pes}", flush=True)

# ---- Team management ----
# Every other PE, starting with PE 0.
team_strided = nvshmem.team_split_strided(
    Teams.TEAM_WORLD, start=0, stride=2, size=(n_pes + 1) // 2, config=nvshmem.TeamConfig(),
    config_mask=0, new_team_name="STRIDED_TEAM")
check((team_strided != Teams.TEAM_INVALID) == (my_pe % 2 == 0), "team_split_strided")
if team_strided != Teams.TEAM_INVALID:
    check(nvshmem.team_my_pe(team_strided) == my_pe // 2, "my number in the strided team")
    nvshmem.team_destroy(team_strided)

# A 2-D split (needs 4 PEs or more).
if n_pes >= 4:
    x_team, y_team = nvshmem.team_split_2d(
        Teams.TEAM_WORLD, xrange=2,
        xaxis_config=nvshmem.TeamConfig(), xaxis_mask=0,
        yaxis_config=nvshmem.TeamConfig(), yaxis_mask=0,
        new_team_name="TWO_D_TEAM")
    check(nvshmem.team_my_pe(x_team) == my_pe % 2, "x-team")
    check(nvshmem.team_my_pe(y_team) == my_pe // 2, "y-team")
    nvshmem.team_destroy(x_team)
    nvshmem.team_destroy(y_team)

# An arbitrary team: PEs 2 and 3.  fabshmem's team ids come from
# team_get_uniqueid (they carry the rendezvous of the PE that made them),
# so PE 2 makes one and a broadcast on the heap hands it around.
if n_pes >= 4:
    ids = nvshmem.array((32,), "uint8")
    if my_pe == 2:
        ids[:] = nvshmem.team_get_uniqueid()._data
    nvshmem.broadcast(Teams.TEAM_WORLD, ids, ids, 2)
    if my_pe in (2, 3):
        config = nvshmem.TeamConfig(uniqueid=nvshmem.TeamUniqueID(ids.tobytes()))
        team_init = nvshmem.team_init(config, config_mask=0, n_pes=2, my_pe=my_pe - 2,
                                      new_team_name="USER_CREATED_TEAM")
        check(nvshmem.team_n_pes(team_init) == 2, "team_init")
        nvshmem.team_destroy(team_init)
    nvshmem.barrier_all()
    nvshmem.free_array(ids)

# ---- Memory management ----
buf = nvshmem.buffer(4096)
check(buf.size == 4096 and buf.handle != 0, "buffer")
nvshmem.free(buf)

arr = nvshmem.array((1, 2, 3, 4, 5), dtype="float32")
arr[:] = my_pe + 1
check(float(arr.sum()) == 120 * (my_pe + 1), "array")
nvshmem.free_array(arr)

# External memory registered as symmetric (the notebook uses CUDA VMM; any
# host array will do here).
ext = np.zeros(1024, dtype=np.float32)
arr_reg = nvshmem.register_external_array(ext)
nvshmem.put(arr_reg[:4], np.full(4, my_pe, np.float32), remote_pe=(my_pe + 1) % n_pes)
nvshmem.barrier_all()
check((ext[:4] == (my_pe - 1) % n_pes).all(), "a put into registered memory")
nvshmem.unregister_external_array(arr_reg)

# ---- Collective operations: a sum all-reduce on a stream ----
stream = nvshmem.Stream()
size = 10
src_array = nvshmem.array((size,), dtype="float32")
dest_array = nvshmem.array((size,), dtype="float32")
src_array[:] = my_pe + 1
nvshmem.reduce(Teams.TEAM_WORLD, dest_array, src_array, "sum", stream=stream)
stream.sync()
check((dest_array == n_pes * (n_pes + 1) / 2).all(), "reduce on a stream")
nvshmem.free_array(src_array)
nvshmem.free_array(dest_array)

# ---- Point-to-point RMA: put to the next PE on the stream ----
src_array = nvshmem.array((size,), dtype="float32")
dest_array = nvshmem.array((size,), dtype="float32")
src_array[:] = np.ones(size, dtype=np.float32) * my_pe
target_pe = (my_pe + 1) % n_pes
nvshmem.put(dest_array, src_array, size, target_pe, stream=stream)
stream.synchronize()
nvshmem.barrier_all()
check((dest_array == (my_pe - 1) % n_pes).all(), "put on a stream")
nvshmem.free_array(src_array)
nvshmem.free_array(dest_array)

# ---- Load/store to a peer (get_peer_array) ----
array = nvshmem.array((1,), dtype="int32")
array[:] = -1
nvshmem.barrier_all()
dst_pe = (my_pe + 1) % n_pes
try:
    dev_dst = nvshmem.get_peer_array(array, dst_pe)
    dev_dst[0] = my_pe  # a store into the next PE's copy
except nvshmem.NvshmemInvalid as e:
    # dst_pe is not in this PE's load/store domain (TEAM_SHARED).
    print(f"PE {my_pe}: {e}", flush=True)
nvshmem.barrier(Teams.TEAM_WORLD)
# The previous PE stored into my copy if we share a load/store domain.
if nvshmem.team_translate_pe(Teams.TEAM_WORLD, (my_pe - 1) % n_pes, Teams.TEAM_SHARED) >= 0:
    check(array[0] == (my_pe - 1) % n_pes, "a store through get_peer_array")
nvshmem.free_array(array)

# ---- Signalling ----
buf_src = nvshmem.array((4, 4), dtype="float32")
buf_src[:] = my_pe + 1
buf_dst = nvshmem.array((4, 4), dtype="float32")
buf_dst[:] = 0
signal = nvshmem.array((1,), dtype="uint64")
signal[:] = 0
buf_sig, sz, type_ = nvshmem.array_get_buffer(signal)
nvshmem.barrier_all()
if n_pes > 1:
    if my_pe == 0:
        nvshmem.put_signal(buf_dst, buf_src, buf_sig, 1, nvshmem.SignalOp.SIGNAL_SET,
                           remote_pe=1, stream=stream)
    if my_pe == 1:
        nvshmem.signal_wait(buf_sig, 1, nvshmem.ComparisonType.CMP_EQ, stream=stream)
    stream.sync()
    if my_pe == 1:
        check((buf_dst == 1).all() and signal[0] == 1, "put_signal and signal_wait")
nvshmem.barrier_all()
nvshmem.free_array(buf_src)
nvshmem.free_array(buf_dst)
nvshmem.free_array(signal)
stream.close()

nvshmem.finalize()
print(f"tutorial: PE {my_pe}: {'all checks passed' if not failed else 'FAILED'}", flush=True)
sys.exit(1 if failed else 0)
