"""Builds the Python binding of fabshmem (the Cython extension
fabshmem.core._lib over libfabshmem).

Which libfabshmem it links is buildpaths.py's choice, made afresh at every
build and printed (pip shows it with -v): make's build tree for make,
else FABPY_PREFIX, FABPY_BUILD_TREE (an uninstalled build tree, on
purpose only) or the installed fabshmem that pkg-config finds; anything
else is refused.  An extension left in the build folder by a build
against another library (or another RUNPATH) is built again.

Offline, on Debian 12 (whose pip refuses to install into the system's
Python, PEP 668), in a virtual environment that sees Debian's setuptools,
Cython and NumPy:

    /usr/bin/python3 -m venv --system-site-packages V
    V/bin/pip install --no-build-isolation --no-index ./python
"""
import glob
import os
import re
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import buildpaths  # noqa: E402  (beside this file)


class BuildExt(build_ext):
    """build_ext that links what buildpaths.locate() finds now, and builds
    again when the build folder's extension was linked otherwise."""

    def run(self):
        try:
            link = buildpaths.locate()
        except buildpaths.NotFound as e:
            sys.exit(f"setup.py: {e}")
        print(f"setup.py: {link.describe()}", file=sys.stderr, flush=True)
        for ext in self.extensions:
            ext.include_dirs = link.incs + ext.include_dirs
            ext.library_dirs = [link.libdir]
            ext.runtime_library_dirs = [link.rpath]
            # Where fabshmem.core.device finds the device API's headers of
            # this libfabshmem (a C string; the link record holds them too,
            # so a change rebuilds the extension).
            incs = ":".join(link.incs).replace("\\", "\\\\").replace('"', '\\"')
            ext.define_macros = [m for m in ext.define_macros
                                 if m[0] != "FABPY_LINK_INCLUDE_DIRS"]
            ext.define_macros.append(("FABPY_LINK_INCLUDE_DIRS", f'"{incs}"'))
            # libfabshmem's headers that _fabpy.h includes (the device
            # state's layout among them): a change builds the extension
            # again, as the binding's own headers do.
            ext.depends = ext.depends + _headers(link.incs)
        if buildpaths.stale(self.build_temp, link) and not self.force:
            print("setup.py: the build folder's extension was linked otherwise (or nothing "
                  "says how): building it again", file=sys.stderr, flush=True)
            self.force = True
        super().run()
        buildpaths.note_link(self.build_temp, link)


def _headers(incs):
    """shmem*.h and every header under fabshmem/ in the include dirs incs."""
    found = []
    for inc in incs:
        found += glob.glob(os.path.join(inc, "shmem*.h"))
        for root, _, files in os.walk(os.path.join(inc, "fabshmem")):
            found += [os.path.join(root, f) for f in files if f.endswith((".h", ".cuh", ".def"))]
    return sorted(found)


def _version():
    with open(os.path.join(HERE, "fabshmem", "_version.py")) as f:
        return re.search(r'__version__ = "([^"]+)"', f.read()).group(1)


def _extensions():
    import numpy
    from Cython.Build import cythonize

    ext = Extension(
        "fabshmem.core._lib",
        sources=[os.path.join("fabshmem", "core", "_lib.pyx")],
        # (libfabshmem's include and library directories and the RUNPATH:
        # BuildExt.)
        include_dirs=[numpy.get_include(), os.path.join("fabshmem", "core")],
        libraries=["fabshmem"],
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
    packages=["fabshmem", "fabshmem.core", "fabshmem.core.interop", "fabshmem.core.device"],
    package_data={"fabshmem.core": ["*.pxd"]},
    ext_modules=_extensions(),
    cmdclass={"build_ext": BuildExt},
    python_requires=">=3.7",
    install_requires=["numpy"],
    zip_safe=False,
)
