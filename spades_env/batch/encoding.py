"""Observations of the batch engine, written through ``spades_env.layout``.

The observation is cut into six pieces, each a contiguous span of the layout:
``HEAD`` (phase, to_act, dealer, trick_leader: one row of a lookup table),
``bids`` (one lookup row per slot), ``MID`` (tricks_won, spades_broken,
scores, bags: gathered by slot from a per-table float array), ``TAIL``
(target_score and the rules block: constant per rules id) and ``CARDS`` (the
card blocks, gathered as bitboards relative to the observer and unpacked) and
``HISTORY`` (led, played_trick, voids: from the per-table history arrays of
``spades_env.batch.history``, the voids gathered by slot).
The pieces are checked against the layout at import: a layout whose blocks no
longer fall into them raises ``LayoutError`` naming the piece, rather than
writing a wrong observation.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

from ..core.cards import NUM_CARDS, NUM_STANDARD_CARDS, NUM_SUITS
from ..obs.features import THREE_PLAYERS, bid_offset
from ..obs.layout import BID_FEATURES, LayoutError, NUM_BID_KINDS, NUM_PHASES, NUM_SLOTS, OBSERVATION, ObservationLayout, RULE_FEATURES, STATE
from .history import rebuild_history
from .tables import (
    BLIND,
    BOARDS_PER_SEAT,
    CODE,
    CODE_STRIDE,
    EMPTY_BOARD,
    HAND_B,
    MASK_BYTES,
    MAX_SEATS,
    PASSED_B,
    RECEIVED_B,
    START_B,
    TRICK_B,
    WON,
    WORD_BITS,
    ZERO_CODE,
    unpack_cards,
)

if TYPE_CHECKING:
    from .state import BatchTables

NO_SLOT = NUM_SLOTS  # the "none" row of a one-hot: no seat to act, no trick leader


def check_piece(layout: ObservationLayout, first: str, last: str, names: tuple[str, ...],
                width: int | None = None) -> slice:
    """The span first..last of ``layout``; a LayoutError unless it holds exactly the blocks ``names``
    (each ``width`` floats wide when given), the assumption the fast path is written on."""
    span = layout.span(first, last)
    inside = tuple(b.name for b in layout.blocks.values() if span.start <= b.start < span.stop)
    if inside != names:
        raise LayoutError(f"batch encoder: blocks {first}..{last} of layout {layout.name!r} are {inside}, "
                          f"the fast path writes {names}")
    if width is not None and any(layout.block(n).width != width for n in names):
        raise LayoutError(f"batch encoder: the blocks {names} of layout {layout.name!r} must each be {width} "
                          "floats wide")
    return span


def check_cover(layout: ObservationLayout, pieces: tuple[slice, ...]) -> None:
    """A LayoutError unless the pieces tile the whole of ``layout`` (no block is left unwritten)."""
    ordered = sorted(pieces, key=lambda s: s.start)
    tiles = [s.start for s in ordered[1:]] == [s.stop for s in ordered[:-1]]
    if not tiles or ordered[0].start != 0 or ordered[-1].stop != layout.size:
        raise LayoutError(f"batch encoder: layout {layout.name!r} has blocks outside the head, bids, mid, tail, "
                          "card and history pieces")


HEAD = check_piece(OBSERVATION, "phase", "trick_leader", ("phase", "to_act", "dealer", "trick_leader"))
BIDS = check_piece(OBSERVATION, "bids", "bids", ("bids",), width=BID_FEATURES)
MID = check_piece(OBSERVATION, "tricks_won", "bags", ("tricks_won", "spades_broken", "scores", "bags"))
TAIL = check_piece(OBSERVATION, "target_score", "rules", ("target_score", "rules"))
CARDS = check_piece(OBSERVATION, "hand", "received", ("hand", "trick", "played", "passed", "received"),
                    width=NUM_CARDS)
HISTORY = check_piece(OBSERVATION, "led", "voids", ("led", "played_trick", "voids"))
check_cover(OBSERVATION, (HEAD, BIDS, MID, TAIL, CARDS, HISTORY))
LED, PLAYED_TRICK, VOIDS = OBSERVATION["led"], OBSERVATION["played_trick"], OBSERVATION["voids"]
if OBSERVATION.block("voids").count != NUM_SLOTS or OBSERVATION.block("voids").width != NUM_SUITS:
    raise LayoutError("batch encoder: the voids block must hold one row of suits per slot")
MAX_TRICK_CODE = 255  # _card_trick is uint8: trick + 1
# VOID_ROWS[mask]: one slot's voids block for a suit bitmask
VOID_ROWS = ((np.arange(1 << NUM_SUITS)[:, None] >> np.arange(NUM_SUITS)) & 1).astype(np.float32)
_THREE_AT = OBSERVATION.start("rules") - TAIL.start + [name for name, _ in RULE_FEATURES].index("three_players")
NUM_CARD_BLOCKS = (CARDS.stop - CARDS.start) // NUM_CARDS
if OBSERVATION.block("bids").count != NUM_SLOTS:
    raise LayoutError("batch encoder: the bids block must hold one row of bid features per slot")

# Offsets inside MID, by feature.
MID_W = MID.stop - MID.start
TRICKS_AT = OBSERVATION.start("tricks_won") - MID.start
BROKEN_AT = OBSERVATION.start("spades_broken") - MID.start
SCORES_AT = OBSERVATION.start("scores") - MID.start
BAGS_AT = OBSERVATION.start("bags") - MID.start
# Boards gathered per observer: hand, trick by slot, passed, received, start by slot, hand by slot.
_TRICK_SLOTS = OBSERVATION.block("trick").count
_PLAYED_SLOTS = OBSERVATION.block("played").count
SHORT_BOARDS = 1 + _TRICK_SLOTS + _PLAYED_SLOTS  # without passed and received (rules without an exchange)
ROW_BLOCK = 512  # observation rows are written in blocks of this many tables (see encode)


def _head_table() -> np.ndarray:
    """HEAD[((phase * 5 + to_act) * 4 + dealer) * 5 + leader]: the head floats (slot NO_SLOT = none)."""
    slots = NUM_SLOTS + 1
    out = np.zeros((NUM_PHASES * slots * NUM_SLOTS * slots, HEAD.stop - HEAD.start), np.float32)
    for phase in range(NUM_PHASES):
        for to_act in range(slots):
            for dealer in range(NUM_SLOTS):
                for leader in range(slots):
                    row = out[((phase * slots + to_act) * NUM_SLOTS + dealer) * slots + leader]
                    row[OBSERVATION.start("phase") - HEAD.start + phase] = 1.0
                    if to_act < NUM_SLOTS:
                        row[OBSERVATION.start("to_act") - HEAD.start + to_act] = 1.0
                    row[OBSERVATION.start("dealer") - HEAD.start + dealer] = 1.0
                    if leader < NUM_SLOTS:
                        row[OBSERVATION.start("trick_leader") - HEAD.start + leader] = 1.0
    return out


def _bid_table() -> np.ndarray:
    """BIDS[kind * CODE_STRIDE + value]: one slot's bid features (``bid_offset``); row ZERO_CODE is zeros."""
    out = np.zeros((ZERO_CODE + 1, BID_FEATURES), np.float32)
    for kind in range(NUM_BID_KINDS):
        for value in range(CODE_STRIDE):
            row = out[kind * CODE_STRIDE + value]
            row[kind] = 1.0
            off = bid_offset(kind, value)
            if off is not None:
                row[off] = 1.0
    return out


HEAD_TABLE = _head_table()
BID_TABLE = _bid_table()


@functools.lru_cache(maxsize=None)
def perm_tables(n: int) -> dict[str, np.ndarray]:
    """Gather tables by observer: seat of each slot, card boards, mid features, slot differences.

    ``cards[observer * 2 + visible]`` lists the boards: the observer's hand (or the empty board), the
    trick boards by slot, the observer's passed and received boards, then by slot the start boards
    and the hands (played = start ^ hand).
    """
    rot = np.array([[(o + k) % n if k < n else MAX_SEATS - 1 for k in range(NUM_SLOTS)] for o in range(MAX_SEATS)],
                   np.intp)
    cards = []
    mid = np.zeros((MAX_SEATS, MID_W), np.intp)
    for o in range(MAX_SEATS):
        r = rot[o]
        for visible in (0, 1):  # row o * 2 + visible
            row = [o * BOARDS_PER_SEAT + HAND_B if visible else EMPTY_BOARD] + list(r * BOARDS_PER_SEAT + TRICK_B)
            row += [o * BOARDS_PER_SEAT + PASSED_B, o * BOARDS_PER_SEAT + RECEIVED_B]
            row += list(r * BOARDS_PER_SEAT + START_B) + list(r * BOARDS_PER_SEAT + HAND_B)
            cards.append(row)
        mid[o] = list(TRICKS_AT + r) + [BROKEN_AT] + list(SCORES_AT + r) + list(BAGS_AT + r)
    # diff[a * MAX_SEATS + b]: the slot of seat a seen by seat b
    diff = np.array([(a - b) % n for a in range(MAX_SEATS) for b in range(MAX_SEATS)], np.intp)
    # actor_head[phase * 2n^2 + (dealer - cur + n) * n + trick_n]: the head code seen by the seat to act
    # (to_act is slot 0; the leader sits trick_n places before it)
    slots = NUM_SLOTS + 1
    actor_head = np.zeros(NUM_PHASES * 2 * n * n, np.intp)
    for phase in range(NUM_PHASES):
        for dd in range(-n + 1, n):
            for tn in range(n):
                leader = (-tn) % n if tn else NO_SLOT
                code = ((phase * slots + 0) * NUM_SLOTS + dd % n) * slots + leader  # to_act: slot 0
                actor_head[phase * 2 * n * n + (dd + n) * n + tn] = code
    return {"rot": rot, "cards": np.array(cards, np.intp), "mid": mid, "diff": diff,
            "actor_head": actor_head}


@functools.lru_cache(maxsize=None)
def trick_floats(hand_size: int) -> np.ndarray:
    """TRICK_FLOATS[code]: the played_trick float of a _card_trick code (trick + 1) / hand size."""
    return (np.arange(MAX_TRICK_CODE + 1) / hand_size).astype(np.float32)


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
    mid[:, TRICKS_AT:TRICKS_AT + n] = t._seat[T, WON, :n] / t._size
    mid[:, t._mid_score_cols] = np.concatenate([scores, t.bags[T]], axis=1)[:, t._mid_source] / t._mid_div
    return mid


def sync_observed(t: BatchTables) -> None:
    """Before an observation of the raw engine: rebuild what only observations read (the trick history,
    the MID floats), which its steps do not write."""
    if t._live_history:
        return
    rebuild_history(t)
    t._mid[...] = mid_rows(t, slice(None))


def card_view(out: np.ndarray) -> np.ndarray:
    """(rows, blocks, NUM_CARDS) view of the card blocks of observation rows."""
    view = out[:, CARDS].reshape(out.shape[0], NUM_CARD_BLOCKS, NUM_CARDS)
    if not np.shares_memory(view, out):
        raise LayoutError("batch encoder: the card blocks of an observation buffer are not a view")
    return view


def _gather_boards(t: BatchTables, observer: np.ndarray, visible: np.ndarray, boards: np.ndarray) -> None:
    """The card blocks as bitboards relative to the observer: hand, trick by slot, played by slot
    (start ^ hand), then passed and received when the rules have an exchange."""
    idx = t._perm["cards"].take(observer * 2 + visible, axis=0)
    idx += t._base21[:, None]
    gathered = t._sb.ravel().take(idx)
    trick_end = 1 + _TRICK_SLOTS
    start = trick_end + 2
    boards[:, :trick_end] = gathered[:, :trick_end]
    np.bitwise_xor(gathered[:, start:start + _PLAYED_SLOTS], gathered[:, start + _PLAYED_SLOTS:],
                   out=boards[:, trick_end:SHORT_BOARDS])
    if boards.shape[1] > SHORT_BOARDS:
        boards[:, SHORT_BOARDS:] = gathered[:, trick_end:start]


def _fields(t: BatchTables, observer: np.ndarray, visible: np.ndarray, boards: np.ndarray,
            actor: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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
    by_slot += t._base20[:, None]
    bid_codes = t._seat.ravel().take(by_slot + CODE * MAX_SEATS)
    # tricks_won, scores and bags by slot (an empty slot of a 3-player table reads zeros)
    mid = t._mid.ravel().take(perm["mid"].take(o, axis=0) + t._base13[:, None])
    mid[:, BROKEN_AT] = t.broken
    return code, bid_codes, mid


def encode(t: BatchTables, out: np.ndarray, observer: np.ndarray, visible: np.ndarray, write_tail: bool,
           cards: np.ndarray | None = None, actor: bool = False) -> None:
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
        block[:, BIDS] = BID_TABLE.take(bid_codes[rows], axis=0).reshape(-1, NUM_SLOTS * BID_FEATURES)
        block[:, MID] = mid[rows]
        if tail is not None:
            block[:, TAIL] = tail[rows]
        block[:, LED] = np.unpackbits(t._leads[rows].view(np.uint8), bitorder="little").reshape(-1, WORD_BITS)[
            :, :NUM_CARDS]
        block[:, PLAYED_TRICK] = floats.take(t._card_trick[rows, :NUM_CARDS])
        block[:, VOIDS] = VOID_ROWS.take(voids[rows], axis=0).reshape(-1, NUM_SLOTS * NUM_SUITS)


# ------------------------------------------------------------ packed observations
# obs_format="packed": one uint8 row of PACKED_SIZE bytes per table that decodes to exactly the float32
# observation (``unpack_observations``). Little-endian fields, each aligned to its size:
#   [PACKED_BOARDS]  NUM_CARD_BLOCKS uint64 card boards in the order of the card blocks (hand, trick by
#                    slot, played by slot, passed, received); bit c is card c;
#   [PACKED_MID]     MID_W float32: the MID piece (tricks_won, spades_broken, scores, bags) as written;
#   [PACKED_HEAD]    uint16: the row of HEAD_TABLE (phase, to_act, dealer, trick_leader);
#   [PACKED_BIDS]    NUM_SLOTS uint8: rows of BID_TABLE, one per slot;
#   [PACKED_RULES]   uint8: the rules id (row of the env's tail table: target_score and the rules block);
#   [PACKED_LEADS]   uint64: the led board (bit c: card c led its trick);
#   [PACKED_TRICKS]  NUM_CARDS uint8: per card, its trick + 1 (0: not played; divided by the hand size of the
#                    rules id's rules block when unpacked);
#   [PACKED_VOIDS]   NUM_SLOTS uint8: per slot, the suit bitmask of its public voids.
# The float32 form writes 4 * OBSERVATION.size bytes per table and unpacks every card bit; the packed
# form writes the gathered boards and codes as they are (the decoding can run later, or on a GPU).
OBS_FORMATS = ("float32", "packed")
_BOARD_BYTES = NUM_CARD_BLOCKS * 8
PACKED_BOARDS = slice(0, _BOARD_BYTES)
PACKED_MID = slice(_BOARD_BYTES, _BOARD_BYTES + 4 * MID_W)
PACKED_HEAD = slice(PACKED_MID.stop, PACKED_MID.stop + 2)
PACKED_BIDS = slice(PACKED_HEAD.stop, PACKED_HEAD.stop + NUM_SLOTS)
PACKED_RULES = PACKED_BIDS.stop
PACKED_LEADS = slice(-(-(PACKED_RULES + 1) // 8) * 8, -(-(PACKED_RULES + 1) // 8) * 8 + 8)  # 8-byte aligned
PACKED_TRICKS = slice(PACKED_LEADS.stop, PACKED_LEADS.stop + NUM_CARDS)
PACKED_VOIDS = slice(PACKED_TRICKS.stop, PACKED_TRICKS.stop + NUM_SLOTS)
PACKED_SIZE = -(-PACKED_VOIDS.stop // 8) * 8  # rows padded to 8 bytes: every row's boards stay aligned
if HEAD_TABLE.shape[0] > 2 ** 16 or BID_TABLE.shape[0] > 2 ** 8:
    raise LayoutError("batch encoder: the head or bid codes no longer fit the packed observation's fields")


def packed_views(buf: np.ndarray) -> dict[str, np.ndarray]:
    """Typed views of the fields of packed rows ``(N, PACKED_SIZE)`` uint8 (they share its memory)."""
    return {"boards": buf[:, PACKED_BOARDS].view(np.uint64), "mid": buf[:, PACKED_MID].view(np.float32),
            "head": buf[:, PACKED_HEAD].view(np.uint16)[:, 0], "bids": buf[:, PACKED_BIDS],
            "rules": buf[:, PACKED_RULES], "leads": buf[:, PACKED_LEADS].view(np.uint64)[:, 0],
            "tricks": buf[:, PACKED_TRICKS], "voids": buf[:, PACKED_VOIDS]}


def encode_packed(t: BatchTables, views: dict[str, np.ndarray], observer: np.ndarray, visible: np.ndarray,
                  actor: bool = False) -> None:
    """Write the packed observation of ``observer`` at every table into the fields ``views``."""
    sync_observed(t)
    # the boards are gathered straight into the packed rows
    code, bid_codes, mid = _fields(t, observer, visible, views["boards"][:, :t._num_boards], actor)
    views["mid"][...] = mid
    views["head"][...] = code
    views["bids"][...] = bid_codes
    if not t._uniform:
        views["rules"][...] = t.rid
    views["leads"][...] = t._leads
    views["tricks"][...] = t._card_trick[:, :NUM_CARDS]
    views["voids"][...] = _history_fields(t, observer)


def unpack_observations(packed: np.ndarray, tail_table: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
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
    bits = np.unpackbits(v["boards"].view(np.uint8), axis=1, bitorder="little").reshape(N, NUM_CARD_BLOCKS,
                                                                                         WORD_BITS)
    out[:, CARDS] = bits[:, :, :NUM_CARDS].reshape(N, -1)
    out[:, HEAD] = HEAD_TABLE.take(v["head"].astype(np.intp), axis=0)
    out[:, BIDS] = BID_TABLE.take(v["bids"].astype(np.intp), axis=0).reshape(N, NUM_SLOTS * BID_FEATURES)
    out[:, MID] = v["mid"]
    rid = v["rules"].astype(np.intp)
    out[:, TAIL] = tail_table.take(rid, axis=0)
    out[:, LED] = np.unpackbits(packed[:, PACKED_LEADS], axis=1, bitorder="little")[:, :NUM_CARDS]
    # the hand size of each row's rules (3 or 4 players), read from its rules block
    sizes = np.where(tail_table[:, _THREE_AT] > 0.5, NUM_STANDARD_CARDS // THREE_PLAYERS,
                     NUM_STANDARD_CARDS // NUM_SLOTS)
    out[:, PLAYED_TRICK] = (v["tricks"] / sizes.take(rid)[:, None]).astype(np.float32)
    out[:, VOIDS] = VOID_ROWS.take(v["voids"].astype(np.intp), axis=0).reshape(N, NUM_SLOTS * NUM_SUITS)
    return out


def observe_actors(t: BatchTables) -> np.ndarray:
    """Observations of the seat to act at every table, in the current output buffer (float32 or packed)."""
    out = t._obs_bufs[t._flip]
    visible = t.phase != BLIND  # the seat to act has looked unless it is making a blind decision
    if t.obs_format == "packed":
        encode_packed(t, t._packed_views[t._flip], t.cur, visible, actor=True)
        return out
    encode(t, out, t.cur, visible, write_tail=not t._uniform, cards=t._card_views[t._flip], actor=True)
    return out


def observe_seats(t: BatchTables, seats: np.ndarray) -> np.ndarray:
    """Fresh observations of the given seat at each table."""
    out = np.zeros((t.num_envs, OBSERVATION.size), np.float32)
    visible = t.looked[t._ar, seats]
    encode(t, out, seats, visible, write_tail=True)
    return out


def full_state(t: BatchTables) -> np.ndarray:
    """Full-information arrays relative to the seat to act (``encode_state``)."""
    N = t.num_envs
    out = np.zeros((N, STATE.size), np.float32)
    cur = t.cur
    encode(t, out, cur, np.ones(N, np.intp), write_tail=True)
    idx = t._base21[:, None] + t._perm["rot"][cur] * BOARDS_PER_SEAT + HAND_B
    hands = t._sb.ravel().take(idx)
    block = STATE.block("hands")
    out[:, block.slice].reshape(N, block.count, NUM_CARDS)[...] = unpack_cards(hands)
    out[:, STATE["set_aside"]] = unpack_cards(t._aside[:, None])[:, 0]
    return out


def mask_out(t: BatchTables) -> np.ndarray:
    """The int8 legal-action masks, in the current output buffer (also kept as bits for validation)."""
    # the bytes that hold actions unpack to exactly NUM_ACTIONS bits a row (no count to trim)
    bits = np.unpackbits(t._legal.view(np.uint8)[:, :MASK_BYTES], axis=1, bitorder="little")
    t._mask_bits = bits
    out = t._mask_bufs[t._flip]
    np.copyto(out, bits.view(np.int8))
    return out
