"""fabshmem.core.device on a job without a device heap (make check's CPU
PEs): the headers found, the options well formed, and the state, the team
handles and load() refused with the library's reason, every PE.  The
kernels themselves run in gpu_check.py on a GPU host."""
import os
import shutil
import subprocess

import pytest

import fabshmem.core as nvshmem
import fabshmem.core.device as dev
from fabtest import job_still_works


def test_include_dirs_hold_the_header():
    dirs = dev.include_dirs()
    assert dirs and all(os.path.isabs(d) for d in dirs)
    for d in dirs:
        assert os.path.isfile(os.path.join(d, "fabshmem", "shmem_device.cuh")), d
        assert os.path.isfile(os.path.join(d, "fabshmem", "device", "state.h")), d


def test_compile_options():
    opts = dev.compile_options()
    assert isinstance(opts, tuple) and all(isinstance(o, str) for o in opts)
    incs = [o[2:] for o in opts if o.startswith("-I")]
    assert incs == dev.include_dirs()
    assert opts == tuple("-I" + d for d in dev.include_dirs()), opts


def test_predefined_team_handles():
    # The device handles fixed by the header (SHMEMD_TEAM_*).
    assert (dev.TEAM_WORLD, dev.TEAM_SHARED, dev.TEAM_NODE) == (0, 1, 2)
    assert dev.STATE_SYMBOL == "shmemd_state_c"


def _has_device_heap():
    try:
        dev.state_bytes()
        return True
    except nvshmem.NvshmemNotSupported:
        return False


def test_state_without_device_heap():
    if _has_device_heap():
        s = dev.state_bytes()
        assert isinstance(s, bytes) and len(s) == nvshmem._lib._device_state_size()
        pytest.skip("this job has a device heap (gpu_check.py runs the kernels)")
    with pytest.raises(nvshmem.NvshmemNotSupported) as e:
        dev.state_bytes()
    assert "shmemx_device_state" in e.value.message and "device heap" in e.value.message

    class Module:  # load() asks the library before touching the module
        def get_global(self, name):
            raise AssertionError("load() touched the module without a state")
    with pytest.raises(nvshmem.NvshmemNotSupported) as e:
        dev.proxy()
    assert "device heap" in e.value.message
    with pytest.raises(nvshmem.NvshmemNotSupported) as e:
        dev.load(Module())
    assert "device heap" in e.value.message
    with pytest.raises(nvshmem.NvshmemInvalid) as e:
        dev.team_device(nvshmem.Teams.TEAM_WORLD)
    assert "team_device" in e.value.message and "device heap" in e.value.message
    job_still_works()


def test_team_device_bad_team():
    with pytest.raises(nvshmem.NvshmemInvalid) as e:
        dev.team_device(12345)
    assert "team_device" in e.value.message
    with pytest.raises(nvshmem.NvshmemInvalid) as e:
        dev.team_device("world")
    assert "team_device" in e.value.message


def test_check_without_kernel_errors():
    # No kernel recorded anything: nothing to raise, every time.
    for _ in range(3):
        dev.check()


def test_proxy_reads_the_state_where_c_puts_it(tmp_path):
    # proxy() reads state.proxy.slots and nslots at fixed offsets: those
    # of the C layout (include/fabshmem/device/state.h), by a C compiler.
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler to compute the layout")
    src = tmp_path / "off.c"
    src.write_text("#include <stddef.h>\n#include <stdio.h>\n#include <fabshmem/device/state.h>\n"
                   "int main(void) { printf(\"%zu %zu %d\", offsetof(shmemd_state_t, proxy.slots), "
                   "offsetof(shmemd_state_t, proxy.nslots), SHMEMD_STATE_VERSION); return 0; }\n")
    exe = tmp_path / "off"
    subprocess.run([cc, "-I" + dev.include_dirs()[0], "-o", str(exe), str(src)], check=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split()
    assert [int(x) for x in out] == [dev._PROXY_SLOTS_AT, dev._PROXY_SLOTS_AT + 24,
                                     dev._STATE_VERSION]
