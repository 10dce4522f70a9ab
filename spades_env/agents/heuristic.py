"""A rule-based Spades player: trick-counting bids and priority-driven card play.

**Bidding** (:func:`estimate_tricks`, :func:`choose_bid`). Side-suit aces,
kings and queens count by suit length (the per-card probabilities of
"Bidding in Spades", ECAI 2020, as a prior, raised when the honours are
backed by higher ones); spades count by rank against the trumps missing
above them with enough small spades to guard them, and every spade beyond the
usual length as a trick; short side suits add ruffing value only with spare
spades. The bid adapts to the bids already made (shading down when the table
is over-bid, covering a partner's nil) and to the score (safer near the
target, higher near the bag limit, nil more readily behind a side about to
win), bids nil when the estimated chance of
taking a trick is low enough for nil to beat the number bid, blind nil (or a
Barmore blind bid) only as a comeback when far behind, 10 for 200 with a
partnership estimate of 11+, and always picks a legal action (mirror's forced
bid, suicide's pairing, ``max_team_bid`` and no-hook limits come from the mask).

**Exchange** (blind nil): the nil bidder passes its most dangerous cards (high
spades, aces, kings); its partner passes back its lowest side cards.

**Play** (:func:`choose_card`, one :class:`Table` per decision). Modes in order
of priority: play one's own nil (highest card that still loses, lead the card
least likely to win, discard the most dangerous card); cover a partner's nil
(win high above the partner, lead winners or suits the partner lacks);
attack an opponent's nil (play under the nil bidder when it is winning, keep
the trick low when it is still to play, lead low in its suits); otherwise win
tricks while the side needs them or can set the opponents, and duck once the
contract is safe and bags are near the limit (or the side is set and the
opponents cannot be). Winning play: second hand low, third hand high, the
cheapest card likely to hold (the chance that each later opponent can beat a
card is estimated from the unseen cards, hand sizes and known voids), no
overtaking a partner whose card is likely to hold, cashing top cards when a
ruff is unlikely, drawing trumps with the top spade, leading suits the
partner can ruff, and discarding from useless suits.

The play logic reads a :class:`Table` (seats, the agent's hand, the trick,
bids, tricks, cards gone, known voids, bags), built either from an
observation (seat numbers are then slots, the agent is 0) or directly from a
core :class:`~spades_env.core.hand.HandState` for fast rollouts
(:func:`table_from_state`, used by the PIMC agent).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

import numpy as np

from ..core import actions as A
from ..core.cards import CARD_SUIT, NUM_CARDS, SUIT_MASKS, cards_of
from ..core.hand import HandState, Phase, win_keys, best_of_trick
from ..core.rules import Rules
from ..core.scoring import BidKind
from ..encoding import decode_observation
from .base import Agent, check_observation, mask_bits
from .knowledge import PACK_MASK, VoidTracker, in_play_phase, rules_from_observation, trick_slots

SPADES = 3
SPADE_MASK = SUIT_MASKS[SPADES]
NON_SPADE_MASK = SUIT_MASKS[0] | SUIT_MASKS[1] | SUIT_MASKS[2]
CARD_MASK = (1 << NUM_CARDS) - 1
NIL_KINDS = (BidKind.NIL, BidKind.BLIND_NIL)
TEAM_KINDS = (BidKind.TEN_FOR_200, BidKind.BLIND)


# ----------------------------------------------------------------- card tables
class _CardTables:
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


TABLES = {False: _CardTables(False), True: _CardTables(True)}
# The trumps of the pack, high to low, by (jokers, deuce_of_spades_high).
TRUMPS_DESC = {(j, d): tuple(c for c in TABLES[d].trumps_desc if PACK_MASK[j] >> c & 1)
               for j in (False, True) for d in (False, True)}


def lowest(mask: int, power: Sequence[int]) -> int:
    """Card of lowest power in a non-empty bitboard (lowest id on ties)."""
    best, best_p = -1, 99
    while mask:
        low = mask & -mask
        c = low.bit_length() - 1
        if power[c] < best_p:
            best, best_p = c, power[c]
        mask ^= low
    return best


def highest(mask: int, power: Sequence[int]) -> int:
    """Card of highest power in a non-empty bitboard."""
    best, best_p = -1, -1
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

    __slots__ = ("rules", "n", "me", "partner", "hand", "legal", "trick_seats", "trick_cards", "kinds", "values",
                 "won", "trick_index", "gone", "voids", "bags", "tables", "unseen", "held", "opps")

    def __init__(self, rules: Rules, me: int, hand: int, legal: int, trick_seats: Sequence[int],
                 trick_cards: Sequence[int], kinds: Sequence[int], values: Sequence[int], won: Sequence[int],
                 gone: int, voids: Sequence[int], bags: Sequence[int]):
        n = rules.num_players
        self.rules = rules
        self.n = n
        self.me = me
        self.partner = (me + 2) % 4 if rules.partnerships else -1
        self.hand = hand
        self.legal = legal & CARD_MASK
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


def side_need(t: Table, seat: int) -> int:
    """Tricks the seat's side still needs for its contract (<= 0 once made)."""
    r = t.rules
    members = (seat, (seat + 2) % 4) if r.partnerships else (seat,)
    kinds, values, won = t.kinds, t.values, t.won
    contract = taken = 0
    team = False
    for m in members:
        if kinds[m] in TEAM_KINDS:
            team = True
            contract = values[m]
    if team:
        return contract - sum(won[m] for m in members)
    for m in members:
        k = kinds[m]
        if k == BidKind.NUMBER:
            contract += values[m]
            taken += won[m]
        elif k in NIL_KINDS and r.nil_tricks_count_for_partner:
            taken += won[m]
    return contract - taken


def _nil_alive(t: Table, seat: int) -> bool:
    return t.kinds[seat] in NIL_KINDS and t.won[seat] == 0


def _opponents(t: Table) -> list[int]:
    return t.opps


# ---- probabilities that a later player can beat a card
def _q(t: Table, p: int) -> float:
    """Chance that a given unseen card compatible with p's voids is in p's hand."""
    pool = t.unseen
    v = t.voids[p]
    if v:
        for s in range(4):
            if v >> s & 1:
                pool &= ~SUIT_MASKS[s]
    size = pool.bit_count()
    if size <= 0:
        return 0.0
    q = t.held[p] / size
    return 1.0 if q > 1.0 else q


def _p_has(q: float, m: int) -> float:
    return 0.0 if m <= 0 else 1.0 - (1.0 - q) ** m


def beat_prob(t: Table, p: int, card: int, led: int, q: float) -> float:
    """Chance that player p (still to play) holds a card beating ``card`` in a trick led in ``led``."""
    v = t.voids[p]
    unseen = t.unseen
    if CARD_SUIT[card] == SPADES:
        if v >> SPADES & 1:
            return 0.0
        m = (unseen & t.tables.higher[card]).bit_count()
        if led == SPADES:
            return _p_has(q, m)
        p_void = 1.0 if v >> led & 1 else (1.0 - q) ** (unseen & SUIT_MASKS[led]).bit_count()
        return p_void * _p_has(q, m)
    if v >> led & 1:
        p_high, p_void = 0.0, 1.0
    else:
        p_high = _p_has(q, (unseen & t.tables.higher[card]).bit_count())
        p_void = (1.0 - q) ** (unseen & SUIT_MASKS[led]).bit_count()
    p_trump = 0.0 if v >> SPADES & 1 else p_void * _p_has(q, (unseen & SPADE_MASK).bit_count())
    total = p_high + p_trump
    return 1.0 if total > 1.0 else total


def p_hold(t: Table, card: int, led: int, beaters: Sequence[int]) -> float:
    """Chance that no player in ``beaters`` can beat ``card`` (assumed the best card so far)."""
    prob = 1.0
    for p in beaters:
        prob *= 1.0 - beat_prob(t, p, card, led, _q(t, p))
    return prob


def _later(t: Table) -> list[int]:
    n = t.n
    start = t.trick_seats[0] if t.trick_seats else t.me
    played = len(t.trick_seats)
    return [(start + i) % n for i in range(played + 1, n)]


# ------------------------------------------------------------------ play logic
def choose_card(t: Table) -> int:
    """The card to play at this decision (a legal one)."""
    legal = t.legal
    if not legal & (legal - 1):
        return legal.bit_length() - 1
    me = t.me
    if t.kinds[me] in NIL_KINDS:
        if t.won[me] == 0:
            return _play_nil(t)
        if not t.rules.nil_tricks_count_for_partner:
            return _play_duck(t)  # a broken nil: every further trick is a bag
    partner = t.partner
    cover = partner >= 0 and _nil_alive(t, partner)
    left = t.rules.num_tricks - t.trick_index
    need = side_need(t, me)
    opps = _opponents(t)
    nil_targets = [s for s in opps if _nil_alive(t, s)]
    set_chance = False
    seen_sides = set()
    for s in opps:
        side = t.rules.side_of(s)
        if side in seen_sides:
            continue
        seen_sides.add(side)
        need_o = side_need(t, s)
        if 0 < need_o <= left and left - need_o <= 2:
            set_chance = True
    if need > left:  # set already: take tricks only to set someone
        want = set_chance
    elif need > 0:
        want = True
    else:
        bag_limit = t.rules.bag_limit
        pressure = bag_limit is not None and t.bags[me] - need >= bag_limit - 3
        want = set_chance or not pressure
    urgent = need > 0 and need >= left - 1
    if cover:
        return _play_cover(t, need)
    if nil_targets and not urgent:
        card = _attack_nil(t, nil_targets)
        if card >= 0:
            return card
    return _play_win(t, urgent) if want else _play_duck(t)


def _trick_state(t: Table) -> tuple[int, int, int, int]:
    """(led suit, best card, its seat, its key) of the trick on the table."""
    cards = t.trick_cards
    best_i, best_key = best_of_trick(t.tables.trump_key, t.tables.power, cards)
    return CARD_SUIT[cards[0]], cards[best_i], t.trick_seats[best_i], best_key


def _card_key(t: Table, c: int, led: int) -> int:
    k = t.tables.trump_key[c]
    if k < 0:
        return t.tables.power[c] if CARD_SUIT[c] == led else -1
    return k


def _split(t: Table, best_key: int, led: int) -> tuple[list[int], list[int]]:
    """Legal cards that beat the best card so far, and those that do not."""
    winners, losers = [], []
    for c in cards_of(t.legal):
        (winners if _card_key(t, c, led) > best_key else losers).append(c)
    return winners, losers


def _cheapest(t: Table, cards: Sequence[int]) -> int:
    power = t.tables.power
    # Non-trumps before trumps, then by power.
    return min(cards, key=lambda c: (CARD_SUIT[c] == SPADES, power[c]))


def _dearest(t: Table, cards: Sequence[int]) -> int:
    power = t.tables.power
    return max(cards, key=lambda c: (CARD_SUIT[c] == SPADES, power[c]))


def _beaters(t: Table, later: Sequence[int]) -> list[int]:
    """Later players who would try to beat a card: opponents not on a live nil."""
    out = []
    for p in later:
        if p == t.partner:
            continue
        if _nil_alive(t, p):
            continue
        out.append(p)
    return out


def _discard(t: Table) -> int:
    """A card to throw when not winning: the least useful side card (lowest spade if none)."""
    legal = t.legal
    power = t.tables.power
    side = legal & NON_SPADE_MASK
    if not side:
        return lowest(legal, power)
    unseen = t.unseen
    hand = t.hand
    best, best_score = -1, None
    for c in cards_of(side):
        s = CARD_SUIT[c]
        suit_cards = hand & SUIT_MASKS[s]
        length = suit_cards.bit_count()
        top = not (unseen & t.tables.higher[c])  # nothing unseen above it: a winner
        higher_mine = (suit_cards & t.tables.higher[c]).bit_count()
        honour = power[c] >= 10 and not top  # an unestablished Q, K, A
        # A small card guarding an honour.
        guard = length == 2 and higher_mine == 1 and power[highest(suit_cards, power)] >= 10
        score = (top, honour, guard, length, power[c])
        if best_score is None or score < best_score:
            best, best_score = c, score
    return best


def _lead_low(t: Table) -> int:
    """A low lead when wanting tricks without a winner to cash."""
    legal = t.legal
    power = t.tables.power
    hand = t.hand
    side = legal & NON_SPADE_MASK
    if not side:
        return lowest(legal, power)
    partner = t.partner
    unseen = t.unseen
    spades = (hand & SPADE_MASK).bit_count()
    best, best_score = -1, None
    for s in range(3):
        cards = side & SUIT_MASKS[s]
        if not cards:
            continue
        length = cards.bit_count()
        top = highest(cards, power)
        honour_risk = 1 if (power[top] >= 10 and unseen & t.tables.higher[top] and length <= 3) else 0
        partner_ruff = 0
        if partner >= 0 and t.voids[partner] >> s & 1 and not t.voids[partner] >> SPADES & 1 and unseen & SPADE_MASK:
            partner_ruff = 1
        singleton_ruff = 1 if (length == 1 and spades >= 2 and power[top] < 10) else 0
        opp_ruff = 0
        for o in _opponents(t):
            if t.voids[o] >> s & 1 and not t.voids[o] >> SPADES & 1:
                opp_ruff = 1
        score = (partner_ruff, -opp_ruff, singleton_ruff, -honour_risk, length, -power[lowest(cards, power)])
        if best_score is None or score > best_score:
            best, best_score = lowest(cards, power), score
    return best


def _play_win(t: Table, urgent: bool) -> int:
    power = t.tables.power
    if not t.trick_cards:
        return _lead_win(t)
    led, best_card, best_seat, best_key = _trick_state(t)
    winners, losers = _split(t, best_key, led)
    later = _later(t)
    beaters = _beaters(t, later)
    following = bool(t.legal & SUIT_MASKS[led])
    if best_seat == t.partner and t.partner >= 0:
        if not later or p_hold(t, best_card, led, beaters) >= 0.7:
            return _dump(t, led, losers)
    if not winners:
        return _dump(t, led, losers)
    if not later:
        return _cheapest(t, winners)
    probs = {c: p_hold(t, c, led, beaters) for c in winners}
    sure = [c for c in winners if probs[c] >= 0.8]
    if sure:
        return _cheapest(t, sure)
    partner_after = t.partner in later
    if partner_after and not urgent:
        # Second hand low (the partner still plays); ruff only a likely winner.
        if not following:
            ruffs = [c for c in winners if probs[c] >= 0.6]
            if ruffs:
                return _cheapest(t, ruffs)
        return _dump(t, led, losers)
    top = max(probs.values())
    if top >= 0.3:
        good = [c for c in winners if probs[c] >= top - 0.1]
        return _cheapest(t, good)
    if following:
        # Third hand high: force the honours out with the highest card of the suit.
        return highest(t.legal & SUIT_MASKS[led], power) if urgent or power[best_card] < 11 else _dump(t, led, losers)
    return _cheapest(t, winners) if urgent else _dump(t, led, losers)


def _dump(t: Table, led: int, losers: Sequence[int]) -> int:
    """Play without trying to win: lowest card of the suit led, else a discard."""
    follow = t.legal & SUIT_MASKS[led]
    if follow:
        return lowest(follow, t.tables.power)
    return _discard(t)


def _lead_win(t: Table) -> int:
    legal = t.legal
    power = t.tables.power
    unseen = t.unseen
    opps = [o for o in _opponents(t) if not _nil_alive(t, o)]
    cash = []
    for s in range(4):
        cards = legal & SUIT_MASKS[s]
        if not cards:
            continue
        top = highest(cards, power)
        if unseen & t.tables.higher[top]:
            continue
        if s == SPADES:
            if unseen & SPADE_MASK and (t.hand & SPADE_MASK).bit_count() >= 2:
                cash.append((0.0, -1, top))  # draw trumps with the top spade
            continue
        risk = 1.0
        for o in opps:
            q = _q(t, o)
            v = t.voids[o]
            p_void = 1.0 if v >> s & 1 else (1.0 - q) ** (unseen & SUIT_MASKS[s]).bit_count()
            p_trump = 0.0 if v >> SPADES & 1 else _p_has(q, (unseen & SPADE_MASK).bit_count())
            risk *= 1.0 - p_void * p_trump
        ruff = 1.0 - risk
        if ruff < 0.4:
            cash.append((ruff, 0, top))
    if cash:
        cash.sort()
        return cash[0][2]
    return _lead_low(t)


def _play_duck(t: Table) -> int:
    """Avoid taking the trick."""
    power = t.tables.power
    if not t.trick_cards:
        opps = [o for o in _opponents(t) if not _nil_alive(t, o)]
        return _lead_least_winning(t, opps)
    led, best_card, best_seat, best_key = _trick_state(t)
    winners, losers = _split(t, best_key, led)
    if losers:
        return _shed_loser(t, losers, led, lambda side: max(side, key=lambda c: power[c]))
    later = _later(t)
    if not later:
        return _dearest(t, winners)  # the trick is ours anyway: shed the highest card
    beaters = _beaters(t, later)
    return min(winners, key=lambda c: (p_hold(t, c, led, beaters), power[c]))


def _shed_loser(t: Table, losers: list[int], led: int, pick_side) -> int:
    """A card that loses the trick: the highest of the suit led, else a side card (``pick_side``), else a trump."""
    power = t.tables.power
    follow = [c for c in losers if CARD_SUIT[c] == led]
    if follow:
        return max(follow, key=lambda c: power[c])
    side = [c for c in losers if CARD_SUIT[c] != SPADES]
    if side:
        return pick_side(side)
    return max(losers, key=lambda c: power[c])


def _lead_least_winning(t: Table, beaters: Sequence[int]) -> int:
    power = t.tables.power
    best, best_score = -1, None
    for c in cards_of(t.legal):
        s = CARD_SUIT[c]
        score = (p_hold(t, c, s, beaters), s == SPADES, power[c])
        if best_score is None or score < best_score:
            best, best_score = c, score
    return best


def _play_nil(t: Table) -> int:
    """Own nil: never win a trick if it can be helped."""
    power = t.tables.power
    others = [s for s in range(t.n) if s != t.me and not _nil_alive(t, s)]
    if not t.trick_cards:
        return _lead_least_winning(t, others)
    led, best_card, best_seat, best_key = _trick_state(t)
    winners, losers = _split(t, best_key, led)
    if losers:
        return _shed_loser(t, losers, led, lambda side: _most_dangerous(t, side))
    later = _later(t)
    if not later:
        return _dearest(t, winners)
    beaters = [p for p in later if not _nil_alive(t, p)]
    return min(winners, key=lambda c: (p_hold(t, c, led, beaters), power[c]))


def _most_dangerous(t: Table, cards: Sequence[int]) -> int:
    """The side card most likely to win a trick later (discarded by a nil bidder)."""
    power = t.tables.power
    unseen = t.unseen

    def danger(c: int) -> tuple[int, int]:
        lower_unseen = (unseen & SUIT_MASKS[CARD_SUIT[c]] & ~t.tables.higher[c]).bit_count()
        above = (unseen & t.tables.higher[c]).bit_count()
        return (-above, -lower_unseen) if power[c] >= 0 else (0, 0)

    return max(cards, key=lambda c: (danger(c), power[c]))


def _play_cover(t: Table, need: int) -> int:
    """Partner bid nil and has no trick yet: win the tricks it might be forced to take."""
    power = t.tables.power
    partner = t.partner
    if not t.trick_cards:
        legal = t.legal
        unseen = t.unseen
        # A winner to cash, else a suit the partner is void in, else the highest card of the longest suit.
        for s in (0, 1, 2, 3):
            cards = legal & SUIT_MASKS[s]
            if cards and not unseen & t.tables.higher[highest(cards, power)]:
                return highest(cards, power)
        for s in range(3):
            cards = legal & SUIT_MASKS[s]
            if cards and t.voids[partner] >> s & 1:
                return highest(cards, power)
        best_suit = max((s for s in range(4) if legal & SUIT_MASKS[s]),
                        key=lambda s: (s != SPADES, (legal & SUIT_MASKS[s]).bit_count()))
        return highest(legal & SUIT_MASKS[best_suit], power)
    led, best_card, best_seat, best_key = _trick_state(t)
    winners, losers = _split(t, best_key, led)
    later = _later(t)
    beaters = _beaters(t, later)
    if partner in t.trick_seats:
        if best_seat == partner:
            if winners:
                probs = {c: p_hold(t, c, led, beaters) for c in winners}
                top = max(probs.values())
                return _cheapest(t, [c for c in winners if probs[c] >= top - 0.05])
            return _dump(t, led, losers)
        return _play_win(t, need > 0 and need >= t.rules.num_tricks - t.trick_index - 1)
    # The partner is still to play: make the trick high so that it can duck.
    if winners:
        probs = {c: p_hold(t, c, led, beaters) for c in winners}
        top = max(probs.values())
        return _cheapest(t, [c for c in winners if probs[c] >= top - 0.05])
    follow = t.legal & SUIT_MASKS[led]
    if follow:
        return highest(follow, power)
    return _discard(t)


def _attack_nil(t: Table, targets: Sequence[int]) -> int:
    """Try to make an opponent's nil fail; -1 when nothing special applies."""
    power = t.tables.power
    if not t.trick_cards:
        target = targets[0]
        legal = t.legal
        best, best_score = -1, None
        for s in range(4):
            cards = legal & SUIT_MASKS[s]
            if not cards or t.voids[target] >> s & 1:
                continue
            low = lowest(cards, power)
            above = (t.unseen & t.tables.higher[low]).bit_count()
            score = (s != SPADES, above, -power[low])
            if best_score is None or score > best_score:
                best, best_score = low, score
        return best
    led, best_card, best_seat, best_key = _trick_state(t)
    winners, losers = _split(t, best_key, led)
    if best_seat in targets:
        if losers:
            follow = [c for c in losers if CARD_SUIT[c] == led]
            pool = follow or [c for c in losers if CARD_SUIT[c] != SPADES] or losers
            return max(pool, key=lambda c: power[c])
        return -1
    later = _later(t)
    if any(p in targets for p in later):
        follow = t.legal & SUIT_MASKS[led]
        if follow:
            return lowest(follow, power)
        if losers:
            return _discard(t)
    return -1


# ------------------------------------------------------------------- bidding
# Side-suit honour values by suit length (index = cards held in the suit).
ACE_VALUE = (0.0, 0.98, 0.985, 0.983, 0.970, 0.948, 0.915, 0.857, 0.774, 0.65, 0.5, 0.4, 0.3, 0.2, 0.1)
KING_VALUE = (0.0, 0.2, 0.62, 0.78, 0.74, 0.62, 0.48, 0.33, 0.2, 0.1, 0.05, 0.0, 0.0, 0.0, 0.0)
QUEEN_VALUE = (0.0, 0.03, 0.15, 0.42, 0.32, 0.2, 0.09, 0.02, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
SPADE_GUARDED = (1.0, 0.85, 0.62, 0.45, 0.32, 0.25)  # by trumps missing above, when guarded


def _row(table: Sequence[float], length: int) -> float:
    return table[min(max(length, 0), len(table) - 1)]


def estimate_tricks(hand: int, rules: Rules) -> float:
    """Expected tricks of a hand (bitboard) under the rules; see the module docstring."""
    tables = TABLES[rules.deuce_of_spades_high]
    power = tables.power
    three = rules.num_players == 3
    shift = 1 if three else 0
    total = 0.0
    # Spades: honours against the trumps missing above them, then length.
    n_spades = (hand & SPADE_MASK).bit_count()
    length_from = 5 if three else 4
    missing = 0
    idx = 0
    spade_tricks = 0.0
    for c in TRUMPS_DESC[rules.jokers, rules.deuce_of_spades_high]:
        if not hand >> c & 1:
            missing += 1
            continue
        guards = n_spades - idx - 1
        if missing == 0:
            value = 1.0
        elif guards >= missing:
            value = SPADE_GUARDED[min(missing, len(SPADE_GUARDED) - 1)]
        elif guards + 1 == missing:
            value = 0.15 if missing <= 2 else 0.05
        else:
            value = 0.0
        if idx >= length_from:
            value = max(value, 0.95)
        spade_tricks += value
        idx += 1
    total += spade_tricks
    # Side suits.
    shortness = 0.0
    for s in range(3):
        cards = hand & SUIT_MASKS[s]
        length = cards.bit_count()
        eff = max(length - shift, 1)
        if length == 0:
            shortness += 2.0
            continue
        if length == 1:
            shortness += 1.0
        elif length == 2:
            shortness += 0.3
        base = 13 * s
        ace, king, queen = cards >> (base + 12) & 1, cards >> (base + 11) & 1, cards >> (base + 10) & 1
        value = 0.0
        if ace:
            value += _row(ACE_VALUE, eff)
        if king:
            value += (0.85 if eff <= 5 else 0.5) if ace else _row(KING_VALUE, eff)
        if queen:
            if ace and king:
                value += 0.6 if eff <= 4 else 0.25
            elif ace or king:
                value += 0.35 if eff >= 3 else 0.15
            else:
                value += _row(QUEEN_VALUE, eff)
        total += min(value, length)
    spare = n_spades - spade_tricks
    if spare > 0.5 and shortness:
        total += min(spare, shortness) * (0.6 if three else 0.75)
    return total


def nil_risk(hand: int, rules: Rules) -> float:
    """Rough chance that a nil with this hand takes a trick."""
    tables = TABLES[rules.deuce_of_spades_high]
    power = tables.power
    safe = 1.0
    trumps = TRUMPS_DESC[rules.jokers, rules.deuce_of_spades_high]
    spades = [c for c in trumps if hand >> c & 1]
    n_trumps = len(trumps)
    for i, c in enumerate(spades):
        above = trumps.index(c)  # trumps above it in the pack
        below_mine = len(spades) - i - 1
        rank_from_bottom = n_trumps - 1 - above
        if above <= 2:
            risk = 0.9
        elif rank_from_bottom >= 7:  # nine of spades and up (standard pack)
            risk = 0.35 + 0.05 * (rank_from_bottom - 7)
        else:
            risk = 0.04 + 0.03 * rank_from_bottom
        risk += 0.05 * below_mine
        safe *= 1.0 - min(risk, 0.95)
    extra = len(spades) - (4 if rules.num_players == 3 else 3)
    if extra > 0:
        safe *= 0.55 ** extra
    for s in range(3):
        cards = hand & SUIT_MASKS[s]
        length = cards.bit_count()
        for c in cards_of(cards):
            rank = power[c]
            low = (cards & ~tables.higher[c]).bit_count() - 1  # my cards below it in the suit
            base = {12: 0.85, 11: 0.55, 10: 0.35, 9: 0.2, 8: 0.1, 7: 0.05}.get(rank, 0.01 if rank >= 4 else 0.0)
            guard = (1.0, 0.55, 0.3, 0.18, 0.12)[min(low, 4)]
            risk = base * guard
            if length >= 6:
                risk += 0.05
            safe *= 1.0 - risk
    return 1.0 - safe


def _legal_bids(mask: int) -> list[int]:
    return [a - A.BID_OFFSET for a in range(A.BID_OFFSET, A.BID_OFFSET + A.MAX_BID + 1) if mask >> a & 1]


def _nearest_bid(mask: int, target: int) -> int:
    bids = _legal_bids(mask)
    if not bids:
        return -1
    numbers = [b for b in bids if b > 0] or bids
    best = min(numbers, key=lambda b: (abs(b - target), b))
    return A.BID_OFFSET + best


@dataclass(frozen=True)
class BidParams:
    """Tunable constants of the bidding."""

    bias: float = 0.3  # added to the trick estimate before rounding down
    nil_risk_max: float = 0.6  # never bid nil above this estimated risk
    nil_risk_scale: float = 0.7  # multiplies nil_risk (calibration of the risk model)


DEFAULT_BID_PARAMS = BidParams()


def choose_bid(
    rules: Rules,
    hand: int,
    legal: int,
    me: int,
    kinds: Sequence[int],
    values: Sequence[int],
    scores: Sequence[int],
    bags: Sequence[int],
    params: BidParams = DEFAULT_BID_PARAMS,
) -> int:
    """A bid action for seat ``me`` (seats may be slots); ``scores``/``bags`` per seat (its side's)."""
    if not legal & (legal - 1):
        return legal.bit_length() - 1
    n = rules.num_players
    partner = (me + 2) % 4 if rules.partnerships else -1
    est = estimate_tricks(hand, rules)
    partner_kind = kinds[partner] if partner >= 0 else BidKind.NONE
    bids_before = [s for s in range(n) if kinds[s] != BidKind.NONE and s != me]
    table_total = sum(values[s] for s in bids_before
                      if kinds[s] in (BidKind.NUMBER, BidKind.TEN_FOR_200, BidKind.BLIND))
    num_tricks = rules.num_tricks
    # The score: near the target play safe, behind a side about to win dare a nil, near the bag limit bid up.
    own = scores[me]
    best_other = max(scores[s] for s in range(n) if rules.side_of(s) != rules.side_of(me))
    target_score = rules.target_score
    bias = params.bias
    if rules.bag_limit is not None and bags[me] >= rules.bag_limit - 3:
        bias += 0.3
    if own >= target_score - 100 and own >= best_other:
        bias -= 0.2
    desperate = best_other >= target_score - 100 and best_other - own >= 50
    # 10 for 200.
    if legal >> A.TEN_FOR_200 & 1:
        partner_est = values[partner] if partner_kind == BidKind.NUMBER else 3.2
        if partner_kind in NIL_KINDS:
            partner_est = 2.0
        if est + partner_est >= 11.0:
            return A.TEN_FOR_200
    # Nil.
    if legal >> A.BID_OFFSET & 1 and rules.nil:
        numbers_legal = any(b > 0 for b in _legal_bids(legal))
        if not numbers_legal:
            return A.BID_OFFSET
        risk = nil_risk(hand, rules) * params.nil_risk_scale
        if partner >= 0:
            if partner_kind == BidKind.NUMBER:
                risk *= 0.8 if values[partner] >= 5 else (1.0 if values[partner] >= 3 else 1.15)
            elif partner_kind in NIL_KINDS:
                risk = 1.0  # no double nil
        else:
            risk *= 1.15
        nil_points = rules.nil_value * (1.0 - 2.0 * risk)
        number_points = 10.0 * max(est, 1.0) * 0.9 + (8.0 if partner >= 0 else 0.0)
        threshold = 0.45 if rules.suicide and partner_kind == BidKind.NONE else params.nil_risk_max
        if desperate:
            number_points *= 0.7
            threshold += 0.1
        if risk < threshold and nil_points > number_points:
            return A.BID_OFFSET
    # A number.
    if partner >= 0 and partner_kind in NIL_KINDS:
        target = max(int(est + 0.5), min(4, int(est + 2)))
    else:
        target = int(est + bias)
        if table_total + est > num_tricks + 0.5 and bids_before:
            target -= 1
    target = max(1, min(target, num_tricks))
    return _nearest_bid(legal, target)


def choose_blind(rules: Rules, legal: int, me: int, kinds: Sequence[int], scores: Sequence[int],
                 target_score: int) -> int:
    """At a blind decision: blind nil or a blind bid only as a comeback, else look at the cards."""
    n = rules.num_players
    own = scores[me]
    best_other = max(scores[s] for s in range(n) if rules.side_of(s) != rules.side_of(me))
    deficit = best_other - own
    partner = (me + 2) % 4 if rules.partnerships else -1
    partner_kind = kinds[partner] if partner >= 0 else BidKind.NONE
    desperate = deficit >= 200 or (deficit >= 100 and best_other >= target_score - 120)
    if legal >> A.BLIND_NIL & 1 and desperate and partner_kind not in NIL_KINDS:
        return A.BLIND_NIL
    blind_bids = [a for a in A.BLIND_BID_ACTIONS if legal >> a & 1]
    if blind_bids and (deficit >= 150 or (deficit > 50 and best_other >= target_score - 100)):
        return blind_bids[0]
    return A.SEE_CARDS


def choose_exchange(rules: Rules, hand: int, legal: int, me_is_nil: bool) -> int:
    """The card to pass in a blind-nil exchange."""
    tables = TABLES[rules.deuce_of_spades_high]
    power = tables.power
    cards = cards_of(legal & hand) or cards_of(legal)
    if me_is_nil:
        # Pass the most dangerous card: trumps by rank first, then side honours with few guards.
        def danger(c: int) -> float:
            if CARD_SUIT[c] == SPADES:
                return 20.0 + power[c]
            suit = hand & SUIT_MASKS[CARD_SUIT[c]]
            low = (suit & ~tables.higher[c]).bit_count() - 1
            return power[c] - 2.5 * min(low, 3)
        return max(cards, key=danger)
    side = [c for c in cards if CARD_SUIT[c] != SPADES]
    return min(side or cards, key=lambda c: (power[c], c))


# ------------------------------------------------------------------ the agent
def table_from_view(view, rules: Rules, legal: int, voids: Sequence[int]) -> Table:
    """A :class:`Table` from an observation view: seats are slots, the agent is slot 0."""
    n = view.num_players
    seats = trick_slots(view)
    cards = [view.trick[s] for s in seats]
    gone = 0
    for m in view.played[:n]:
        gone |= m
    return Table(rules, 0, view.hand, legal, seats, cards, list(view.bid_kinds[:n]), list(view.bid_values[:n]),
                 list(view.tricks_won[:n]), gone, voids, list(view.bags[:n]))


def table_from_state(state: HandState, voids: Sequence[int], bags_by_seat: Sequence[int]) -> Table:
    """A :class:`Table` for the seat to act in a core hand state (what that seat may know)."""
    gone = 0
    for m in state.played:
        gone |= m
    seat = state.current
    return Table(state.rules, seat, state.hands[seat], state.legal_mask(), state.trick_seats, state.trick_cards,
                 state.bid_kinds, state.bid_values, state.tricks_won, gone, voids, bags_by_seat)


def act_from_state(state: HandState, voids: Sequence[int], bags_by_seat: Sequence[int],
                   params: BidParams = DEFAULT_BID_PARAMS) -> int:
    """The heuristic's action for the seat to act in a core hand state, in any phase (for rollouts)."""
    legal = state.legal_mask()
    if not legal & (legal - 1):
        return legal.bit_length() - 1
    phase = state.phase
    if phase == Phase.PLAY:
        return choose_card(table_from_state(state, voids, bags_by_seat))
    rules = state.rules
    seat = state.current
    kinds = state.bid_kinds
    if phase == Phase.EXCHANGE:
        return choose_exchange(rules, state.hands[seat], legal, kinds[seat] == BidKind.BLIND_NIL)
    scores = [state.scores[rules.side_of(s)] for s in range(state.num_players)]
    if phase == Phase.BLIND:
        return choose_blind(rules, legal, seat, kinds, scores, rules.target_score)
    return choose_bid(rules, state.hands[seat], legal, seat, kinds, state.bid_values, scores, bags_by_seat, params)


def decide(view, rules: Rules, legal: int, voids: Sequence[int] | None = None,
           params: BidParams = DEFAULT_BID_PARAMS) -> int:
    """The heuristic's action for a decoded observation and its legal-action bitmask."""
    n = view.num_players
    phase = view.phase
    kinds, values = list(view.bid_kinds[:n]), list(view.bid_values[:n])
    if phase == Phase.PLAY:
        return choose_card(table_from_view(view, rules, legal, voids if voids is not None else [0] * n))
    if phase == Phase.BID:
        return choose_bid(rules, view.hand, legal, 0, kinds, values, view.scores[:n], view.bags[:n], params)
    if phase == Phase.BLIND:
        return choose_blind(rules, legal, 0, kinds, view.scores[:n], view.target_score)
    if phase == Phase.EXCHANGE:
        return choose_exchange(rules, view.hand, legal, kinds[0] == BidKind.BLIND_NIL)
    raise ValueError(f"no decision to take in phase {phase!r}")


class HeuristicAgent(Agent):
    """The rule-based player of this module; deterministic (the generator is unused)."""

    name = "heuristic"

    def __init__(self, seed: int | None = None, rng: np.random.Generator | None = None, track_voids: bool = True,
                 **bid_params: Any):
        super().__init__(seed, rng)
        self.track_voids = track_voids
        self.tracker = VoidTracker()
        self.params = replace(DEFAULT_BID_PARAMS, **bid_params)

    def act(self, observation: Mapping[str, np.ndarray]) -> int:
        """The heuristic's action (legal under the mask)."""
        obs, mask = check_observation(observation)
        legal = mask_bits(mask)
        forced = not legal & (legal - 1)
        if forced and not (self.track_voids and in_play_phase(obs)):
            return legal.bit_length() - 1
        view = decode_observation(obs)
        rules = rules_from_observation(obs, view)
        voids = self.tracker.voids(view, rules) if self.track_voids else None
        if forced:  # seen by the tracker only, so that no trick is missed
            return legal.bit_length() - 1
        action = decide(view, rules, legal, voids, self.params)
        if not (action >= 0 and legal >> action & 1):  # pragma: no cover - a bug guard
            raise RuntimeError(f"heuristic chose illegal action {action} (legal: {A.action_names(legal)})")
        return int(action)

    def describe(self) -> dict:
        """Name and options."""
        out = {"name": self.name, "track_voids": self.track_voids}
        out.update({k: v for k, v in vars(self.params).items() if getattr(DEFAULT_BID_PARAMS, k) != v})
        return out
