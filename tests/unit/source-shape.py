#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# source-shape.py TOP: what a reader of kmod/ and tools/ relies on, held.
#
# functions_short: every function of kmod/, kmod/nic/ and tools/ is at
# most 60 lines, its first line to its closing brace (kernel style: a
# definition's body opens with "{" and closes with "}" at column 0).
#
# comment_names: a comment that names a file ("sink.c", "kmod/run.h")
# names one that exists (by path where it gives one inside the project, by
# name anywhere in it otherwise; a kernel path such as net/ipv4/tcp.c is
# not ours to check), and one that names a function of the module
# ("ktg_run_free()") names one kmod/ defines. Generated files are named in
# GENERATED.
#
# header_sections: in a header, a comment that says whose the
# declarations after it are ("/* flow.c */", "/* knobs.c: ... */", "...
# (util.c)."), up to the next blank line or comment, holds only functions
# that the files the comment names define.
#
# KTAP, one case each; a failure names the file, line and what is wrong.

import os
import re
import sys

top = sys.argv[1] if len(sys.argv) > 1 else "."
DIRS = ["kmod", "kmod/nic", "tools"]
PROJECT_DIRS = ("kmod/", "tools/", "tests/", "scripts/", "docs/", "include/",
                "bench/", "examples/", "debian/", ".ci/")
GENERATED = {"compat-gen.h"}
LIMIT = 60

comment_re = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
func_head_re = re.compile(r"(\w+)\s*\(")


def sources(exts):
    out = []
    for d in DIRS:
        path = os.path.join(top, d)
        for f in sorted(os.listdir(path)):
            if f.endswith(exts):
                out.append(os.path.join(d, f))
    return out


def read(rel):
    with open(os.path.join(top, rel), encoding="utf-8") as fh:
        return fh.read()


def functions(rel):
    """(name, first line, lines) of each definition in @rel."""
    lines = read(rel).split("\n")
    out = []
    i = 1
    while i < len(lines):
        if lines[i] != "{":
            i += 1
            continue
        j = i - 1
        while j > 0 and lines[j][:1] in (" ", "\t"):
            j -= 1
        k = i + 1
        while k < len(lines) and lines[k] != "}":
            k += 1
        m = func_head_re.search(lines[j])
        if m and "=" not in lines[j]:
            out.append((m.group(1), j + 1, k - j + 1))
        i = k + 1
    return out


def defined(rels):
    """Names of the functions and macros @rels define."""
    names = set()
    for rel in rels:
        text = read(rel)
        names.update(f[0] for f in functions(rel))
        names.update(re.findall(r"^#define\s+(\w+)", text, re.M))
    return names


def tap(ok, n, name, problems):
    for p in problems:
        print("# " + p)
    print("%sok %d %s" % ("" if ok else "not ", n, name))
    return ok


def functions_short():
    problems = []
    for rel in sources((".c",)):
        for name, line, n in functions(rel):
            if n > LIMIT:
                problems.append("%s:%d: %s is %d lines (at most %d)" %
                                (rel, line, name, n, LIMIT))
    return problems


def project_files():
    names, paths = set(GENERATED), set()
    for root, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if d not in (".git", "build")]
        for f in files:
            rel = os.path.relpath(os.path.join(root, f), top)
            names.add(f)
            paths.add(rel)
    return names, paths


def comment_names():
    names, paths = project_files()
    kmod_defs = defined([s for s in sources((".c", ".h")) if s.startswith("kmod/")])
    problems = []
    file_re = re.compile(r"(?<![\w.-])((?:[\w.-]+/)*[\w-]+\.[ch])\b")
    func_re = re.compile(r"\b(ktg_\w+)\(\)")
    for rel in sources((".c", ".h")):
        text = read(rel)
        for c in comment_re.finditer(text):
            line = text.count("\n", 0, c.start()) + 1
            for m in file_re.finditer(c.group(0)):
                f = m.group(1)
                if "/" in f:
                    if f.startswith(PROJECT_DIRS) and f not in paths:
                        problems.append("%s:%d: names %s, which is not in the project" %
                                        (rel, line, f))
                elif f not in names:
                    problems.append("%s:%d: names %s, which is no file of the project" %
                                    (rel, line, f))
            for m in func_re.finditer(c.group(0)):
                if m.group(1) not in kmod_defs:
                    problems.append("%s:%d: names %s(), which kmod/ does not define" %
                                    (rel, line, m.group(1)))
    return problems


section_re = re.compile(r"^/\*\s*([\w-]+\.c)(?::|\s*\*/)|\(([\w-]+\.c(?:,\s*[\w-]+\.c)*)[,)]")
proto_re = re.compile(r"^[a-z][\w \*]*?\b(\w+)\((?!\*)")


def header_sections():
    problems = []
    for rel in sources((".h",)):
        d = os.path.dirname(rel)
        lines = read(rel).split("\n")
        i = 0
        while i < len(lines):
            if not lines[i].startswith("/*"):
                i += 1
                continue
            # the whole comment, then what it heads
            j = i
            while "*/" not in lines[j]:
                j += 1
            text = " ".join(l.lstrip(" *") if n else l for n, l in enumerate(lines[i:j + 1]))
            m = section_re.search(text)
            if not m:
                i = j + 1
                continue
            owners = re.findall(r"(?<![\w/.-])([\w-]+\.c)\b", text)
            owners = [os.path.join(d, f) for f in owners if os.path.exists(os.path.join(top, d, f))]
            if not owners:
                i = j + 1
                continue
            defs = defined(owners)
            k = j + 1
            while k < len(lines) and lines[k].strip() and not lines[k].startswith("/*"):
                p = proto_re.match(lines[k])
                if p and not lines[k].startswith(("static", "struct", "enum", "typedef",
                                                  "extern", "#")) and p.group(1) not in defs:
                    problems.append("%s:%d: %s is declared under %s, which does not define it" %
                                    (rel, k + 1, p.group(1), ", ".join(owners)))
                k += 1
            i = k
    return problems


def main():
    cases = [("functions_short", functions_short), ("comment_names", comment_names),
             ("header_sections", header_sections)]
    print("KTAP version 1")
    print("1..%d" % len(cases))
    failed = 0
    for n, (name, fn) in enumerate(cases, 1):
        if not tap(not (problems := fn()), n, name, problems):
            failed += 1
    print("# source-shape: %d passed, %d failed" % (len(cases) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
