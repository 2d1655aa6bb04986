"""Compiles CUDA sources that include <fabshmem/shmem_device.cuh> with
NVRTC (the compiler of CuPy's RawModule and of fabshmem.core.device), to
PTX only, so that the device API's header keeps compiling there (no system
header, the state's unmangled shmemd_state_c): tests/device/nvrtc.sh.

    python3 nvrtc_check.py LIBNVRTC INCLUDE_DIR FILE.cu...
    python3 nvrtc_check.py LIBNVRTC INCLUDE_DIR --defines "NAME..." FILE.cu...

Prints PASS or FAIL per file (with NVRTC's log) and exits 1 on a failure.
With --defines the files are compiled as relocatable device code (-rdc,
as numba-cuda compiles the files it links) and must define each NAME as a
visible function (fabshmem.core.device.numba's wrappers).
"""
import ctypes
import re
import sys
import time


def compile_one(nvrtc, inc, path, rdc=False):
    with open(path, "rb") as f:
        src = f.read()
    prog = ctypes.c_void_p()
    rc = nvrtc.nvrtcCreateProgram(ctypes.byref(prog), src, path.encode(), 0, None, None)
    if rc:
        return f"nvrtcCreateProgram: {rc}", None
    # fabshmem.core.device.compile_options() and the architecture CuPy adds.
    opts = [b"-I" + inc.encode(), b"-arch=compute_90"] + ([b"-rdc=true"] if rdc else [])
    arr = (ctypes.c_char_p * len(opts))(*opts)
    rc = nvrtc.nvrtcCompileProgram(prog, len(opts), arr)
    n = ctypes.c_size_t()
    nvrtc.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
    log = ctypes.create_string_buffer(n.value + 1)
    nvrtc.nvrtcGetProgramLog(prog, log)
    ptx = None
    if rc == 0:
        nvrtc.nvrtcGetPTXSize(prog, ctypes.byref(n))
        buf = ctypes.create_string_buffer(n.value + 1)
        nvrtc.nvrtcGetPTX(prog, buf)
        ptx = buf.value.decode("utf-8", "replace")
    nvrtc.nvrtcDestroyProgram(ctypes.byref(prog))
    err = None if rc == 0 else f"nvrtcCompileProgram: {rc}\n{log.value.decode('utf-8', 'replace')}"
    return err, ptx


def main(argv):
    nvrtc = ctypes.CDLL(argv[1])
    nvrtc.nvrtcCreateProgram.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p,
                                         ctypes.c_char_p, ctypes.c_int, ctypes.c_void_p,
                                         ctypes.c_void_p]
    nvrtc.nvrtcCompileProgram.argtypes = [ctypes.c_void_p, ctypes.c_int,
                                          ctypes.POINTER(ctypes.c_char_p)]
    for f in ("nvrtcGetProgramLogSize", "nvrtcGetPTXSize"):
        getattr(nvrtc, f).argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
    for f in ("nvrtcGetProgramLog", "nvrtcGetPTX"):
        getattr(nvrtc, f).argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    nvrtc.nvrtcDestroyProgram.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
    bad = 0
    files, names = argv[3:], None
    if files[:1] == ["--defines"]:
        names, files = files[1].split(), files[2:]
    for path in files:
        t0 = time.time()
        err, ptx = compile_one(nvrtc, argv[2], path, rdc=names is not None)
        if err is None and names:
            defined = set(re.findall(r"\.visible \.func[^\n]*?(\w+)\(", ptx))
            missing = [n for n in names if n not in defined]
            if missing:
                err = f"the PTX defines no {', '.join(missing)}"
        # The state must be in the module under its C name, where
        # fabshmem.core.device.load finds it (CuPy's get_global).
        if err is None and not re.search(r"\.const \.align \d+ \.b8 shmemd_state_c\[", ptx):
            err = "the PTX has no unmangled shmemd_state_c in constant memory"
        if err:
            print(f"FAIL nvrtc {path}: {err}")
            bad += 1
        else:
            print(f"PASS nvrtc {path} ({time.time() - t0:.1f} s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
