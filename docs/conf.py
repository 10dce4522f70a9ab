"""Sphinx configuration of the documentation site (built in CI with warnings as errors).

Build: ``python -m sphinx -W --keep-going -b html docs docs/_build/html`` (the ``docs`` extra).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # spades_env and training, for autodoc and the table directives
sys.path.insert(0, str(Path(__file__).parent / "_ext"))

import spades_env  # noqa: E402 - after the path

project = "spades_env"
author = "the spades_env developers"
copyright = "2026, the spades_env developers"  # noqa: A001 - Sphinx's name
release = version = spades_env.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "spades_tables",
]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "README.md"]
suppress_warnings = []

autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_mock_imports: list[str] = []

html_theme = "furo"
html_title = f"spades_env {release}"
html_logo = None
