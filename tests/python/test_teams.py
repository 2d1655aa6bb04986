"""Teams: predefined ones, splits, teams from any set of PEs."""
import numpy as np
import pytest

import fabshmem.core as nvshmem
from fabshmem.core import Teams
from fabtest import me, npes, needs_return_mode, job_still_works


def test_world():
    assert nvshmem.team_my_pe(Teams.TEAM_WORLD) == me()
    assert nvshmem.team_n_pes(Teams.TEAM_WORLD) == npes()


@pytest.mark.parametrize("team", [Teams.TEAM_SHARED, Teams.TEAM_NODE,
                                  Teams.TEAM_SAME_MYPE_NODE, Teams.TEAM_SAME_NUMA])
def test_predefined_translate(team):
    n = nvshmem.team_n_pes(team)
    mine = nvshmem.team_my_pe(team)
    assert 1 <= n <= npes() and 0 <= mine < n
    assert nvshmem.team_translate_pe(team, mine, Teams.TEAM_WORLD) == me()
    assert nvshmem.team_translate_pe(Teams.TEAM_WORLD, me(), team) == mine
    # Every member agrees on the team's size.
    nvshmem.barrier(team)


def test_node_teams():
    # TEAM_SAME_MYPE_NODE holds exactly the PEs whose number in their node
    # is mine: every PE's number in its node, collected.
    mine = nvshmem.array((1,), "int32")
    every = nvshmem.array((npes(),), "int32")
    mine[0] = nvshmem.team_my_pe(Teams.TEAM_NODE)
    nvshmem.fcollect(Teams.TEAM_WORLD, every, mine)
    same = [pe for pe in range(npes()) if every[pe] == mine[0]]
    team = Teams.TEAM_SAME_MYPE_NODE
    assert nvshmem.team_n_pes(team) == len(same)
    assert [nvshmem.team_translate_pe(team, i, Teams.TEAM_WORLD)
            for i in range(len(same))] == same
    # The leaders of the NUMA domains: PE 0 leads its own.
    if me() == 0:
        assert nvshmem.team_my_pe(Teams.TEAM_NUMA_LEADERS) == 0
    nvshmem.free_array(mine)
    nvshmem.free_array(every)


def test_gpu_teams():
    # Without a GPU brought up (the suite's PEs are CPU PEs), each PE is
    # alone on a GPU of its own: TEAM_SAME_GPU is the PE, and every PE is in
    # TEAM_GPU_LEADERS (tests/python/gpu_check.py checks them with GPUs).
    assert nvshmem.team_n_pes(Teams.TEAM_SAME_GPU) == 1
    assert nvshmem.team_translate_pe(Teams.TEAM_SAME_GPU, 0, Teams.TEAM_WORLD) == me()
    assert nvshmem.team_n_pes(Teams.TEAM_GPU_LEADERS) == npes()
    assert nvshmem.team_my_pe(Teams.TEAM_GPU_LEADERS) == me()
    nvshmem.barrier(Teams.TEAM_GPU_LEADERS)


def _team_sum(team, value):
    src = nvshmem.array((1,), "int64")
    dst = nvshmem.array((1,), "int64")
    src[0] = value
    nvshmem.reduce(team, dst, src, "sum")
    r = int(dst[0])
    nvshmem.free_array(src)
    nvshmem.free_array(dst)
    return r


def test_split_strided():
    size = (npes() + 1) // 2
    evens = nvshmem.team_split_strided(Teams.TEAM_WORLD, 0, 2, size,
                                       config=nvshmem.TeamConfig(), config_mask=0,
                                       new_team_name="EVENS")
    if me() % 2 == 0:
        assert evens >= nvshmem.FIRST_USER_TEAM
        assert nvshmem.team_my_pe(evens) == me() // 2
        assert nvshmem.team_n_pes(evens) == size
        assert nvshmem.team_translate_pe(evens, size - 1, Teams.TEAM_WORLD) == 2 * (size - 1)
    else:
        assert evens == Teams.TEAM_INVALID
        assert nvshmem.team_my_pe(evens) == -1
    # The heap is allocated over TEAM_WORLD: every PE allocates.
    src = nvshmem.array((1,), "int64")
    dst = nvshmem.array((1,), "int64")
    src[0] = me()
    if evens != Teams.TEAM_INVALID:
        nvshmem.reduce(evens, dst, src, "sum")
        assert dst[0] == sum(range(0, npes(), 2))
        nvshmem.team_destroy(evens)
    nvshmem.free_array(src)
    nvshmem.free_array(dst)


def test_split_config():
    cfg = nvshmem.TeamConfig(num_contexts=2)
    t = nvshmem.team_split_strided(Teams.TEAM_WORLD, 0, 1, npes(), cfg, 1, "ALL")
    assert nvshmem.team_n_pes(t) == npes()
    assert nvshmem.team_get_config(t).num_contexts == 2
    nvshmem.team_destroy(t)


def test_split_2d():
    xrange = 2 if npes() > 1 else 1
    x, y = nvshmem.team_split_2d(Teams.TEAM_WORLD, xrange, nvshmem.TeamConfig(), 0,
                                 nvshmem.TeamConfig(), 0, "TWO_D")
    assert nvshmem.team_my_pe(x) == me() % xrange
    assert nvshmem.team_my_pe(y) == me() // xrange
    assert nvshmem.team_n_pes(x) == min(xrange, npes() - (me() // xrange) * xrange)
    assert nvshmem.team_n_pes(y) == len(range(me() % xrange, npes(), xrange))
    nvshmem.team_destroy(x)
    nvshmem.team_destroy(y)


def test_team_init_reversed():
    # PE 0 makes the id; a broadcast on the heap hands it to everyone; the
    # team is every PE in reverse order.
    ids = nvshmem.array((32,), "uint8")
    if me() == 0:
        ids[:] = nvshmem.team_get_uniqueid()._data
    nvshmem.broadcast(Teams.TEAM_WORLD, ids, ids, 0)
    uid = nvshmem.TeamUniqueID(ids.tobytes())
    cfg = nvshmem.TeamConfig(uniqueid=uid)
    t = nvshmem.team_init(cfg, config_mask=0, n_pes=npes(), my_pe=npes() - 1 - me(),
                          new_team_name="REVERSED")
    assert nvshmem.team_my_pe(t) == npes() - 1 - me()
    assert nvshmem.team_translate_pe(t, 0, Teams.TEAM_WORLD) == npes() - 1
    assert _team_sum(t, me()) == sum(range(npes()))
    nvshmem.team_destroy(t)
    nvshmem.free_array(ids)


def test_team_errors_in_the_binding():
    with pytest.raises(nvshmem.NvshmemInvalid, match="12345 is not a team"):
        nvshmem.team_my_pe(12345)
    with pytest.raises(nvshmem.NvshmemInvalid, match="must be a Teams member"):
        nvshmem.team_n_pes("world")
    with pytest.raises(nvshmem.NvshmemInvalid, match="TEAM_WORLD is predefined"):
        nvshmem.team_destroy(Teams.TEAM_WORLD)
    with pytest.raises(nvshmem.NvshmemInvalid, match="TeamUniqueID"):
        nvshmem.team_init(nvshmem.TeamConfig(version=2, num_contexts=1, uniqueid=1004),
                          0, npes(), me())
    t = nvshmem.team_split_strided(Teams.TEAM_WORLD, 0, 1, npes())
    nvshmem.team_destroy(t)
    with pytest.raises(nvshmem.NvshmemInvalid, match="not a team"):
        nvshmem.team_n_pes(t)
    job_still_works()


@needs_return_mode("team")
def test_team_errors_in_the_library():
    # A split wider than the parent: every PE gets the error.
    with pytest.raises(nvshmem.NvshmemInvalid):
        nvshmem.team_split_strided(Teams.TEAM_WORLD, 0, 1, npes() + 1)
    with pytest.raises(nvshmem.NvshmemInvalid):
        nvshmem.team_split_2d(Teams.TEAM_WORLD, 0)
    job_still_works()
