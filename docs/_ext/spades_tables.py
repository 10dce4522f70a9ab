"""Sphinx directives that write the docs' reference tables from the code, so they cannot drift.

Each directive builds a docutils table from a live object of the package:

* ``spades-observation-table`` (argument ``observation``, ``state`` or ``position``): every block of the
  layout object with its offset and size, and its content from the one table in the docstring of
  :mod:`spades_env.obs` (the state's extra blocks from their own lines there);
* ``spades-action-table``: the one action space, in runs of actions of one kind;
* ``spades-rules-options``: every field of :class:`spades_env.Rules` with its default and meaning
  (the option table of :mod:`spades_env.core.rules`);
* ``spades-presets-table``: every preset of ``PRESETS`` with the options it changes from ``standard``;
* ``spades-config-table``: every field of :class:`training.config.TrainConfig` with its default,
  its range and its help.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Sequence

from docutils import nodes
from docutils.parsers.rst import Directive

# Words for the runs of the action space (by the first action's name).
ACTION_KINDS = (
    ("card", "play a card (or pass one in a blind-nil exchange): suit x 13 + rank, suits C D H S, ranks 2..A"),
    ("joker", "play a joker"),
    ("bid", "bid n tricks; bid 0 is nil (17 tricks in three-player cutthroat)"),
    ("blind nil", "nil before looking at the cards"),
    ("see cards", "look at the cards (declines every blind option)"),
    ("10 for 200", "the partnership bids 10 for 200"),
    ("blind", "Barmore blind bid n for the partnership"),
    ("keep", "two players: keep the card on offer (the next card is discarded)"),
    ("discard", "two players: discard the card on offer and keep the next one"),
)


def _cell(text: str, literal: bool = False) -> nodes.entry:
    entry = nodes.entry()
    paragraph = nodes.paragraph()
    if literal:
        paragraph += nodes.literal(text=text)
    else:  # ``code`` spans of the docstring tables become literals, the rest plain text
        for i, part in enumerate(re.split(r"``(.+?)``", text)):
            if part:
                paragraph += nodes.literal(text=part) if i % 2 else nodes.Text(part)
    entry += paragraph
    return entry


def _table(header: Sequence[str], rows: Iterable[Sequence[tuple[str, bool]]], widths: Sequence[int]) -> nodes.table:
    table = nodes.table()
    group = nodes.tgroup(cols=len(header))
    table += group
    for width in widths:
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    row = nodes.row()
    for title in header:
        row += _cell(title)
    head += row
    group += head
    body = nodes.tbody()
    for cells in rows:
        row = nodes.row()
        for text, literal in cells:
            row += _cell(text, literal)
        body += row
    group += body
    return table


def _docstring_table(doc: str, first_column: str) -> dict[str, str]:
    """The rows of the first simple RST table in ``doc`` whose header starts with ``first_column``: name -> text."""
    lines = doc.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith(first_column + " "))
    border = lines[start - 1]
    columns = [m.start() for m in re.finditer(r"=+", border)]
    rows: dict[str, str] = {}
    name = None
    for line in lines[start + 2 :]:
        if line.strip().startswith("="):
            break
        key = line[: columns[1]].strip()
        text = line[columns[-1] :].strip()
        if key:
            name = key
            rows[name] = text
        elif name is not None:
            rows[name] += " " + text
    return rows


class ObservationTable(Directive):
    """The blocks of a layout object: name, offset, size, content."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        import spades_env.obs as obs
        from spades_env.obs import layout

        which = self.arguments[0]
        objects = {"observation": layout.OBSERVATION, "state": layout.STATE, "position": layout.POSITION}
        if which not in objects:
            raise self.error(f"spades-observation-table: unknown layout {which!r}; choose from {sorted(objects)}")
        chosen = objects[which]
        contents = _docstring_table(obs.__doc__, "name")
        contents.update(
            {
                "hands": "per slot: its current cards (every hand in view)",
                "set_aside": "the card set aside in three-player cutthroat",
                "stock": "two players: each card left in the stock, its place from the top + 1, over 52",
            }
        )
        rows = []
        for block in chosen.blocks.values():
            size = str(block.width) if block.count == 1 else f"{block.count} x {block.width}"
            rows.append(
                [(block.name, True), (str(block.start), False), (size, False), (contents.get(block.name, ""), False)]
            )
            if not contents.get(block.name):
                raise self.error(f"spades-observation-table: block {block.name!r} has no content line")
        caption = nodes.paragraph(text=f"Layout {chosen.name}: {chosen.size} floats.")
        return [caption, _table(("block", "offset", "size", "content"), rows, (16, 8, 8, 60))]


class ActionTable(Directive):
    """The action space in runs of one kind: first..last, names, meaning."""

    def run(self) -> list[nodes.Node]:
        from spades_env.core import actions

        def kind(name: str) -> str:
            if name in ("LJ", "BJ"):
                return "joker"
            if name == "nil" or name.startswith("bid "):
                return "bid"
            if name.startswith("blind ") and name != "blind nil":
                return "blind"
            if len(name) == 2:
                return "card"
            return name

        meaning = dict(ACTION_KINDS)
        runs: list[list[int]] = []
        for action, name in enumerate(actions.ACTION_NAMES):
            if runs and kind(actions.ACTION_NAMES[runs[-1][0]]) == kind(name):
                runs[-1].append(action)
            else:
                runs.append([action])
        rows = []
        for run in runs:
            first, last = run[0], run[-1]
            names = (
                actions.ACTION_NAMES[first]
                if first == last
                else f"{actions.ACTION_NAMES[first]} .. {actions.ACTION_NAMES[last]}"
            )
            ids = str(first) if first == last else f"{first}..{last}"
            what = kind(actions.ACTION_NAMES[first])
            if what not in meaning:
                raise self.error(f"spades-action-table: no meaning written for actions {ids} ({names})")
            rows.append([(ids, False), (names, True), (meaning[what], False)])
        caption = nodes.paragraph(text=f"{actions.NUM_ACTIONS} actions in every variant.")
        return [caption, _table(("actions", "names", "meaning"), rows, (10, 22, 60))]


class RulesOptions(Directive):
    """Every rules option: name, default, meaning."""

    def run(self) -> list[nodes.Node]:
        from spades_env.core import rules

        meanings = _docstring_table(rules.__doc__, "field")
        rows = []
        for option in dataclasses.fields(rules.Rules):
            if option.name not in meanings:
                raise self.error(f"spades-rules-options: option {option.name!r} is not in the docstring table")
            rows.append([(option.name, True), (repr(option.default), True), (meanings[option.name], False)])
        return [_table(("option", "default", "meaning [rules section]"), rows, (26, 12, 60))]


class PresetsTable(Directive):
    """Every preset with the options it changes from the defaults."""

    def run(self) -> list[nodes.Node]:
        from spades_env.core import rules

        rows = []
        for name, changes in rules.PRESETS.items():
            rules.preset(name)  # every listed preset builds
            text = ", ".join(f"{key}={value!r}" for key, value in changes.items()) or "(the defaults)"
            rows.append([(name, True), (text, True)])
        return [_table(("preset", "options changed from the defaults"), rows, (14, 80))]


class ConfigTable(Directive):
    """Every training config field: name, default, range, help."""

    def run(self) -> list[nodes.Node]:
        from training import config

        rows = []
        for item in dataclasses.fields(config.TrainConfig):
            default = item.default if item.default is not dataclasses.MISSING else item.default_factory()
            low_high = config.RANGES.get(item.name)
            if low_high is None:
                bounds = ""
            else:
                low, high, low_included = low_high
                bounds = f"{'[' if low_included else '('}{low:g}, {high:g}]"
            rows.append([(item.name, True), (repr(default), True), (bounds, False), (item.metadata["help"], False)])
        return [_table(("field", "default", "range", "meaning"), rows, (22, 12, 10, 60))]


def setup(app):  # noqa: ANN001, ANN201 - Sphinx's extension hook
    """Register the directives."""
    app.add_directive("spades-observation-table", ObservationTable)
    app.add_directive("spades-action-table", ActionTable)
    app.add_directive("spades-rules-options", RulesOptions)
    app.add_directive("spades-presets-table", PresetsTable)
    app.add_directive("spades-config-table", ConfigTable)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
