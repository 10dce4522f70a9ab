"""The reference encoder: one seat's observation (and the full state) of a hand, from its ``HandState``.

:func:`encode_observation` writes every block of ``layout.OBSERVATION`` (see
:mod:`spades_env.obs`); :func:`encode_state` the full-information ``STATE``.
The incremental :class:`~spades_env.obs.tracker.ObservationTracker` and the
batch engine write the same arrays; tests compare them decision by decision.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..core.cards import (
    CARD_SUIT,
    NUM_CARDS,
    NUM_SUITS,
    SPADE_MASK,
    cards_of,
)
from ..core.drawing import STOCK_SIZE, discards_seen, draw_rules, stock_left
from ..core.hand import HandState, Phase
from ..core.ops import INT
from ..core.rules import Rules
from ..core.tricks import play_situation, voids_shown
from ..core.visibility import cards_seen
from .features import SCORE_SCALE_TARGET, bag_scale, bid_offset, cached_rule_features, draw_rule_features
from .layout import (
    BID_FEATURES,
    NUM_PHASES,
    OBSERVATION,
    STATE,
)

# Name -> slice views of the layouts (kept for readers that index by name).
OBS_SLICES: dict[str, slice] = dict(OBSERVATION)
OBS_SIZE = OBSERVATION.size
STATE_SLICES: dict[str, slice] = dict(STATE)
STATE_SIZE = STATE.size

# Offsets used by encoders (from the layout object; no offset is spelled here).
PHASE_AT = OBSERVATION.start("phase")
TO_ACT_AT = OBSERVATION.start("to_act")
DEALER_AT = OBSERVATION.start("dealer")
LEADER_AT = OBSERVATION.start("trick_leader")
BIDS_AT = OBSERVATION.start("bids")
TRICKS_AT = OBSERVATION.start("tricks_won")
BROKEN_AT = OBSERVATION.start("spades_broken")
SCORES_AT = OBSERVATION.start("scores")
BAGS_AT = OBSERVATION.start("bags")
TARGET_AT = OBSERVATION.start("target_score")
RULES_AT = OBSERVATION["rules"]
HAND_AT = OBSERVATION.start("hand")
TRICK_AT = OBSERVATION.start("trick")
PLAYED_AT = OBSERVATION.start("played")
PASSED_AT = OBSERVATION.start("passed")
RECEIVED_AT = OBSERVATION.start("received")
LED_AT = OBSERVATION.start("led")
PLAYED_TRICK_AT = OBSERVATION.start("played_trick")
VOIDS_AT = OBSERVATION.start("voids")
DRAWING_AT = OBSERVATION.start("drawing")
DRAW_RULES_AT = OBSERVATION["drawing_rules"]
STOCK_SIZE_AT = OBSERVATION.start("stock_size")
OFFERED_AT = OBSERVATION.start("offered")
KEPT_AT = OBSERVATION.start("kept")
DISCARDED_AT = OBSERVATION.start("discarded")
# The cell set to 1 for each phase: the phase one-hot, and the drawing block for DRAW (spades_obs_v2).
PHASE_CELLS = tuple(PHASE_AT + phase if phase < NUM_PHASES else DRAWING_AT for phase in range(len(Phase)))


def write_drawing(obs: np.ndarray, hand: HandState, observer: int) -> list[int]:
    """Write the two-player blocks of ``observer`` (stock size, offered card, kept cards, discards seen) and
    return the cells to set to 1 (nothing for a dealt hand)."""
    if not hand.stock:
        return []
    n = hand.num_players
    obs[STOCK_SIZE_AT] = stock_left(hand.draw_turn) / STOCK_SIZE
    ones = [KEPT_AT + card for card in cards_of(hand.kept(observer))]
    if hand.current == observer and hand.offered is not None:
        ones.append(OFFERED_AT + hand.offered)
    d = draw_rules(hand.rules)
    for seat in range(n):
        base = DISCARDED_AT + ((seat - observer) % n) * NUM_CARDS
        ones += [base + card for card in cards_of(discards_seen(INT, d, observer, seat, hand.discards[seat]))]
    return ones


def known_plays(hand: HandState) -> dict[int, tuple[int, int, int]]:
    """Card -> (trick from 0, place in the trick from 0, seat) for every card played this hand whose trick
    the state knows: its history's plays, its last trick and the trick on the table."""
    n = hand.num_players
    history = hand.history
    count = min(sum(m.bit_count() for m in hand.played), len(history))  # the plays are the history's last
    first = hand.trick_index * n + len(hand.trick_cards) - count  # index in the hand of the first of them
    known = {card: divmod(first + j, n) + (seat,) for j, (seat, card) in enumerate(history[len(history) - count :])}
    if hand.last_trick is not None:
        _, seats, cards, _ = hand.last_trick
        known.update((card, (hand.trick_index - 1, i, seat)) for i, (seat, card) in enumerate(zip(seats, cards)))
    known.update(
        (card, (hand.trick_index, i, seat)) for i, (seat, card) in enumerate(zip(hand.trick_seats, hand.trick_cards))
    )
    return known


def public_voids(hand: HandState, known: Mapping[int, tuple[int, int, int]] | None = None) -> list[int]:
    """Suit bitmask per seat of the voids the cards played show the table (``core.tricks``), from
    :func:`known_plays` (a trick whose lead is not known shows nothing)."""
    known = known_plays(hand) if known is None else known
    gone = 0
    for m in hand.played:
        gone |= m
    lead_of: dict[int, int] = {}
    first_spade = hand.rules.num_tricks  # trick of the first spade played, as far as known
    for card, (trick, place, _) in known.items():
        gone &= ~(1 << card)
        if place == 0:
            lead_of[trick] = card
        if (SPADE_MASK >> card) & 1:
            first_spade = min(first_spade, trick)
    broken_earlier = bool(gone & SPADE_MASK)  # a spade among the cards of tricks the state no longer knows
    voids = [0] * hand.num_players
    for card, (trick, place, seat) in known.items():
        lead = lead_of.get(trick)
        if lead is not None:
            situation = play_situation(hand.rules, trick == 0, place == 0, broken_earlier or first_spade < trick)
            voids[seat] |= voids_shown(situation, CARD_SUIT[lead], card)
    return voids


def write_side_counts(
    obs: np.ndarray, rules: Rules, scores: Sequence[int], bags: Sequence[int], game_rules: Rules, observer: int
) -> None:
    """Write the ``scores`` and ``bags`` blocks of ``observer`` (each slot its side's, scaled) into ``obs``."""
    n = rules.num_players
    side_of = rules.side_of
    target = float(game_rules.target_score)
    scale = bag_scale(game_rules)
    for seat in range(n):
        slot = (seat - observer) % n
        obs[SCORES_AT + slot] = scores[side_of(seat)] / target
        obs[BAGS_AT + slot] = bags[side_of(seat)] / scale


def encode_observation(
    hand: HandState,
    scores: Sequence[int],
    bags: Sequence[int],
    game_rules: Rules,
    observer: int,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """The observation of ``observer`` (reference encoder; see the module docstring)."""
    obs = np.zeros(OBS_SIZE, np.float32) if out is None else out
    if out is not None:
        obs[:] = 0.0
    rules = hand.rules
    n = hand.num_players
    ones = [PHASE_CELLS[hand.phase], DEALER_AT + (hand.dealer - observer) % n]  # cells set to 1
    if hand.current >= 0:
        ones.append(TO_ACT_AT + (hand.current - observer) % n)
    if hand.trick_cards:
        ones.append(LEADER_AT + (hand.leader - observer) % n)
    target = float(game_rules.target_score)
    size = float(rules.hand_size)
    for seat in range(n):
        slot = (seat - observer) % n
        base = BIDS_AT + slot * BID_FEATURES
        kind, value = hand.bid_kinds[seat], hand.bid_values[seat]
        ones.append(base + int(kind))
        off = bid_offset(kind, value)
        if off is not None:
            ones.append(base + off)
        obs[TRICKS_AT + slot] = hand.tricks_won[seat] / size
        played = PLAYED_AT + slot * NUM_CARDS
        ones += [played + card for card in cards_of(hand.played[seat])]
    write_side_counts(obs, rules, scores, bags, game_rules, observer)
    obs[BROKEN_AT] = float(hand.spades_broken)
    obs[TARGET_AT] = target / SCORE_SCALE_TARGET
    obs[RULES_AT] = cached_rule_features(rules)
    obs[DRAW_RULES_AT] = draw_rule_features(rules)
    ones += write_drawing(obs, hand, observer)
    ones += [HAND_AT + card for card in cards_of(cards_seen(INT, hand.hands[observer], hand.looked[observer], True))]
    ones += [
        TRICK_AT + ((seat - observer) % n) * NUM_CARDS + card for seat, card in zip(hand.trick_seats, hand.trick_cards)
    ]
    ones += [PASSED_AT + card for card in cards_of(hand.passed[observer])]
    ones += [RECEIVED_AT + card for card in cards_of(hand.received[observer])]
    known = known_plays(hand)
    for card, (trick, place, _) in known.items():
        obs[PLAYED_TRICK_AT + card] = (trick + 1) / size
        if place == 0:
            ones.append(LED_AT + card)
    for seat, mask in enumerate(public_voids(hand, known)):
        base = VOIDS_AT + ((seat - observer) % n) * NUM_SUITS
        ones += [base + suit for suit in range(NUM_SUITS) if mask >> suit & 1]
    obs[ones] = 1.0
    return obs


def encode_state(
    hand: HandState,
    scores: Sequence[int],
    bags: Sequence[int],
    game_rules: Rules,
    observer: int,
) -> np.ndarray:
    """Full-information state relative to ``observer``: its observation, its hand shown, every hand, every
    discard and the stock (each card of it: its place from the top + 1, over the stock's size)."""
    state = np.zeros(STATE_SIZE, np.float32)
    encode_observation(hand, scores, bags, game_rules, observer, out=state[:OBS_SIZE])
    n = hand.num_players
    state[STATE["hand"]] = 0.0
    state[HAND_AT + np.array(cards_of(hand.hands[observer]), dtype=np.intp)] = 1.0
    hands = STATE.block("hands")
    for seat in range(n):
        row = state[hands.item((seat - observer) % n)]
        row[cards_of(hand.hands[seat])] = 1.0
    state[STATE.start("set_aside") + np.array(hand.deal.set_aside, dtype=np.intp)] = 1.0
    if hand.stock:
        discarded = STATE.block("discarded")
        for seat in range(n):
            row = state[discarded.item((seat - observer) % n)]
            row[:] = 0.0
            row[cards_of(hand.discards[seat])] = 1.0
        left = hand.stock[STOCK_SIZE - stock_left(hand.draw_turn) :]
        stock = STATE.start("stock")
        for place, card in enumerate(left):
            state[stock + card] = (place + 1) / STOCK_SIZE
    return state
