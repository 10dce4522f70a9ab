"""The shared table view of the heuristic: card tables, the :class:`Table` and the odds at a trick.

* Card tables (:data:`TABLES`, per trump order): each card's power in its
  suit and trump key (the core's trick-winning keys), the same-suit cards
  above it, the trumps high to low; :data:`TRUMPS_DESC` per pack.
* :class:`Table`: everything the play logic reads at one decision (seats,
  the agent's hand and legal cards, the trick, bids, tricks, cards gone,
  known voids, bags carried in), with seat numbers either real seats or
  observation slots (the agent is then slot 0).
* Contract bookkeeping: :func:`side_need` (tricks the side still needs,
  through the core's counted tricks) and :func:`nil_alive`.
* Odds: the chance that a later player can beat a card
  (:func:`beat_prob`, from the unseen cards, hand sizes and known voids),
  the chance that a card holds (:func:`p_hold`), and small trick readers
  (:func:`trick_state`, :func:`split_winners`, :func:`later_seats`,
  :func:`beaters`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

from ...core.cards import (
    ALL_CARDS_MASK,
    CARD_SUIT,
    NUM_CARDS,
    NUM_RANKS,
    NUM_STANDARD_CARDS,
    NUM_SUITS,
    RANK_CHARS,
    SPADE_MASK,
    SUIT_MASKS,
    TRUMP,
    Suit,
    cards_of,
)
from ...core.hand import best_of_trick, win_keys
from ...core.rules import Rules
from ...core.scoring import NIL_KINDS, SIDE_CONTRACT_KINDS, BidKind, counted_tricks
from ..knowledge import PACK_MASK

ALL_SUITS = tuple(range(NUM_SUITS))
SIDE_SUITS = tuple(int(s) for s in Suit if s != TRUMP)  # clubs, diamonds, hearts
# Powers of the side-suit honours (a card's power is its rank index; jokers and a high deuce rank above the ace).
QUEEN, KING, ACE = (RANK_CHARS.index(r) for r in "QKA")
NO_PARTNER = -1  # Table.partner in cutthroat
NO_CARD = -1
MAX_POWER = 99  # above every card's power: the start of a search for the lowest
NUMBER_BID = BidKind.NUMBER
BAG_PRESSURE_MARGIN = 3  # bags this close to the limit make overtricks costly (play ducks, bids go up)


# ----------------------------------------------------------------------- style
@dataclass(frozen=True)
class Style:
    """Which behaviours of the stronger heuristic are on; ``Style()`` (the defaults) is the classic heuristic."""

    bag_ducking: bool = False  # duck once the side's contract is made, unless an opponent side can be set
    strict_blind_nil: bool = False  # blind nil only when the leader is about to win and far ahead
    set_slack: int = 2  # an opponent side can be set when it may lose at most this many of the tricks left
    score_aware: bool = False  # set at any cost an opponent side that would win the game by making its contract
    nil_cover: bool = False  # covering a nil: keep high cards when the trick is already above the partner
    underbid_raise: bool = False  # bid one more when the table's bids leave several tricks to spare
    bold_nil: bool = False  # bid nil on a higher estimated risk (a made nil outscores the number bid it replaces)
    nil_defence: bool = False  # attacking a nil: lead away from the coverer's ruffs, discard high and keep low cards
    fitted_nil: bool = False  # nil risk from the fitted model (nil_model), where it applies to the rules
    seen_discards: bool = False  # two players: the discards it has seen are out of play (drawing and play)
    two_player_bids: bool = False  # two players: bids from the fitted two-player model, nil only when very safe

    def __post_init__(self) -> None:
        for f in fields(self):
            value, kind = getattr(self, f.name), type(f.default)
            if type(value) is not kind or (kind is int and value < 0):
                raise TypeError(
                    f"style option {f.name} must be a {'non-negative ' if kind is int else ''}"
                    f"{kind.__name__}, got {value!r}"
                )


CLASSIC = Style()  # today's heuristic, kept for comparison (and as the trained policy's prior)
STRONG = Style(
    bag_ducking=True,
    strict_blind_nil=True,
    set_slack=2,
    score_aware=True,
    nil_cover=True,
    underbid_raise=True,
    bold_nil=True,
    nil_defence=True,
    fitted_nil=True,
    seen_discards=True,
    two_player_bids=True,
)  # the ``heuristic`` agent


def promoted(hand: int, gone: int) -> int:
    """The hand with each card moved up past the cards of its suit that are out of play (``gone``): each suit's
    cards keep their order among the cards still in play, counted from the top (no jokers, the deuce low)."""
    out = 0
    for base in range(0, NUM_STANDARD_CARDS, NUM_RANKS):
        top = base + NUM_RANKS - 1
        place = 0  # cards still in play above, in this suit
        for card in range(top, base - 1, -1):
            if gone >> card & 1:
                continue
            if hand >> card & 1:
                out |= 1 << (top - place)
            place += 1
    return out


# ----------------------------------------------------------------- card tables
class CardTables:
    """Per trump order: card power, same-suit higher cards, trumps high to low."""

    __slots__ = ("power", "higher", "trumps_desc", "trump_key")

    def __init__(self, deuce_high: bool):
        self.trump_key, self.power = win_keys(deuce_high)  # the core's trick-winning keys
        higher = []
        for c in range(NUM_CARDS):
            m = 0
            for d in range(NUM_CARDS):
                if CARD_SUIT[d] == CARD_SUIT[c] and self.power[d] > self.power[c]:
                    m |= 1 << d
            higher.append(m)
        self.higher = tuple(higher)
        self.trumps_desc = tuple(sorted(cards_of(SPADE_MASK), key=lambda c: -self.power[c]))


TABLES = {False: CardTables(False), True: CardTables(True)}
# The trumps of the pack, high to low, by (jokers, deuce_of_spades_high).
TRUMPS_DESC = {
    (j, d): tuple(c for c in TABLES[d].trumps_desc if PACK_MASK[j] >> c & 1)
    for j in (False, True)
    for d in (False, True)
}


def lowest(mask: int, power: Sequence[int]) -> int:
    """Card of lowest power in a non-empty bitboard (lowest id on ties)."""
    best, best_p = NO_CARD, MAX_POWER
    while mask:
        low = mask & -mask
        c = low.bit_length() - 1
        if power[c] < best_p:
            best, best_p = c, power[c]
        mask ^= low
    return best


def highest(mask: int, power: Sequence[int]) -> int:
    """Card of highest power in a non-empty bitboard (highest id on ties)."""
    best, best_p = NO_CARD, -1
    while mask:
        low = mask & -mask
        c = low.bit_length() - 1
        if power[c] >= best_p:
            best, best_p = c, power[c]
        mask ^= low
    return best


# ----------------------------------------------------------------------- table
class Table:
    """Everything the play logic reads at one decision (seats are 0..n-1, ``me`` to act)."""

    __slots__ = (
        "rules",
        "n",
        "me",
        "partner",
        "hand",
        "legal",
        "trick_seats",
        "trick_cards",
        "kinds",
        "values",
        "won",
        "trick_index",
        "gone",
        "voids",
        "bags",
        "tables",
        "unseen",
        "held",
        "opps",
        "style",
        "scores",
    )

    def __init__(
        self,
        rules: Rules,
        me: int,
        hand: int,
        legal: int,
        trick_seats: Sequence[int],
        trick_cards: Sequence[int],
        kinds: Sequence[int],
        values: Sequence[int],
        won: Sequence[int],
        gone: int,
        voids: Sequence[int],
        bags: Sequence[int],
        style: Style = CLASSIC,
        scores: Sequence[int] | None = None,
    ):
        n = rules.num_players
        partner = rules.partner_of(me)
        self.rules = rules
        self.n = n
        self.me = me
        self.partner = NO_PARTNER if partner is None else partner
        self.hand = hand
        self.legal = legal & ALL_CARDS_MASK
        self.trick_seats = trick_seats
        self.trick_cards = trick_cards
        self.kinds = kinds
        self.values = values
        self.won = won
        self.trick_index = sum(won)
        self.gone = gone
        self.voids = voids
        self.bags = bags  # per seat: its side's bags carried in
        self.tables = TABLES[rules.deuce_of_spades_high]
        self.unseen = PACK_MASK[rules.jokers] & ~gone & ~hand
        size = rules.hand_size - self.trick_index
        self.held = [size - (1 if s in trick_seats else 0) for s in range(n)]
        self.opps = [s for s in range(n) if s != me and s != self.partner]
        self.style = style
        self.scores = [0] * n if scores is None else scores  # per seat: its side's score carried in


def side_need(t: Table, seat: int) -> int:
    """Tricks the seat's side still needs for its contract (<= 0 once made)."""
    rules = t.rules
    partner = rules.partner_of(seat)
    members = (seat,) if partner is None else (seat, partner)
    return side_contract(t, seat) - counted_tricks(rules, t.kinds, t.won, members)


def side_contract(t: Table, seat: int) -> int:
    """Tricks the seat's side bid together (its one side contract, else the sum of its number bids)."""
    rules = t.rules
    partner = rules.partner_of(seat)
    members = (seat,) if partner is None else (seat, partner)
    kinds, values = t.kinds, t.values
    contract = 0
    side_contract = False
    for m in members:
        if kinds[m] in SIDE_CONTRACT_KINDS:
            contract, side_contract = values[m], True  # the side's one contract (10 for 200, blind n)
    if not side_contract:
        for m in members:
            if kinds[m] == NUMBER_BID:
                contract += values[m]
    return contract


def nil_alive(t: Table, seat: int) -> bool:
    """Whether the seat bid a nil (or blind nil) and has taken no trick yet."""
    return t.kinds[seat] in NIL_KINDS and t.won[seat] == 0


# ---- probabilities that a later player can beat a card
def holding_chance(t: Table, p: int) -> float:
    """Chance that a given unseen card compatible with p's voids is in p's hand."""
    pool = t.unseen
    v = t.voids[p]
    if v:
        for s in ALL_SUITS:
            if v >> s & 1:
                pool &= ~SUIT_MASKS[s]
    size = pool.bit_count()
    if size <= 0:
        return 0.0
    q = t.held[p] / size
    return 1.0 if q > 1.0 else q


def p_has(q: float, m: int) -> float:
    """Chance of holding at least one of ``m`` cards, each held with chance ``q``."""
    return 0.0 if m <= 0 else 1.0 - (1.0 - q) ** m


def beat_prob(t: Table, p: int, card: int, led: int, q: float) -> float:
    """Chance that player p (still to play) holds a card beating ``card`` in a trick led in ``led``."""
    v = t.voids[p]
    unseen = t.unseen
    if CARD_SUIT[card] == TRUMP:
        if v >> TRUMP & 1:
            return 0.0
        m = (unseen & t.tables.higher[card]).bit_count()
        if led == TRUMP:
            return p_has(q, m)
        p_void = 1.0 if v >> led & 1 else (1.0 - q) ** (unseen & SUIT_MASKS[led]).bit_count()
        return p_void * p_has(q, m)
    if v >> led & 1:
        p_high, p_void = 0.0, 1.0
    else:
        p_high = p_has(q, (unseen & t.tables.higher[card]).bit_count())
        p_void = (1.0 - q) ** (unseen & SUIT_MASKS[led]).bit_count()
    p_trump = 0.0 if v >> TRUMP & 1 else p_void * p_has(q, (unseen & SPADE_MASK).bit_count())
    total = p_high + p_trump
    return 1.0 if total > 1.0 else total


def p_hold(t: Table, card: int, led: int, beaters: Sequence[int]) -> float:
    """Chance that no player in ``beaters`` can beat ``card`` (assumed the best card so far)."""
    prob = 1.0
    for p in beaters:
        prob *= 1.0 - beat_prob(t, p, card, led, holding_chance(t, p))
    return prob


# ---- reading the trick on the table
def later_seats(t: Table) -> list[int]:
    """Seats still to play to this trick after the agent, in play order."""
    n = t.n
    start = t.trick_seats[0] if t.trick_seats else t.me
    played = len(t.trick_seats)
    return [(start + i) % n for i in range(played + 1, n)]


def trick_state(t: Table) -> tuple[int, int, int, int]:
    """(led suit, best card, its seat, its key) of the trick on the table."""
    cards = t.trick_cards
    best_i, best_key = best_of_trick(t.tables.trump_key, t.tables.power, cards)
    return CARD_SUIT[cards[0]], cards[best_i], t.trick_seats[best_i], best_key


def card_key(t: Table, c: int, led: int) -> int:
    """The trick-winning key of card ``c`` in a trick led in ``led`` (-1: cannot win it)."""
    k = t.tables.trump_key[c]
    if k < 0:
        return t.tables.power[c] if CARD_SUIT[c] == led else -1
    return k


def split_winners(t: Table, best_key: int, led: int) -> tuple[list[int], list[int]]:
    """Legal cards that beat the best card so far, and those that do not."""
    winners, losers = [], []
    for c in cards_of(t.legal):
        (winners if card_key(t, c, led) > best_key else losers).append(c)
    return winners, losers


def cheapest(t: Table, cards: Sequence[int]) -> int:
    """The cheapest card to give up: side cards before trumps, then the lowest power."""
    power = t.tables.power
    return min(cards, key=lambda c: (CARD_SUIT[c] == TRUMP, power[c]))


def dearest(t: Table, cards: Sequence[int]) -> int:
    """The most valuable card: trumps before side cards, then the highest power."""
    power = t.tables.power
    return max(cards, key=lambda c: (CARD_SUIT[c] == TRUMP, power[c]))


def beaters(t: Table, later: Sequence[int]) -> list[int]:
    """Later players who would try to beat a card: opponents not on a live nil."""
    return [p for p in later if p != t.partner and not nil_alive(t, p)]
