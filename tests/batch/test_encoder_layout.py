"""The batch encoder writes through the observation layout and refuses layouts its fast path cannot write."""

from __future__ import annotations

import pytest

from spades_env.batch import pieces as batch_encoding
from spades_env.obs.layout import OBSERVATION, LayoutError, ObservationLayout

HEAD_NAMES = ("phase", "to_act", "dealer", "trick_leader")


def layout_with(extra: tuple[str, int, int], after: str) -> ObservationLayout:
    """The observation layout with one more block inserted after block ``after``."""
    blocks = []
    for block in OBSERVATION.blocks.values():
        blocks.append((block.name, block.count, block.width))
        if block.name == after:
            blocks.append(extra)
    return ObservationLayout("changed", blocks)


def test_the_pieces_are_the_layout_spans():
    assert batch_encoding.HEAD == OBSERVATION.span("phase", "trick_leader")
    assert batch_encoding.MID == OBSERVATION.span("tricks_won", "bags")
    assert batch_encoding.TAIL == OBSERVATION.span("target_score", "rules")
    assert batch_encoding.CARDS == OBSERVATION.span("hand", "received")
    assert batch_encoding.BIDS == OBSERVATION["bids"]
    assert batch_encoding.HISTORY == OBSERVATION.span("led", "voids")


def test_a_block_inserted_inside_a_piece_is_refused_naming_it():
    changed = layout_with(("new_flag", 1, 1), after="to_act")
    with pytest.raises(LayoutError, match="new_flag"):
        batch_encoding.check_piece(changed, "phase", "trick_leader", HEAD_NAMES)


def test_a_card_block_of_another_width_is_refused():
    changed = layout_with(("kitty", 1, 13), after="played")
    with pytest.raises(LayoutError, match="kitty"):
        batch_encoding.check_piece(
            changed, "hand", "received", ("hand", "trick", "played", "kitty", "passed", "received"), width=54
        )


def test_a_block_outside_every_piece_is_refused():
    changed = layout_with(("new_block", 1, 3), after="bids")
    pieces = (
        changed.span("phase", "trick_leader"),
        changed["bids"],
        changed.span("tricks_won", "bags"),
        changed.span("target_score", "rules"),
        changed.span("hand", "received"),
    )
    with pytest.raises(LayoutError, match="outside"):
        batch_encoding.check_cover(changed, pieces)


def test_the_current_layout_is_accepted():
    pieces = (
        batch_encoding.HEAD,
        batch_encoding.BIDS,
        batch_encoding.MID,
        batch_encoding.TAIL,
        batch_encoding.CARDS,
        batch_encoding.HISTORY,
        batch_encoding.DRAWING,
    )
    batch_encoding.check_cover(OBSERVATION, pieces)
    assert batch_encoding.check_piece(OBSERVATION, "phase", "trick_leader", HEAD_NAMES) == batch_encoding.HEAD
