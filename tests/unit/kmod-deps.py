#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# kmod-deps.py [-v] TOP: the objects of the ktgen module (TOP/kmod/; not
# nic/, a module of its own) import each other in no circle of more than
# two, and each file includes only the module's headers it uses.
#
# An object is a .c and the header of its name (run.c, run.h); a .c with
# no header of its own belongs to the object whose header declares what
# it defines (tcp.c, udp.c, rr.c: flow.h's; sink-tcp.c, sink-udp.c:
# sink.h's); a header with no .c of its name (ktgen.h, proto.h) is one of
# its own. A file imports another object when it includes its header or
# uses a name that the object's .c defines outside `static` (a function,
# a variable). Two objects that need each other (run.c starts flows,
# flow.c reports to its run) are a pair; a third in the same loop is the
# tangle one header per object keeps out. A header's prototypes are not
# uses: only its inline bodies and macros are.
#
# KTAP output: a "circle" case per tangle, with its shortest circle and
# the imports along it (-v: every import inside the tangle), then
# "includes_used" (compat.h aside: its names are the probes' and the
# kernel's).

import os
import re
import sys

verbose = "-v" in sys.argv[1:]
args = [a for a in sys.argv[1:] if a != "-v"]
top = args[0] if args else "."
kmod = os.path.join(top, "kmod")

IDENT = re.compile(r"[A-Za-z_]\w*")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "do"}


def strip(text):
    """Comments, strings and character constants out; lines kept."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def definitions(code):
    """Names a .c defines outside `static`: functions and variables at
    file scope (preprocessor lines aside)."""
    code = re.sub(r"^\s*#.*(\\\n.*)*$", "", code, flags=re.M)
    names = set()
    depth = 0
    stmt = []
    for tok in re.finditer(r"[A-Za-z_]\w*|[{}();=\[]|\S", code):
        t = tok.group()
        if t == "{":
            if depth == 0:
                decl(stmt, names, body=True)
                stmt = []
            depth += 1
        elif t == "}":
            depth -= 1
        elif depth == 0:
            if t == ";":
                decl(stmt, names, body=False)
                stmt = []
            else:
                stmt.append(t)
    return names


def decl(stmt, names, body):
    """One file-scope declaration's tokens: what it defines, if anything
    visible outside its file."""
    if not stmt or "static" in stmt or "extern" in stmt or "typedef" in stmt:
        return
    if stmt[0] in ("struct", "union", "enum") and len(stmt) <= 2:
        return
    if body:
        # a function: the name before the first "(" of its declarator
        if "(" not in stmt:
            return
        k = stmt.index("(")
        if k > 0 and IDENT.fullmatch(stmt[k - 1]) and stmt[k - 1] not in KEYWORDS:
            # struct initialisers (`struct x y = {`) hold "=" before any "("
            if "=" not in stmt[:k]:
                names.add(stmt[k - 1])
                return
    # a variable: the identifier before "=", "[" or the end
    cut = len(stmt)
    for k, t in enumerate(stmt):
        if t in ("=", "["):
            cut = k
            break
    head = stmt[:cut]
    if "(" in head:
        # a macro at file scope (module_param(...), DEFINE_...(name)) or a
        # function pointer: neither is one of ours to import
        return
    if head and IDENT.fullmatch(head[-1]):
        names.add(head[-1])


def node(fname):
    """The object a file is part of: a header stands for the .c of its
    name; a .c without a header of its own (tcp.c) for the object whose
    header declares what it defines (flow.h: the send paths)."""
    base, ext = os.path.splitext(fname)
    if ext == ".h" and os.path.exists(os.path.join(kmod, base + ".c")):
        return base + ".c"
    if ext == ".c" and fname in owner:
        return owner[fname]
    return fname


def used(f):
    """Identifiers a file uses. A header's prototypes and extern lines are
    declarations, not uses: only its inline bodies and macros count."""
    c = code[f]
    if f.endswith(".c"):
        return set(IDENT.findall(c))
    names = set()
    for m in re.finditer(r"^\s*#\s*define\b.*(\\\n.*)*$", c, re.M):
        names |= set(IDENT.findall(m.group()))
    depth = 0
    for tok in re.finditer(r"[A-Za-z_]\w*|[{}]", c):
        t = tok.group()
        if t == "{":
            depth += 1
        elif t == "}":
            depth -= 1
        elif depth > 0:
            names.add(t)
    return names


files = sorted(f for f in os.listdir(kmod)
               if f.endswith((".c", ".h")) and not f.startswith("compat-gen"))
text = {f: open(os.path.join(kmod, f)).read() for f in files}
code = {f: strip(text[f]) for f in files}
defined = {}
for f in files:
    if f.endswith(".c"):
        for name in definitions(code[f]):
            defined.setdefault(name, f)

# A .c with no header of its name belongs to the object (a .c with one)
# whose header declares its definitions, when there is one such.
owner = {}
for f in files:
    base = f[:-2]
    if not f.endswith(".c") or base + ".h" in text:
        continue
    mine = {name for name, where in defined.items() if where == f}
    hosts = {h[:-2] + ".c" for h in files
             if h.endswith(".h") and h[:-2] + ".c" in text
             and mine & set(IDENT.findall(code[h]))}
    if len(hosts) == 1:
        owner[f] = hosts.pop()

# edges[a][b]: why a imports b
edges = {}
for f in files:
    a = node(f)
    for inc in INCLUDE.findall(text[f]):
        if inc in text:
            b = node(inc)
            if a != b:
                edges.setdefault(a, {}).setdefault(b, set()).add(
                    "%s includes %s" % (f, inc))
    for name in used(f):
        b = defined.get(name)
        if b and b != a:
            edges.setdefault(a, {}).setdefault(b, set()).add(
                "%s uses %s" % (f, name))
nodes = sorted(set(edges) | {b for a in edges for b in edges[a]})


def tangles():
    """The strongly connected sets of files (Tarjan), largest first."""
    index, low, on, stack, out = {}, {}, set(), [], []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, {})):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    for v in nodes:
        if v not in index:
            visit(v)
    return sorted(out, key=lambda c: (-len(c), c))


def circle(comp):
    """A shortest simple cycle of three or more files in comp, or None: for
    each edge s -> w, the shortest way back from w to s that neither goes
    straight back nor passes s."""
    best = None
    inside = set(comp)
    for s in comp:
        for w in sorted(edges.get(s, {})):
            if w not in inside:
                continue
            prev = {w: None}
            queue = [w]
            while queue and s not in prev:
                nxt = []
                for v in queue:
                    for x in sorted(edges.get(v, {})):
                        if x not in inside or x in prev:
                            continue
                        if x == s and v == w:
                            continue
                        prev[x] = v
                        if x != s:
                            nxt.append(x)
                queue = nxt
            if s in prev:
                path, v = [], prev[s]
                while v is not None:
                    path.append(v)
                    v = prev[v]
                path = [s] + path[::-1]
                if best is None or len(path) < len(best):
                    best = path
    return best


def provides(h):
    """Names a header gives its includers: macros, struct, union and enum
    tags, enum constants, functions and extern variables."""
    c = code[h]
    names = set(re.findall(r"#\s*define\s+(\w+)", c))
    names |= set(re.findall(r"\b(?:struct|union|enum)\s+(\w+)\s*\{", c))
    for body in re.findall(r"\benum\b[^{;]*\{([^}]*)\}", c):
        names |= set(re.findall(r"^\s*(\w+)", body, re.M))
    depth = 0
    outside = []
    for ch in c:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif depth == 0:
            outside.append(ch)
    outside = "".join(outside)
    names |= set(re.findall(r"(\w+)\s*\(", outside))
    names |= set(re.findall(r"\bextern\b[^;]*?(\w+)\s*;", outside))
    guard = re.findall(r"#\s*ifndef\s+(\w+)", c)
    return names - set(guard[:1]) - {"defined", "sizeof"} - C_TYPES


C_TYPES = {"void", "int", "long", "bool", "char", "u8", "u16", "u32", "u64"}


def unused_includes():
    """Headers of the module a file includes and uses no name of (compat.h
    aside: its names are the probes' and the kernel's)."""
    found = []
    for f in files:
        used_here = set(IDENT.findall(re.sub(r"#\s*include.*", "", code[f])))
        if f.endswith(".h"):
            used_here = used(f) | set(IDENT.findall(
                re.sub(r"#\s*include.*", "", code[f])))
        for inc in INCLUDE.findall(text[f]):
            if inc not in text or inc.startswith("compat"):
                continue
            if not provides(inc) & used_here:
                found.append("%s includes %s, uses nothing of it" % (f, inc))
    return found


n = failed = 0
out = []
for comp in tangles():
    path = circle(comp) if len(comp) >= 3 else None
    if not path:
        continue
    n += 1
    failed += 1
    out.append("not ok %d circle %s" % (n, " -> ".join(path + [path[0]])))
    out.append("# %d objects import each other: %s" % (len(comp), " ".join(
        c + "".join(" +" + f for f in sorted(owner) if owner[f] == c) for c in comp)))
    for a, b in zip(path, path[1:] + path[:1]):
        why = sorted(edges[a][b])
        more = " (+%d)" % (len(why) - 3) if len(why) > 3 else ""
        out.append("# %s -> %s: %s%s" % (a, b, "; ".join(why[:3]), more))
    if verbose:
        for a in comp:
            for b in sorted(set(edges.get(a, {})) & set(comp)):
                out.append("#   %s -> %s%s: %s" % (
                    a, b, " (pair)" if a in edges.get(b, {}) else "",
                    "; ".join(sorted(edges[a][b]))))
if not n:
    n = 1
    out.append("ok 1 no_circle_over_two")
n += 1
extra = unused_includes()
if extra:
    failed += 1
    out.append("not ok %d includes_used" % n)
    out.extend("# " + e for e in extra)
else:
    out.append("ok %d includes_used" % n)
print("KTAP version 1")
print("1..%d" % n)
print("\n".join(out))
print("# kmod-deps: %d passed, %d failed" % (n - failed, failed))
sys.exit(1 if failed else 0)
