# Sourced by the test scripts (run.sh, init/errors.sh, stream/stream_info.sh,
# python/run.sh, install.sh);
# the caller sets tests_dir to this folder (tests/).  Sanitizer builds (--enable-sanitizers): the known
# libpmix leak is not ours (tests/lsan.supp).  Unless the caller set
# LSAN_OPTIONS, LSAN_OPTIONS names lsan.supp and lsan_dir is this folder
# (run.sh picks other lists from it per run); else lsan_dir is empty.
lsan_dir=
if [ -z "${LSAN_OPTIONS+set}" ]; then
    lsan_dir=$(cd "$tests_dir" && pwd)
    LSAN_OPTIONS=suppressions=$lsan_dir/lsan.supp
    export LSAN_OPTIONS
fi
# ThreadSanitizer builds (--enable-sanitizers=thread): unless the caller set
# TSAN_OPTIONS, the reports that are not the library's are left out
# (tests/tsan.supp says why each is there), with the longer history that
# its libfabric lines need to match.
if [ -z "${TSAN_OPTIONS+set}" ]; then
    TSAN_OPTIONS="suppressions=$(cd "$tests_dir" && pwd)/tsan.supp history_size=7"
    export TSAN_OPTIONS
fi
# san_preload LIB: where LIB (a sanitized libfabshmem) links a sanitizer's
# runtime, that runtime first in LD_PRELOAD, for programs that are not
# built with it and load LIB (Python): ASan refuses to start otherwise
# ("ASan runtime does not come first").  Leaks are not reported there (the
# interpreter's own are many); the C tests report them.
san_preload() {
    san_rt=$(ldd "$1" 2>/dev/null | awk '$1 ~ /^lib[at]san\.so/ { print $3; exit }')
    [ -n "$san_rt" ] || return 0
    LD_PRELOAD=$san_rt${LD_PRELOAD:+:$LD_PRELOAD}
    ASAN_OPTIONS=detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}
    export LD_PRELOAD ASAN_OPTIONS
}
