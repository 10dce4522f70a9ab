"""The batch engine's cut of the observation layout: pieces, offsets, lookup tables, the packed format.

The observation is cut into six pieces, each a contiguous span of the layout
(:data:`spades_env.obs.layout.OBSERVATION`): ``HEAD`` (phase, to_act, dealer,
trick_leader: one row of a lookup table), ``bids`` (one lookup row per slot),
``MID`` (tricks_won, spades_broken, scores, bags: gathered by slot from a
per-table float array), ``TAIL`` (target_score and the rules block: constant per
rules id), ``CARDS`` (the card blocks, gathered as bitboards relative to the
observer and unpacked) and ``HISTORY`` (led, played_trick, voids: from the
per-table history arrays of ``spades_env.batch.history``, the voids gathered by
slot). The pieces are checked against the layout at import: a layout whose
blocks no longer fall into them raises ``LayoutError`` naming the piece, rather
than writing a wrong observation. Nothing here reads the tables' state; the
writers are in :mod:`spades_env.batch.encoding`.
"""

from __future__ import annotations

import functools

import numpy as np

from ..core.cards import NUM_CARDS, NUM_SUITS
from ..core.hand import Phase
from ..obs.features import bid_offset
from ..obs.layout import (
    BID_FEATURES,
    NUM_BID_KINDS,
    NUM_PHASES,
    NUM_SLOTS,
    OBSERVATION,
    RULE_FEATURES,
    LayoutError,
    ObservationLayout,
)
from .tables import (
    BOARDS_PER_SEAT,
    CODE_STRIDE,
    EMPTY_BOARD,
    HAND_B,
    MAX_SEATS,
    PASSED_B,
    RECEIVED_B,
    START_B,
    TRICK_B,
    ZERO_CODE,
)

NO_SLOT = NUM_SLOTS  # the "none" row of a one-hot: no seat to act, no trick leader


def check_piece(
    layout: ObservationLayout, first: str, last: str, names: tuple[str, ...], width: int | None = None
) -> slice:
    """The span first..last of ``layout``; a LayoutError unless it holds exactly the blocks ``names``
    (each ``width`` floats wide when given), the assumption the fast path is written on."""
    span = layout.span(first, last)
    inside = tuple(b.name for b in layout.blocks.values() if span.start <= b.start < span.stop)
    if inside != names:
        raise LayoutError(
            f"batch encoder: blocks {first}..{last} of layout {layout.name!r} are {inside}, "
            f"the fast path writes {names}"
        )
    if width is not None and any(layout.block(n).width != width for n in names):
        raise LayoutError(
            f"batch encoder: the blocks {names} of layout {layout.name!r} must each be {width} floats wide"
        )
    return span


def check_cover(layout: ObservationLayout, pieces: tuple[slice, ...]) -> None:
    """A LayoutError unless the pieces tile the whole of ``layout`` (no block is left unwritten)."""
    ordered = sorted(pieces, key=lambda s: s.start)
    tiles = [s.start for s in ordered[1:]] == [s.stop for s in ordered[:-1]]
    if not tiles or ordered[0].start != 0 or ordered[-1].stop != layout.size:
        raise LayoutError(
            f"batch encoder: layout {layout.name!r} has blocks outside the head, bids, mid, tail, "
            "card, history and drawing pieces"
        )


HEAD = check_piece(OBSERVATION, "phase", "trick_leader", ("phase", "to_act", "dealer", "trick_leader"))
BIDS = check_piece(OBSERVATION, "bids", "bids", ("bids",), width=BID_FEATURES)
MID = check_piece(OBSERVATION, "tricks_won", "bags", ("tricks_won", "spades_broken", "scores", "bags"))
TAIL = check_piece(OBSERVATION, "target_score", "rules", ("target_score", "rules"))
CARDS = check_piece(OBSERVATION, "hand", "received", ("hand", "trick", "played", "passed", "received"), width=NUM_CARDS)
HISTORY = check_piece(OBSERVATION, "led", "voids", ("led", "played_trick", "voids"))
DRAWING = check_piece(
    OBSERVATION, "drawing", "discarded", ("drawing", "drawing_rules", "stock_size", "offered", "kept", "discarded")
)
check_cover(OBSERVATION, (HEAD, BIDS, MID, TAIL, CARDS, HISTORY, DRAWING))
LED, PLAYED_TRICK, VOIDS = OBSERVATION["led"], OBSERVATION["played_trick"], OBSERVATION["voids"]
if OBSERVATION.block("voids").count != NUM_SLOTS or OBSERVATION.block("voids").width != NUM_SUITS:
    raise LayoutError("batch encoder: the voids block must hold one row of suits per slot")
MAX_TRICK_CODE = 255  # _card_trick is uint8: trick + 1
# VOID_ROWS[mask]: one slot's voids block for a suit bitmask
VOID_ROWS = ((np.arange(1 << NUM_SUITS)[:, None] >> np.arange(NUM_SUITS)) & 1).astype(np.float32)
THREE_AT = OBSERVATION.start("rules") - TAIL.start + [name for name, _ in RULE_FEATURES].index("three_players")
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
TRICK_SLOTS = OBSERVATION.block("trick").count
PLAYED_SLOTS = OBSERVATION.block("played").count
SHORT_BOARDS = 1 + TRICK_SLOTS + PLAYED_SLOTS  # without passed and received (rules without an exchange)
ROW_BLOCK = 512  # observation rows are written in blocks of this many tables (see encode)
HEAD_PHASES = len(Phase)  # rows of the head table by phase; DRAW (the last) sets no cell of the one-hot
DRAWING_AT = OBSERVATION.start("drawing") - DRAWING.start  # offsets inside the DRAWING piece
DRAW_RULES_AT = slice(
    OBSERVATION.start("drawing_rules") - DRAWING.start, OBSERVATION["drawing_rules"].stop - DRAWING.start
)
STOCK_AT = OBSERVATION.start("stock_size") - DRAWING.start
OFFERED_AT = OBSERVATION.start("offered") - DRAWING.start
KEPT_AT = OBSERVATION.start("kept") - DRAWING.start
DISCARDED_AT = OBSERVATION.start("discarded") - DRAWING.start


def _head_table() -> np.ndarray:
    """HEAD[((phase * 5 + to_act) * 4 + dealer) * 5 + leader]: the head floats (slot NO_SLOT = none)."""
    slots = NUM_SLOTS + 1
    out = np.zeros((HEAD_PHASES * slots * NUM_SLOTS * slots, HEAD.stop - HEAD.start), np.float32)
    for phase in range(HEAD_PHASES):
        for to_act in range(slots):
            for dealer in range(NUM_SLOTS):
                for leader in range(slots):
                    row = out[((phase * slots + to_act) * NUM_SLOTS + dealer) * slots + leader]
                    if phase < NUM_PHASES:
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


@functools.cache
def perm_tables(n: int) -> dict[str, np.ndarray]:
    """Gather tables by observer: seat of each slot, card boards, mid features, slot differences.

    ``cards[observer * 2 + visible]`` lists the boards: the observer's hand (or the empty board), the
    trick boards by slot, the observer's passed and received boards, then by slot the start boards
    and the hands (played = start ^ hand).
    """
    rot = np.array(
        [[(o + k) % n if k < n else MAX_SEATS - 1 for k in range(NUM_SLOTS)] for o in range(MAX_SEATS)], np.intp
    )
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
    actor_head = np.zeros(HEAD_PHASES * 2 * n * n, np.intp)
    for phase in range(HEAD_PHASES):
        for dd in range(-n + 1, n):
            for tn in range(n):
                leader = (-tn) % n if tn else NO_SLOT
                code = ((phase * slots + 0) * NUM_SLOTS + dd % n) * slots + leader  # to_act: slot 0
                actor_head[phase * 2 * n * n + (dd + n) * n + tn] = code
    return {"rot": rot, "cards": np.array(cards, np.intp), "mid": mid, "diff": diff, "actor_head": actor_head}


@functools.cache
def trick_floats(hand_size: int) -> np.ndarray:
    """TRICK_FLOATS[code]: the played_trick float of a _card_trick code (trick + 1) / hand size."""
    return (np.arange(MAX_TRICK_CODE + 1) / hand_size).astype(np.float32)


def card_view(out: np.ndarray) -> np.ndarray:
    """(rows, blocks, NUM_CARDS) view of the card blocks of observation rows."""
    view = out[:, CARDS].reshape(out.shape[0], NUM_CARD_BLOCKS, NUM_CARDS)
    if not np.shares_memory(view, out):
        raise LayoutError("batch encoder: the card blocks of an observation buffer are not a view")
    return view


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
#   [PACKED_VOIDS]   NUM_SLOTS uint8: per slot, the suit bitmask of its public voids;
#   [PACKED_KEPT]    uint64 (8-byte aligned): the drawing's kept board (two players; else 0);
#   [PACKED_DISCARDS] NUM_SLOTS uint64: per slot, the discards the observer has seen;
#   [PACKED_DRAW]    uint8: 1 during the drawing; [PACKED_STOCK] uint8: the cards left in the stock;
#   [PACKED_OFFERED] uint8: the card on offer to the observer + 1 (0: none). The drawing_rules block is the
#                    env's (constant: a rotation cannot mix player counts). Four- and three-player tables
#                    never write the drawing fields (they stay 0).
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
_KEPT_AT = -(-PACKED_VOIDS.stop // 8) * 8
PACKED_KEPT = slice(_KEPT_AT, _KEPT_AT + 8)
PACKED_DISCARDS = slice(PACKED_KEPT.stop, PACKED_KEPT.stop + 8 * NUM_SLOTS)
PACKED_DRAW = PACKED_DISCARDS.stop
PACKED_STOCK = PACKED_DRAW + 1
PACKED_OFFERED = PACKED_STOCK + 1
PACKED_SIZE = -(-(PACKED_OFFERED + 1) // 8) * 8  # rows padded to 8 bytes: every row's boards stay aligned
if HEAD_TABLE.shape[0] > 2**16 or BID_TABLE.shape[0] > 2**8:
    raise LayoutError("batch encoder: the head or bid codes no longer fit the packed observation's fields")


def packed_views(buf: np.ndarray) -> dict[str, np.ndarray]:
    """Typed views of the fields of packed rows ``(N, PACKED_SIZE)`` uint8 (they share its memory)."""
    return {
        "boards": buf[:, PACKED_BOARDS].view(np.uint64),
        "mid": buf[:, PACKED_MID].view(np.float32),
        "head": buf[:, PACKED_HEAD].view(np.uint16)[:, 0],
        "bids": buf[:, PACKED_BIDS],
        "rules": buf[:, PACKED_RULES],
        "leads": buf[:, PACKED_LEADS].view(np.uint64)[:, 0],
        "tricks": buf[:, PACKED_TRICKS],
        "voids": buf[:, PACKED_VOIDS],
        "kept": buf[:, PACKED_KEPT].view(np.uint64)[:, 0],
        "discards": buf[:, PACKED_DISCARDS].view(np.uint64),
        "draw": buf[:, PACKED_DRAW],
        "stock": buf[:, PACKED_STOCK],
        "offered": buf[:, PACKED_OFFERED],
    }
