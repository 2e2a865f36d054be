"""No import cycles inside bench/: every import of a bench module by another, at module
level or inside a function (a deferred import still ties the two modules together), forms
a graph that must be acyclic."""
import ast
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, "bench")


def bench_modules(pkg_dir=BENCH) -> dict:
    """{module name: path} of the package's modules (``__init__`` and ``__main__`` included)."""
    return {f[:-3]: os.path.join(pkg_dir, f) for f in sorted(os.listdir(pkg_dir)) if f.endswith(".py")}


def imports_of(source: str, modules, pkg: str = "bench") -> set:
    """The package's modules that ``source`` imports, wherever the import statement is."""
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 or (node.level == 0 and node.module and node.module.split(".")[0] == pkg):
                parts = (node.module or "").split(".")
                if node.level == 0:
                    parts = parts[1:]
                if parts and parts[0]:
                    out.add(parts[0])                   # from .x import y / from bench.x import y
                else:
                    out |= {a.name for a in node.names}   # from . import x, y
        elif isinstance(node, ast.Import):
            for a in node.names:
                parts = a.name.split(".")
                if parts[0] == pkg and len(parts) > 1:
                    out.add(parts[1])                   # import bench.x
    return {m for m in out if m in modules}


def import_graph(pkg_dir=BENCH) -> dict:
    mods = bench_modules(pkg_dir)
    graph = {}
    for name, path in mods.items():
        with open(path) as f:
            graph[name] = imports_of(f.read(), mods) - {name}
    return graph


def find_cycle(graph: dict):
    """One cycle as a list of modules [a, b, ..., a], or None."""
    state = {}          # 1: on the DFS stack, 2: done
    stack = []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                c = visit(m)
                if c:
                    return c
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state:
            c = visit(n)
            if c:
                return c
    return None


def test_the_import_parser_sees_every_form():
    mods = {"a", "b", "c", "d", "e"}
    src = ("from . import a, b\nfrom .c import x\nimport os\n"
           "def f():\n    from bench.d import y\n    import bench.e\n    from .. import zz\n")
    assert imports_of(src, mods) == {"a", "b", "c", "d", "e"}


def test_the_cycle_finder_finds_a_deferred_cycle():
    assert find_cycle({"run": {"dds"}, "dds": {"harness"}, "harness": set()}) is None
    assert find_cycle({"run": {"dds"}, "dds": {"run"}}) == ["dds", "run", "dds"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]


def test_bench_has_no_import_cycle():
    graph = import_graph()
    assert {"run", "driver", "dds", "harness", "jobs"} <= set(graph), sorted(graph)
    # The modules that used to import each other (dds <-> driver, dds <-> run) still use
    # the shared helpers, now from modules that import neither.
    assert "jobs" in graph["dds"] and "jobs" in graph["driver"], graph
    assert "harness" in graph["dds"] and "harness" in graph["run"], graph
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle in bench/: " + " -> ".join(cycle)
