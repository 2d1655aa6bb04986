#!/usr/bin/env python3
"""The structure rules of docs/design.md ("Layers"), checked from the source.

Every folder of the library is a layer, ranked from the bottom up:

    pmix/ (bootstrap) < providers/ (transport) < src/base < src/cuda
    < src/core < src/team < src/mem < src/coll < src/stream < src/proxy < src/init
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
    says why, with "(long: ...)";
  - calls go downward too: no .c file calls a function defined (not
    static) in a .c file of a layer above its own, and src/cuda calls no
    function but its own and src/base's (nor the bootstrap's or the
    transport's); a call is a name followed by "(", a definition a
    non-static function with a body at file scope;
  - a non-static function declared in a layer's header is defined in a
    .c file of that layer (a header does not promise another layer's
    work, nor work nobody does; names that start with "__" are the
    compiler's or a tool's);
  - no two .c files of pmix/, providers/ and src/ share a basename;
  - no file of pmix/, providers/ or src/ longer than LONG_FILE lines
    unless its first comment says why, with "(long: ...)".

Usage: tests/check_layers.py [TOP]   (TOP: the source tree, default: the
folder above this script).  Prints one line per violation; exit status 0
when there is none, 1 otherwise.
"""
import os
import re
import sys

LAYERS = ["pmix", "providers", "src/base", "src/cuda", "src/core", "src/team", "src/mem",
          "src/coll", "src/stream", "src/proxy", "src/init", "src/api", "src/tools"]
RANK = {name: i + 1 for i, name in enumerate(LAYERS)}
LONG_FN = 80
LONG_FILE = 700
# Names followed by "(" that are not calls of the library's functions.
NOT_CALLS = {"if", "for", "while", "switch", "return", "sizeof", "defined", "__attribute__",
             "__typeof__", "typeof", "_Alignof", "alignof", "_Static_assert", "__builtin_expect"}

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


ATTR = re.compile(r"__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)")


def file_scope_statements(code):
    """(line, text) of each statement that starts at file scope in code, joined
    up to its ';' or '{' (at most 40 lines); preprocessor lines are skipped."""
    lines = code.split("\n")
    depth = 0
    out = []
    for lineno, line in enumerate(lines, 1):
        if depth == 0 and re.match(r"[A-Za-z_]", line):
            stmt = line
            k = lineno
            while not re.search(r"[;{]\s*$", stmt) and k < len(lines) and k < lineno + 40:
                stmt += " " + lines[k]
                k += 1
            out.append((lineno, stmt))
        depth += line.count("{") - line.count("}")
        depth = max(depth, 0)
    return out


def head_ends(stmt, end):
    """Whether stmt is a function's head followed by end (';' or '{'), its
    attributes (__attribute__, macros as SHMEMI_WUR) left out."""
    s = re.sub(r"\b[A-Z][A-Z_0-9]*\b(?!\s*\()", " ", ATTR.sub(" ", stmt))
    return re.search(r"\)\s*" + re.escape(end) + r"\s*$", s) is not None


def function_name(stmt):
    """The name of the function a statement declares or defines, or None."""
    s = ATTR.sub(" ", stmt)
    if "=" in s.split("(")[0] or "(*" in s.replace(" ", ""):
        return None
    m = re.search(r"\b([A-Za-z_]\w*)\s*\(", s)
    if not m or m.group(1) in NOT_CALLS or re.fullmatch(r"[A-Z_0-9]+", m.group(1)):
        return None
    return m.group(1)


def definitions(code):
    """(non-static definitions, static definitions): name -> line."""
    public, private = {}, {}
    for lineno, stmt in file_scope_statements(code):
        if not head_ends(stmt, "{") or \
                stmt.startswith(("typedef", "struct", "enum", "union")):
            continue
        name = function_name(stmt)
        if name:
            (private if re.match(r"(static|inline|SHMEMI_INLINE)\b", stmt) else public)[name] = lineno
    return public, private


def declarations(code):
    """name -> line of the non-static function prototypes of a header."""
    out = {}
    for lineno, stmt in file_scope_statements(code):
        if stmt.startswith(("static", "typedef", "struct", "enum", "union", "inline",
                            "SHMEMI_INLINE")) or not head_ends(stmt, ";"):
            continue
        name = function_name(stmt)
        if name:
            out[name] = lineno
    return out


def check_graph(files):
    """The checks that need the whole tree: calls, declarations, basenames, lengths."""
    defined = {}  # name -> [(layer, rel)] of its non-static definitions
    static = {}   # rel -> the names its static functions have
    for path, lay, code, raw in files:
        if path.endswith(".c"):
            rel = os.path.relpath(path, top)
            public, private = definitions(code)
            for name in public:
                defined.setdefault(name, []).append((lay, rel))
            static[rel] = set(private)
    seen = {}
    for path, lay, code, raw in files:
        rel = os.path.relpath(path, top)
        if path.endswith(".h"):
            for name, lineno in declarations(code).items():
                where = defined.get(name, [])
                if name.startswith("__") or any(l == lay for l, _ in where):
                    continue  # "__": the compiler's or a tool's (__tsan_acquire)
                problems.append(f"{rel}:{lineno}: declares {name}, defined in {where[0][1]} "
                                f"of layer {where[0][0]}, not in its own ({lay})" if where else
                                f"{rel}:{lineno}: declares {name}, defined in no .c file of "
                                f"its layer ({lay})")
            continue
        base = os.path.basename(path)
        if base in seen:
            problems.append(f"{rel}: has the basename of {seen[base]} (name .c files uniquely)")
        else:
            seen[base] = rel
        nlines = raw.count("\n")
        if nlines > LONG_FILE:
            m = re.match(r"\s*/\*.*?\*/", raw, re.S)
            if not m or "(long:" not in m.group(0):
                problems.append(f"{rel}: {nlines} lines long (over {LONG_FILE}) with no "
                                f"'(long: ...)' reason in its first comment")
        reported = set()
        for lineno, line in enumerate(code.split("\n"), 1):
            for m in re.finditer(r"(?<![\w.>])([A-Za-z_]\w*)\s*\(", line):
                name = m.group(1)
                where = defined.get(name)
                if not where or name in static[rel] or name in reported or \
                        any(RANK[l] <= RANK[lay] for l, _ in where):
                    if not (lay == "src/cuda" and where and name not in static[rel] and
                            name not in reported and
                            not any(l in ("src/base", "src/cuda") for l, _ in where)):
                        continue
                    reported.add(name)
                    problems.append(f"{rel}:{lineno}: calls {name} of {where[0][1]}: src/cuda "
                                    f"calls only src/base")
                    continue
                reported.add(name)
                problems.append(f"{rel}:{lineno}: calls {name}, defined in {where[0][1]} of layer "
                                f"{where[0][0]}, above its own ({lay})")


def main():
    tree = []
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
                tree.append((path, lay, code, raw))
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
    check_graph(tree)
    for p in problems:
        print(p)
    print(f"{len(problems)} problem(s) in the structure rules" if problems else
          "the structure rules hold")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
