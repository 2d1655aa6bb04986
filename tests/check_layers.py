#!/usr/bin/env python3
"""The structure rules of docs/design.md ("Layers"), checked from the source.

Every folder of the library is a layer, ranked from the bottom up:

    pmix/ (bootstrap) < providers/ (transport) < src/base < src/cuda
    < src/core < src/team < src/mem < src/coll < src/stream < src/init
    < src/api < src/tools

A file may include the headers of its own layer and of the layers below
it, never one of a layer above (a call goes through a header: no file
declares another file's functions itself).  The public headers (include/)
and config.h are below everything.  Beside the include arrows it checks:

  - no prototype of a non-static function inside a .c file;
  - no weak symbol but the profiling aliases (SHMEMI_ALIAS);
  - no glibc-internal name (_IO_*, __libc_*);
  - nothing after the include guard of a header;
  - providers/ reads no environment variable (getenv): its configuration
    comes through its init arguments, from src/base/env.def;
  - no file of src/ outside src/api calls a public pshmem_ routine: the
    layers below the API call the core's routines, which return a status
    (the API's routines are thin wrappers over them);
  - no function longer than LONG_FN lines unless the comment before it
    says why, with "(long: ...)".

Usage: tests/check_layers.py [TOP]   (TOP: the source tree, default: the
folder above this script).  Prints one line per violation; exit status 0
when there is none, 1 otherwise.
"""
import os
import re
import sys

LAYERS = ["pmix", "providers", "src/base", "src/cuda", "src/core", "src/team", "src/mem",
          "src/coll", "src/stream", "src/init", "src/api", "src/tools"]
RANK = {name: i + 1 for i, name in enumerate(LAYERS)}
LONG_FN = 80

top = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                      os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
search = [os.path.join(top, "include"), os.path.join(top, "src"), top]
problems = []


def layer_of(path):
    rel = os.path.relpath(path, top)
    best = None
    for name in LAYERS:
        if rel == name or rel.startswith(name + "/"):
            if best is None or len(name) > len(best):
                best = name
    return best


def resolve(inc, including):
    for d in [os.path.dirname(including)] + search:
        p = os.path.normpath(os.path.join(d, inc))
        if os.path.isfile(p):
            return p
    return None


def strip_comments(text):
    """The text with comments and string literals blanked (lines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1:j]) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def check_includes(path, lay, raw):
    for lineno, line in enumerate(raw.split("\n"), 1):
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        if not m:
            continue
        inc = m.group(1)
        target = resolve(inc, path)
        if target is None:
            continue  # generated (config.h) or not ours
        tl = layer_of(target)
        if tl is None:
            continue  # public headers, config.h
        if RANK[tl] > RANK[lay]:
            problems.append(f"{os.path.relpath(path, top)}:{lineno}: includes {inc} of layer "
                            f"{tl}, above its own ({lay})")


def check_c_file(path, code, raw):
    rel = os.path.relpath(path, top)
    lines = code.split("\n")
    depth = 0
    for lineno, line in enumerate(lines, 1):
        if depth == 0 and re.match(r"[A-Za-z_]", line) and not line.startswith(("static", "typedef",
                                                                                  "struct", "enum",
                                                                                  "union", "#")):
            # A declaration at file scope that ends in ');' and names a function: a prototype.
            stmt = line
            k = lineno
            while not re.search(r"[;{]\s*$", stmt) and k < len(lines) and k < lineno + 40:
                stmt += " " + lines[k]
                k += 1
            if (re.search(r"\)\s*(__attribute__\s*\(\(.*\)\)\s*)*;\s*$", stmt) and "=" not in stmt
                    and not stmt.startswith(("SHMEMI_ALIAS", "extern __typeof__"))
                    and re.search(r"\b[A-Za-z_]\w*\s*\(", stmt)
                    and not re.match(r"[A-Z_0-9]+\s*\(", stmt)):
                problems.append(f"{rel}:{lineno}: a prototype inside a .c file "
                                f"(declare it in the header of the file that defines it)")
        depth += line.count("{") - line.count("}")


def check_functions(path, code, raw):
    """Functions whose body is longer than LONG_FN lines need a reason."""
    rel = os.path.relpath(path, top)
    lines = code.split("\n")
    rawl = raw.split("\n")
    i = 0
    while i < len(lines):
        if lines[i].startswith("{") and i > 0:
            start = i
            j = i
            while j < len(lines) and not lines[j].startswith("}"):
                j += 1
            length = j - start - 1
            if length > LONG_FN:
                # The function's head and the comment above it.
                h = start - 1
                while h > 0 and lines[h - 1].strip() and not lines[h - 1].rstrip().endswith(
                        (";", "}")) and not rawl[h - 1].strip().endswith("*/"):
                    h -= 1
                c = h - 1
                comment = []
                while c >= 0 and rawl[c].strip() and (rawl[c].lstrip().startswith(("/*", "*"))):
                    comment.append(rawl[c])
                    c -= 1
                if "(long:" not in " ".join(comment):
                    m = re.search(r"(\w+)\s*\(", " ".join(lines[h:start]))
                    name = m.group(1) if m else "?"
                    problems.append(f"{rel}:{h + 1}: {name} is {length} lines long (over "
                                    f"{LONG_FN}) with no '(long: ...)' reason in its comment")
            i = j
        i += 1


def check_header(path, raw):
    rel = os.path.relpath(path, top)
    code = strip_comments(raw)
    m = re.search(r"#ifndef\s+(\w+)\s*\n\s*#define\s+\1", code)
    if not m:
        return
    # The last #endif must close the guard: nothing but blanks after it.
    last = code.rstrip().rfind("#endif")
    if code[last:].strip() != "#endif" and not re.match(r"#endif\s*(/\*.*\*/)?\s*$",
                                                        code[last:].strip()):
        problems.append(f"{rel}: text after the include guard's #endif")
    depth = 0
    for lineno, line in enumerate(code.split("\n"), 1):
        s = line.strip()
        if re.match(r"#\s*if", s):
            depth += 1
        elif re.match(r"#\s*endif", s):
            depth -= 1
            if depth == 0 and code.split("\n")[lineno:] and "".join(code.split("\n")[lineno:]).strip():
                problems.append(f"{rel}:{lineno}: declarations after the include guard's #endif")
                break


def main():
    for layer in LAYERS:
        base = os.path.join(top, layer)
        for dirpath, dirnames, files in os.walk(base):
            rel = os.path.relpath(dirpath, top)
            if any(rel.startswith(other + "/") or rel == other
                   for other in LAYERS if other != layer and other.startswith(layer + "/")):
                continue
            for f in sorted(files):
                if not f.endswith((".c", ".h")):
                    continue
                path = os.path.join(dirpath, f)
                lay = layer_of(path)
                if lay != layer:
                    continue
                raw = open(path, encoding="utf-8", errors="replace").read()
                # Generated files (the kernels' PTX, 2 MB of one string) are
                # not ours to structure.
                if re.match(r"/\*[^\n]*[Gg]enerated[^\n]*do not edit", raw):
                    continue
                code = strip_comments(raw)
                check_includes(path, lay, raw)
                if re.search(r"__attribute__\s*\(\(\s*weak\b", code) and "SHMEMI_ALIAS" not in f:
                    for lineno, line in enumerate(code.split("\n"), 1):
                        if re.search(r"__attribute__\s*\(\(\s*weak\b", line) and \
                                "#define SHMEMI_ALIAS" not in code.split("\n")[lineno - 2] + line:
                            problems.append(f"{os.path.relpath(path, top)}:{lineno}: a weak "
                                            f"symbol (call the other file through its header)")
                for lineno, line in enumerate(code.split("\n"), 1):
                    if re.search(r"\b(_IO_\w+|__libc_\w+)", line):
                        problems.append(f"{os.path.relpath(path, top)}:{lineno}: a glibc-internal "
                                        f"name")
                    if (layer.startswith("src/") and layer != "src/api" and
                            re.search(r"\bpshmem_\w+\s*\(", line)):
                        problems.append(f"{os.path.relpath(path, top)}:{lineno}: calls a public "
                                        f"pshmem_ routine (call the core routine it wraps)")
                    if layer == "providers" and re.search(r"\bgetenv\s*\(", line):
                        problems.append(f"{os.path.relpath(path, top)}:{lineno}: the provider reads "
                                        f"the environment (take it from the init arguments)")
                if f.endswith(".c"):
                    check_c_file(path, code, raw)
                    check_functions(path, code, raw)
                else:
                    check_header(path, raw)
    for p in problems:
        print(p)
    print(f"{len(problems)} problem(s) in the structure rules" if problems else
          "the structure rules hold")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
