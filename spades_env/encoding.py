"""Observation and state encoding: named slices of one flat float32 array.

Everything is relative to the observer. *Slot* ``k`` is the player ``k`` seats
to the observer's left (clockwise): with four players slot 0 is me, 1 my left
opponent, 2 my partner (or the player opposite in cutthroat), 3 my right
opponent; with three players slots 0, 1, 2 are me, left, right and slot 3 is
always zero. Scores and bags of a slot are those of its side.

Observation layout (``OBS_SIZE`` = 879, layout ``spades_obs_v1``; offsets in ``OBS_SLICES``):

=================  =======  ======================================================
name               size     content
=================  =======  ======================================================
phase              5        one-hot: BLIND, BID, EXCHANGE, PLAY, OVER
to_act             4        one-hot slot of the seat to act (zero when none)
dealer             4        one-hot slot of the dealer
trick_leader       4        one-hot slot that led the current trick (zero if none)
bids               4 x 26   per slot: bid kind one-hot (8, ``BidKind`` order:
                            none, number, nil, blind nil, 10 for 200, blind,
                            skipped, cancelled), then tricks bid one-hot 0..17
                            (number, blind n, 10 for 200 = 10, cancelled bid)
tricks_won         4        per slot: tricks taken / hand size
spades_broken      1        1 once a spade (or joker) has been played
scores             4        per slot: its side's score / target_score
bags               4        per slot: its side's bags / bag_limit (10 if none)
target_score       1        target_score / 1000
rules              26       options that change play (see ``RULE_FEATURES``)
hand               54       my cards (all zero until I have looked at them)
trick              4 x 54   per slot: the card it played to the current trick
played             4 x 54   per slot: every card it played this hand
passed             54       cards I passed in a blind-nil exchange
received           54       cards I received in a blind-nil exchange
led                54       every card that led its trick this hand (the current
                            trick's lead included)
played_trick       54       every card played this hand: (trick + 1) / hand size,
                            trick counted from 0 (0 for a card not played)
voids              4 x 4    per slot, per suit (clubs, diamonds, hearts, spades):
                            1 when the table has seen the slot lack the suit
=================  =======  ======================================================

The blocks down to ``received`` are version 0's (``spades_obs_v0``, 755
floats). The history blocks hold everything the table has seen of the tricks:
with ``played`` (who played each card) they give, for every card played, its
trick, who led that trick (the slot that played the trick's ``led`` card) and
the suit led (that card's suit), and the order of play (clockwise from the
leader). ``voids`` are the *public* voids, what the cards played show every
player by the rules (``spades_env.core.tricks``: failing to follow suit, a
spade led before spades were broken, the lowest-club first trick); what one
observer can deduce from its own cards (every card of a suit seen) is left to
the agents. A position built without its past (``core.position``) shows the
earlier tricks' cards in ``played`` only: the history blocks hold what its
``HandState`` knows (its history, its last trick and the trick on the table).

The eleven 54-card blocks ``hand``..``received`` are contiguous
(``CARD_BLOCKS``) so that encoders can write them in one go. Card ``c`` is at
offset ``c`` of a block (actions 0..53, jokers at 52 and 53).

Every block's offset comes from :data:`spades_env.layout.OBSERVATION` /
``STATE``; the encoder and the decoder each declare the ``Rules`` fields they
handle (``ENCODER_HANDLED_RULES``, ``DECODER_HANDLED_RULES``; a test names any
field missing from either).

The *state* (``STATE_SIZE`` = 1149, ``spades_state_v1``) is the full-information array for a
centralized critic: the observation of the given seat with its hand shown,
followed by ``hands`` (4 x 54, every slot's current cards) and ``set_aside``
(54, the card set aside in three-player cutthroat).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from .core.cards import CARD_SUIT, NUM_CARDS, NUM_STANDARD_CARDS, NUM_SUITS, SPADE_MASK, cards_of
from .core.hand import NO_SEAT, HandState, Phase, Transition
from .core.rules import FIRST_TRICK_LOWEST_CLUB, FIRST_TRICK_STANDARD, Rules
from .core.scoring import BidKind
from .core.tricks import play_situation, voids_shown, voids_shown_table

from .layout import (  # noqa: F401 - re-exported: the layout object is the one home of these names
    BID_FEATURES,
    CARD_BLOCKS,
    MAX_BID_ONE_HOT,
    NUM_BID_KINDS,
    NUM_CARD_BLOCKS,
    NUM_PHASES,
    NUM_SLOTS,
    OBSERVATION,
    RULE_FEATURES,
    STATE,
)

SCORE_SCALE_TARGET = 1000.0
THREE_PLAYERS = 3  # the one table smaller than NUM_SLOTS (three-player cutthroat)
DEFAULT_BAG_SCALE = 10.0

# Name -> slice views of the layouts (kept for readers that index by name).
OBS_SLICES: dict[str, slice] = dict(OBSERVATION)
OBS_SIZE = OBSERVATION.size
STATE_SLICES: dict[str, slice] = dict(STATE)
STATE_SIZE = STATE.size

# Offsets used by encoders (from the layout object; no offset is spelled here).
_PHASE = OBSERVATION.start("phase")
_TO_ACT = OBSERVATION.start("to_act")
_DEALER = OBSERVATION.start("dealer")
_LEADER = OBSERVATION.start("trick_leader")
_BIDS = OBSERVATION.start("bids")
_TRICKS = OBSERVATION.start("tricks_won")
_BROKEN = OBSERVATION.start("spades_broken")
_SCORES = OBSERVATION.start("scores")
_BAGS = OBSERVATION.start("bags")
_TARGET = OBSERVATION.start("target_score")
_RULES = OBSERVATION["rules"]
_HAND = OBSERVATION.start("hand")
_TRICK = OBSERVATION.start("trick")
_PLAYED = OBSERVATION.start("played")
_PASSED = OBSERVATION.start("passed")
_RECEIVED = OBSERVATION.start("received")
_LED = OBSERVATION.start("led")
_PLAYED_TRICK = OBSERVATION.start("played_trick")
_VOIDS = OBSERVATION.start("voids")

# Every field of ``Rules`` the encoder writes (or deliberately need not; a test
# fails naming any field missing here). Not encoded, on purpose: ``max_hands``
# (a truncation horizon of the game, not a rule of play), ``crazy`` (each hand
# of a rotation is encoded with that hand's own rules) and ``name`` (a label).
ENCODER_HANDLED_RULES: frozenset[str] = frozenset({
    "num_players", "partnerships", "jokers", "deuce_of_spades_high", "nil", "nil_value", "blind_nil",
    "blind_nil_value", "blind_nil_requires_deficit", "blind_nil_exchange", "nil_tricks_count_for_partner",
    "max_team_bid", "ten_for_200", "blind_bids", "blind_bid_min", "mirror", "suicide", "bids_may_total_tricks",
    "first_trick", "dealer_leads_any", "bag_value", "bag_limit", "bag_penalty", "boston_bonus", "target_score",
    "lose_score",
    "max_hands", "crazy", "name",  # deliberately not encoded (see above)
})
HANDLED_RULES = ENCODER_HANDLED_RULES


def rule_features(rules: Rules) -> np.ndarray:
    """The ``rules`` block for a hand's rules (float32, length ``len(RULE_FEATURES)``)."""
    return _rule_features(rules).copy()


_RULE_CACHE: dict[Rules, np.ndarray] = {}
_CACHE_LIMIT = 256  # distinct rules seen in one process: presets and a crazy rotation fit many times over


def _rule_features(rules: Rules) -> np.ndarray:
    cached = _RULE_CACHE.get(rules)
    if cached is not None:
        return cached
    raw = {
        "partnerships": rules.partnerships,
        "three_players": rules.num_players == THREE_PLAYERS,
        "jokers": rules.jokers,
        "deuce_of_spades_high": rules.deuce_of_spades_high,
        "nil": rules.nil,
        "blind_nil": rules.blind_nil,
        "blind_nil_always": rules.blind_nil and rules.blind_nil_requires_deficit is None,
        "nil_tricks_count_for_partner": rules.nil_tricks_count_for_partner,
        "ten_for_200": rules.ten_for_200,
        "blind_bids": rules.blind_bids,
        "mirror": rules.mirror,
        "suicide": rules.suicide,
        "no_hook": not rules.bids_may_total_tricks,
        "first_trick_lowest_club": rules.first_trick == "lowest_club",
        "dealer_leads_any": rules.dealer_leads_any,
        "nil_value": rules.nil_value,
        "blind_nil_points": rules.blind_nil_points,
        "blind_nil_requires_deficit": rules.blind_nil_requires_deficit or 0,
        "blind_nil_exchange": rules.blind_nil_exchange,
        "max_team_bid": rules.max_team_bid or 0,
        "blind_bid_min": rules.blind_bid_min if rules.blind_bids else 0,
        "bag_value": rules.bag_value,
        "bag_limit": rules.bag_limit or 0,
        "bag_penalty": rules.bag_penalty,
        "boston_bonus": rules.boston_bonus,
        "lose_score": rules.lose_score or 0,
    }
    vec = np.array([float(raw[name]) / div for name, div in RULE_FEATURES], dtype=np.float32)
    vec.setflags(write=False)
    if len(_RULE_CACHE) > _CACHE_LIMIT:
        _RULE_CACHE.clear()
    _RULE_CACHE[rules] = vec
    return vec


def rules_fields_from_features(features: Mapping[str, float], target_score: int) -> dict[str, Any]:
    """The ``Rules`` fields (all but ``name``, ``max_hands`` and ``crazy``) that a decoded rules block
    (``ObservationView.rules``, unscaled) and target score describe: the inverse of the rules block."""
    r = features
    nil_value = int(r["nil_value"])
    blind_points = int(r["blind_nil_points"])
    return dict(
        num_players=THREE_PLAYERS if r["three_players"] else NUM_SLOTS,
        partnerships=bool(r["partnerships"]),
        jokers=bool(r["jokers"]),
        deuce_of_spades_high=bool(r["deuce_of_spades_high"]),
        nil=bool(r["nil"]),
        nil_value=nil_value,
        blind_nil=bool(r["blind_nil"]),
        blind_nil_value=None if blind_points == 2 * nil_value else blind_points,
        blind_nil_requires_deficit=None if r["blind_nil_always"] else int(r["blind_nil_requires_deficit"]),
        blind_nil_exchange=int(r["blind_nil_exchange"]),
        nil_tricks_count_for_partner=bool(r["nil_tricks_count_for_partner"]),
        max_team_bid=int(r["max_team_bid"]) or None,
        ten_for_200=bool(r["ten_for_200"]),
        blind_bids=bool(r["blind_bids"]),
        blind_bid_min=int(r["blind_bid_min"]) or Rules.blind_bid_min,
        mirror=bool(r["mirror"]),
        suicide=bool(r["suicide"]),
        bids_may_total_tricks=not r["no_hook"],
        first_trick=FIRST_TRICK_LOWEST_CLUB if r["first_trick_lowest_club"] else FIRST_TRICK_STANDARD,
        dealer_leads_any=bool(r["dealer_leads_any"]),
        bag_value=int(r["bag_value"]),
        bag_limit=int(r["bag_limit"]) or None,
        bag_penalty=int(r["bag_penalty"]),
        boston_bonus=int(r["boston_bonus"]),
        target_score=int(target_score),
        lose_score=int(r["lose_score"]) or None,
    )


# Every field of ``Rules`` the decoder reads back: what ``rules_fields_from_features`` really
# returns (``three_players`` gives ``num_players``, ``no_hook`` gives ``bids_may_total_tricks``,
# ``first_trick_lowest_club`` gives ``first_trick``, ``blind_nil_points`` gives ``blind_nil_value``,
# ``target_score`` comes from the view), plus ``max_hands``, ``crazy`` and ``name``, deliberately not
# decoded because the encoder never writes them. A test fails naming any field missing.
DECODER_HANDLED_RULES: frozenset[str] = frozenset(
    rules_fields_from_features({name: 0.0 for name, _ in RULE_FEATURES}, target_score=0)
) | {"max_hands", "crazy", "name"}


def bag_scale(rules: Rules) -> float:
    """Divisor of the bags block."""
    return float(rules.bag_limit) if rules.bag_limit else DEFAULT_BAG_SCALE


def bid_offset(kind: int, value: int) -> int | None:
    """Offset of the tricks-bid one-hot within a slot's bid features, or None."""
    if kind in (BidKind.NUMBER, BidKind.BLIND, BidKind.TEN_FOR_200, BidKind.CANCELLED):
        return NUM_BID_KINDS + value
    return None


def known_plays(hand: HandState) -> dict[int, tuple[int, int, int]]:
    """Card -> (trick from 0, place in the trick from 0, seat) for every card played this hand whose trick
    the state knows: its history's plays, its last trick and the trick on the table."""
    n = hand.num_players
    history = hand.history
    count = min(sum(m.bit_count() for m in hand.played), len(history))  # the plays are the history's last
    first = hand.trick_index * n + len(hand.trick_cards) - count  # index in the hand of the first of them
    known = {card: divmod(first + j, n) + (seat,) for j, (seat, card) in enumerate(history[len(history) - count:])}
    if hand.last_trick is not None:
        _, seats, cards, _ = hand.last_trick
        known.update((card, (hand.trick_index - 1, i, seat)) for i, (seat, card) in enumerate(zip(seats, cards)))
    known.update((card, (hand.trick_index, i, seat))
                 for i, (seat, card) in enumerate(zip(hand.trick_seats, hand.trick_cards)))
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


def write_side_counts(obs: np.ndarray, rules: Rules, scores: Sequence[int], bags: Sequence[int], game_rules: Rules,
                      observer: int) -> None:
    """Write the ``scores`` and ``bags`` blocks of ``observer`` (each slot its side's, scaled) into ``obs``."""
    n = rules.num_players
    side_of = rules.side_of
    target = float(game_rules.target_score)
    scale = bag_scale(game_rules)
    for seat in range(n):
        slot = (seat - observer) % n
        obs[_SCORES + slot] = scores[side_of(seat)] / target
        obs[_BAGS + slot] = bags[side_of(seat)] / scale


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
    ones = [_PHASE + int(hand.phase), _DEALER + (hand.dealer - observer) % n]  # cells set to 1
    if hand.current >= 0:
        ones.append(_TO_ACT + (hand.current - observer) % n)
    if hand.trick_cards:
        ones.append(_LEADER + (hand.leader - observer) % n)
    target = float(game_rules.target_score)
    size = float(rules.hand_size)
    for seat in range(n):
        slot = (seat - observer) % n
        base = _BIDS + slot * BID_FEATURES
        kind, value = hand.bid_kinds[seat], hand.bid_values[seat]
        ones.append(base + int(kind))
        off = bid_offset(kind, value)
        if off is not None:
            ones.append(base + off)
        obs[_TRICKS + slot] = hand.tricks_won[seat] / size
        played = _PLAYED + slot * NUM_CARDS
        ones += [played + card for card in cards_of(hand.played[seat])]
    write_side_counts(obs, rules, scores, bags, game_rules, observer)
    obs[_BROKEN] = float(hand.spades_broken)
    obs[_TARGET] = target / SCORE_SCALE_TARGET
    obs[_RULES] = _rule_features(rules)
    if hand.looked[observer]:
        ones += [_HAND + card for card in cards_of(hand.hands[observer])]
    ones += [_TRICK + ((seat - observer) % n) * NUM_CARDS + card for seat, card in zip(hand.trick_seats, hand.trick_cards)]
    ones += [_PASSED + card for card in cards_of(hand.passed[observer])]
    ones += [_RECEIVED + card for card in cards_of(hand.received[observer])]
    known = known_plays(hand)
    for card, (trick, place, _) in known.items():
        obs[_PLAYED_TRICK + card] = (trick + 1) / size
        if place == 0:
            ones.append(_LED + card)
    for seat, mask in enumerate(public_voids(hand, known)):
        base = _VOIDS + ((seat - observer) % n) * NUM_SUITS
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
    """Full-information state relative to ``observer``: its observation, its hand shown, every hand."""
    state = np.zeros(STATE_SIZE, np.float32)
    encode_observation(hand, scores, bags, game_rules, observer, out=state[:OBS_SIZE])
    n = hand.num_players
    state[STATE["hand"]] = 0.0
    state[_HAND + np.array(cards_of(hand.hands[observer]), dtype=np.intp)] = 1.0
    hands = STATE.block("hands")
    for seat in range(n):
        row = state[hands.item((seat - observer) % n)]
        row[cards_of(hand.hands[seat])] = 1.0
    state[STATE.start("set_aside") + np.array(hand.deal.set_aside, dtype=np.intp)] = 1.0
    return state


# ----------------------------------------------------------------- decoding
@dataclass(frozen=True)
class ObservationView:
    """Readable fields of an observation array (for rule-based agents and tests)."""

    phase: Phase
    to_act: int | None  # slot
    dealer: int  # slot
    trick_leader: int | None  # slot
    bid_kinds: tuple[BidKind, ...]  # per slot
    bid_values: tuple[int, ...]  # per slot
    tricks_won: tuple[int, ...]  # per slot
    spades_broken: bool
    scores: tuple[int, ...]  # per slot (its side's score)
    bags: tuple[int, ...]  # per slot
    target_score: int
    rules: dict[str, float]  # RULE_FEATURES by name, unscaled
    hand: int  # bitboard
    trick: tuple[int | None, ...]  # per slot: card played to the current trick
    played: tuple[int, ...]  # per slot: bitboard
    passed: int
    received: int
    led: int  # bitboard: the cards that led their trick
    played_trick: tuple[int, ...]  # per card: the trick (from 0) it was played to, -1 if not played
    voids: tuple[int, ...]  # per slot: suit bitmask (bit s = suit s) of the voids shown to the table

    @property
    def num_players(self) -> int:
        """3 or 4."""
        return THREE_PLAYERS if self.rules["three_players"] else NUM_SLOTS

    @property
    def hand_size(self) -> int:
        """Cards dealt to each player."""
        return NUM_STANDARD_CARDS // self.num_players


def _one_hot(values: list[float]) -> int | None:
    for i, v in enumerate(values):
        if v > 0.5:
            return i
    return None


_DECODED_RULES: dict[bytes, dict[str, int]] = {}

def _decode_rules(block: np.ndarray) -> dict[str, int]:
    key = block.tobytes()
    rules = _DECODED_RULES.get(key)
    if rules is None:
        rules = {name: round(float(v) * div) for (name, div), v in zip(RULE_FEATURES, block)}
        if len(_DECODED_RULES) > _CACHE_LIMIT:
            _DECODED_RULES.clear()
        _DECODED_RULES[key] = rules
    return rules


_SUIT_BITS = 1 << np.arange(NUM_SUITS)
_SMALL_END = OBSERVATION.start("rules")  # the blocks before the rules are decoded from one Python list
# Rows of each card block in ``obs[CARD_BLOCKS]`` viewed as (NUM_CARD_BLOCKS, NUM_CARDS).
_CARD_ROWS = {name: slice((OBSERVATION.start(name) - CARD_BLOCKS.start) // NUM_CARDS,
                          (OBSERVATION.start(name) - CARD_BLOCKS.start) // NUM_CARDS + OBSERVATION.block(name).count)
              for name in ("hand", "trick", "played", "passed", "received")}


def _card_rows(boards: list[int], name: str) -> list[int]:
    """The bitboards of every item of card block ``name``."""
    return boards[_CARD_ROWS[name]]


def decode_observation(obs: np.ndarray) -> ObservationView:
    """Decode an observation array into an :class:`ObservationView`."""
    obs = np.asarray(obs, dtype=np.float32)
    if obs.shape != (OBS_SIZE,) and obs.shape != (STATE_SIZE,):
        raise ValueError(f"expected an observation of size {OBS_SIZE}, got shape {obs.shape}")
    rules = _decode_rules(obs[OBS_SLICES["rules"]])
    small = obs[:_SMALL_END].tolist()

    def block(name: str) -> list[float]:
        return small[OBS_SLICES[name]]

    target = round(small[_TARGET] * SCORE_SCALE_TARGET)
    bag_div = rules["bag_limit"] or DEFAULT_BAG_SCALE
    size = NUM_STANDARD_CARDS // (THREE_PLAYERS if rules["three_players"] else NUM_SLOTS)
    bids = block("bids")
    kinds, values = [], []
    for slot in range(NUM_SLOTS):
        row = bids[slot * BID_FEATURES:(slot + 1) * BID_FEATURES]
        kind = _one_hot(row[:NUM_BID_KINDS])
        kinds.append(BidKind(kind if kind is not None else 0))
        value = _one_hot(row[NUM_BID_KINDS:])
        values.append(value if value is not None else 0)
    # Card blocks -> bitboards: pack each 54-card row into bytes, then into an int.
    cards = obs[CARD_BLOCKS].reshape(NUM_CARD_BLOCKS, NUM_CARDS) > 0.5
    packed = np.packbits(cards, axis=1, bitorder="little")
    boards = [int.from_bytes(row.tobytes(), "little") for row in packed]
    (hand,), (passed,), (received,) = (_card_rows(boards, n) for n in ("hand", "passed", "received"))
    led = int.from_bytes(np.packbits(obs[OBS_SLICES["led"]] > 0.5, bitorder="little").tobytes(), "little")
    played_trick = np.rint(obs[OBS_SLICES["played_trick"]] * size).astype(np.intp) - 1
    voids = (obs[OBS_SLICES["voids"]].reshape(NUM_SLOTS, NUM_SUITS) > 0.5) @ _SUIT_BITS
    return ObservationView(
        phase=Phase(_one_hot(block("phase"))),
        to_act=_one_hot(block("to_act")),
        dealer=_one_hot(block("dealer")) or 0,
        trick_leader=_one_hot(block("trick_leader")),
        bid_kinds=tuple(kinds),
        bid_values=tuple(values),
        tricks_won=tuple(round(x * size) for x in block("tricks_won")),
        spades_broken=small[_BROKEN] > 0.5,
        scores=tuple(round(x * target) for x in block("scores")),
        bags=tuple(round(x * bag_div) for x in block("bags")),
        target_score=target,
        rules=rules,
        hand=hand,
        trick=tuple((b.bit_length() - 1) if b else None for b in _card_rows(boards, "trick")),
        played=tuple(_card_rows(boards, "played")),
        passed=passed,
        received=received,
        led=led,
        played_trick=tuple(played_trick.tolist()),
        voids=tuple(voids.tolist()),
    )


def _first_set(blocks: np.ndarray) -> list[int | None]:
    """Per row of a (rows, ..., width) boolean array: the first set position of each block, None where none is
    (as :func:`_one_hot`)."""
    first = blocks.argmax(-1)
    return np.where(blocks.any(-1), first, -1).tolist()


def _boards(cards: np.ndarray) -> np.ndarray:
    """Bitboards (uint64) of (..., NUM_CARDS) boolean card rows."""
    packed = np.packbits(cards, axis=-1, bitorder="little")  # 7 bytes a row
    wide = np.zeros(packed.shape[:-1] + (8,), dtype=np.uint8)
    wide[..., :packed.shape[-1]] = packed
    return wide.view("<u8")[..., 0]


def decode_observations(obs: np.ndarray) -> list[ObservationView]:
    """:func:`decode_observation` of each row of a (rows, OBS_SIZE) array, the arithmetic done for all rows at once
    (several times faster a row than decoding row by row; equal field by field)."""
    obs = np.asarray(obs, dtype=np.float32)
    if obs.ndim != 2 or obs.shape[1] not in (OBS_SIZE, STATE_SIZE):
        raise ValueError(f"expected observations of shape (rows, {OBS_SIZE}), got shape {obs.shape}")
    rules = [_decode_rules(row) for row in obs[:, OBS_SLICES["rules"]]]
    small = obs[:, :_SMALL_END].astype(np.float64)  # as Python floats: the same rounding as decode_observation
    target = np.rint(small[:, _TARGET] * SCORE_SCALE_TARGET)
    size = np.array([NUM_STANDARD_CARDS // (THREE_PLAYERS if r["three_players"] else NUM_SLOTS) for r in rules])
    bag_div = np.array([r["bag_limit"] or DEFAULT_BAG_SCALE for r in rules], dtype=np.float64)

    def block(name: str) -> np.ndarray:
        return small[:, OBS_SLICES[name]]

    def one_hot(name: str) -> list[int | None]:
        return [None if i < 0 else i for i in _first_set(block(name) > 0.5)]

    bids = block("bids").reshape(len(obs), NUM_SLOTS, BID_FEATURES) > 0.5
    kinds = [tuple(BidKind(max(k, 0)) for k in row) for row in _first_set(bids[:, :, :NUM_BID_KINDS])]
    values = [tuple(max(v, 0) for v in row) for row in _first_set(bids[:, :, NUM_BID_KINDS:])]
    boards = _boards(obs[:, CARD_BLOCKS].reshape(len(obs), NUM_CARD_BLOCKS, NUM_CARDS) > 0.5).tolist()
    led = _boards(obs[:, OBS_SLICES["led"]] > 0.5).tolist()
    played_trick = (np.rint(obs[:, OBS_SLICES["played_trick"]] * size[:, None].astype(np.float32)).astype(np.intp)
                    - 1).tolist()
    voids = ((obs[:, OBS_SLICES["voids"]].reshape(len(obs), NUM_SLOTS, NUM_SUITS) > 0.5) @ _SUIT_BITS).tolist()
    tricks_won = np.rint(block("tricks_won") * size[:, None]).astype(np.int64).tolist()
    scores = np.rint(block("scores") * target[:, None]).astype(np.int64).tolist()
    bags = np.rint(block("bags") * bag_div[:, None]).astype(np.int64).tolist()
    broken = (small[:, _BROKEN] > 0.5).tolist()
    phases, to_act, dealer, leader = one_hot("phase"), one_hot("to_act"), one_hot("dealer"), one_hot("trick_leader")
    targets = target.astype(np.int64).tolist()
    return [ObservationView(
        phase=Phase(phases[i]), to_act=to_act[i], dealer=dealer[i] or 0, trick_leader=leader[i],
        bid_kinds=kinds[i], bid_values=values[i], tricks_won=tuple(tricks_won[i]), spades_broken=broken[i],
        scores=tuple(scores[i]), bags=tuple(bags[i]), target_score=targets[i], rules=rules[i],
        hand=_card_rows(boards[i], "hand")[0],
        trick=tuple((b.bit_length() - 1) if b else None for b in _card_rows(boards[i], "trick")),
        played=tuple(_card_rows(boards[i], "played")), passed=_card_rows(boards[i], "passed")[0],
        received=_card_rows(boards[i], "received")[0], led=led[i], played_trick=tuple(played_trick[i]),
        voids=tuple(voids[i]),
    ) for i in range(len(obs))]


# ------------------------------------------------------- incremental encoder
# The tracker keeps one *absolute* buffer per game (slot k = seat k, every
# seat's private blocks side by side) and builds an observer's array with one
# gather through a precomputed permutation. Updates touch a handful of cells
# per action, so observing costs one take() instead of a full re-encode.
TRACKER_BUFFER = OBSERVATION.extended(OBSERVATION.name + "_by_seat", (
    ("hand_by_seat", NUM_SLOTS, NUM_CARDS),
    ("passed_by_seat", NUM_SLOTS, NUM_CARDS),
    ("received_by_seat", NUM_SLOTS, NUM_CARDS),
    ("zero", 1, 1),  # a cell that stays 0: the source of hidden or absent slots
))
BUFFER_SIZE = TRACKER_BUFFER.size
_PRIV_HAND = TRACKER_BUFFER.start("hand_by_seat")
_PRIV_PASSED = TRACKER_BUFFER.start("passed_by_seat")
_PRIV_RECEIVED = TRACKER_BUFFER.start("received_by_seat")
_ZERO = TRACKER_BUFFER.start("zero")
_PRIVATE = ((_PRIV_HAND, "hands"), (_PRIV_PASSED, "passed"), (_PRIV_RECEIVED, "received"))  # start, HandState field

_PLAY_PHASE, _EXCHANGE_PHASE = Phase.PLAY, Phase.EXCHANGE
_NO_PHASE = -1  # before the first start_hand
_SLOT_BLOCKS = ("to_act", "dealer", "trick_leader", "bids", "tricks_won", "scores", "bags", "trick", "played", "voids")
_TRICK_BLOCK = OBSERVATION["trick"]
_BIDS_BLOCK = OBSERVATION["bids"]


def _build_perm(num_players: int, observer: int, hand_visible: bool) -> np.ndarray:
    perm = np.arange(OBS_SIZE, dtype=np.intp)
    for name in _SLOT_BLOCKS:
        block = OBSERVATION.block(name)
        width = block.size // NUM_SLOTS  # one float per slot (one-hots) or one item per slot
        for slot in range(NUM_SLOTS):
            dst = slice(block.start + slot * width, block.start + (slot + 1) * width)
            if slot < num_players:
                seat = (observer + slot) % num_players
                perm[dst] = np.arange(block.start + seat * width, block.start + (seat + 1) * width)
            else:
                perm[dst] = _ZERO
    cards = np.arange(NUM_CARDS)
    perm[OBSERVATION["hand"]] = _PRIV_HAND + observer * NUM_CARDS + cards if hand_visible else _ZERO
    perm[OBSERVATION["passed"]] = _PRIV_PASSED + observer * NUM_CARDS + cards
    perm[OBSERVATION["received"]] = _PRIV_RECEIVED + observer * NUM_CARDS + cards
    return perm


# PERMS[num_players][observer][hand_visible]
PERMS: dict[int, tuple[tuple[np.ndarray, np.ndarray], ...]] = {
    n: tuple((_build_perm(n, o, False), _build_perm(n, o, True)) for o in range(n)) for n in (THREE_PLAYERS, NUM_SLOTS)
}


# The private blocks are NUM_SLOTS rows each of hand, passed and received, one after the other.
_PRIVATE_ROWS = len(_PRIVATE) * NUM_SLOTS
_PRIVATE_BYTES = -(-_PRIVATE_ROWS * NUM_CARDS // 8)
assert _PRIV_PASSED == _PRIV_HAND + NUM_SLOTS * NUM_CARDS and _PRIV_RECEIVED == _PRIV_PASSED + NUM_SLOTS * NUM_CARDS


def _write_private_all(buf: np.ndarray, hand: HandState) -> None:
    """Write every seat's private card blocks: one bit row of all the boards, unpacked at once."""
    packed = 0
    shift = 0
    for _, field_name in _PRIVATE:
        boards = getattr(hand, field_name)
        for seat in range(NUM_SLOTS):
            if seat < len(boards):
                packed |= boards[seat] << shift
            shift += NUM_CARDS
    bits = np.unpackbits(np.frombuffer(packed.to_bytes(_PRIVATE_BYTES, "little"), np.uint8), bitorder="little",
                         count=_PRIVATE_ROWS * NUM_CARDS)
    buf[_PRIV_HAND:_PRIV_HAND + _PRIVATE_ROWS * NUM_CARDS] = bits


def write_absolute(buf: np.ndarray, hand: HandState, scores: Sequence[int], bags: Sequence[int], game_rules: Rules) -> None:
    """Fill an absolute buffer (``BUFFER_SIZE``) from a hand: every block by seat, private blocks included."""
    encode_observation(hand, scores, bags, game_rules, 0, out=buf[:OBS_SIZE])
    buf[OBS_SIZE:] = 0.0
    buf[OBSERVATION["hand"]] = 0.0
    buf[OBSERVATION["passed"]] = 0.0
    buf[OBSERVATION["received"]] = 0.0
    _write_private_all(buf, hand)


# A freshly dealt hand differs from any other fresh hand of the same rules only in its phase, seat to act,
# dealer, scores, bags and private cards: the rest of its buffer is copied from one template per rules.
_DEALT_BLOCKS = ("phase", "to_act", "dealer", "scores", "bags")
_FRESH: dict[tuple[Rules, Rules], np.ndarray] = {}


def _is_fresh(hand: HandState) -> bool:
    """Whether no bid, pass or card shows in the hand yet (every hand a game deals, before its first action)."""
    return (not hand.history and hand.last_trick is None and not hand.trick_cards and not any(hand.bid_kinds)
            and not any(hand.played) and not any(hand.tricks_won) and not hand.spades_broken)


def _fresh_template(hand: HandState, game_rules: Rules) -> np.ndarray:
    """The absolute buffer of a fresh hand under these rules, with the blocks of ``_DEALT_BLOCKS`` and the private
    blocks zero (read-only)."""
    key = (hand.rules, game_rules)
    template = _FRESH.get(key)
    if template is None:
        template = np.zeros(BUFFER_SIZE, np.float32)
        sides = [0] * game_rules.num_sides
        write_absolute(template, hand, sides, sides, game_rules)
        for name in _DEALT_BLOCKS:
            template[OBSERVATION[name]] = 0.0
        template[_PRIV_HAND:_ZERO] = 0.0
        template.setflags(write=False)
        if len(_FRESH) > _CACHE_LIMIT:
            _FRESH.clear()
        _FRESH[key] = template
    return template


class ObservationTracker:
    """Keeps every seat's observation of one game up to date, action by action.

    Call ``start_hand`` when a hand is dealt, ``update(hand, transition)`` with
    the :class:`~spades_env.core.hand.Transition` that ``HandState.apply``
    returned, and ``observe(hand, seat)`` for a fresh observation array. The
    result equals :func:`encode_observation` (a test checks it at every
    decision).
    """

    def __init__(self) -> None:
        self.buf = np.zeros(BUFFER_SIZE, np.float32)
        self._perms = PERMS[NUM_SLOTS]
        self._to_act = NO_SEAT
        self._phase = _NO_PHASE
        self._leader = NO_SEAT
        self._size = 1.0
        self._shown: tuple = ()  # core.tricks.voids_shown_table of the hand's rules (set by start_hand)

    @property
    def buf(self) -> np.ndarray:
        """The absolute buffer (``BUFFER_SIZE`` float32): every block by seat."""
        return self._buf

    @buf.setter
    def buf(self, value: np.ndarray) -> None:
        self._buf = value
        # Single cells are written through a memoryview: a fraction of the cost of numpy's scalar assignment.
        self._cells = memoryview(value)
        self._broken = bool(value[_BROKEN] > 0.5)  # the spades_broken cell, read once (a buffer may be handed in)

    def __getstate__(self) -> dict[str, Any]:
        """The tracker without its memoryview (which cannot be copied or pickled)."""
        state = self.__dict__.copy()
        del state["_cells"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Restore what ``__getstate__`` saved, and the memoryview of the buffer."""
        self.__dict__.update(state)
        self._cells = memoryview(self._buf)

    def start_hand(self, hand: HandState, scores: Sequence[int], bags: Sequence[int], game_rules: Rules) -> None:
        """Encode a freshly dealt hand (or any hand state) from scratch."""
        if _is_fresh(hand):  # every game's hands: a copy of the rules' fresh-hand cells, then the deal's own
            buf = self._buf
            buf[:] = _fresh_template(hand, game_rules)
            cells = self._cells
            cells[_PHASE + hand.phase] = 1.0
            cells[_DEALER + hand.dealer] = 1.0
            if hand.current != NO_SEAT:
                cells[_TO_ACT + hand.current] = 1.0
            write_side_counts(buf, hand.rules, scores, bags, game_rules, 0)
            _write_private_all(buf, hand)
        else:
            write_absolute(self._buf, hand, scores, bags, game_rules)
        self._broken = hand.spades_broken
        self._perms = PERMS[hand.num_players]
        self._to_act = hand.current
        self._phase = int(hand.phase)
        self._leader = hand.leader if hand.trick_cards else NO_SEAT
        self._size = float(hand.rules.hand_size)
        self._shown = voids_shown_table(hand.rules)

    def end_hand(self, hand: HandState, done: Transition, scores: Sequence[int], bags: Sequence[int],
                 game_rules: Rules) -> None:
        """Record the action ``done`` that finished ``hand`` and the game's scores and bags after it: the hand
        as it ends, without re-encoding its history (what ``start_hand`` of the finished hand would write)."""
        self.update(hand, done)
        write_side_counts(self.buf, hand.rules, scores, bags, game_rules, 0)

    def update(self, hand: HandState, done: Transition) -> None:
        """Record what ``done`` (the transition ``hand.apply`` returned) did to ``hand``."""
        cells = self._cells
        seat, action, phase_before, winner, _ = done  # unpacked once: cheaper than attribute reads
        if phase_before == _PLAY_PHASE:
            base = seat * NUM_CARDS + action
            cells[_PLAYED + base] = 1.0
            cells[_PRIV_HAND + base] = 0.0
            size = self._size
            if winner == NO_SEAT:
                trick_cards = hand.trick_cards
                trick, place, lead = hand.trick_index, len(trick_cards) - 1, trick_cards[0]
                cells[_TRICK + base] = 1.0
            else:  # the card completed the trick (now the hand's last): the table is cleared, the winner counts it
                trick, place, lead = hand.trick_index - 1, hand.num_players - 1, hand.last_trick[2][0]
                self._buf[_TRICK_BLOCK] = 0.0
                cells[_TRICKS + winner] = hand.tricks_won[winner] / size
            # The history blocks, with spades_broken as it was before this card.
            cells[_PLAYED_TRICK + action] = (trick + 1) / size
            if not place:
                cells[_LED + action] = 1.0
            shown = self._shown[not trick][not place][self._broken][CARD_SUIT[lead]][action]
            if shown:
                base = _VOIDS + seat * NUM_SUITS
                for suit in range(NUM_SUITS):
                    if shown >> suit & 1:
                        cells[base + suit] = 1.0
            if not self._broken and hand.spades_broken:
                cells[_BROKEN] = 1.0
                self._broken = True
        elif phase_before == _EXCHANGE_PHASE:
            # A pass moves a card between two seats; the private blocks are rewritten from the hand.
            _write_private_all(self._buf, hand)
        else:  # a bid or a blind decision: it may also skip or cancel the partner's bid
            self._buf[_BIDS_BLOCK] = 0.0
            for s in range(hand.num_players):
                kind, value = hand.bid_kinds[s], hand.bid_values[s]
                cells[_BIDS + s * BID_FEATURES + int(kind)] = 1.0
                off = bid_offset(kind, value)
                if off is not None:
                    cells[_BIDS + s * BID_FEATURES + off] = 1.0
        phase = hand.phase
        if phase != self._phase:
            cells[_PHASE + self._phase] = 0.0
            cells[_PHASE + phase] = 1.0
            self._phase = int(phase)
        current = hand.current
        if current != self._to_act:
            if self._to_act != NO_SEAT:
                cells[_TO_ACT + self._to_act] = 0.0
            if current != NO_SEAT:
                cells[_TO_ACT + current] = 1.0
            self._to_act = current
        leader = hand.leader if hand.trick_cards else NO_SEAT
        if leader != self._leader:
            if self._leader != NO_SEAT:
                cells[_LEADER + self._leader] = 0.0
            if leader != NO_SEAT:
                cells[_LEADER + leader] = 1.0
            self._leader = leader

    def observe(self, hand: HandState, observer: int) -> np.ndarray:
        """A fresh observation array for ``observer``."""
        return self._buf.take(self._perms[observer][hand.looked[observer]])
