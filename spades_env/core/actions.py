"""The one action space, constant across every variant.

=========  =====================  ===============================================
actions    name                   meaning
=========  =====================  ===============================================
0..51      ``2C`` .. ``AS``       play (or pass, in an exchange) a card:
                                  ``suit * 13 + rank``, suits C D H S, ranks 2..A
52         ``LJ``                 the Little Joker
53         ``BJ``                 the Big Joker
54..71     ``nil``, ``bid 1``..   bid n tricks (up to 17); bid 0 is Nil
72         ``blind nil``          bid Nil before looking at the cards
73         ``see cards``          look at the cards (declines every blind option)
74         ``10 for 200``         the partnership bids 10 for 200
75..87     ``blind 1`` .. ``13``  the partnership bids blind n (Barmore)
88         ``keep``               two players: keep the card on offer (the next
                                  card of the stock is discarded)
89         ``discard``            two players: discard the card on offer (the
                                  next card of the stock goes to the hand)
=========  =====================  ===============================================

``NUM_ACTIONS`` is 90 in every variant (88 before ``spades_v3``: the drawing
actions were appended, so every other action kept its id). Which actions are legal is decided only
by the legal-action mask of the hand state: a bitmask (bit ``a`` set = action
``a`` legal); :func:`mask_bytes` / :func:`mask_array` pack it as the int8 action
mask the environments return.
"""

from __future__ import annotations

import numpy as np

from .cards import CARD_NAMES, NUM_CARDS, CardError, parse_card
from .rules import TEN_FOR_200_TRICKS, quoted
from .scoring import BidKind

MAX_BID = 17  # 17 tricks in three-player cutthroat
CARD_ACTIONS = range(0, NUM_CARDS)
BID_OFFSET = NUM_CARDS  # 54
BID_ACTIONS = range(BID_OFFSET, BID_OFFSET + MAX_BID + 1)
BLIND_NIL = BID_OFFSET + MAX_BID + 1  # 72
SEE_CARDS = BLIND_NIL + 1  # 73
TEN_FOR_200 = SEE_CARDS + 1  # 74
BLIND_BID_OFFSET = TEN_FOR_200 + 1  # 75; action for blind n is BLIND_BID_OFFSET + n - 1
MAX_BLIND_BID = 13
BLIND_BID_ACTIONS = range(BLIND_BID_OFFSET, BLIND_BID_OFFSET + MAX_BLIND_BID)
KEEP = BLIND_BID_OFFSET + MAX_BLIND_BID  # 88
DISCARD = KEEP + 1  # 89
DRAW_ACTIONS = (KEEP, DISCARD)
NUM_ACTIONS = DISCARD + 1  # 90
NUM_ACTIONS_V2 = KEEP  # 88: the action space of spades_v2 and before (policy files of that time)
DRAW_MASK = (1 << KEEP) | (1 << DISCARD)  # the legal actions of a drawing turn

CARD_ACTION_MASK = (1 << NUM_CARDS) - 1  # bits of the card actions in a legal-action bitmask


class ActionError(ValueError):
    """An action id or name that is not in the action space."""


def card_action(card: str | int) -> int:
    """Action id playing a card, from its string (``"AS"``) or card id."""
    if isinstance(card, str):
        return parse_card(card)
    if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < NUM_CARDS:
        raise CardError(f"card id must be an int in 0..{NUM_CARDS - 1}, got {card!r}")
    return card


def bid_action(n: int) -> int:
    """Action id bidding n tricks (n=0 is Nil)."""
    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= MAX_BID:
        raise ActionError(f"a bid must be an int in 0..{MAX_BID}, got {n!r}")
    return BID_OFFSET + n


def blind_bid_action(n: int) -> int:
    """Action id of the Barmore blind bid of n tricks (1..13)."""
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_BLIND_BID:
        raise ActionError(f"a blind bid must be an int in 1..{MAX_BLIND_BID}, got {n!r}")
    return BLIND_BID_OFFSET + n - 1


def is_card_action(action: int) -> bool:
    """Whether the action plays or passes a card."""
    return 0 <= action < NUM_CARDS


def bid_value(action: int) -> int:
    """Tricks bid by a bid action (``bid n``)."""
    return action - BID_OFFSET


def blind_bid_value(action: int) -> int:
    """Tricks of a blind bid action."""
    return action - BLIND_BID_OFFSET + 1


def _bid_action_tables() -> tuple[tuple[int, ...], tuple[int, ...]]:
    kind = [int(BidKind.NONE)] * NUM_ACTIONS
    value = [0] * NUM_ACTIONS
    for n in range(MAX_BID + 1):
        kind[BID_OFFSET + n], value[BID_OFFSET + n] = (int(BidKind.NUMBER), n) if n else (int(BidKind.NIL), 0)
    kind[BLIND_NIL] = int(BidKind.BLIND_NIL)
    kind[TEN_FOR_200], value[TEN_FOR_200] = int(BidKind.TEN_FOR_200), TEN_FOR_200_TRICKS
    for n in range(1, MAX_BLIND_BID + 1):
        kind[blind_bid_action(n)], value[blind_bid_action(n)] = int(BidKind.BLIND), n
    return tuple(kind), tuple(value)


# The bid kind and value each bidding action records for the bidder (NONE, 0 for the other actions);
# read by the core's HandState and by the batch engine.
BID_ACTION_KIND, BID_ACTION_VALUE = _bid_action_tables()


def bid_range_mask(low: int, high: int) -> int:
    """Legal-action bitmask of the number bids ``low..high`` (0 when ``high < low``)."""
    return _BID_RANGE_MASKS[low][high + 1]


def blind_bid_range_mask(low: int, high: int) -> int:
    """Legal-action bitmask of the blind bids ``low..high`` (0 when ``high < low``)."""
    return sum(1 << blind_bid_action(n) for n in range(low, high + 1))


_BID_RANGE_MASKS = tuple(
    tuple(sum(1 << (BID_OFFSET + n) for n in range(low, high + 1)) for high in range(-1, MAX_BID + 1))
    for low in range(MAX_BID + 1)
)


def _build_action_names() -> tuple[str, ...]:
    names = list(CARD_NAMES)
    names += ["nil"] + [f"bid {n}" for n in range(1, MAX_BID + 1)]
    names += ["blind nil", "see cards", "10 for 200"]
    names += [f"blind {n}" for n in range(1, MAX_BLIND_BID + 1)]
    names += ["keep", "discard"]
    assert len(names) == NUM_ACTIONS
    return tuple(names)


ACTION_NAMES = _build_action_names()


def action_name(action: int) -> str:
    """Readable name of an action id (``"AS"``, ``"nil"``, ``"bid 4"``, ``"blind nil"``)."""
    if isinstance(action, np.integer):
        action = int(action)
    if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < NUM_ACTIONS:
        # floats, strings and the like are no action ids, even when int() would accept them
        raise ActionError(f"action must be an int in 0..{NUM_ACTIONS - 1}, got {quoted(action)}")
    return ACTION_NAMES[action]


def action_names(mask: int) -> list[str]:
    """Names of the actions set in a legal-action bitmask."""
    out = []
    action = 0
    while mask:
        if mask & 1:
            out.append(ACTION_NAMES[action])
        mask >>= 1
        action += 1
    return out


_NAME_TO_ACTION = {name: a for a, name in enumerate(ACTION_NAMES)}


def parse_action(name: str) -> int:
    """Action id of an action name (``"AS"``, ``"10D"``, ``"nil"``, ``"bid 4"``, ``"blind 7"``, ``"keep"``)."""
    if isinstance(name, str):
        key = " ".join(name.strip().lower().split())
        if key in _NAME_TO_ACTION:
            return _NAME_TO_ACTION[key]
        try:
            return parse_card(name)
        except CardError:
            pass
    raise ActionError(
        f"unknown action name {name!r}; examples: 'AS', '10D', 'nil', 'bid 4', 'blind nil', 'see cards', '10 for 200', 'blind 7', 'keep', 'discard'"
    )


# ------------------------------------------------------------------ mask packing
MASK_BYTES_CACHE: dict[int, bytes] = {}  # legal bitmask -> its mask as 90 bytes 0/1 (filled by mask_bytes)
_MASK_CACHE_LIMIT = 50_000  # bid, follow-suit and many lead masks repeat across hands; ~9 MB at the limit
# A mask is built from its bitmask in chunks of 11 bits, each looked up as its bits (one byte 0/1 each, a
# 2,048-entry table) and joined: a few big-integer shifts and one join, no per-bit Python loop. Eight chunks
# hold actions 0..87; the drawing actions 88 and 89 take a ninth, cut to its first two bytes.
_CHUNK_BITS = 11
_CHUNK = (1 << _CHUNK_BITS) - 1
_CHUNK_TABLE = tuple(bytes((value >> bit) & 1 for bit in range(_CHUNK_BITS)) for value in range(1 << _CHUNK_BITS))
# mask_bytes spells the shifts as literals (a module constant would cost a global read each); they are these:
assert tuple(range(0, NUM_ACTIONS, _CHUNK_BITS)) == (0, 11, 22, 33, 44, 55, 66, 77, 88)  # nine chunks, every action
_LAST_CHUNK = tuple(bits[: NUM_ACTIONS - 88] for bits in _CHUNK_TABLE[: 1 << (NUM_ACTIONS - 88)])  # actions 88, 89


def mask_bytes(legal: int) -> bytes:
    """The action mask of a legal-action bitmask as 90 bytes, each 0 or 1 (cached)."""
    bits = MASK_BYTES_CACHE.get(legal)
    if bits is None:
        t, c = _CHUNK_TABLE, _CHUNK
        bits = b"".join(
            (
                t[legal & c],
                t[legal >> 11 & c],
                t[legal >> 22 & c],
                t[legal >> 33 & c],
                t[legal >> 44 & c],
                t[legal >> 55 & c],
                t[legal >> 66 & c],
                t[legal >> 77 & c],
                _LAST_CHUNK[legal >> 88 & 3],
            )
        )
        if len(MASK_BYTES_CACHE) >= _MASK_CACHE_LIMIT:
            MASK_BYTES_CACHE.clear()
        MASK_BYTES_CACHE[legal] = bits
    return bits


def mask_array(legal: int) -> np.ndarray:
    """A fresh, writable int8 action mask (length 90) of a legal-action bitmask."""
    return np.frombuffer(bytearray(mask_bytes(legal)), dtype=np.int8)
