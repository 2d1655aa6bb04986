"""Where the Python binding's build finds libfabshmem, and where make install
puts the package: written once for python/setup.py and
python/Makefile.include, and runnable to see what they would do.

    python3 buildpaths.py locate           the libfabshmem setup.py would link, and why
    python3 buildpaths.py sitedir PREFIX   where make install puts the package for
                                           this interpreter (PYTHON_SITEDIR overrides)
    python3 buildpaths.py rpath SITEDIR LIBDIR   the installed extension's RUNPATH
    python3 buildpaths.py note SITEDIR DESTDIR   make install's closing lines

setup.py links the first of (locate()):
  1. FABPY_INCLUDE_DIRS (colon-separated) and FABPY_LIB_DIR: what make sets
     for the build tree's own extension (python/Makefile.include);
  2. FABPY_PREFIX: an installation prefix (PREFIX/include, PREFIX/lib);
  3. FABPY_BUILD_TREE: an uninstalled build tree, linked on purpose only
     (1: the source tree around this directory, built in place; or the
     build tree's path); the extension then needs that tree at run time;
  4. pkg-config fabshmem: the installed fabshmem (its fabshmem.pc, found
     on PKG_CONFIG_PATH and pkg-config's own path).
Anything else is refused with a message that says what to set; in
particular a build tree is never linked because it happens to be there.
The extension's RUNPATH is FABPY_RPATH (make sets the installed one), else
the library's directory.
"""
import json
import os
import shutil
import site
import subprocess
import sys
import sysconfig

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
# The file of a build folder that records what its extension was linked
# against (setup.py's build_ext relinks when it differs).
LINK_RECORD = "fabshmem-link.json"


class NotFound(Exception):
    """libfabshmem cannot be linked as asked; the message says why."""


class Link:
    """What the extension is compiled and linked against: include
    directories, the directory of libfabshmem.so, the extension's RUNPATH,
    and how they were found (a sentence)."""

    def __init__(self, incs, libdir, rpath, how):
        self.incs, self.libdir, self.rpath, self.how = list(incs), libdir, rpath, how

    def record(self):
        return {"include_dirs": self.incs, "library_dir": self.libdir, "rpath": self.rpath}

    def describe(self):
        return (f"links {os.path.join(self.libdir, 'libfabshmem.so')} ({self.how}); "
                f"at run time the extension looks in {self.rpath} (RUNPATH; "
                "LD_LIBRARY_PATH comes first)")


def _pkg_config(*args):
    try:
        return subprocess.run(["pkg-config", *args, "fabshmem"], check=True,
                              capture_output=True, text=True).stdout.strip()
    except (subprocess.CalledProcessError, OSError):
        return None


def _check(incs, libdir, how):
    if not os.path.exists(os.path.join(libdir, "libfabshmem.so")):
        raise NotFound(f"{how} names the library directory {libdir}, "
                       "which has no libfabshmem.so")
    if not any(os.path.exists(os.path.join(d, "shmemx.h")) for d in incs):
        raise NotFound(f"{how} names the include directories {':'.join(incs)}, "
                       "none of which has shmemx.h")


def _build_tree(value):
    """(include dirs, .libs) of the build tree FABPY_BUILD_TREE names."""
    tree = TOP if value == "1" else os.path.abspath(value)
    incs = [os.path.join(tree, "include")]
    if tree != TOP:  # a VPATH build: the headers are the source tree's
        incs.append(os.path.join(TOP, "include"))
    return incs, os.path.join(tree, ".libs")


def locate(env=None):
    """The Link of this build (see the module's text), read fresh from env
    (os.environ); raises NotFound."""
    env = os.environ if env is None else env
    inc, lib = env.get("FABPY_INCLUDE_DIRS"), env.get("FABPY_LIB_DIR")
    if inc or lib:
        if not (inc and lib):
            raise NotFound("FABPY_INCLUDE_DIRS and FABPY_LIB_DIR go together: set both")
        incs, libdir = [d for d in inc.split(":") if d], lib
        how = "FABPY_INCLUDE_DIRS and FABPY_LIB_DIR, as make sets them for its build tree"
    elif env.get("FABPY_PREFIX"):
        prefix = env["FABPY_PREFIX"]
        libdir = os.path.join(prefix, "lib")
        for cand in ("lib64", "lib/" + (sysconfig.get_config_var("MULTIARCH") or "-")):
            if os.path.exists(os.path.join(prefix, cand, "libfabshmem.so")):
                libdir = os.path.join(prefix, cand)
        incs, how = [os.path.join(prefix, "include")], f"FABPY_PREFIX={prefix}"
    elif env.get("FABPY_BUILD_TREE"):
        incs, libdir = _build_tree(env["FABPY_BUILD_TREE"])
        how = (f"FABPY_BUILD_TREE={env['FABPY_BUILD_TREE']}: the uninstalled build tree "
               f"{os.path.dirname(libdir)}, which must stay where it is")
    else:
        if not shutil.which("pkg-config"):
            raise NotFound("no pkg-config to find the installed fabshmem "
                           "(apt-get install pkgconf), and no FABPY_PREFIX")
        pcdir = _pkg_config("--variable=pcfiledir")
        if pcdir is None:
            hint = ""
            if os.path.exists(os.path.join(TOP, ".libs", "libfabshmem.so")):
                hint = (f"; {TOP} is a build tree, which is linked only on purpose: "
                        "FABPY_BUILD_TREE=1 (the extension then needs that tree at run time)")
            path = env.get("PKG_CONFIG_PATH", "")
            raise NotFound("pkg-config finds no installed fabshmem (fabshmem.pc; PKG_CONFIG_PATH="
                           f"{path or '(unset)'}): install fabshmem (make install), add "
                           "PREFIX/lib/pkgconfig to PKG_CONFIG_PATH, or set FABPY_PREFIX" + hint)
        pc = os.path.join(pcdir, "fabshmem.pc")
        incs = [_pkg_config("--variable=includedir")]
        libdir = _pkg_config("--variable=libdir")
        how = f"pkg-config fabshmem: {pc}, version {_pkg_config('--modversion')}"
    _check(incs, libdir, how)
    rpath = env.get("FABPY_RPATH") or libdir
    return Link(incs, libdir, rpath, how)


def stale(build_temp, link):
    """True when the extension of the build folder whose temporary
    directory is build_temp was linked against anything else than link
    (or nothing says what): it must be built again."""
    try:
        with open(os.path.join(build_temp, LINK_RECORD)) as f:
            return json.load(f) != link.record()
    except (OSError, ValueError):
        return True


def note_link(build_temp, link):
    os.makedirs(build_temp, exist_ok=True)
    with open(os.path.join(build_temp, LINK_RECORD), "w") as f:
        json.dump(link.record(), f)


def site_dirs():
    """The interpreter's own package directories (PYTHONPATH aside)."""
    return [os.path.normpath(d) for d in site.getsitepackages()]


def sitedir(prefix):
    """Where make install puts the package under prefix: the interpreter's
    own package directory under prefix/lib when there is one (Debian's
    /usr/local/lib/python3.X/dist-packages for /usr/local, a virtual
    environment's site-packages), else prefix/lib/python3.X/site-packages
    (Python's layout for a prefix; Debian's default scheme would add a
    'local' that is on no path)."""
    prefix = os.path.normpath(os.path.abspath(prefix))
    for d in site_dirs():
        if d.startswith(os.path.join(prefix, "lib", "python3")) and \
                os.path.basename(d) in ("site-packages", "dist-packages"):
            return d
    return sysconfig.get_path("platlib", "posix_prefix",
                              vars={"base": prefix, "platbase": prefix})


def rpath(site, libdir):
    """The installed extension's RUNPATH: libdir relative to the
    extension's directory (site/fabshmem/core), so that the installed tree
    still holds together under DESTDIR or after make install prefix=DIR."""
    rel = os.path.relpath(os.path.abspath(libdir), os.path.join(os.path.abspath(site),
                                                               "fabshmem", "core"))
    return "$ORIGIN/" + rel


def note(site, destdir=""):
    """make install's closing lines: where the package went, and the
    PYTHONPATH to use when it is not on the interpreter's path."""
    py = sys.executable
    where = os.path.join(destdir, site.lstrip("/")) if destdir else site
    lines = [f"fabshmem: the Python package fabshmem (for {py}) is in {where}"]
    if destdir:
        lines.append(f"fabshmem: (staged under DESTDIR={destdir}: it works once in {site})")
    if os.path.normpath(site) in site_dirs():
        lines.append(f"fabshmem: {site} is on {py}'s path: import fabshmem.core works as is")
    else:
        lines.append(f"fabshmem: {site} is not on {py}'s path: set")
        lines.append(f"    PYTHONPATH={site}")
    return "\n".join(lines)


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "locate" and len(argv) == 2:
        try:
            print(f"buildpaths.py: {locate().describe()}")
        except NotFound as e:
            sys.exit(f"buildpaths.py: {e}")
    elif cmd == "sitedir" and len(argv) == 3:
        print(sitedir(argv[2]))
    elif cmd == "rpath" and len(argv) == 4:
        print(rpath(argv[2], argv[3]))
    elif cmd == "note" and len(argv) in (3, 4):
        print(note(argv[2], argv[3] if len(argv) == 4 else ""))
    else:
        sys.exit(__doc__.split("\n\n")[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
