"""Reading and writing rules configs (the only YAML reader of the package).

``load_rules(x)`` accepts a :class:`Rules` object (returned as is), a preset
name (``"standard"``, ``"pagat"``, ... RULES.md section 9) or the path of a
YAML file. A YAML file maps option names to values; the optional key
``base`` names a preset whose options the file overrides (default:
``standard``). Unknown keys are errors naming the key.

``python -m spades_env.config_io DIR`` writes every preset to ``DIR/<name>.yaml``
(how ``configs/rules/`` is made; a test keeps those files equal to the presets).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

import yaml

from .core.rules import PRESETS, Rules, RulesError, preset


def load_rules(rules: Rules | str | os.PathLike | None = "standard") -> Rules:
    """Rules from a Rules object, a preset name or a YAML file path."""
    if rules is None:
        return preset("standard")
    if isinstance(rules, Rules):
        return rules
    if not isinstance(rules, (str, os.PathLike)):
        raise RulesError(f"rules must be a preset name, a YAML path or a Rules object, got {type(rules).__name__}")
    text = os.fspath(rules)
    if text in PRESETS:
        return preset(text)
    path = Path(text)
    if not path.suffix.lower() in (".yaml", ".yml") and not path.exists():
        raise RulesError(f"unknown rules preset {text!r}; presets: {sorted(PRESETS)}, or give a .yaml path")
    if not path.is_file():
        raise RulesError(f"rules file not found: {path}")
    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        raise RulesError(f"{path}: not valid YAML: {exc}") from None
    return rules_from_mapping(data if data is not None else {}, source=str(path), default_name=path.stem)


def rules_from_mapping(data: Any, source: str = "rules", default_name: str = "custom") -> Rules:
    """Rules from a mapping of options with an optional ``base`` preset."""
    if not isinstance(data, dict):
        raise RulesError(f"{source}: expected a mapping of rules options, got {type(data).__name__}")
    data = dict(data)
    base_name = data.pop("base", "standard")
    if base_name not in PRESETS:
        raise RulesError(f"{source}: unknown base preset {base_name!r}; presets: {sorted(PRESETS)}")
    if "crazy" in data or PRESETS[base_name].get("crazy") is not None:
        merged = {k: v for k, v in PRESETS[base_name].items()}
    else:
        merged = preset(base_name).to_dict()
    merged.update(data)
    merged["name"] = data.get("name", default_name)  # a file is named after itself, not its base
    try:
        return Rules.from_dict(merged)
    except (RulesError, TypeError) as exc:
        raise RulesError(f"{source}: {exc}") from None


def dump_rules(rules: Rules) -> str:
    """YAML text of every option of a Rules object, loadable by load_rules."""
    data = rules.to_dict()
    if rules.crazy is not None:
        keep = ("name", "crazy", "num_players", "partnerships", "target_score", "lose_score", "max_hands",
                "bag_limit", "bag_penalty")
        data = {k: data[k] for k in keep}
    return yaml.safe_dump(data, sort_keys=False)


def write_presets(directory: str | os.PathLike) -> list[Path]:
    """Write every preset as ``<name>.yaml`` into a directory; return the paths."""
    out_dir = Path(directory)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in PRESETS:
        path = out_dir / f"{name}.yaml"
        header = f"# Spades rules preset '{name}' (RULES.md section 9). Every option is listed;\n" \
                 f"# see spades_env/core/rules.py for what each one means.\n"
        path.write_text(header + dump_rules(preset(name)))
        paths.append(path)
    return paths


def main() -> None:
    """Command line: write every preset into a directory."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", help="where to write <preset>.yaml files")
    args = parser.parse_args()
    for path in write_presets(args.directory):
        print(path)


if __name__ == "__main__":
    main()
