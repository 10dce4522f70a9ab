"""The house's layers: no import circles between modules, and no import from a lower layer to a higher one.

Every ``import`` of ``spades_env`` and ``training`` is read from the source (``ast``; imports only for type
checking included, since a circle of them is still a knot for a reader), resolved to the project's modules,
and checked against ``LAYERS``: a module may import its own layer and the layers before it.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
# Bottom first. A part is a subpackage or a top-level module of spades_env, or "training".
LAYERS: tuple[tuple[str, ...], ...] = (
    ("core",),
    (
        "obs",
        "encoding",
        "layout",
        "config_io",
        "cli_args",
        "rewards",
        "render",
        "render_image",
    ),  # encoding, layout: old names of obs
    ("card_scorer", "nn"),
    ("aec", "wrappers", "gym_env", "registration", "records", "batch"),
    ("agents",),
    ("evaluation", "integrations"),
    ("play", "replay", "training", "web"),
)
RANK = {part: rank for rank, parts in enumerate(LAYERS) for part in parts}


def module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def part_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] == "training":
        return "training"
    return parts[1] if len(parts) > 1 else None  # the package's own __init__ (lazy public names) has no layer


def imported(path: pathlib.Path, modules: set[str]) -> set[str]:
    """The project modules ``path`` imports (a name imported from a package counts as its submodule when it is one)."""
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            out.add(target)
            out.update(f"{target}.{alias.name}" for alias in node.names)
    # a module's own packages are imported with it anyway: not an edge
    return {t for t in out if t in modules and t != module and not module.startswith(t + ".")}


def graph() -> dict[str, set[str]]:
    files = list(ROOT.glob("spades_env/**/*.py")) + list(ROOT.glob("training/**/*.py"))
    modules = {module_name(p) for p in files}
    return {module_name(p): imported(p, modules) for p in files}


def test_every_part_has_a_layer():
    parts = {part_of(m) for m in graph()} - {None}
    assert parts <= set(RANK), f"parts without a layer in LAYERS: {sorted(parts - set(RANK))}"


def test_no_import_runs_from_a_lower_layer_to_a_higher_one():
    upward = sorted(
        f"{m} -> {t}"
        for m, targets in graph().items()
        for t in targets
        if part_of(m) and part_of(t) and RANK[part_of(t)] > RANK[part_of(m)]
    )
    assert not upward, f"imports up the layers: {upward}"


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
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
                found.append(sorted(component))

    for v in edges:
        if v not in index:
            visit(v)
    return found


def test_no_import_circles():
    assert cycles(graph()) == []


@pytest.mark.parametrize(
    "edges, expected",
    [
        ({"a": {"b"}, "b": {"a"}, "c": set()}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
    ],
)
def test_the_circle_finder_finds_circles(edges, expected):
    assert cycles(edges) == expected
