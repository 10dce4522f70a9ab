"""The observation layout: one object that names every block of the flat arrays.

Every writer (the AEC encoder, the batch encoder) and every reader (the decoder,
the agents, the networks and the policy files) goes through ``OBSERVATION`` and
``STATE``; no other module spells an offset. Adding a field is one edit here
plus its writers; a policy file records the layout it was trained on
(``describe()``). Loading one made for another layout raises ``LayoutError``
naming both, unless that layout is a *block-subset* of this one (every block of
it is here with the same name and size, as ``spades_obs_v0`` and
``spades_obs_v1`` are of ``spades_obs_v2``): then ``projection()`` gives the columns of this layout that
make up the older one, and the policy reads those.

``OBSERVATION`` (``spades_obs_v2``, 1207 floats) is specified block by block in
:mod:`spades_env.obs` (the one table; a test checks it against this object); per-slot
blocks are ``NUM_SLOTS`` items, slot ``k`` being the player ``k`` seats to the
observer's left. The blocks down to ``received`` are those of ``spades_obs_v0`` (755
floats), in the same order and with the same meaning; v1 (``OBSERVATION_V1``, 879
floats) appended the trick history and the public voids, and v2 appends the blocks
of two-player Spades (the drawing phase), so every older block keeps its offset.

``STATE`` (``spades_state_v2``, 1531 floats) is ``OBSERVATION`` followed by
``hands`` (4 x 54), ``set_aside`` (54) and ``stock`` (54).

``POSITION`` (``spades_position_v2``, 1191 floats) is ``STATE`` without the
history of play (``HISTORY_BLOCKS``: ``played``, ``led``, ``played_trick``,
``voids``), the same blocks otherwise, in order: every hand, the trick on the
table, the bids, the tricks won and the scores. With every hand in view the
game from here on does not depend on how it got here, so a full-information
critic needs no history; ``POSITION_COLUMNS`` are its columns of ``STATE``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.cards import NUM_CARDS, NUM_SUITS
from ..core.hand import Phase
from .features import DRAW_RULE_FEATURES, NUM_BID_KINDS, RULE_FEATURES  # noqa: F401 - re-exported (rules blocks)

NUM_SLOTS = 4
NUM_PHASES = int(Phase.DRAW)  # the phase one-hot, BLIND..OVER; DRAW (two players) has its own block, "drawing"
MAX_BID_ONE_HOT = 18
BID_FEATURES = NUM_BID_KINDS + MAX_BID_ONE_HOT


class LayoutError(ValueError):
    """An array or a policy file does not match the layout it is read with."""


@dataclass(frozen=True)
class Block:
    """One named block: ``count`` items of ``width`` floats from ``start``."""

    name: str
    start: int
    count: int
    width: int

    @property
    def size(self) -> int:
        """Floats in the block."""
        return self.count * self.width

    @property
    def stop(self) -> int:
        """One past the block's last float."""
        return self.start + self.size

    @property
    def slice(self) -> slice:
        """The block's floats."""
        return slice(self.start, self.stop)

    def item(self, index: int) -> slice:
        """The floats of item ``index`` (a slot, for per-slot blocks)."""
        if not 0 <= index < self.count:
            raise LayoutError(f"block {self.name!r} has {self.count} items, not item {index}")
        begin = self.start + index * self.width
        return slice(begin, begin + self.width)


class ObservationLayout(Mapping[str, slice]):
    """Named, contiguous blocks of a flat float32 array; a mapping from block name to slice."""

    def __init__(self, name: str, blocks: Sequence[tuple[str, int, int]]):
        self.name = name
        table: dict[str, Block] = {}
        offset = 0
        for block_name, count, width in blocks:
            if block_name in table:
                raise LayoutError(f"layout {name!r} names block {block_name!r} twice")
            if count < 1 or width < 1:
                raise LayoutError(f"layout {name!r}: block {block_name!r} must have positive count and width")
            table[block_name] = Block(block_name, offset, count, width)
            offset += count * width
        self.blocks: Mapping[str, Block] = table
        self.size = offset

    def __getitem__(self, name: str) -> slice:
        return self.block(name).slice

    def __iter__(self) -> Iterator[str]:
        return iter(self.blocks)

    def __len__(self) -> int:
        return len(self.blocks)

    def __repr__(self) -> str:
        return f"ObservationLayout({self.name!r}, size={self.size}, blocks={list(self.blocks)})"

    def block(self, name: str) -> Block:
        """The block called ``name``; a ``LayoutError`` names the unknown block."""
        try:
            return self.blocks[name]
        except KeyError:
            raise LayoutError(f"layout {self.name!r} has no block {name!r}; it has {list(self.blocks)}") from None

    def start(self, name: str) -> int:
        """Offset of the first float of block ``name``."""
        return self.block(name).start

    def span(self, first: str, last: str) -> slice:
        """The floats from block ``first`` through block ``last`` (contiguous by construction)."""
        begin, end = self.block(first), self.block(last)
        if end.stop <= begin.start:
            raise LayoutError(f"layout {self.name!r}: block {last!r} does not follow {first!r}")
        return slice(begin.start, end.stop)

    def extended(self, name: str, blocks: Sequence[tuple[str, int, int]]) -> ObservationLayout:
        """This layout followed by more blocks, under a new name (for example the critic's state)."""
        mine = [(b.name, b.count, b.width) for b in self.blocks.values()]
        return ObservationLayout(name, [*mine, *blocks])

    def describe(self) -> dict[str, Any]:
        """A JSON-able description, stored in policy files and compared at load time."""
        return {
            "name": self.name,
            "size": self.size,
            "blocks": [[b.name, b.count, b.width] for b in self.blocks.values()],
        }

    def fingerprint(self) -> str:
        """A short hash of ``describe()``."""
        text = json.dumps(self.describe(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def require(self, description: Any, source: str) -> None:
        """Raise ``LayoutError`` naming both layouts unless ``description`` describes this one."""
        if description != self.describe():
            theirs = description.get("name", "?") if isinstance(description, dict) else repr(description)
            size = description.get("size", "?") if isinstance(description, dict) else "?"
            raise LayoutError(
                f"{source} was made for observation layout {theirs!r} ({size} floats); "
                f"this version reads layout {self.name!r} ({self.size} floats)"
            )

    def projection(self, description: Any, source: str) -> np.ndarray:
        """The columns of this layout that make up the layout ``description`` (in its order), when that
        layout is a block-subset of this one (each of its blocks is here, same name, count and width);
        ``LayoutError`` naming both layouts and the first block that differs otherwise."""
        if description == self.describe():
            return np.arange(self.size, dtype=np.intp)
        theirs = description.get("name", "?") if isinstance(description, dict) else repr(description)
        blocks = description.get("blocks") if isinstance(description, dict) else None
        problem = None
        columns: list[np.ndarray] = []
        if not isinstance(blocks, list) or not blocks:
            problem = "it lists no blocks"
        else:
            for entry in blocks:
                if not (isinstance(entry, (list, tuple)) and len(entry) == 3):
                    problem = f"block entry {entry!r} is not [name, count, width]"
                    break
                name, count, width = entry
                mine = self.blocks.get(name) if isinstance(name, str) else None
                if mine is None or (mine.count, mine.width) != (count, width):
                    problem = (
                        f"its block {name!r} ({count} x {width}) is not in this layout"
                        if mine is None
                        else f"its block {name!r} is {count} x {width}, here {mine.count} x {mine.width}"
                    )
                    break
                columns.append(np.arange(mine.start, mine.stop, dtype=np.intp))
        if problem is None and sum(len(c) for c in columns) != description.get("size"):
            problem = f"its blocks do not add up to its size {description.get('size')!r}"
        if problem is not None:
            size = description.get("size", "?") if isinstance(description, dict) else "?"
            raise LayoutError(
                f"{source} was made for observation layout {theirs!r} ({size} floats); this version reads layout "
                f"{self.name!r} ({self.size} floats), of which {theirs!r} is not a part: {problem}"
            )
        return np.concatenate(columns)

    def check_array(self, array: Any, what: str = "observation") -> None:
        """Raise ``LayoutError`` unless the last axis of ``array`` has this layout's size."""
        shape = getattr(array, "shape", None)
        if not shape or shape[-1] != self.size:
            raise LayoutError(f"{what} of shape {shape} does not fit layout {self.name!r} ({self.size} floats)")


OBSERVATION_V1 = ObservationLayout(
    "spades_obs_v1",
    (
        ("phase", 1, NUM_PHASES),
        ("to_act", 1, NUM_SLOTS),
        ("dealer", 1, NUM_SLOTS),
        ("trick_leader", 1, NUM_SLOTS),
        ("bids", NUM_SLOTS, BID_FEATURES),
        ("tricks_won", 1, NUM_SLOTS),
        ("spades_broken", 1, 1),
        ("scores", 1, NUM_SLOTS),
        ("bags", 1, NUM_SLOTS),
        ("target_score", 1, 1),
        ("rules", 1, len(RULE_FEATURES)),
        ("hand", 1, NUM_CARDS),
        ("trick", NUM_SLOTS, NUM_CARDS),
        ("played", NUM_SLOTS, NUM_CARDS),
        ("passed", 1, NUM_CARDS),
        ("received", 1, NUM_CARDS),
        ("led", 1, NUM_CARDS),
        ("played_trick", 1, NUM_CARDS),
        ("voids", NUM_SLOTS, NUM_SUITS),
    ),
)

# Version 2 (spades_v3) appends the drawing phase of two players; every block of v1 keeps its offset.
OBSERVATION = OBSERVATION_V1.extended(
    "spades_obs_v2",
    (
        ("drawing", 1, 1),
        ("drawing_rules", 1, len(DRAW_RULE_FEATURES)),
        ("stock_size", 1, 1),
        ("offered", 1, NUM_CARDS),
        ("kept", 1, NUM_CARDS),
        ("discarded", NUM_SLOTS, NUM_CARDS),
    ),
)

# The first version of the layout: a block-subset (the first 755 floats) of OBSERVATION. Policies trained on
# it are read through ``OBSERVATION.projection(OBSERVATION_V0.describe(), ...)``.
OBSERVATION_V0 = ObservationLayout(
    "spades_obs_v0",
    [(b.name, b.count, b.width) for b in OBSERVATION.blocks.values() if b.start < OBSERVATION.start("led")],
)

STATE = OBSERVATION.extended(
    "spades_state_v2",
    (
        ("hands", NUM_SLOTS, NUM_CARDS),
        ("set_aside", 1, NUM_CARDS),
        ("stock", 1, NUM_CARDS),
    ),
)

HISTORY_BLOCKS = ("played", "led", "played_trick", "voids")  # the play so far: what POSITION leaves out of STATE
POSITION = ObservationLayout(
    "spades_position_v2", [(b.name, b.count, b.width) for b in STATE.blocks.values() if b.name not in HISTORY_BLOCKS]
)
POSITION_COLUMNS = STATE.projection(POSITION.describe(), "the position layout")  # its columns of STATE, in order

# The card blocks of v0 are contiguous, so encoders can write them in one go (``led`` and ``played_trick``,
# the history, are written on their own).
CARD_BLOCKS = OBSERVATION.span("hand", "received")
NUM_CARD_BLOCKS = (CARD_BLOCKS.stop - CARD_BLOCKS.start) // NUM_CARDS
