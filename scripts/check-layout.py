#!/usr/bin/env python3
"""DESIGN.md's layout rules that no compiler checks: within each crate the modules import one
way (no circle of `use crate::…`/`use super::…` between files), and no Rust source file
outside tests holds more than 600 lines. Exits 1 naming what breaks them."""
import os
import re
import sys

MAX_LINES = 600
ROOTS = ["src-tauri/src"] + [
    os.path.join("src-tauri/crates", c, "src") for c in sorted(os.listdir("src-tauri/crates"))
]


def sources(root):
    for dirpath, _, files in os.walk(root):
        for f in files:
            if f.endswith(".rs") and not f.endswith("_tests.rs"):
                yield os.path.join(dirpath, f)


def module_graph(root):
    deps = {}
    for path in sources(root):
        rel = os.path.relpath(path, root)[:-3]
        name = rel.removesuffix("/mod").replace("/", "::")
        if name in ("lib", "main"):
            continue
        text = open(path, encoding="utf-8").read().split("#[cfg(test)]")[0]
        parent = "::".join(name.split("::")[:-1])
        found = set(re.findall(r"crate::([a-z_]+(?:::[a-z_]+)*)", text))
        found |= {(parent + "::" if parent else "") + m for m in re.findall(r"super::([a-z_]+)", text)}
        deps[name] = found
    graph = {}
    for name, found in deps.items():
        out = set()
        for d in found:
            parts = d.split("::")
            for k in range(len(parts), 0, -1):
                candidate = "::".join(parts[:k])
                if candidate in deps:
                    out.add(candidate)
                    break
        out.discard(name)
        graph[name] = out
    return graph


def circles(graph):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
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
    for v in graph:
        if v not in index:
            visit(v)
    return found


def main():
    problems = []
    for root in ROOTS:
        if not os.path.isdir(root):
            continue
        for comp in circles(module_graph(root)):
            problems.append(f"{root}: modules import each other in a circle: {', '.join(comp)}")
        for path in sources(root):
            lines = sum(1 for _ in open(path, encoding="utf-8"))
            if lines > MAX_LINES:
                problems.append(f"{path}: {lines} lines (at most {MAX_LINES} outside tests)")
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        sys.exit(1)
    print(f"layout: {len(ROOTS)} crates, no module circles, no source over {MAX_LINES} lines")


if __name__ == "__main__":
    main()
