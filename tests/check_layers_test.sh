#!/bin/sh
# Tests of the structure check itself (tests/check_layers.py): it passes on
# a copy of the tree and fails, naming the file and the function, on each
# fault planted into that copy: a call to a layer above, a function declared
# in one layer's header and defined in another (or nowhere), two .c files
# of one basename, a long file with no reason given, src/cuda calling past
# src/base.
here=$(cd "$(dirname "$0")" && pwd)
top=$here/..
py=$(command -v python3 || command -v python) || exit 77
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
# The sources only (.c, .h, .def), not the build's objects.
(cd "$top" && find include src pmix providers -name '*.[ch]' -o -name '*.def') |
    while read -r f; do
        mkdir -p "$tmp/$(dirname "$f")" && cp "$top/$f" "$tmp/$f"
    done
mkdir -p "$tmp/tests"
cp "$here/check_layers.py" "$tmp/tests/"
fail=0

check() {  # check NAME EXPECTED-TEXT: the check fails and prints the text
    out=$("$py" "$tmp/tests/check_layers.py" "$tmp" 2>&1)
    rc=$?
    if [ $rc -eq 0 ] || ! printf '%s\n' "$out" | grep -qF -- "$2"; then
        echo "FAIL: $1: exit $rc, no line with '$2' in:"
        printf '%s\n' "$out" | tail -5
        fail=1
    else
        echo "ok: $1: $(printf '%s\n' "$out" | grep -F -- "$2" | head -1)"
    fi
}

out=$("$py" "$tmp/tests/check_layers.py" "$tmp" 2>&1) ||
    { echo "FAIL: the copy of the tree does not pass:"; printf '%s\n' "$out"; exit 1; }
echo "ok: the copy of the tree passes"

# A call from the core to a function of src/mem, above it.
printf 'int shmemi_planted_top(void)\n{\n    return 1;\n}\n' >"$tmp/src/mem/planted_top.c"
printf 'int shmemi_planted_low(void)\n{\n    return shmemi_planted_top();\n}\n' \
    >"$tmp/src/core/planted_low.c"
check "upward call" "src/core/planted_low.c:3: calls shmemi_planted_top, defined in src/mem/planted_top.c"
rm "$tmp/src/core/planted_low.c" "$tmp/src/mem/planted_top.c"

# A function declared in a header of the core and defined in src/mem.
printf '#ifndef PLANTED_H\n#define PLANTED_H\nint shmemi_planted_decl(int x);\n#endif\n' \
    >"$tmp/src/core/planted.h"
printf 'int shmemi_planted_decl(int x)\n{\n    return x;\n}\n' >"$tmp/src/mem/planted_def.c"
check "declared here, defined there" "src/core/planted.h:3: declares shmemi_planted_decl, defined in src/mem/planted_def.c"
rm "$tmp/src/mem/planted_def.c"
check "declared, defined nowhere" "src/core/planted.h:3: declares shmemi_planted_decl, defined in no .c file of its layer (src/core)"
rm "$tmp/src/core/planted.h"

# Two .c files of one basename.
printf 'static int planted;\n' >"$tmp/src/mem/planted_dup.c"
printf 'static int planted;\n' >"$tmp/src/team/planted_dup.c"
check "duplicate basename" "src/mem/planted_dup.c: has the basename of src/team/planted_dup.c"
rm "$tmp/src/mem/planted_dup.c" "$tmp/src/team/planted_dup.c"

# A file over the length with no reason in its first comment.
{ echo '/* A planted file. */'; i=0
  while [ $i -lt 710 ]; do echo "static int planted_$i;"; i=$((i + 1)); done; } \
    >"$tmp/src/mem/planted_long.c"
check "long file" "src/mem/planted_long.c: 711 lines long"
sed -i '1s|.*|/* A planted file (long: a table). */|' "$tmp/src/mem/planted_long.c"
out=$("$py" "$tmp/tests/check_layers.py" "$tmp" 2>&1) ||
    { echo "FAIL: a long file with its reason is refused:"; printf '%s\n' "$out"; fail=1; }
rm "$tmp/src/mem/planted_long.c"

# src/cuda calling the transport, below it but not src/base.
printf 'int shmemt_planted(void)\n{\n    return 0;\n}\n' >"$tmp/providers/planted_tp.c"
printf 'int shmemi_cuda_planted(void)\n{\n    return shmemt_planted();\n}\n' \
    >"$tmp/src/cuda/planted_cuda.c"
check "cuda past base" "src/cuda/planted_cuda.c:3: calls shmemt_planted of providers/planted_tp.c: src/cuda calls only src/base"
exit $fail
