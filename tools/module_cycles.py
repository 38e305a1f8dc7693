#!/usr/bin/env python3
"""Finds circles among the modules of each crate of the workspace.

A module may use its parent's items and its own children's: that is what
nesting means. What must not happen is two modules side by side, each
using the other, however many steps apart: then neither can be read, or
moved, without the other. So every path a file names (`crate::a::b`,
`super::c`, and in a crate's root file its children by name) is taken to
the modules it reaches, and each reference from inside one child of a
module to inside another child of the same module is an arrow between
those two children. A circle among the children of any module is
reported, with one file and line for each of its arrows.

Usage: tools/module_cycles.py [--self-test] [CRATE_SRC ...]
(default: every crate; --self-test first checks that a made-up crate's
circle is found, and that its broken version passes). Exit 0 when there
is no circle, 1 when there is one, 2 on wrong usage.
"""

import os
import re
import sys

CRATES = ["core/src", "src", "linkage/src", "server/src"]
ROOTS = ["lib.rs", "main.rs"]


def strip(text):
    """The text with comments, strings and char literals blanked (newlines
    kept, so that line numbers hold)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 40]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'r(#*)"', text[i:])
            end = '"' + m.group(1)
            j = text.find(end, i + len(m.group(0)))
            j = n if j < 0 else j + len(end)
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j + 1
        elif c == "'":
            m = re.match(r"'(\\.|\\u\{[0-9a-fA-F]+\}|[^\\'])'", text[i:])
            if m:
                out.append("' '")
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def modules_of(root):
    """Module path (a tuple) -> file, for every file module of the crate
    whose root file is `root`."""
    found = {}
    walk(root, (), found)
    return found


def walk(path, module, found):
    found[module] = path
    text = strip(open(path, encoding="utf-8").read())
    if module == () or os.path.basename(path) == "mod.rs":
        folder = os.path.dirname(path)
    else:
        folder = os.path.splitext(path)[0]
    for m in re.finditer(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(r#)?(\w+)\s*;", text, re.M):
        name = m.group(2)
        for candidate in (os.path.join(folder, name + ".rs"), os.path.join(folder, name, "mod.rs")):
            if os.path.exists(candidate):
                walk(candidate, module + (name,), found)
                break


def past_block(text, j):
    """The offset just past the `}` that closes the block whose `{` ends
    just before `j`."""
    depth = 1
    while j < len(text) and depth:
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
        j += 1
    return j


def inline_blocks(text):
    """The inline `mod x { ... }` blocks of a file, as (start, end, name)."""
    return [
        (m.start(), past_block(text, m.end()), m.group(1))
        for m in re.finditer(r"\bmod\s+(\w+)\s*\{", text)
    ]


PATH = re.compile(r"(?<![\w:])((?:crate|super|self)(?:\s*::\s*(?:\w+|\{))+)")


def references(text, module, modules):
    """(line, target module path) for each path in `text` (module
    `module`'s file) that reaches another module of the crate."""
    blocks = inline_blocks(text)
    refs = []
    for m in PATH.finditer(text):
        start = m.start()
        here = list(module) + [name for (s, e, name) in blocks if s < start < e]
        for path in expand(text, m):
            target = resolve(path, here, modules)
            if target is not None:
                refs.append((text.count("\n", 0, start) + 1, target))
    # A root file names its children without `crate::`.
    if module == ():
        for child in {k[0] for k in modules if len(k) == 1}:
            for m in re.finditer(r"(?<![\w:])" + re.escape(child) + r"\s*::", text):
                refs.append((text.count("\n", 0, m.start()) + 1, (child,)))
    return refs


def expand(text, m):
    """The paths a match names: `crate::a::{b, c::d}` gives a::b and a::c::d
    (one level of braces is enough for what `use` lists here)."""
    head = re.sub(r"\s+", "", m.group(1))
    if not head.endswith("{"):
        return [head.split("::")]
    inner = text[m.end():past_block(text, m.end()) - 1]
    prefix = head[:-1].rstrip(":").split("::")
    paths = []
    for part in split_top(inner):
        part = re.sub(r"\s+", "", part)
        if not part:
            continue
        if "{" in part:
            sub_head, sub_inner = part.split("{", 1)
            for sub in split_top(sub_inner.rstrip("}")):
                sub = sub.strip()
                if sub:
                    paths.append(prefix + sub_head.rstrip(":").split("::") + sub.split("::"))
        else:
            paths.append(prefix + part.split("::"))
    return paths


def split_top(inner):
    parts, depth, cur = [], 0, ""
    for c in inner:
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        if c == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += c
    parts.append(cur)
    return parts


def resolve(path, here, modules):
    """The deepest module of the crate that `path` (a list of names, from
    `crate`, `super` or `self`) falls in."""
    if path[0] == "crate":
        base, rest = [], path[1:]
    else:
        base, rest = list(here), path
        while rest and rest[0] in ("super", "self"):
            if rest[0] == "super":
                if not base:
                    return None
                base.pop()
            rest = rest[1:]
    target = tuple(base)
    for name in rest:
        name = name.removeprefix("r#")
        if target + (name,) in modules:
            target = target + (name,)
        else:
            break
    # An inline module is no file: its file's module stands for it.
    while target not in modules and target:
        target = target[:-1]
    return target


def circles(edges):
    """Each circle among the nodes of `edges` ({a: {b: where}}), once."""
    found, seen = [], set()
    index, low, stack, on = {}, {}, [], set()
    counter = [0]

    def connect(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            connect(v)
    return found


def check(src, root):
    modules = modules_of(root)
    edges = {}
    for module, path in modules.items():
        text = strip(open(path, encoding="utf-8").read())
        for line, target in references(text, module, modules):
            common = 0
            while common < min(len(module), len(target)) and module[common] == target[common]:
                common += 1
            if common == len(module) or common == len(target):
                continue  # a parent's item, or a child's
            parent = module[:common]
            a, b = module[common], target[common]
            edges.setdefault(parent, {}).setdefault(a, {}).setdefault(b, f"{path}:{line}")
    problems = []
    for parent, among in sorted(edges.items()):
        for group in circles(among):
            name = "::".join(("crate",) + parent)
            arrows = [
                f"    {a} -> {b}  ({among[a][b]})"
                for a in group
                for b in group
                if b in among.get(a, {})
            ]
            problems.append(f"{root}: a circle among {name}'s modules {', '.join(group)}:\n" + "\n".join(arrows))
    return len(modules), problems


def self_test():
    """A crate where `a` uses `b::c` through a grouped `use` and `b::c`
    uses `a` through `super::super`: a circle; and the same crate with
    `b::c`'s use in a comment and a string: none."""
    import tempfile
    with tempfile.TemporaryDirectory() as src:
        os.makedirs(os.path.join(src, "b"))
        files = {
            "lib.rs": "pub mod a;\npub mod b;\n",
            "a.rs": "use crate::{b::{c::Thing}};\n",
            "b/mod.rs": "pub mod c;\n",
            "b/c.rs": "pub struct Thing;\nfn f() { super::super::a::g(); }\nmod tests { fn t() { let _ = '{'; } }\n",
        }
        for name, text in files.items():
            with open(os.path.join(src, name), "w", encoding="utf-8") as f:
                f.write(text)
        root = os.path.join(src, "lib.rs")
        _, problems = check(src, root)
        assert len(problems) == 1 and "a, b" in problems[0], problems
        with open(os.path.join(src, "b/c.rs"), "w", encoding="utf-8") as f:
            f.write('pub struct Thing;\n// super::super::a::g();\nconst S: &str = "crate::a";\n')
        _, problems = check(src, root)
        assert not problems, problems
    print("module_cycles: self-test passed")


def main(argv):
    if "--self-test" in argv:
        self_test()
        argv = [a for a in argv if a != "--self-test"]
    if any(a.startswith("-") for a in argv):
        print("usage: tools/module_cycles.py [--self-test] [CRATE_SRC ...]", file=sys.stderr)
        return 2
    crates = argv or CRATES
    bad = 0
    for src in crates:
        if not os.path.isdir(src):
            print(f"module_cycles: no folder {src}", file=sys.stderr)
            return 2
        for root in (os.path.join(src, r) for r in ROOTS):
            if not os.path.exists(root):
                continue
            count, problems = check(src, root)
            for p in problems:
                print(p)
            bad += len(problems)
            if not problems:
                print(f"module_cycles: {root}: {count} modules, no circle")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
