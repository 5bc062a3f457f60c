"""frame's import layering (README, "Map of the packages"): read every module's imports with `ast`
(module-level and function-level; `if TYPE_CHECKING:` blocks do not run and are skipped), and fail on
an import from a lower layer to a higher one, or on an import cycle between modules or packages.

A module belongs to the longest entry of LAYERS that names it or a package above it; importing a
submodule also runs its packages' `__init__`, which is not counted as an import of them.
"""
import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1] / "frame"

# Lowest first; a module may import its own layer and the layers below. The same list is in README.
LAYERS = [
    ("frame.errors",),
    ("frame.ir",),                          # types, the op registry (data only), graph, clone, verify, text form
    ("frame.tracing",),                     # Tracer, trace stack, bind, rule tracing
    ("frame.ops",),                         # the op families
    ("frame.compiler",),
    ("frame.backends",),
    ("frame.runtime",),
    ("frame.frontend", "frame.numpy", "frame.nn", "frame.scipy", "frame.random", "frame.lax", "frame.tree",
     "frame.tree_util", "frame.nn_initializers", "frame.optax", "frame.experimental"),
    ("frame.distributed",),                 # data-parallel evaluation on Dask; frame.train uses it when given a client
    ("frame.train", "frame.interop"),
    ("frame", "frame.demo"),                # `frame` itself: the package's __init__ only
]

# Known violations, each with the reason it is tolerated (none today).
ALLOWED: set[tuple[str, str]] = set()


def _modules() -> dict[str, pathlib.Path]:
    mods = {}
    for path in ROOT.rglob("*.py"):
        parts = ("frame",) + path.relative_to(ROOT).with_suffix("").parts
        mods[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return mods


MODULES = _modules()


def _unit(module: str) -> str | None:
    """The LAYERS entry a module belongs to (None when no entry names it)."""
    best = None
    for entry in (e for layer in LAYERS for e in layer):
        if module == entry or (entry != "frame" and module.startswith(entry + ".")):
            if best is None or len(entry) > len(best):
                best = entry
    return best


LAYER_OF = {entry: i for i, layer in enumerate(LAYERS) for entry in layer}


def _type_checking_blocks(tree) -> set[int]:
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return skipped


def _imports(module: str, path: pathlib.Path):
    """(imported frame module, line) for every import in `module`."""
    tree = ast.parse(path.read_text(), str(path))
    skipped = _type_checking_blocks(tree)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            # `from pkg import name` imports the submodule pkg.name when there is one
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        else:
            continue
        for target in targets:
            while target not in MODULES and "." in target:
                target = target.rpartition(".")[0]
            if target in MODULES and target != module:
                yield target, node.lineno


EDGES = sorted({(m, t, line) for m, p in MODULES.items() for t, line in _imports(m, p)})


def _where(module: str, line: int) -> str:
    return f"{MODULES[module].relative_to(ROOT.parent)}:{line}"


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one member (Tarjan)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v), on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_every_module_has_a_layer():
    missing = sorted(m for m in MODULES if _unit(m) is None)
    assert not missing, f"modules in no entry of LAYERS (add their package to the list and README): {missing}"


def test_no_import_goes_up_a_layer():
    bad = []
    for module, target, line in EDGES:
        lo, hi = _unit(module), _unit(target)
        if LAYER_OF[hi] > LAYER_OF[lo] and (module, target) not in ALLOWED:
            bad.append(f"{_where(module, line)}: {module} ({lo}) imports {target} ({hi}), a higher layer")
    assert not bad, "imports against the layering:\n" + "\n".join(bad)


def test_no_import_cycles_between_modules_or_packages():
    modules, units = {}, {}
    for module, target, _ in EDGES:
        if (module, target) in ALLOWED or (target, module) in ALLOWED:
            continue
        modules.setdefault(module, set()).add(target)
        if _unit(module) != _unit(target):
            units.setdefault(_unit(module), set()).add(_unit(target))
    lines = []
    for cycle in _cycles(modules):
        edges = [f"{_where(m, line)} imports {t}" for m, t, line in EDGES if m in cycle and t in cycle]
        lines.append(f"modules {' <-> '.join(cycle)}: {'; '.join(edges)}")
    for cycle in _cycles(units):
        edges = [f"{_where(m, line)} imports {t}" for m, t, line in EDGES
                 if _unit(m) != _unit(t) and _unit(m) in cycle and _unit(t) in cycle]
        lines.append(f"packages {' <-> '.join(cycle)}: {'; '.join(edges)}")
    assert not lines, "import cycles:\n" + "\n".join(lines)


def test_the_allow_list_holds_only_live_violations():
    live = {(m, t) for m, t, _ in EDGES}
    assert ALLOWED <= live, f"fixed, remove from ALLOWED: {sorted(ALLOWED - live)}"


def test_readme_states_the_same_layering():
    readme = (ROOT.parent / "README.md").read_text()
    expected = " -> ".join(" + ".join(f"`{e}`" for e in layer) for layer in LAYERS)
    assert expected in readme, f"README's package map must state the layering as:\n{expected}"
