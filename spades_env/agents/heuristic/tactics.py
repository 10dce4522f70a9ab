"""Plain card play of the heuristic: winning, ducking, leading and discarding.

* Winning (:func:`play_win`): no overtaking a partner whose card is likely
  to hold; the cheapest card likely to hold; second hand low (the partner
  still plays), ruffing only a likely winner; third hand high to force the
  honours out.
* Leading to win (:func:`lead_win`): cash top cards when a ruff is
  unlikely, draw trumps with the top spade, else lead low
  (:func:`lead_low`: suits the partner can ruff, away from the opponents'
  ruffs and from unguarded honours).
* Ducking (:func:`play_duck`): the highest card that still loses, else the
  card least likely to hold; leads the card least likely to win.
* Discarding (:func:`discard`): the least useful side card, keeping winners,
  honours and their guards.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ...core.cards import CARD_SUIT, NON_SPADE_MASK, SPADE_MASK, SUIT_MASKS, TRUMP, cards_of
from .table import (
    ALL_SUITS,
    KING,
    NO_CARD,
    QUEEN,
    SIDE_SUITS,
    Table,
    beaters,
    cheapest,
    dearest,
    highest,
    holding_chance,
    later_seats,
    lowest,
    nil_alive,
    p_has,
    p_hold,
    split_winners,
    trick_state,
)

# Chances that a card holds the trick, as thresholds of the winning play.
PARTNER_HOLDS = 0.7  # the partner's card is likely to hold: do not overtake it
SURE_WINNER = 0.8  # the cheapest such winner is played
RUFF_WORTH = 0.6  # second hand ruffs only a winner this likely to hold
FAIR_WINNER = 0.3  # with no sure winner, the best winner is still worth playing from here
NEAR_BEST = 0.1  # winners within this of the best are as good (the cheapest is played)
CASH_RUFF_RISK = 0.4  # a top card is cashed when the chance that an opponent ruffs it is below this
TRUMP_DRAW_LENGTH = 2  # trumps needed to draw trumps with the top spade
GUARD_LENGTH = 2  # a doubleton whose other card is an honour: the small card guards it
SHORT_HONOUR_LENGTH = 3  # an honour in a suit this short, with a higher card out, is led away from
SINGLETON_RUFF_TRUMPS = 2  # trumps needed to lead a small singleton hoping to ruff that suit later


def play_win(t: Table, urgent: bool) -> int:
    """Try to take the trick (``urgent``: the side needs nearly every trick left)."""
    power = t.tables.power
    if not t.trick_cards:
        return lead_win(t)
    led, best_card, best_seat, best_key = trick_state(t)
    winners, losers = split_winners(t, best_key, led)
    later = later_seats(t)
    hopefuls = beaters(t, later)
    following = bool(t.legal & SUIT_MASKS[led])
    if best_seat == t.partner and t.partner >= 0:
        if not later or p_hold(t, best_card, led, hopefuls) >= PARTNER_HOLDS:
            return dump(t, led, losers)
    if not winners:
        return dump(t, led, losers)
    if not later:
        return cheapest(t, winners)
    probs = {c: p_hold(t, c, led, hopefuls) for c in winners}
    sure = [c for c in winners if probs[c] >= SURE_WINNER]
    if sure:
        return cheapest(t, sure)
    partner_after = t.partner in later
    if partner_after and not urgent:
        # Second hand low (the partner still plays); ruff only a likely winner.
        if not following:
            ruffs = [c for c in winners if probs[c] >= RUFF_WORTH]
            if ruffs:
                return cheapest(t, ruffs)
        return dump(t, led, losers)
    top = max(probs.values())
    if top >= FAIR_WINNER:
        good = [c for c in winners if probs[c] >= top - NEAR_BEST]
        return cheapest(t, good)
    if following:
        # Third hand high: force the honours out with the highest card of the suit.
        if urgent or power[best_card] < KING:
            return highest(t.legal & SUIT_MASKS[led], power)
        return dump(t, led, losers)
    return cheapest(t, winners) if urgent else dump(t, led, losers)


def dump(t: Table, led: int, losers: Sequence[int]) -> int:
    """Play without trying to win: lowest card of the suit led, else a discard."""
    follow = t.legal & SUIT_MASKS[led]
    if follow:
        return lowest(follow, t.tables.power)
    return discard(t)


def _ruff_chance(t: Table, suit: int, opps: Sequence[int]) -> float:
    """Chance that one of ``opps`` is void in ``suit`` and holds a trump."""
    unseen = t.unseen
    safe = 1.0
    for o in opps:
        q = holding_chance(t, o)
        v = t.voids[o]
        p_void = 1.0 if v >> suit & 1 else (1.0 - q) ** (unseen & SUIT_MASKS[suit]).bit_count()
        p_trump = 0.0 if v >> TRUMP & 1 else p_has(q, (unseen & SPADE_MASK).bit_count())
        safe *= 1.0 - p_void * p_trump
    return 1.0 - safe


def lead_win(t: Table) -> int:
    """Lead to take tricks: cash a top card unlikely to be ruffed (or draw trumps), else lead low."""
    legal = t.legal
    power = t.tables.power
    unseen = t.unseen
    opps = [o for o in t.opps if not nil_alive(t, o)]
    cash = []
    for s in ALL_SUITS:
        cards = legal & SUIT_MASKS[s]
        if not cards:
            continue
        top = highest(cards, power)
        if unseen & t.tables.higher[top]:
            continue
        if s == TRUMP:
            if unseen & SPADE_MASK and (t.hand & SPADE_MASK).bit_count() >= TRUMP_DRAW_LENGTH:
                cash.append((0.0, -1, top))  # draw trumps with the top spade
            continue
        ruff = _ruff_chance(t, s, opps)
        if ruff < CASH_RUFF_RISK:
            cash.append((ruff, 0, top))
    if cash:
        cash.sort()
        return cash[0][2]
    return lead_low(t)


def discard(t: Table) -> int:
    """A card to throw when not winning: the least useful side card (lowest spade if none)."""
    legal = t.legal
    power = t.tables.power
    side = legal & NON_SPADE_MASK
    if not side:
        return lowest(legal, power)
    unseen = t.unseen
    hand = t.hand
    best, best_score = NO_CARD, None
    for c in cards_of(side):
        s = CARD_SUIT[c]
        suit_cards = hand & SUIT_MASKS[s]
        length = suit_cards.bit_count()
        top = not (unseen & t.tables.higher[c])  # nothing unseen above it: a winner
        higher_mine = (suit_cards & t.tables.higher[c]).bit_count()
        honour = power[c] >= QUEEN and not top  # an unestablished Q, K, A
        # A small card guarding an honour.
        guard = length == GUARD_LENGTH and higher_mine == 1 and power[highest(suit_cards, power)] >= QUEEN
        score = (top, honour, guard, length, power[c])
        if best_score is None or score < best_score:
            best, best_score = c, score
    return best


def _lead_low_score(t: Table, s: int, cards: int, spades: int) -> tuple:
    """How good a low lead in side suit ``s`` is (higher is better)."""
    power = t.tables.power
    partner = t.partner
    unseen = t.unseen
    length = cards.bit_count()
    top = highest(cards, power)
    honour_risk = 1 if (power[top] >= QUEEN and unseen & t.tables.higher[top] and length <= SHORT_HONOUR_LENGTH) else 0
    partner_ruff = 0
    if partner >= 0 and t.voids[partner] >> s & 1 and not t.voids[partner] >> TRUMP & 1 and unseen & SPADE_MASK:
        partner_ruff = 1
    singleton_ruff = 1 if (length == 1 and spades >= SINGLETON_RUFF_TRUMPS and power[top] < QUEEN) else 0
    opp_ruff = 0
    for o in t.opps:
        if t.voids[o] >> s & 1 and not t.voids[o] >> TRUMP & 1:
            opp_ruff = 1
    return (partner_ruff, -opp_ruff, singleton_ruff, -honour_risk, length, -power[lowest(cards, power)])


def lead_low(t: Table) -> int:
    """A low lead when wanting tricks without a winner to cash."""
    legal = t.legal
    power = t.tables.power
    side = legal & NON_SPADE_MASK
    if not side:
        return lowest(legal, power)
    spades = (t.hand & SPADE_MASK).bit_count()
    best, best_score = NO_CARD, None
    for s in SIDE_SUITS:
        cards = side & SUIT_MASKS[s]
        if not cards:
            continue
        score = _lead_low_score(t, s, cards, spades)
        if best_score is None or score > best_score:
            best, best_score = lowest(cards, power), score
    return best


def play_duck(t: Table) -> int:
    """Avoid taking the trick."""
    power = t.tables.power
    if not t.trick_cards:
        opps = [o for o in t.opps if not nil_alive(t, o)]
        return lead_least_winning(t, opps)
    led, best_card, best_seat, best_key = trick_state(t)
    winners, losers = split_winners(t, best_key, led)
    if losers:
        return shed_loser(t, losers, led, lambda side: max(side, key=lambda c: power[c]))
    later = later_seats(t)
    if not later:
        return dearest(t, winners)  # the trick is ours anyway: shed the highest card
    hopefuls = beaters(t, later)
    return min(winners, key=lambda c: (p_hold(t, c, led, hopefuls), power[c]))


def shed_loser(t: Table, losers: list[int], led: int, pick_side: Callable[[list[int]], int]) -> int:
    """A card that loses the trick: the highest of the suit led, else a side card (``pick_side``), else a trump."""
    power = t.tables.power
    follow = [c for c in losers if CARD_SUIT[c] == led]
    if follow:
        return max(follow, key=lambda c: power[c])
    side = [c for c in losers if CARD_SUIT[c] != TRUMP]
    if side:
        return pick_side(side)
    return max(losers, key=lambda c: power[c])


def lead_least_winning(t: Table, rivals: Sequence[int]) -> int:
    """The lead least likely to win the trick against ``rivals`` (side cards and low cards first on ties)."""
    power = t.tables.power
    best, best_score = NO_CARD, None
    for c in cards_of(t.legal):
        s = CARD_SUIT[c]
        score = (p_hold(t, c, s, rivals), s == TRUMP, power[c])
        if best_score is None or score < best_score:
            best, best_score = c, score
    return best
