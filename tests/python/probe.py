"""Which areas of the C library return errors to the binding (its
SHMEMX_ERRORS_RETURN mode) instead of ending the job: each area's bad call
runs in a process of its own (a single PE, no launcher); an area is listed
when the call raised.  Prints the areas on one line (tests/python/run.sh
puts them in FABPY_CONVERTED for fabtest.py)."""
import subprocess
import sys

PROBES = {
    "rma": "a = nv.array((1,), 'int64'); nv.put(a, a, remote_pe=5)",
    "signal": "s = nv.array((1,), 'uint64'); nv.signal_op(s, 1, nv.SignalOp.SIGNAL_SET, 5)",
    "wait": "s = nv.array((1,), 'uint64'); nv.signal_wait(s, 0, 99)",
    "amo": "a = nv.array((1,), 'int64'); nv.atomic_fetch_add(a, 1, 5)",
    "team": "nv.team_split_strided(nv.Teams.TEAM_WORLD, 0, 1, 5)",
    "coll": "a = nv.array((1,), 'int64'); nv.broadcast(nv.Teams.TEAM_WORLD, a, a, 5)",
    "mem": "nv.array((1 << 47,), 'uint8')",
    "init": None,
}
TEMPLATE = """
import sys
import fabshmem.core as nv
{init}
try:
    {stmt}
except nv.NvshmemError:
    sys.exit(0)
sys.exit(3)
"""


def main():
    procs = {}
    for area, stmt in PROBES.items():
        code = TEMPLATE.format(init="" if stmt is None else "nv.init()",
                               stmt="nv.my_pe()" if stmt is None else stmt)
        procs[area] = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL)
    converted = []
    for area, p in procs.items():
        try:
            if p.wait(timeout=60) == 0:
                converted.append(area)
        except subprocess.TimeoutExpired:
            p.kill()
    print(" ".join(converted) if converted else "none")


if __name__ == "__main__":
    main()
