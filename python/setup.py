"""Builds the Python binding of fabshmem (the Cython extension
fabshmem.core._lib over libfabshmem).

Where libfabshmem is found, first match wins:
  1. FABPY_INCLUDE_DIRS (colon-separated) and FABPY_LIB_DIR, as make
     sets them for the build tree (python/Makefile.include);
  2. FABPY_PREFIX: an installation prefix (PREFIX/include, PREFIX/lib);
  3. pkg-config fabshmem (an installed fabshmem, PKG_CONFIG_PATH);
  4. the source tree around this directory, built in place (../include,
     ../.libs).
The extension finds the library at run time through FABPY_RPATH (make
install sets the installed libdir), else the library directory found
above; LD_LIBRARY_PATH comes first (RUNPATH).

    pip install --no-build-isolation ./python      # offline, Debian's setuptools
"""
import os
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))


def _pkg_config(variable):
    if not shutil.which("pkg-config"):
        return None
    try:
        out = subprocess.run(["pkg-config", f"--variable={variable}", "fabshmem"], check=True,
                             capture_output=True, text=True).stdout.strip()
    except (subprocess.CalledProcessError, OSError):
        return None
    return out or None


def _locate():
    """(include dirs, library dir) of libfabshmem."""
    inc = os.environ.get("FABPY_INCLUDE_DIRS")
    lib = os.environ.get("FABPY_LIB_DIR")
    if inc and lib:
        return [d for d in inc.split(":") if d], lib
    prefix = os.environ.get("FABPY_PREFIX")
    if prefix:
        libdir = os.path.join(prefix, "lib")
        for cand in ("lib64", "lib/x86_64-linux-gnu"):
            if os.path.exists(os.path.join(prefix, cand, "libfabshmem.so")):
                libdir = os.path.join(prefix, cand)
        return [os.path.join(prefix, "include")], libdir
    incdir, libdir = _pkg_config("includedir"), _pkg_config("libdir")
    if incdir and libdir:
        return [incdir], libdir
    top = os.path.dirname(HERE)
    if os.path.exists(os.path.join(top, ".libs", "libfabshmem.so")):
        return [os.path.join(top, "include")], os.path.join(top, ".libs")
    sys.exit("setup.py: libfabshmem not found: build fabshmem first (./configure && make), "
             "install it (make install; pkg-config fabshmem), or set FABPY_PREFIX")


def _version():
    with open(os.path.join(HERE, "fabshmem", "_version.py")) as f:
        return re.search(r'__version__ = "([^"]+)"', f.read()).group(1)


def _extensions():
    import numpy
    from Cython.Build import cythonize

    incs, libdir = _locate()
    rpath = os.environ.get("FABPY_RPATH", libdir)
    ext = Extension(
        "fabshmem.core._lib",
        sources=[os.path.join("fabshmem", "core", "_lib.pyx")],
        include_dirs=incs + [numpy.get_include(), os.path.join("fabshmem", "core")],
        library_dirs=[libdir],
        libraries=["fabshmem"],
        runtime_library_dirs=[rpath],
        extra_compile_args=["-O2", "-Wno-unused-function"],
        # RUNPATH rather than RPATH, so that LD_LIBRARY_PATH (the tests'
        # build tree) comes first.
        extra_link_args=["-Wl,--enable-new-dtags"],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        depends=[os.path.join("fabshmem", "core", f)
                 for f in os.listdir(os.path.join(HERE, "fabshmem", "core"))
                 if f.endswith((".pxi", ".pxd", ".h"))],
    )
    build_dir = os.environ.get("FABPY_CYTHON_BUILD_DIR", os.path.join("build", "cython"))
    return cythonize([ext], build_dir=build_dir, quiet=True,
                     compiler_directives={"language_level": 3})


os.chdir(HERE)
setup(
    name="fabshmem",
    version=_version(),
    description="fabshmem's Python binding: nvshmem4py's host API over libfabric",
    packages=["fabshmem", "fabshmem.core", "fabshmem.core.interop"],
    package_data={"fabshmem.core": ["*.pxd"]},
    ext_modules=_extensions(),
    python_requires=">=3.7",
    install_requires=["numpy"],
    zip_safe=False,
)
