#!/bin/sh
# Which way streams run, as fabshmem_info predicts it and as SHMEM_INFO=1
# reports it from a job (tests/init/hello, 2 PEs, the direct path off so that
# the provider carries the traffic): offloaded as triggered operations on
# sockets (the provider here with FI_TRIGGER), worker threads on shm and
# tcp, worker threads with FABSHMEM_STREAM_OFFLOAD=0, and no streams at all
# with FABSHMEM_STREAM_OFFLOAD=1 on a provider without triggered
# operations.  A provider that fi_info does not list is left out.  Then
# tests/stream/stream (3 streams) on tcp without the direct path: with
# FABSHMEM_CTX_ENDPOINTS=0 every stream shares the default endpoint and
# each PE says so once under SHMEM_DEBUG; with 1, the second stream does;
# with the default (16) none does.  Without SHMEM_DEBUG the sharing runs
# print nothing on stderr (sharing is an outcome the specification allows).
#
# Environment: FABSHMEM_TEST_LAUNCHER (as for run.sh), TEST_TIMEOUT
# (default 120 s per job).

launcher=${FABSHMEM_TEST_LAUNCHER:-"mpirun --allow-run-as-root --oversubscribe --bind-to none -n"}
tmo=${TEST_TIMEOUT:-120}
info=./fabshmem_info
hello=tests/init/hello
stream=tests/stream/stream
out=$(mktemp "${TMPDIR:-/tmp}/fabshmem-stream-info.XXXXXX") || exit 1
err=$(mktemp "${TMPDIR:-/tmp}/fabshmem-stream-info-err.XXXXXX") || exit 1
trap 'rm -f "$out" "$err"' EXIT INT TERM
# Sanitizer builds: libpmix's known leak is not ours.
tests_dir=$(dirname "$0")/..
. "$tests_dir/lsan_default.sh"
npass=0
nfail=0
nskip=0

if [ ! -x "$info" ] || [ ! -x "$hello" ] || [ ! -x "$stream" ]; then
    echo "FAIL stream_info: $info, $hello or $stream is not built"
    exit 1
fi

# xflags for launchers of the mpirun family (the variables are exported too).
xflags=
case $(basename "${launcher%% *}") in
mpirun | mpiexec | oshrun | prterun | orterun)
    xflags="-x FABSHMEM_PROVIDER -x FABSHMEM_DIRECT -x FABSHMEM_STREAM_OFFLOAD -x SHMEM_INFO -x SHMEM_DEBUG"
    xflags="$xflags -x FABSHMEM_CTX_ENDPOINTS" ;;
esac

have() {
    ! command -v fi_info >/dev/null 2>&1 || fi_info -p "$1" >/dev/null 2>&1
}

# check LABEL "TEXT" FILE: FILE has a line starting with "streams" that
# holds TEXT (a fixed string).
check() {
    if grep "^streams" "$3" | grep -qF -- "$2"; then
        echo "PASS stream_info $1"
        npass=$((npass + 1))
    else
        echo "FAIL stream_info $1: no streams line with \"$2\""
        grep "^streams" "$3" | sed "s/^/    | /"
        tail -n 5 "$3" | sed "s/^/    | /"
        nfail=$((nfail + 1))
    fi
}

# expect PROVIDER OFFLOAD "FABSHMEM_INFO TEXT" "SHMEM_INFO TEXT"
expect() {
    prov=$1 off=$2 itext=$3 jtext=$4
    if ! have "$prov"; then
        echo "SKIP stream_info prov=$prov (fi_info does not list the provider)"
        nskip=$((nskip + 1))
        return
    fi
    FABSHMEM_PROVIDER=$prov FABSHMEM_STREAM_OFFLOAD=$off "$info" >"$out" 2>&1
    check "fabshmem_info prov=$prov offload=$off" "$itext" "$out"
    FABSHMEM_PROVIDER=$prov FABSHMEM_DIRECT=0 FABSHMEM_STREAM_OFFLOAD=$off SHMEM_INFO=1
    export FABSHMEM_PROVIDER FABSHMEM_DIRECT FABSHMEM_STREAM_OFFLOAD SHMEM_INFO
    # shellcheck disable=SC2086
    timeout -k 10 "$tmo" $launcher 2 $xflags "$hello" >"$out" 2>&1 </dev/null
    check "SHMEM_INFO prov=$prov offload=$off" "$jtext" "$out"
    unset FABSHMEM_PROVIDER FABSHMEM_DIRECT FABSHMEM_STREAM_OFFLOAD SHMEM_INFO
}

expect sockets auto "sockets provider (FABSHMEM_PROVIDER): offloaded as triggered operations" \
    "streams: offloaded to the sockets provider as triggered operations"
expect sockets 0 "sockets provider (FABSHMEM_PROVIDER): worker threads (FABSHMEM_STREAM_OFFLOAD=0)" \
    "streams: worker threads (FABSHMEM_STREAM_OFFLOAD=0)"
expect tcp auto "tcp;ofi_rxm provider (FABSHMEM_PROVIDER): worker threads (the provider has no triggered" \
    "streams: worker threads (the tcp;ofi_rxm provider has no triggered operations)"
expect shm auto "shm provider (FABSHMEM_PROVIDER): worker threads (the provider has no triggered" \
    "streams: worker threads (the shm provider has no triggered operations)"
expect tcp 1 "none: the provider has no triggered operations and FABSHMEM_STREAM_OFFLOAD=1" \
    "streams: none: FABSHMEM_STREAM_OFFLOAD=1 and the tcp;ofi_rxm provider has no triggered"

# shared ENDPOINTS NOTES: tests/stream/stream passes with that many endpoints
# for contexts, and under SHMEM_DEBUG that many lines (one per PE at most)
# say that a stream shares the default endpoint.
shared() {
    eps=$1 want=$2
    FABSHMEM_PROVIDER=tcp FABSHMEM_DIRECT=0 FABSHMEM_CTX_ENDPOINTS=$eps SHMEM_DEBUG=1
    export FABSHMEM_PROVIDER FABSHMEM_DIRECT FABSHMEM_CTX_ENDPOINTS SHMEM_DEBUG
    # shellcheck disable=SC2086
    timeout -k 10 "$tmo" $launcher 2 $xflags "$stream" >"$out" 2>&1 </dev/null
    rc=$?
    got=$(grep -c "a stream shares the default endpoint" "$out")
    unset FABSHMEM_PROVIDER FABSHMEM_DIRECT FABSHMEM_CTX_ENDPOINTS SHMEM_DEBUG
    if [ $rc -eq 0 ] && [ "$got" -eq "$want" ]; then
        echo "PASS stream_info FABSHMEM_CTX_ENDPOINTS=$eps: $got debug notes"
        npass=$((npass + 1))
    else
        echo "FAIL stream_info FABSHMEM_CTX_ENDPOINTS=$eps: exit $rc, $got debug notes, expected $want"
        grep -i "warning\|FAIL\|shares" "$out" | head -n 5 | sed "s/^/    | /"
        nfail=$((nfail + 1))
    fi
}
# quiet ENDPOINTS: the same without SHMEM_DEBUG passes with no warning or
# debug line of the library on stderr (the program's refused puts print
# their errors there, and mpirun notes the -x variables that are unset).
quiet() {
    eps=$1
    FABSHMEM_PROVIDER=tcp FABSHMEM_DIRECT=0 FABSHMEM_CTX_ENDPOINTS=$eps
    export FABSHMEM_PROVIDER FABSHMEM_DIRECT FABSHMEM_CTX_ENDPOINTS
    # shellcheck disable=SC2086
    timeout -k 10 "$tmo" $launcher 2 $xflags "$stream" >"$out" 2>"$err" </dev/null
    rc=$?
    unset FABSHMEM_PROVIDER FABSHMEM_DIRECT FABSHMEM_CTX_ENDPOINTS
    got=$(grep -c "fabshmem warning\|fabshmem debug\|shares the default endpoint" "$err")
    if [ $rc -eq 0 ] && [ "$got" -eq 0 ]; then
        echo "PASS stream_info FABSHMEM_CTX_ENDPOINTS=$eps: no warning on stderr by default"
        npass=$((npass + 1))
    else
        echo "FAIL stream_info FABSHMEM_CTX_ENDPOINTS=$eps without SHMEM_DEBUG: exit $rc, $got lines:"
        grep "fabshmem warning\|fabshmem debug\|shares the default endpoint\|FAIL" "$err" "$out" |
            head -n 5 | sed "s/^/    | /"
        nfail=$((nfail + 1))
    fi
}
if have tcp; then
    shared 0 2
    shared 1 2
    shared 4 0
    quiet 0
fi

echo "stream_info: $npass passed, $nfail failed, $nskip skipped"
[ "$nfail" -eq 0 ] || exit 1
[ "$npass" -gt 0 ] || exit 77
exit 0
