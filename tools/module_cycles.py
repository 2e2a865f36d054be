"""Import cycles between the modules of each Rust crate: ``python3 -m tools.module_cycles [rust]``.

A crate's modules are its files (``lib.rs``/``main.rs`` the root, ``a.rs`` or ``a/mod.rs`` the
module ``a``, ``a/b.rs`` the module ``a::b``; modules compiled for tests only are left out). A file depends on every module its paths name
(``crate::…``, ``super::…``, ``self::…``, in ``use`` declarations and in code; comments and
``#[cfg(test)]`` modules are left out), truncated to the longest prefix that is a module. An edge
between a module and its own ancestor or descendant is containment, not a dependency (a child's
``impl`` of its parent's type, a parent's ``mod`` and re-export); any other edge counts between
the two children of the modules' lowest common ancestor that hold them, so ``cluster.rs`` using
``eirene::plan`` and ``eirene/plan.rs`` using ``cluster`` is the cycle ``cluster -> eirene ->
cluster``. Cycles are the strongly connected components of more than one module.

Exits 1 naming every cycle and one path of each edge's evidence, 0 when there is none.
"""
import os
import re
import sys

PATH = re.compile(r"\b((?:crate|self|super)(?:::(?:super|[A-Za-z_][A-Za-z0-9_]*))+)")
USE_GROUP = re.compile(r"\buse\s+((?:crate|self|super)(?:::(?:super|[A-Za-z_][A-Za-z0-9_]*))*)::\{([^;]*)\};", re.S)
TEST_MOD = re.compile(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{")
TEST_FILE_MOD = re.compile(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;")


def module_of(src, path):
    """The module path (tuple) of the file ``path`` under the crate's ``src`` folder."""
    rel = os.path.relpath(path, src)[:-3].split(os.sep)
    if rel[-1] in ("lib", "main", "mod") and (len(rel) == 1 or rel[-1] == "mod"):
        rel = rel[:-1]
    return tuple(rel)


def strip(text):
    """The code of a file without comments and without its #[cfg(test)] modules."""
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    m = TEST_MOD.search(text)
    if m:
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        text = text[:m.start()] + text[i:]
    return text


def resolve(module, path):
    """The absolute segments ``path`` (``crate::a::b``, ``super::c``) names from ``module``."""
    parts = path.split("::")
    if parts[0] == "crate":
        return tuple(parts[1:])
    # A file module's `self` is itself; `super` is its parent (mod.rs and a.rs alike).
    base = list(module)
    if parts[0] == "self":
        parts = parts[1:]
    while parts and parts[0] == "super":
        if not base:
            return None
        base.pop()
        parts = parts[1:]
    return tuple(base + parts)


def references(text):
    """The paths a file names, expanded over `use a::{b, c::d}` groups."""
    out = []
    for m in USE_GROUP.finditer(text):
        for item in re.split(r"[,\s]+", re.sub(r"\{[^}]*\}", "", m.group(2))):
            item = item.strip()
            if item and item not in ("self", "*"):
                out.append(f"{m.group(1)}::{item.split(' as ')[0]}")
    out += PATH.findall(text)
    return out


def crate_graph(src):
    """{module: {other module: evidence}} of the crate under ``src``."""
    files = {}
    for dirpath, _, names in os.walk(src):
        for n in names:
            if n.endswith(".rs"):
                p = os.path.join(dirpath, n)
                files[module_of(src, p)] = p
    # Modules compiled for tests only (`#[cfg(test)] mod tests;` in their parent) are left out.
    tests_only = set()
    for mod, path in files.items():
        with open(path, encoding="utf-8") as f:
            tests_only.update(mod + (n,) for n in TEST_FILE_MOD.findall(f.read()))
    files = {m: p for m, p in files.items() if not any(m[:len(t)] == t for t in tests_only)}
    modules = set(files)
    graph = {m: {} for m in modules}
    for mod, path in files.items():
        with open(path, encoding="utf-8") as f:
            text = strip(f.read())
        for ref in references(text):
            target = resolve(mod, ref)
            if target is None:
                continue
            while target and target not in modules:
                target = target[:-1]
            k = 0
            while k < min(len(mod), len(target)) and mod[k] == target[k]:
                k += 1
            if k == len(mod) or k == len(target):
                continue  # ancestor or descendant: containment
            a, b = mod[:k + 1], target[:k + 1]
            graph.setdefault(a, {}).setdefault(b, f"{os.path.relpath(path, src)}: {ref}")
    return graph


def cycles(graph):
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, {}):
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
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def name(module):
    return "::".join(module) or "crate"


def check(root):
    """Lines naming each cycle of each crate under ``root`` (a Cargo workspace folder)."""
    lines = []
    for crate in sorted(os.listdir(root)):
        src = os.path.join(root, crate, "src")
        if not os.path.isdir(src):
            continue
        graph = crate_graph(src)
        for comp in cycles(graph):
            lines.append(f"{crate}: cycle between {', '.join(name(m) for m in comp)}")
            members = set(comp)
            for a in comp:
                for b, why in sorted(graph[a].items()):
                    if b in members:
                        lines.append(f"  {name(a)} -> {name(b)} ({why})")
    return lines


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    root = argv[0] if argv else os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "rust")
    if not os.path.isdir(root):
        print(f"module_cycles: no such folder: {root}", file=sys.stderr)
        return 2
    lines = check(root)
    for line in lines:
        print(line)
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())
