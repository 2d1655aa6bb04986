dnl The Python binding (python/), included by configure.ac.
dnl
dnl FABSHMEM_PYTHON_CHECK finds the interpreter (PYTHON; Debian's
dnl /usr/bin/python3 by default when it exists, since a python3 earlier on
dnl PATH, such as pyenv's, lacks Debian's python3-* packages), and checks
dnl for its headers, Cython, NumPy (and its C headers) and setuptools.  When
dnl all are there (and --disable-python was not given) the binding is built
dnl (HAVE_PYTHON_BINDING); --enable-python makes a missing one an error.
dnl It also notes what the tests use (pytest, mpi4py, torch), which are
dnl looked up without importing them.  Sets python_summary for the summary.
AC_DEFUN([FABSHMEM_PYTHON_CHECK], [
AC_ARG_VAR([PYTHON], [the Python 3 of the binding (default: /usr/bin/python3 when it exists, else python3 on PATH)])
AC_ARG_ENABLE([python],
  AS_HELP_STRING([--disable-python], [do not build the Python binding (python/)]),
  [], [enable_python=auto])
have_python_binding=no
python_missing=""
python_summary="no (--disable-python)"
AS_IF([test "x$enable_python" != xno], [
  AS_IF([test -z "$PYTHON"], [
    AS_IF([test -x /usr/bin/python3], [PYTHON=/usr/bin/python3],
      [AC_PATH_PROGS([PYTHON], [python3], [])])])
  AS_IF([test -z "$PYTHON"], [python_missing="python3"], [
    AC_MSG_CHECKING([for Python 3.7 or later ($PYTHON)])
    PYTHON_VERSION=`$PYTHON -c 'import sys; print("%d.%d" % sys.version_info[[:2]]); sys.exit(sys.version_info < (3, 7))' 2>/dev/null` ||
      python_missing="$python_missing python>=3.7"
    AC_MSG_RESULT([${PYTHON_VERSION:-no}])
    AC_MSG_CHECKING([for Python.h])
    AS_IF([$PYTHON -c 'import os, sys, sysconfig; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()[["include"]], "Python.h")))' 2>/dev/null],
      [AC_MSG_RESULT([yes])], [AC_MSG_RESULT([no]); python_missing="$python_missing python3-dev"])
    AC_MSG_CHECKING([for Cython])
    PYTHON_CYTHON=`$PYTHON -c 'import Cython; print(Cython.__version__)' 2>/dev/null` ||
      python_missing="$python_missing cython3"
    AC_MSG_RESULT([${PYTHON_CYTHON:-no}])
    AC_MSG_CHECKING([for NumPy and its C headers])
    PYTHON_NUMPY=`$PYTHON -c 'import os, sys, numpy; print(numpy.__version__); sys.exit(not os.path.exists(os.path.join(numpy.get_include(), "numpy", "arrayobject.h")))' 2>/dev/null` ||
      { PYTHON_NUMPY=""; python_missing="$python_missing python3-numpy"; }
    AC_MSG_RESULT([${PYTHON_NUMPY:-no}])
    AC_MSG_CHECKING([for setuptools])
    AS_IF([$PYTHON -c 'import setuptools' 2>/dev/null], [AC_MSG_RESULT([yes])],
      [AC_MSG_RESULT([no]); python_missing="$python_missing python3-setuptools"])
  ])
  AS_IF([test -z "$python_missing"], [
    have_python_binding=yes
    python_tests=""
    for m in pytest mpi4py torch; do
      AS_IF([$PYTHON -c "import importlib.util as u, sys; sys.exit(u.find_spec('$m') is None)" 2>/dev/null],
        [python_tests="$python_tests $m"], [python_tests="$python_tests no-$m"])
    done
    python_summary="yes ($PYTHON $PYTHON_VERSION, Cython $PYTHON_CYTHON, NumPy $PYTHON_NUMPY; tests:$python_tests)"
  ], [
    python_summary="no (missing:$python_missing)"
    AS_IF([test "x$enable_python" = xyes],
      [AC_MSG_ERROR([--enable-python: the Python binding needs$python_missing])])
  ])
])
AM_CONDITIONAL([HAVE_PYTHON_BINDING], [test "x$have_python_binding" = xyes])
])
