"""Observations of the batch engine: the pieces of :mod:`spades_env.batch.pieces` written for every table.

``encode`` writes float32 rows, ``encode_packed`` packed rows (``unpack_observations``
decodes them to exactly the float32 observation), ``full_state`` the state, and
``mask_out`` the int8 action masks. The trick history comes from
:mod:`spades_env.batch.history`; tests compare every row with the reference
encoder (:mod:`spades_env.obs.encode`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core.cards import NUM_CARDS, NUM_STANDARD_CARDS, NUM_SUITS
from ..core.drawing import STOCK_SIZE, discards_seen, stock_left
from ..core.ops import ARRAY
from ..core.visibility import face_up
from ..obs.features import THREE_PLAYERS
from ..obs.layout import BID_FEATURES, NUM_SLOTS, OBSERVATION, STATE
from .history import rebuild_history
from .pieces import (
    BID_TABLE,
    BIDS,
    BROKEN_AT,
    CARDS,
    DISCARDED_AT,
    DRAW_RULES_AT,
    DRAWING,
    DRAWING_AT,
    HEAD,
    HEAD_TABLE,
    KEPT_AT,
    LED,
    MID,
    MID_W,
    NO_SLOT,
    NUM_CARD_BLOCKS,
    OFFERED_AT,
    PACKED_LEADS,
    PACKED_SIZE,
    PLAYED_SLOTS,
    PLAYED_TRICK,
    ROW_BLOCK,
    SHORT_BOARDS,
    STOCK_AT,
    TAIL,
    THREE_AT,
    TRICK_SLOTS,
    TRICKS_AT,
    VOID_ROWS,
    VOIDS,
    card_view,
    packed_views,
    trick_floats,
)
from .tables import (
    BLIND,
    BOARDS_PER_SEAT,
    CODE,
    DRAW,
    HAND_B,
    MASK_BYTES,
    MAX_SEATS,
    NUM_ACTIONS,
    START_B,
    WON,
    WORD_BITS,
    unpack_cards,
)

if TYPE_CHECKING:
    from .params import RulesParams
    from .state import BatchTables


def _history_fields(t: BatchTables, observer: np.ndarray) -> np.ndarray:
    """The voids suit bitmasks by slot relative to the observer ((N, NUM_SLOTS), an empty slot reads 0)."""
    by_slot = t._perm["rot"].take(observer, axis=0)
    by_slot += (t._ar * MAX_SEATS)[:, None]
    return t._voids.ravel().take(by_slot)


def mid_rows(t: BatchTables, T: np.ndarray | slice) -> np.ndarray:
    """The MID floats by seat of the tables T ``(k, MID_W)``: tricks won this hand, then the scores and bags
    of each seat's side (they change only between hands); spades_broken is written when observed."""
    n = t.num_players
    scores = t.scores[T]
    mid = np.zeros((len(scores), MID_W), np.float32)
    mid[:, TRICKS_AT : TRICKS_AT + n] = t._seat[T, WON, :n] / t._size
    mid[:, t._mid_score_cols] = np.concatenate([scores, t.bags[T]], axis=1)[:, t._mid_source] / t._mid_div
    return mid


def sync_observed(t: BatchTables) -> None:
    """Before an observation of the raw engine: rebuild what only observations read (the trick history,
    the MID floats), which its steps do not write."""
    if t._live_history:
        return
    rebuild_history(t)
    t._mid[...] = mid_rows(t, slice(None))


def _gather_boards(t: BatchTables, observer: np.ndarray, visible: np.ndarray, boards: np.ndarray) -> None:
    """The card blocks as bitboards relative to the observer: hand, trick by slot, played by slot
    (start ^ hand), then passed and received when the rules have an exchange."""
    idx = t._perm["cards"].take(observer * 2 + visible, axis=0)
    idx += t._board_rows[:, None]
    gathered = t._sb.ravel().take(idx)
    trick_end = 1 + TRICK_SLOTS
    start = trick_end + 2
    boards[:, :trick_end] = gathered[:, :trick_end]
    np.bitwise_xor(
        gathered[:, start : start + PLAYED_SLOTS],
        gathered[:, start + PLAYED_SLOTS :],
        out=boards[:, trick_end:SHORT_BOARDS],
    )
    if boards.shape[1] > SHORT_BOARDS:
        boards[:, SHORT_BOARDS:] = gathered[:, trick_end:start]


def _fields(
    t: BatchTables, observer: np.ndarray, visible: np.ndarray, boards: np.ndarray, actor: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gather the card boards into ``boards``; return the head code, the bid codes by slot and the MID floats."""
    perm = t._perm
    _gather_boards(t, observer, visible, boards)
    o = observer
    n = t.num_players
    if actor:  # one lookup: to_act is slot 0, the dealer and the leader are relative to the seat to act
        code = perm["actor_head"].take(t.phase * (2 * n * n) + (t.dealer - t.cur) * n + t.trick_n + n * n)
    else:
        diff = perm["diff"]
        to_act = diff.take(t.cur * MAX_SEATS + o)
        # the trick's leader is the seat trick_n places before the seat to act
        leader = np.where(t.trick_n > 0, diff.take(((t.cur - t.trick_n) % n) * MAX_SEATS + o), NO_SLOT)
        slots = NUM_SLOTS + 1
        code = ((t.phase * slots + to_act) * NUM_SLOTS + diff.take(t.dealer * MAX_SEATS + o)) * slots + leader
    by_slot = perm["rot"].take(o, axis=0)
    by_slot += t._seat_rows[:, None]
    bid_codes = t._seat.ravel().take(by_slot + CODE * MAX_SEATS)
    # tricks_won, scores and bags by slot (an empty slot of a 3-player table reads zeros)
    mid = t._mid.ravel().take(perm["mid"].take(o, axis=0) + t._mid_rows[:, None])
    mid[:, BROKEN_AT] = t.broken
    return code, bid_codes, mid


def encode(
    t: BatchTables,
    out: np.ndarray,
    observer: np.ndarray,
    visible: np.ndarray,
    write_tail: bool,
    cards: np.ndarray | None = None,
    actor: bool = False,
) -> None:
    """Write the observation of ``observer`` at every table into ``out[:, :OBSERVATION.size]``.

    The gather indices are computed for every table at once; the rows are then written in blocks
    of ``ROW_BLOCK`` tables, so that each block of the output stays in cache while its pieces
    are written (one sweep per piece over the whole output was several times slower).
    """
    N = t.num_envs
    nb = t._num_boards
    sync_observed(t)
    boards = t._boards_buf if actor else np.empty((N, nb), np.uint64)
    code, bid_codes, mid = _fields(t, observer, visible, boards, actor)
    if cards is None:
        cards = card_view(out)
    voids = _history_fields(t, observer)
    floats = trick_floats(t.hand_size)
    tail = t._P.tail.take(t.rid, axis=0) if write_tail else None
    for start in range(0, N, ROW_BLOCK):
        rows = slice(start, min(start + ROW_BLOCK, N))
        block = out[rows]
        bits = np.unpackbits(boards[rows].view(np.uint8), bitorder="little").reshape(-1, nb, WORD_BITS)
        cards[rows, :nb] = bits[:, :, :NUM_CARDS]
        block[:, HEAD] = HEAD_TABLE.take(code[rows], axis=0)
        # taken straight into the rows (mode="clip": the codes are in range by construction, and the default
        # mode would buffer the result and copy it again)
        BID_TABLE.take(bid_codes[rows], axis=0, out=block[:, BIDS].reshape(-1, NUM_SLOTS, BID_FEATURES), mode="clip")
        block[:, MID] = mid[rows]
        if tail is not None:
            block[:, TAIL] = tail[rows]
        block[:, LED] = np.unpackbits(t._leads[rows].view(np.uint8), bitorder="little").reshape(-1, WORD_BITS)[
            :, :NUM_CARDS
        ]
        block[:, PLAYED_TRICK] = floats.take(t._card_trick[rows, :NUM_CARDS])
        block[:, VOIDS] = VOID_ROWS.take(voids[rows], axis=0).reshape(-1, NUM_SLOTS * NUM_SUITS)
    if t._drawing:
        write_drawing(t, out, observer)


def _discards_by_slot(t: BatchTables, observer: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The seat of each slot relative to the observer and that seat's discards, ``(N, num_players)`` each."""
    seats = t._perm["rot"].take(observer, axis=0)[:, : t.num_players]
    return seats, t._discards[t._ar[:, None], seats]


def _drawing_fields(t: BatchTables, observer: np.ndarray) -> tuple[np.ndarray, ...]:
    """Two players: what ``observer`` knows of the drawing at every table: whether it is on, the cards left in the
    stock, the card on offer to the observer (-1: none), the cards kept (the start board: every card drawn into
    the hand) and the discards of each slot the observer has seen (core.drawing), ``(N, num_players)``."""
    drawing = t.phase == DRAW
    offered = np.full(t.num_envs, -1, np.intp)
    offer = np.flatnonzero(drawing & (observer == t.cur))
    if len(offer):
        offered[offer] = t._stock[offer, 2 * t.draw_turn.take(offer)]
    kept = t._sb.ravel().take(t._board_rows + observer * BOARDS_PER_SEAT + START_B)
    seats, discards = _discards_by_slot(t, observer)
    seen = discards_seen(ARRAY, t._P.draw, observer[:, None], seats, discards)
    return drawing, stock_left(t.draw_turn), offered, kept, seen


def write_drawing(t: BatchTables, out: np.ndarray, observer: np.ndarray) -> None:
    """Two players: the drawing blocks of ``observer`` at every table (``obs.encode.write_drawing``): the drawing
    cell, the drawing rules, the stock's size, the card on offer, the cards kept and the discards seen."""
    N = t.num_envs
    drawing, left, offered, kept, seen = _drawing_fields(t, observer)
    piece = out[:, DRAWING]
    piece[...] = 0.0
    piece[:, DRAWING_AT] = drawing
    piece[:, DRAW_RULES_AT] = t._P.draw_tail
    piece[:, STOCK_AT] = left / STOCK_SIZE
    offer = np.flatnonzero(offered >= 0)
    piece[offer, OFFERED_AT + offered[offer]] = 1.0
    boards = np.concatenate([kept[:, None], seen], axis=1)
    cards = unpack_cards(boards).reshape(N, -1)
    piece[:, KEPT_AT : KEPT_AT + cards.shape[1]] = cards
    assert DISCARDED_AT == KEPT_AT + NUM_CARDS  # kept, then the discards by slot


def encode_packed(
    t: BatchTables, views: dict[str, np.ndarray], observer: np.ndarray, visible: np.ndarray, actor: bool = False
) -> None:
    """Write the packed observation of ``observer`` at every table into the fields ``views``."""
    sync_observed(t)
    # the boards are gathered straight into the packed rows
    code, bid_codes, mid = _fields(t, observer, visible, views["boards"][:, : t._num_boards], actor)
    views["mid"][...] = mid
    views["head"][...] = code
    views["bids"][...] = bid_codes
    if not t._uniform:
        views["rules"][...] = t.rid
    views["leads"][...] = t._leads
    views["tricks"][...] = t._card_trick[:, :NUM_CARDS]
    views["voids"][...] = _history_fields(t, observer)
    if t._drawing:
        drawing, left, offered, kept, seen = _drawing_fields(t, observer)
        views["draw"][...] = drawing
        views["stock"][...] = left
        views["offered"][...] = offered + 1
        views["kept"][...] = kept
        views["discards"][:, : seen.shape[1]] = seen


def unpack_observations(packed: np.ndarray, params: RulesParams, out: np.ndarray | None = None) -> np.ndarray:
    """The float32 observations ``(N, OBSERVATION.size)`` of packed rows (written into ``out`` when given)."""
    packed = np.ascontiguousarray(packed, dtype=np.uint8)
    if packed.ndim != 2 or packed.shape[1] != PACKED_SIZE:
        raise ValueError(f"packed observations must have shape (N, {PACKED_SIZE}), got {packed.shape}")
    N = packed.shape[0]
    if out is None:
        out = np.empty((N, OBSERVATION.size), np.float32)
    elif out.shape != (N, OBSERVATION.size) or out.dtype != np.float32:
        raise ValueError(f"out must be float32 of shape {(N, OBSERVATION.size)}, got {out.dtype} {out.shape}")
    v = packed_views(packed)
    bits = np.unpackbits(v["boards"].view(np.uint8), axis=1, bitorder="little").reshape(N, NUM_CARD_BLOCKS, WORD_BITS)
    out[:, CARDS] = bits[:, :, :NUM_CARDS].reshape(N, -1)
    out[:, HEAD] = HEAD_TABLE.take(v["head"].astype(np.intp), axis=0)
    out[:, BIDS] = BID_TABLE.take(v["bids"].astype(np.intp), axis=0).reshape(N, NUM_SLOTS * BID_FEATURES)
    out[:, MID] = v["mid"]
    tail_table = params.tail
    rid = v["rules"].astype(np.intp)
    out[:, TAIL] = tail_table.take(rid, axis=0)
    out[:, LED] = np.unpackbits(packed[:, PACKED_LEADS], axis=1, bitorder="little")[:, :NUM_CARDS]
    # the hand size of each row's rules (3 or 4 players), read from its rules block
    sizes = np.where(
        tail_table[:, THREE_AT] > 0.5, NUM_STANDARD_CARDS // THREE_PLAYERS, NUM_STANDARD_CARDS // NUM_SLOTS
    )
    out[:, PLAYED_TRICK] = (v["tricks"] / sizes.take(rid)[:, None]).astype(np.float32)
    out[:, VOIDS] = VOID_ROWS.take(v["voids"].astype(np.intp), axis=0).reshape(N, NUM_SLOTS * NUM_SUITS)
    _unpack_drawing(v, params.draw_tail, out[:, DRAWING])
    return out


def _unpack_drawing(v: dict[str, np.ndarray], draw_tail: np.ndarray, piece: np.ndarray) -> None:
    """The float32 drawing piece of packed rows' fields ``v`` (zeros with three or four players)."""
    N = piece.shape[0]
    piece[...] = 0.0
    piece[:, DRAWING_AT] = v["draw"]
    piece[:, DRAW_RULES_AT] = draw_tail
    piece[:, STOCK_AT] = v["stock"] / STOCK_SIZE
    offer = np.flatnonzero(v["offered"])
    piece[offer, OFFERED_AT + v["offered"][offer].astype(np.intp) - 1] = 1.0
    boards = np.concatenate([v["kept"][:, None], v["discards"]], axis=1)
    piece[:, KEPT_AT : KEPT_AT + boards.shape[1] * NUM_CARDS] = unpack_cards(boards).reshape(N, -1)


def observe_actors(t: BatchTables) -> np.ndarray:
    """Observations of the seat to act at every table, in the current output buffer (float32 or packed)."""
    out = t._obs_bufs[t._flip]
    # The seat to act has looked unless it is making a blind decision: its looked, read off the phase (the looked
    # plane of the state is derived in play, a dearer read).
    visible = face_up(t.phase != BLIND, True)
    if t.obs_format == "packed":
        encode_packed(t, t._packed_views[t._flip], t.cur, visible, actor=True)
        return out
    encode(t, out, t.cur, visible, write_tail=not t._uniform, cards=t._card_views[t._flip], actor=True)
    return out


def observe_seats(t: BatchTables, seats: np.ndarray) -> np.ndarray:
    """Fresh observations of the given seat at each table."""
    out = np.zeros((t.num_envs, OBSERVATION.size), np.float32)
    visible = face_up(t.looked[t._ar, seats], True)
    encode(t, out, seats, visible, write_tail=True)
    return out


def full_state(t: BatchTables) -> np.ndarray:
    """Full-information arrays relative to the seat to act (``encode_state``)."""
    N = t.num_envs
    out = np.zeros((N, STATE.size), np.float32)
    cur = t.cur
    encode(t, out, cur, np.ones(N, np.intp), write_tail=True)
    idx = t._board_rows[:, None] + t._perm["rot"][cur] * BOARDS_PER_SEAT + HAND_B
    hands = t._sb.ravel().take(idx)
    block = STATE.block("hands")
    out[:, block.slice].reshape(N, block.count, NUM_CARDS)[...] = unpack_cards(hands)
    out[:, STATE["set_aside"]] = unpack_cards(t._aside[:, None])[:, 0]
    if t._drawing:  # every discard, and each card left in the stock: its place from the top + 1, over 52
        discarded = unpack_cards(_discards_by_slot(t, cur)[1]).reshape(N, -1)
        start = OBSERVATION.start("discarded")
        out[:, start : start + discarded.shape[1]] = discarded
        place = np.arange(STOCK_SIZE) - 2 * t.draw_turn[:, None]  # from the top of what is left
        left = place >= 0
        rows = np.broadcast_to(t._ar[:, None], left.shape)[left]
        out[rows, STATE.start("stock") + t._stock[left]] = (place[left] + 1) / STOCK_SIZE
    return out


def mask_out(t: BatchTables) -> np.ndarray:
    """The int8 legal-action masks, in the current output buffer (also kept as bits for validation)."""
    bits = np.unpackbits(t._legal.view(np.uint8)[:, :MASK_BYTES], axis=1, count=NUM_ACTIONS, bitorder="little")
    t._mask_bits = bits
    out = t._mask_bufs[t._flip]
    np.copyto(out, bits.view(np.int8))
    return out
