"""Decoding observations back into readable fields (:class:`ObservationView`), one or many at a time."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.cards import (
    NUM_CARDS,
    NUM_STANDARD_CARDS,
    NUM_SUITS,
)
from ..core.drawing import STOCK_SIZE
from ..core.hand import Phase
from ..core.rules import TWO_PLAYER_HAND_SIZE
from ..core.scoring import BidKind
from .encode import BROKEN_AT, OBS_SIZE, OBS_SLICES, STATE_SIZE, TARGET_AT
from .features import CACHE_LIMIT, DEFAULT_BAG_SCALE, SCORE_SCALE_TARGET, THREE_PLAYERS, TWO_PLAYERS
from .layout import (
    BID_FEATURES,
    CARD_BLOCKS,
    DRAW_RULE_FEATURES,
    NUM_BID_KINDS,
    NUM_CARD_BLOCKS,
    NUM_SLOTS,
    OBSERVATION,
    RULE_FEATURES,
)


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
    # two players (layout spades_obs_v2; zero otherwise):
    stock_size: int = 0  # cards left in the stock
    offered: int | None = None  # the card on offer to me (my drawing turn)
    kept: int = 0  # bitboard: the cards I took from the stock into my hand
    discarded: tuple[int, ...] = (0, 0, 0, 0)  # per slot: bitboard of its discards that I have seen

    @property
    def num_players(self) -> int:
        """2, 3 or 4."""
        return _num_players(self.rules)

    @property
    def hand_size(self) -> int:
        """Cards in each player's hand at the start of play."""
        return _hand_size(self.rules)


def _num_players(rules: dict[str, int]) -> int:
    return TWO_PLAYERS if rules["two_players"] else THREE_PLAYERS if rules["three_players"] else NUM_SLOTS


def _hand_size(rules: dict[str, int]) -> int:
    return TWO_PLAYER_HAND_SIZE if rules["two_players"] else NUM_STANDARD_CARDS // _num_players(rules)


def _one_hot(values: list[float]) -> int | None:
    for i, v in enumerate(values):
        if v > 0.5:
            return i
    return None


_DECODED_RULES: dict[bytes, dict[str, int]] = {}


def _decode_rules(obs: np.ndarray) -> dict[str, int]:
    """The rules and drawing-rules blocks of one observation, by feature name, unscaled."""
    block, drawing = obs[_RULES], obs[_DRAW_RULES]
    key = block.tobytes() + drawing.tobytes()
    rules = _DECODED_RULES.get(key)
    if rules is None:
        rules = {
            name: round(float(v) * div)
            for (name, div), v in zip(RULE_FEATURES + DRAW_RULE_FEATURES, [*block, *drawing])
        }
        if len(_DECODED_RULES) > CACHE_LIMIT:
            _DECODED_RULES.clear()
        _DECODED_RULES[key] = rules
    return rules


_RULES, _DRAW_RULES = OBSERVATION["rules"], OBSERVATION["drawing_rules"]
_DRAWING_AT, _STOCK_AT = OBSERVATION.start("drawing"), OBSERVATION.start("stock_size")
# The card blocks of two players, viewed as (rows, NUM_CARDS): offered, kept, then discarded by slot.
_DRAW_CARDS = OBSERVATION.span("offered", "discarded")
_DRAW_CARD_ROWS = (_DRAW_CARDS.stop - _DRAW_CARDS.start) // NUM_CARDS
_SUIT_BITS = 1 << np.arange(NUM_SUITS)
_SMALL_END = OBSERVATION.start("rules")  # the blocks before the rules are decoded from one Python list
# Rows of each card block in ``obs[CARD_BLOCKS]`` viewed as (NUM_CARD_BLOCKS, NUM_CARDS).
_CARD_ROWS = {
    name: slice(
        (OBSERVATION.start(name) - CARD_BLOCKS.start) // NUM_CARDS,
        (OBSERVATION.start(name) - CARD_BLOCKS.start) // NUM_CARDS + OBSERVATION.block(name).count,
    )
    for name in ("hand", "trick", "played", "passed", "received")
}


def _card_rows(boards: list[int], name: str) -> list[int]:
    """The bitboards of every item of card block ``name``."""
    return boards[_CARD_ROWS[name]]


def decode_observation(obs: np.ndarray) -> ObservationView:
    """Decode an observation array into an :class:`ObservationView`."""
    obs = np.asarray(obs, dtype=np.float32)
    if obs.shape != (OBS_SIZE,) and obs.shape != (STATE_SIZE,):
        raise ValueError(f"expected an observation of size {OBS_SIZE}, got shape {obs.shape}")
    rules = _decode_rules(obs)
    small = obs[:_SMALL_END].tolist()

    def block(name: str) -> list[float]:
        return small[OBS_SLICES[name]]

    target = round(small[TARGET_AT] * SCORE_SCALE_TARGET)
    bag_div = rules["bag_limit"] or DEFAULT_BAG_SCALE
    size = _hand_size(rules)
    bids = block("bids")
    kinds, values = [], []
    for slot in range(NUM_SLOTS):
        row = bids[slot * BID_FEATURES : (slot + 1) * BID_FEATURES]
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
    offered, kept, *discarded = _boards(obs[_DRAW_CARDS].reshape(_DRAW_CARD_ROWS, NUM_CARDS) > 0.5).tolist()
    return ObservationView(
        phase=Phase.DRAW if obs[_DRAWING_AT] > 0.5 else Phase(_one_hot(block("phase"))),
        to_act=_one_hot(block("to_act")),
        dealer=_one_hot(block("dealer")) or 0,
        trick_leader=_one_hot(block("trick_leader")),
        bid_kinds=tuple(kinds),
        bid_values=tuple(values),
        tricks_won=tuple(round(x * size) for x in block("tricks_won")),
        spades_broken=small[BROKEN_AT] > 0.5,
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
        stock_size=round(float(obs[_STOCK_AT]) * STOCK_SIZE),
        offered=offered.bit_length() - 1 if offered else None,
        kept=kept,
        discarded=tuple(discarded),
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
    wide[..., : packed.shape[-1]] = packed
    return wide.view("<u8")[..., 0]


def decode_observations(obs: np.ndarray) -> list[ObservationView]:
    """:func:`decode_observation` of each row of a (rows, OBS_SIZE) array, the arithmetic done for all rows at once
    (several times faster a row than decoding row by row; equal field by field)."""
    obs = np.asarray(obs, dtype=np.float32)
    if obs.ndim != 2 or obs.shape[1] not in (OBS_SIZE, STATE_SIZE):
        raise ValueError(f"expected observations of shape (rows, {OBS_SIZE}), got shape {obs.shape}")
    rules = [_decode_rules(row) for row in obs]
    small = obs[:, :_SMALL_END].astype(np.float64)  # as Python floats: the same rounding as decode_observation
    target = np.rint(small[:, TARGET_AT] * SCORE_SCALE_TARGET)
    size = np.array([_hand_size(r) for r in rules])
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
    played_trick = (
        np.rint(obs[:, OBS_SLICES["played_trick"]] * size[:, None].astype(np.float32)).astype(np.intp) - 1
    ).tolist()
    voids = ((obs[:, OBS_SLICES["voids"]].reshape(len(obs), NUM_SLOTS, NUM_SUITS) > 0.5) @ _SUIT_BITS).tolist()
    tricks_won = np.rint(block("tricks_won") * size[:, None]).astype(np.int64).tolist()
    scores = np.rint(block("scores") * target[:, None]).astype(np.int64).tolist()
    bags = np.rint(block("bags") * bag_div[:, None]).astype(np.int64).tolist()
    broken = (small[:, BROKEN_AT] > 0.5).tolist()
    phases, to_act, dealer, leader = one_hot("phase"), one_hot("to_act"), one_hot("dealer"), one_hot("trick_leader")
    targets = target.astype(np.int64).tolist()
    drawing = (obs[:, _DRAWING_AT] > 0.5).tolist()
    stock = np.rint(obs[:, _STOCK_AT].astype(np.float64) * STOCK_SIZE).astype(np.int64).tolist()
    draw_boards = _boards(obs[:, _DRAW_CARDS].reshape(len(obs), _DRAW_CARD_ROWS, NUM_CARDS) > 0.5).tolist()
    return [
        ObservationView(
            phase=Phase.DRAW if drawing[i] else Phase(phases[i]),
            to_act=to_act[i],
            dealer=dealer[i] or 0,
            trick_leader=leader[i],
            bid_kinds=kinds[i],
            bid_values=values[i],
            tricks_won=tuple(tricks_won[i]),
            spades_broken=broken[i],
            scores=tuple(scores[i]),
            bags=tuple(bags[i]),
            target_score=targets[i],
            rules=rules[i],
            hand=_card_rows(boards[i], "hand")[0],
            trick=tuple((b.bit_length() - 1) if b else None for b in _card_rows(boards[i], "trick")),
            played=tuple(_card_rows(boards[i], "played")),
            passed=_card_rows(boards[i], "passed")[0],
            received=_card_rows(boards[i], "received")[0],
            led=led[i],
            played_trick=tuple(played_trick[i]),
            voids=tuple(voids[i]),
            stock_size=stock[i],
            offered=draw_boards[i][0].bit_length() - 1 if draw_boards[i][0] else None,
            kept=draw_boards[i][1],
            discarded=tuple(draw_boards[i][2:]),
        )
        for i in range(len(obs))
    ]
