"""The incremental encoder: every seat's observation of one game kept up to date, action by action."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core.cards import (
    CARD_SUIT,
    NUM_CARDS,
    NUM_SUITS,
)
from ..core.drawing import STOCK_SIZE, DrawRules, discards_seen, stock_left
from ..core.hand import NO_SEAT, HandState, Phase, Transition
from ..core.ops import INT
from ..core.rules import Rules
from ..core.tricks import voids_shown_table
from ..core.visibility import face_up
from .encode import (
    BIDS_AT,
    BROKEN_AT,
    DEALER_AT,
    LEADER_AT,
    LED_AT,
    OBS_SIZE,
    PHASE_CELLS,
    PLAYED_AT,
    PLAYED_TRICK_AT,
    STOCK_SIZE_AT,
    TO_ACT_AT,
    TRICK_AT,
    TRICKS_AT,
    VOIDS_AT,
    encode_observation,
    write_side_counts,
)
from .features import CACHE_LIMIT, THREE_PLAYERS, TWO_PLAYERS, bid_offset
from .layout import (
    BID_FEATURES,
    NUM_SLOTS,
    OBSERVATION,
)

# ------------------------------------------------------- incremental encoder
# The tracker keeps one *absolute* buffer per game (slot k = seat k, every
# seat's private blocks side by side) and builds an observer's array with one
# gather through a precomputed permutation. Updates touch a handful of cells
# per action, so observing costs one take() instead of a full re-encode.
TRACKER_BUFFER = OBSERVATION.extended(
    OBSERVATION.name + "_by_seat",
    (
        ("hand_by_seat", NUM_SLOTS, NUM_CARDS),
        ("passed_by_seat", NUM_SLOTS, NUM_CARDS),
        ("received_by_seat", NUM_SLOTS, NUM_CARDS),
        ("offered_by_seat", NUM_SLOTS, NUM_CARDS),  # two players: the card on offer, in its drawer's row
        ("kept_by_seat", NUM_SLOTS, NUM_CARDS),
        ("discarded_by_seat", NUM_SLOTS, NUM_CARDS),  # every seat's discards (the perms show each observer its part)
        ("zero", 1, 1),  # a cell that stays 0: the source of hidden or absent slots
    ),
)
BUFFER_SIZE = TRACKER_BUFFER.size
_PRIV_HAND = TRACKER_BUFFER.start("hand_by_seat")
_PRIV_PASSED = TRACKER_BUFFER.start("passed_by_seat")
_PRIV_RECEIVED = TRACKER_BUFFER.start("received_by_seat")
_PRIV_OFFERED = TRACKER_BUFFER.start("offered_by_seat")
_PRIV_KEPT = TRACKER_BUFFER.start("kept_by_seat")
_PRIV_DISCARDED = TRACKER_BUFFER.start("discarded_by_seat")
_ZERO = TRACKER_BUFFER.start("zero")


def _offered_boards(hand: HandState) -> list[int]:
    offered = hand.offered
    return [1 << offered if offered is not None and seat == hand.current else 0 for seat in range(hand.num_players)]


# The private blocks, in buffer order: (start, every seat's bitboards of a hand).
_PRIVATE = (
    (_PRIV_HAND, lambda hand: hand.hands),
    (_PRIV_PASSED, lambda hand: hand.passed),
    (_PRIV_RECEIVED, lambda hand: hand.received),
    (_PRIV_OFFERED, _offered_boards),
    (_PRIV_KEPT, lambda hand: [hand.kept(seat) for seat in range(hand.num_players)]),
    (_PRIV_DISCARDED, lambda hand: hand.discards),
)
_DRAW_CARDS = OBSERVATION.span("offered", "discarded")  # the two-player card blocks of an observer
_DEALT_PRIVATE = 3  # a dealt hand has only the first three (the rest stay zero)
_DRAW_PHASE = Phase.DRAW

_PLAY_PHASE, _EXCHANGE_PHASE = Phase.PLAY, Phase.EXCHANGE
_NO_PHASE = -1  # before the first start_hand
_SLOT_BLOCKS = ("to_act", "dealer", "trick_leader", "bids", "tricks_won", "scores", "bags", "trick", "played", "voids")
_TRICK_BLOCK = OBSERVATION["trick"]
_BIDS_BLOCK = OBSERVATION["bids"]


def _build_perm(num_players: int, observer: int, hand_visible: bool, face_up: bool = False) -> np.ndarray:
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
    perm[OBSERVATION["offered"]] = _PRIV_OFFERED + observer * NUM_CARDS + cards
    perm[OBSERVATION["kept"]] = _PRIV_KEPT + observer * NUM_CARDS + cards
    discarded = OBSERVATION.block("discarded")
    for slot in range(NUM_SLOTS):
        seat = (observer + slot) % num_players
        seen = slot < num_players and discards_seen(INT, DrawRules(True, face_up), observer, seat, 1)
        perm[discarded.item(slot)] = _PRIV_DISCARDED + seat * NUM_CARDS + cards if seen else _ZERO
    return perm


# PERMS[num_players, discards face up][observer][the observer's hand face up to it (core.visibility.face_up)]
PERMS: dict[tuple[int, bool], tuple[tuple[np.ndarray, np.ndarray], ...]] = {
    (n, up): tuple((_build_perm(n, o, False, up), _build_perm(n, o, True, up)) for o in range(n))
    for n, up in ((TWO_PLAYERS, False), (TWO_PLAYERS, True), (THREE_PLAYERS, False), (NUM_SLOTS, False))
}


# The private blocks are NUM_SLOTS rows each, one block after the other.
assert all(start == _PRIV_HAND + i * NUM_SLOTS * NUM_CARDS for i, (start, _) in enumerate(_PRIVATE))


def _write_private_all(buf: np.ndarray, hand: HandState) -> None:
    """Write every seat's private card blocks: one bit row of all the boards, unpacked at once (a dealt hand's
    three blocks, or all six of a two-player hand)."""
    blocks = _PRIVATE if hand.stock else _PRIVATE[:_DEALT_PRIVATE]
    rows = len(blocks) * NUM_SLOTS
    packed = 0
    shift = 0
    for _, boards_of in blocks:
        boards = boards_of(hand)
        for seat in range(NUM_SLOTS):
            if seat < len(boards):
                packed |= boards[seat] << shift
            shift += NUM_CARDS
    bits = np.unpackbits(
        np.frombuffer(packed.to_bytes(-(-rows * NUM_CARDS // 8), "little"), np.uint8),
        bitorder="little",
        count=rows * NUM_CARDS,
    )
    buf[_PRIV_HAND : _PRIV_HAND + rows * NUM_CARDS] = bits


def write_absolute(
    buf: np.ndarray, hand: HandState, scores: Sequence[int], bags: Sequence[int], game_rules: Rules
) -> None:
    """Fill an absolute buffer (``BUFFER_SIZE``) from a hand: every block by seat, private blocks included."""
    encode_observation(hand, scores, bags, game_rules, 0, out=buf[:OBS_SIZE])
    buf[OBS_SIZE:] = 0.0
    buf[OBSERVATION["hand"]] = 0.0
    buf[OBSERVATION["passed"]] = 0.0
    buf[OBSERVATION["received"]] = 0.0
    buf[_DRAW_CARDS] = 0.0
    _write_private_all(buf, hand)


# A freshly dealt hand differs from any other fresh hand of the same rules only in its phase, seat to act,
# dealer, scores, bags and private cards: the rest of its buffer is copied from one template per rules.
_DEALT_BLOCKS = ("phase", "drawing", "to_act", "dealer", "scores", "bags")
_FRESH: dict[tuple[Rules, Rules], np.ndarray] = {}


def _is_fresh(hand: HandState) -> bool:
    """Whether no bid, pass or card shows in the hand yet (every hand a game deals, before its first action)."""
    return (
        not hand.history
        and hand.last_trick is None
        and not hand.trick_cards
        and not any(hand.bid_kinds)
        and not any(hand.played)
        and not any(hand.tricks_won)
        and not hand.spades_broken
    )


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
        if len(_FRESH) > CACHE_LIMIT:
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
        self._perms = PERMS[NUM_SLOTS, False]
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
        self._broken = bool(value[BROKEN_AT] > 0.5)  # the spades_broken cell, read once (a buffer may be handed in)

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
            cells[PHASE_CELLS[hand.phase]] = 1.0
            cells[DEALER_AT + hand.dealer] = 1.0
            if hand.current != NO_SEAT:
                cells[TO_ACT_AT + hand.current] = 1.0
            write_side_counts(buf, hand.rules, scores, bags, game_rules, 0)
            _write_private_all(buf, hand)
        else:
            write_absolute(self._buf, hand, scores, bags, game_rules)
        self._broken = hand.spades_broken
        self._perms = PERMS[hand.num_players, hand.rules.discards_face_up]
        self._to_act = hand.current
        self._phase = int(hand.phase)
        self._leader = hand.leader if hand.trick_cards else NO_SEAT
        self._size = float(hand.rules.hand_size)
        self._shown = voids_shown_table(hand.rules)

    def end_hand(
        self, hand: HandState, done: Transition, scores: Sequence[int], bags: Sequence[int], game_rules: Rules
    ) -> None:
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
            cells[PLAYED_AT + base] = 1.0
            cells[_PRIV_HAND + base] = 0.0
            size = self._size
            if winner == NO_SEAT:
                trick_cards = hand.trick_cards
                trick, place, lead = hand.trick_index, len(trick_cards) - 1, trick_cards[0]
                cells[TRICK_AT + base] = 1.0
            else:  # the card completed the trick (now the hand's last): the table is cleared, the winner counts it
                trick, place, lead = hand.trick_index - 1, hand.num_players - 1, hand.last_trick[2][0]
                self._buf[_TRICK_BLOCK] = 0.0
                cells[TRICKS_AT + winner] = hand.tricks_won[winner] / size
            # The history blocks, with spades_broken as it was before this card.
            cells[PLAYED_TRICK_AT + action] = (trick + 1) / size
            if not place:
                cells[LED_AT + action] = 1.0
            shown = self._shown[not trick][not place][self._broken][CARD_SUIT[lead]][action]
            if shown:
                base = VOIDS_AT + seat * NUM_SUITS
                for suit in range(NUM_SUITS):
                    if shown >> suit & 1:
                        cells[base + suit] = 1.0
            if not self._broken and hand.spades_broken:
                cells[BROKEN_AT] = 1.0
                self._broken = True
        elif phase_before == _EXCHANGE_PHASE:
            # A pass moves a card between two seats; the private blocks are rewritten from the hand.
            _write_private_all(self._buf, hand)
        elif phase_before == _DRAW_PHASE:  # two players: a turn at the stock moves two cards and the offer
            _write_private_all(self._buf, hand)
            cells[STOCK_SIZE_AT] = stock_left(hand.draw_turn) / STOCK_SIZE
        else:  # a bid or a blind decision: it may also skip or cancel the partner's bid
            self._buf[_BIDS_BLOCK] = 0.0
            for s in range(hand.num_players):
                kind, value = hand.bid_kinds[s], hand.bid_values[s]
                cells[BIDS_AT + s * BID_FEATURES + int(kind)] = 1.0
                off = bid_offset(kind, value)
                if off is not None:
                    cells[BIDS_AT + s * BID_FEATURES + off] = 1.0
        phase = hand.phase
        if phase != self._phase:
            cells[PHASE_CELLS[self._phase]] = 0.0
            cells[PHASE_CELLS[phase]] = 1.0
            self._phase = int(phase)
        current = hand.current
        if current != self._to_act:
            if self._to_act != NO_SEAT:
                cells[TO_ACT_AT + self._to_act] = 0.0
            if current != NO_SEAT:
                cells[TO_ACT_AT + current] = 1.0
            self._to_act = current
        leader = hand.leader if hand.trick_cards else NO_SEAT
        if leader != self._leader:
            if self._leader != NO_SEAT:
                cells[LEADER_AT + self._leader] = 0.0
            if leader != NO_SEAT:
                cells[LEADER_AT + leader] = 1.0
            self._leader = leader

    def observe(self, hand: HandState, observer: int) -> np.ndarray:
        """A fresh observation array for ``observer``."""
        return self._buf.take(self._perms[observer][face_up(hand.looked[observer], True)])
