"""Reading and writing rules configs (the only YAML reader of the package).

``load_rules(x)`` accepts a :class:`Rules` object (returned as is), a preset
name (``"standard"``, ``"pagat"``, ... RULES.md section 10) or the path of a
YAML file. A YAML file maps option names to values; the optional key
``base`` names a preset whose options the file overrides (default:
``standard``). Unknown keys are errors naming the key.

A rules file is small, plain data, so the reader is strict (each error a
:class:`RulesError` naming the file and the problem, of bounded length):

* at most :data:`MAX_CONFIG_BYTES` bytes of UTF-8 text;
* no aliases (``*name``) or merge keys (``<<``): a rules file never needs them,
  and nested aliases expand exponentially (the "billion laughs");
* at most :data:`MAX_NESTING` levels of nesting;
* no duplicate keys (YAML's default is to keep the last one silently);
* option names are strings and ``base`` is a preset name.

``python -m spades_env.config_io DIR`` writes every preset to ``DIR/<name>.yaml``
(how ``configs/rules/`` is made; a test keeps those files equal to the presets).
"""

from __future__ import annotations

import argparse
import io
import os
from pathlib import Path
from typing import Any

import yaml

from .core.rules import PRESETS, Rules, RulesError, preset, quoted

MAX_CONFIG_BYTES = 64 * 1024  # a complete rules file is about 1 KiB; anything far larger is not a rules file
MAX_YAML_ERROR_CHARS = 400  # the parser's message quotes lines of the file: keep a few of them
MAX_NESTING = 10  # a rules file is a mapping of scalars and one list (crazy): depth 2; refuse far deeper ones
MERGE_TAG = "tag:yaml.org,2002:merge"


INT_TAG = "tag:yaml.org,2002:int"


class IntegerCheckingLoader(yaml.SafeLoader):
    """SafeLoader whose integer too long to read (Python reads at most ``sys.get_int_max_str_digits()`` digits) is a
    YAML error naming the key it is the value of and its line, not a bare ValueError naming neither."""

    def construct_document(self, node):  # noqa: D102 - PyYAML hook
        _check_integers(self, node, (), set())
        return super().construct_document(node)


def _check_integers(loader: yaml.SafeLoader, node: yaml.Node, where: tuple, seen: set[int]) -> None:
    """Raise ConstructorError at the first integer scalar under ``node`` that cannot be read, naming its key path."""
    if id(node) in seen:  # an alias: its node was checked where it was first written (and aliases can fan out)
        return
    seen.add(id(node))
    if isinstance(node, yaml.ScalarNode):
        if node.tag == INT_TAG:
            try:
                loader.construct_yaml_int(node)
            except ValueError:
                at = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in where).lstrip(".")
                raise yaml.constructor.ConstructorError(
                    None,
                    None,
                    f"{quoted(at) if at else 'the document'}: an integer of {len(node.value)} characters, "
                    "too long to read",
                    node.start_mark,
                ) from None
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _check_integers(loader, item, (*where, index), seen)
    elif isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            _check_integers(loader, key_node, where, seen)
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else "?"
            _check_integers(loader, value_node, (*where, key), seen)


class _StrictLoader(IntegerCheckingLoader):
    """SafeLoader refusing aliases, merge keys, duplicate and unhashable keys (and integers too long to read)."""

    def compose_node(self, parent, index):  # noqa: D102 - PyYAML hook
        if self.check_event(yaml.AliasEvent):
            event = self.get_event()
            raise yaml.composer.ComposerError(
                None, None, f"alias *{quoted(event.anchor)} refused: rules files may not use aliases", event.start_mark
            )
        depth = getattr(self, "_depth", 0)
        if depth >= MAX_NESTING:
            raise yaml.composer.ComposerError(
                None, None, f"nested deeper than {MAX_NESTING} levels: not a rules file", self.peek_event().start_mark
            )
        self._depth = depth + 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth = depth

    def construct_mapping(self, node, deep=False):  # noqa: D102 - PyYAML hook
        if isinstance(node, yaml.MappingNode):
            seen: dict[Any, yaml.Node] = {}
            for key_node, _ in node.value:
                if key_node.tag == MERGE_TAG:
                    raise yaml.constructor.ConstructorError(
                        None, None, "merge key '<<' refused: rules files may not use merge keys", key_node.start_mark
                    )
                key = self.construct_object(key_node, deep=True)
                try:
                    first = seen.setdefault(key, key_node)
                except TypeError:
                    raise yaml.constructor.ConstructorError(
                        None,
                        None,
                        f"a key must be a plain value, got {quoted(key)} ({type(key).__name__})",
                        key_node.start_mark,
                    ) from None
                if first is not key_node:
                    raise yaml.constructor.ConstructorError(
                        f"duplicate key {quoted(key)}: first at line {first.start_mark.line + 1}",
                        first.start_mark,
                        "found again",
                        key_node.start_mark,
                    )
        return super().construct_mapping(node, deep=deep)


def one_line(text: str, limit: int) -> str:
    """A message on one line (a YAML error's lines and caret, a loader's paragraphs joined), cut to ``limit``
    characters, marked when cut: what the command-line tools print as the reason of an error."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + f"... ({len(text) - limit} more characters)"


def read_limited(path: str | os.PathLike, limit: int, what: str) -> bytes:
    """The bytes of a file, ValueError naming it when it holds more than ``limit``: read up to the limit, since a
    file's reported size cannot be trusted (``/dev/zero`` reports 0 and never ends)."""
    with open(path, "rb") as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"{path}: more than {limit} bytes, too large for {what}")
    return data


def _read_yaml(path: Path) -> Any:
    """The data of a rules file, read strictly; RulesError naming the file otherwise."""
    try:
        raw = read_limited(path, MAX_CONFIG_BYTES, "a rules file")
    except ValueError as exc:
        raise RulesError(str(exc)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RulesError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    try:
        stream = io.StringIO(text)
        stream.name = path.name  # PyYAML's marks name the stream ("in 'x.yaml', line 2")
        return yaml.load(stream, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        raise RulesError(
            f"{path}: not valid YAML for a rules file: {one_line(str(exc), MAX_YAML_ERROR_CHARS)}"
        ) from None
    except RecursionError:
        raise RulesError(f"{path}: not valid YAML for a rules file: nested too deeply") from None


def load_rules(rules: Rules | str | os.PathLike | None = "standard") -> Rules:
    """Rules from a Rules object, a preset name or a YAML file path."""
    if rules is None:
        return preset("standard")
    if isinstance(rules, Rules):
        return rules
    if not isinstance(rules, (str, os.PathLike)):
        raise RulesError(
            f"rules must be a preset name, a YAML path or a Rules object, got {quoted(rules)} ({type(rules).__name__})"
        )
    text = os.fspath(rules)
    if text in PRESETS:
        return preset(text)
    path = Path(text)
    if path.suffix.lower() not in (".yaml", ".yml") and not path.exists():
        raise RulesError(f"unknown rules preset {quoted(text)}; presets: {sorted(PRESETS)}, or give a .yaml path")
    if not path.is_file():
        raise RulesError(f"rules file not found: {quoted(str(path))}")
    data = _read_yaml(path)
    return rules_from_mapping(data if data is not None else {}, source=str(path), default_name=path.stem)


def rules_from_mapping(data: Any, source: str = "rules", default_name: str = "custom") -> Rules:
    """Rules from a mapping of options with an optional ``base`` preset."""
    if not isinstance(data, dict):
        raise RulesError(f"{source}: expected a mapping of rules options, got {type(data).__name__}")
    not_named = [key for key in data if not isinstance(key, str)]
    if not_named:
        shown = ", ".join(f"{quoted(k)} ({type(k).__name__})" for k in not_named[:3])
        raise RulesError(f"{source}: option names must be strings, got key(s) {shown}")
    data = dict(data)
    base_name = data.pop("base", "standard")
    if not isinstance(base_name, str):
        raise RulesError(
            f"{source}: 'base' must be a preset name (a string), got {quoted(base_name)} "
            f"({type(base_name).__name__}); presets: {sorted(PRESETS)}"
        )
    if base_name not in PRESETS:
        raise RulesError(f"{source}: 'base': unknown preset {quoted(base_name)}; presets: {sorted(PRESETS)}")
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
        keep = (
            "name",
            "crazy",
            "num_players",
            "partnerships",
            "target_score",
            "lose_score",
            "max_hands",
            "bag_limit",
            "bag_penalty",
        )
        data = {k: data[k] for k in keep}
    return yaml.safe_dump(data, sort_keys=False)


def write_presets(directory: str | os.PathLike) -> list[Path]:
    """Write every preset as ``<name>.yaml`` into a directory; return the paths."""
    out_dir = Path(directory)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in PRESETS:
        path = out_dir / f"{name}.yaml"
        header = (
            f"# Spades rules preset '{name}' (RULES.md section 10). Every option is listed;\n"
            f"# see spades_env/core/rules.py for what each one means.\n"
        )
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
