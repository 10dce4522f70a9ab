"""A seat's own cards stay face down to it until it has looked, in spades-play's table and in the pictures,
as in its observation: under blind rules, while the seat before it bids, and at its blind decision; a replay
(``after_the_fact``) shows them from the deal."""

from __future__ import annotations

import io

import numpy as np
import pytest

from spades_env.core import SEE_CARDS, HandState, Phase, deal_cards, preset
from spades_env.core.cards import NUM_STANDARD_CARDS, format_card
from spades_env.core.visibility import visible_hands
from spades_env.play import Console, table_text
from spades_env.render_image import CARD_BACK, CARD_H, CARD_STEP, CARD_W, IMAGE_HEIGHT, IMAGE_WIDTH, PLACES

VIEWER = 2  # dealer 0: seat 1 bids first, then the viewer


def blind_table() -> HandState:
    """Standard rules, the viewer's side 200 behind (blind nil open to it), seat 1 to bid: the viewer has not
    looked yet."""
    rules = preset("standard")
    hand = HandState(rules, deal_cards(rules, np.random.default_rng(3), 0), 0, scores=(0, 200))
    assert hand.phase == Phase.BID and hand.current == 1 and not hand.looked[VIEWER]
    return hand


def at_the_viewers_blind_decision() -> HandState:
    hand = blind_table()
    hand.apply(hand.legal_actions()[-1])  # seat 1 bids
    assert hand.phase == Phase.BLIND and hand.current == VIEWER
    return hand


def after_looking() -> HandState:
    hand = at_the_viewers_blind_decision()
    hand.apply(SEE_CARDS)
    assert hand.phase == Phase.BID and hand.looked[VIEWER]
    return hand


def text(hand: HandState) -> str:
    console = Console(io.StringIO(), io.StringIO(), symbols=False)
    return table_text(console, hand, [0, 200], [0, 0], hand.rules, VIEWER, [f"seat {s}" for s in range(4)])


def own_card_names(hand: HandState) -> list[str]:
    return [format_card(c) for c in range(NUM_STANDARD_CARDS) if hand.hands[VIEWER] >> c & 1]


def your_hand_line(hand: HandState) -> str:
    return next(line for line in text(hand).splitlines() if "your hand:" in line)


def test_play_table_hides_the_hand_while_another_seat_bids():
    hand = blind_table()
    line = your_hand_line(hand)
    assert "face down: not looked at yet" in line
    assert not any(name in line for name in own_card_names(hand))
    assert visible_hands(hand, VIEWER)[VIEWER] == 0  # as the observation


def test_play_table_hides_the_hand_at_the_blind_decision_and_shows_it_once_looked():
    assert "face down: decide blind first" in your_hand_line(at_the_viewers_blind_decision())
    hand = after_looking()
    line = your_hand_line(hand)
    assert "face down" not in line
    assert all(name in line for name in own_card_names(hand))


def backs_in_the_viewers_hand(picture: np.ndarray) -> int:
    """Pixels of card-back colour where the viewer's hand is drawn (the bottom place)."""
    fx, fy = PLACES[4][0]
    cx, cy = fx * IMAGE_WIDTH, fy * IMAGE_HEIGHT
    half = (CARD_W + CARD_STEP * 12) / 2
    region = picture[int(cy - CARD_H / 2) : int(cy + CARD_H / 2) + 1, int(cx - half) : int(cx + half) + 1]
    return int((region == np.array(CARD_BACK, np.uint8)).all(axis=-1).sum())


def picture(hand: HandState, viewer: int | None = VIEWER, after_the_fact: bool = False) -> np.ndarray:
    pytest.importorskip("PIL")
    from spades_env.render_image import table_image

    return table_image(hand, [0, 200], [0, 0], hand.rules, viewer=viewer, after_the_fact=after_the_fact)


@pytest.mark.parametrize("state", [blind_table, at_the_viewers_blind_decision])
def test_the_picture_shows_backs_to_a_seat_that_has_not_looked(state):
    hand = state()
    assert backs_in_the_viewers_hand(picture(hand)) > 100
    assert backs_in_the_viewers_hand(picture(hand, after_the_fact=True)) == 0  # a replay shows them
    assert backs_in_the_viewers_hand(picture(hand, viewer=None)) == 0  # a spectator sees every hand


def test_the_picture_shows_the_hand_once_looked():
    assert backs_in_the_viewers_hand(picture(after_looking())) == 0
