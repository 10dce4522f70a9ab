"""The rules core imports only the standard library and numpy."""

import ast
import json
import pathlib
import subprocess
import sys

import spades_env.core

CORE_DIR = pathlib.Path(spades_env.core.__file__).parent
CORE_MODULES = sorted(p.stem for p in CORE_DIR.glob("*.py") if p.stem != "__init__")
FORBIDDEN = ("gymnasium", "pettingzoo", "torch", "yaml", "scipy", "matplotlib", "tqdm", "pandas")


def _imports(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield 0, alias.name
        elif isinstance(node, ast.ImportFrom):
            yield node.level, node.module or ""


def test_core_has_the_expected_modules():
    assert {"cards", "rules", "actions", "deal", "hand", "scoring", "game"} <= set(CORE_MODULES)


def test_every_core_import_is_stdlib_numpy_or_relative():
    bad = []
    for path in sorted(CORE_DIR.glob("*.py")):
        for level, module in _imports(path):
            top = module.split(".")[0]
            if level > 0:
                continue  # relative: inside the core
            if top in sys.stdlib_module_names or top == "numpy":
                continue
            bad.append(f"{path.name}: {module}")
    assert not bad, f"non-stdlib imports in spades_env/core: {bad}"


def test_relative_imports_stay_inside_the_core():
    for path in sorted(CORE_DIR.glob("*.py")):
        for level, module in _imports(path):
            assert level <= 1, f"{path.name} imports from outside the core: {'.' * level}{module}"


def _loaded_after(statement: str) -> set[str]:
    """Top-level modules loaded by ``statement`` in a fresh interpreter."""
    code = f"import sys, json; {statement}; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout))


def test_importing_the_core_loads_no_heavy_dependency():
    """``import spades_env.core`` (which runs ``spades_env/__init__``) loads no RL library, no yaml."""
    modules = ", ".join(f"spades_env.core.{m}" for m in CORE_MODULES)
    loaded = _loaded_after(f"import spades_env.core, {modules}")
    heavy = sorted({m.split(".")[0] for m in loaded} & set(FORBIDDEN))
    assert not heavy, f"importing spades_env.core loaded {heavy}"
    assert "numpy" in loaded
    outside = sorted(
        m
        for m in loaded
        if m.startswith("spades_env.") and not m.startswith("spades_env.core") and m != "spades_env.registration"
    )
    assert not outside, f"the core imported other parts of the package: {outside}"
