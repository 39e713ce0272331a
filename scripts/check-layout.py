#!/usr/bin/env python3
"""DESIGN.md's layout rules that no compiler checks: within each crate the modules depend one
way (no circle between files), and no Rust source file outside tests holds more than 600
lines. Exits 1 naming what breaks them.

A module depends on another when it names it: a `use` (grouped ones too, `use crate::{a,
b::{c, d}}`), a path in code (`crate::a::f()`, `super::b::T`), a name the crate's root or a
module re-exports (`crate::Thing` is the module that defines `Thing`), and an inherent `impl`
of a type defined elsewhere: the type's own module then reaches that impl's methods through
every value of the type, so it depends on the module of the impl as well (unless that module
is its own child, the usual way to split a type). A child may use its parent's items. The
circles found on main when the check learned this are on record in `scripts/layout-circles.txt`;
a new circle, or one that grew, fails, and so does a listed one that is gone (the list only
shrinks). `--show` prints every module's edges."""
import json
import os
import re
import subprocess
import sys

MAX_LINES = 600
ROOTS = ["src-tauri/src"] + [
    os.path.join("src-tauri/crates", c, "src") for c in sorted(os.listdir("src-tauri/crates"))
]
IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
ROOT = ""  # the crate root module (lib.rs / main.rs)
KNOWN = "scripts/layout-circles.txt"


def sources(root):
    for dirpath, _, files in os.walk(root):
        for f in files:
            if f.endswith(".rs") and not f.endswith("_tests.rs"):
                yield os.path.join(dirpath, f)


def module_name(root, path):
    rel = os.path.relpath(path, root)[:-3]
    if rel in ("lib", "main"):
        return ROOT
    return rel.removesuffix("/mod").replace("/", "::")


def code_of(text):
    """The file's code before its tests, without comments, strings or character literals."""
    text = text.split("#[cfg(test)]")[0]
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif (m := re.match(r'b?r(#*)"', text[i:])) and (i == 0 or not re.match(r"\w", text[i - 1])):
            end = text.find('"' + m.group(1), i + len(m.group(0)))
            i = n if end < 0 else end + 1 + len(m.group(1))
            out.append('""')
        elif c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            out.append('""')
        elif c == "'" and (m := re.match(r"'(\\.[^']*|[^\\'])'", text[i:])):
            i += len(m.group(0))
            out.append("' '")
        else:
            out.append(c)
            i += 1
    return "".join(out)


def use_trees(code):
    """Every `use` declaration: (is_pub, the paths it brings in with the name each binds)."""
    found = []
    for m in re.finditer(r"(?:\b(pub(?:\([^)]*\))?)\s+)?\buse\s+([^;]+);", code):
        tree = re.sub(r"\s*(::|\{|\}|,)\s*", r"\1", re.sub(r"\s+", " ", m.group(2).strip()))
        found.append((m.group(1) is not None, expand(tree)))
    return found


def expand(tree, prefix=()):
    """`a::{b, c::{d as e}, self}` as [(segments, bound name)]."""
    brace = tree.find("{")
    if brace < 0:
        body, _, alias = tree.partition(" as ")
        segs = [s for s in body.split("::") if s]
        bound = segs[-1] if segs else ""
        if bound == "self":
            segs = segs[:-1]
            bound = segs[-1] if segs else (prefix[-1] if prefix else "")
        full = list(prefix) + segs
        return [(full, alias or (bound if segs else (full[-1] if full else "")))]
    head = [s for s in tree[:brace].split("::") if s]
    inner = tree[brace + 1 : tree.rfind("}")]
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(inner):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(inner[start:i])
            start = i + 1
    parts.append(inner[start:])
    paths = []
    for part in parts:
        if part:
            paths.extend(expand(part, tuple(prefix) + tuple(head)))
    return paths


def absolute(segs, module):
    """`segs` as written in `module`, from the crate root; None for another crate's path."""
    here = module.split("::") if module else []
    if not segs:
        return None
    if segs[0] == "crate":
        return segs[1:]
    if segs[0] in ("super", "self"):
        base = list(here)
        while segs and segs[0] in ("super", "self"):
            if segs[0] == "super":
                base = base[:-1]
            segs = segs[1:]
        return base + segs
    return None


class Crate:
    def __init__(self, root):
        self.codes = {}
        for path in sources(root):
            self.codes[module_name(root, path)] = code_of(open(path, encoding="utf-8").read())
        self.modules = set(self.codes)
        self.defined = {
            m: set(re.findall(rf"\b(?:fn|struct|enum|trait|type|union|const|static)\s+({IDENT})", c))
            for m, c in self.codes.items()
        }
        self.uses = {m: use_trees(c) for m, c in self.codes.items()}
        # name -> where it leads, for each module's `pub use` (and its private imports, which
        # a child reaches through `super::Name`).
        self.reexports, self.imports, self.globs = {}, {}, {}
        for m, trees in self.uses.items():
            self.reexports[m], self.imports[m], self.globs[m] = {}, {}, []
            for is_pub, paths in trees:
                for segs, name in paths:
                    full = absolute(segs, m)
                    if full is None and segs and segs[0] in self.child_names(m):
                        full = (m.split("::") if m else []) + segs
                    if full is None:
                        continue
                    if name == "*":
                        self.globs[m].append(full[:-1])
                        continue
                    self.imports[m][name] = full
                    if is_pub:
                        self.reexports[m][name] = full

    def child_names(self, module):
        prefix = module + "::" if module else ""
        return {x[len(prefix) :] for x in self.modules if x.startswith(prefix) and "::" not in x[len(prefix) :]}

    def resolve(self, segs, seen=0):
        """The module an absolute path leads to (following re-exports), or None."""
        if seen > 16:
            return None
        best, k = ROOT, 0
        for i in range(len(segs), 0, -1):
            if "::".join(segs[:i]) in self.modules:
                best, k = "::".join(segs[:i]), i
                break
        if k < len(segs):
            name, rest = segs[k], segs[k + 1 :]
            if name in self.defined.get(best, ()):
                return best
            target = self.imports.get(best, {}).get(name)
            if target is not None:
                return self.resolve(target + rest, seen + 1)
            for glob in self.globs.get(best, []):
                hit = self.resolve(glob + [name], seen + 1)
                if hit is not None and hit != best:
                    return hit
        return best

    def graph(self):
        graph = {m: set() for m in self.modules if m != ROOT}
        for m in graph:
            code = self.codes[m]
            targets = []
            for _, paths in self.uses[m]:
                for segs, _ in paths:
                    full = absolute(segs, m)
                    if full is None and segs and segs[0] in self.child_names(m):
                        full = m.split("::") + segs
                    if full is not None:
                        targets.append(full)
            for p in re.findall(rf"\b((?:crate|super|self)(?:::{IDENT})+)", code):
                full = absolute(p.split("::"), m)
                if full is not None:
                    targets.append(full)
            for full in targets:
                graph[m].add(self.resolve(full))
            for d in self.impl_homes(m):
                if d in graph and not m.startswith(d + "::"):
                    graph[d].add(m)
        for m, out in graph.items():
            # A child reads its parent's items (`super::Shared`): the parent is its context.
            out.difference_update({a for a in out if a and m.startswith(a + "::")})
            out.discard(m)
            out.discard(ROOT)
            out.discard(None)
        return graph

    def impl_homes(self, m):
        """The modules that define the types `m` gives inherent impls to."""
        homes = set()
        header = rf"\bimpl\s*(?:<[^{{;]*?>)?\s*((?:{IDENT}::)*{IDENT})\s*(?:<[^{{;]*?>)?\s*(for\b|where\b|\{{)"
        for name, follows in re.findall(header, self.codes[m]):
            if follows == "for":
                continue
            segs = name.split("::")
            full = absolute(segs, m)
            if full is None:
                if len(segs) == 1 and segs[0] in self.defined[m]:
                    continue
                full = self.imports[m].get(segs[0])
                if full is None:
                    continue
                full = full + segs[1:]
            home = self.resolve(full)
            if home not in (None, m):
                homes.add(home)
        return homes


def circles(graph):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in graph:
                continue
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
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(10_000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def known_circles():
    """The circles on record (KNOWN), each as (root, set of modules): issue 51 removes them;
    the list may only shrink."""
    known = []
    for line in open(KNOWN, encoding="utf-8"):
        line = line.split("#")[0].strip()
        if line:
            root, _, mods = line.partition(": ")
            known.append((root, {m.strip() for m in mods.split(",")}))
    return known


def design_graph():
    """DESIGN.md's table of each crate's Paddock dependencies: {crate: set of crates}."""
    text = open("DESIGN.md", encoding="utf-8").read()
    start = text.index("Dependencies point one way.")
    block = text[text.index("```", start) + 3 :]
    block = block[: block.index("```")]
    graph, last = {}, None
    for line in block.strip("\n").split("\n"):
        if line.startswith(" ") and last:
            graph[last] |= {d.strip() for d in line.split(",") if d.strip()}
            continue
        name, _, deps = line.partition(" ")
        last = name
        graph[name] = {d.strip() for d in deps.split(",") if d.strip() not in ("", "-")}
    return graph


def cargo_graph():
    """`cargo metadata`'s normal dependencies between the workspace's crates, short names,
    test-only packages (under tests/) left out."""
    out = subprocess.run(
        ["cargo", "metadata", "--no-deps", "--format-version", "1", "--offline"],
        check=True, capture_output=True, text=True,
    ).stdout
    packages = [p for p in json.loads(out)["packages"] if "/tests/" not in p["manifest_path"]]
    names = {p["name"] for p in packages}
    short = lambda n: n.removeprefix("paddock-")
    return {
        short(p["name"]): {
            short(d["name"]) for d in p["dependencies"] if d["name"] in names and d.get("kind") is None
        }
        for p in packages
    }


def main():
    show = "--show" in sys.argv
    problems = []
    design, cargo = design_graph(), cargo_graph()
    described = set(re.findall(r"^src-tauri/crates/\S+\s+paddock-([a-z-]+):", open("DESIGN.md").read(), re.M))
    for name in sorted(set(cargo) - described - {"desktop"}):
        problems.append(f"DESIGN.md's layout gives no sentence for the crate paddock-{name}")
    if design != cargo:
        for name in sorted(set(design) | set(cargo)):
            if design.get(name) != cargo.get(name):
                problems.append(
                    f"DESIGN.md's dependency table says {name} <- {sorted(design.get(name, []))}, "
                    f"cargo metadata {sorted(cargo.get(name, []))}"
                )
    known = known_circles()
    still = set()
    for root in ROOTS:
        if not os.path.isdir(root):
            continue
        graph = Crate(root).graph()
        if show:
            for m in sorted(graph):
                print(f"{root} {m} -> {', '.join(sorted(graph[m]))}")
        for comp in circles(graph):
            on_record = [i for i, (r, mods) in enumerate(known) if r == root and set(comp) <= mods]
            if on_record:
                still.update(on_record)
                continue
            problems.append(f"{root}: modules depend on each other in a circle: {', '.join(comp)}")
        for path in sources(root):
            lines = sum(1 for _ in open(path, encoding="utf-8"))
            if lines > MAX_LINES:
                problems.append(f"{path}: {lines} lines (at most {MAX_LINES} outside tests)")
    for i, (root, mods) in enumerate(known):
        if i not in still:
            problems.append(f"{KNOWN}: the circle {root}: {', '.join(sorted(mods))} is gone; take it off")
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        sys.exit(1)
    print(
        f"layout: DESIGN.md's crate table is cargo's; {len(ROOTS)} crates, no new module circle ({len(known)} on record in {KNOWN}), "
        f"no source over {MAX_LINES} lines"
    )


if __name__ == "__main__":
    main()
