"""Nil play of the heuristic: one's own nil, covering a partner's nil, attacking an opponent's.

* Own nil (:func:`play_nil`): the highest card that still loses; the lead
  least likely to win; discards the most dangerous card.
* Cover (:func:`play_cover`): win high above the partner (or before it, so
  that it can duck); lead winners, suits the partner lacks, else the
  highest card of the longest side suit. Strong style: when the trick is
  already above the partner, keep the high cards (play low) and take no
  bags the side does not want.
* Defence (:func:`attack_nil`): play under the nil bidder when it is
  winning, keep the trick low while it is still to play, lead low in the
  suits it holds. Strong style: lead away from a suit the nil bidder's
  partner is known to ruff, and when not following discard the highest side
  card that is no sure trick (the low cards force the nil later).
"""

from __future__ import annotations

from collections.abc import Sequence

from ...core.cards import CARD_SUIT, NON_SPADE_MASK, SUIT_MASKS, TRUMP, cards_of
from .table import (
    ALL_SUITS,
    NO_CARD,
    SIDE_SUITS,
    Table,
    beaters,
    cheapest,
    dearest,
    highest,
    later_seats,
    lowest,
    nil_alive,
    p_hold,
    split_winners,
    trick_state,
)
from .tactics import discard, dump, lead_least_winning, play_duck, play_win, shed_loser

COVER_NEAR_BEST = 0.05  # covering: winners within this chance of the best one are as good (the cheapest is played)


def play_nil(t: Table) -> int:
    """Own nil: never win a trick if it can be helped."""
    power = t.tables.power
    others = [s for s in range(t.n) if s != t.me and not nil_alive(t, s)]
    if not t.trick_cards:
        return lead_least_winning(t, others)
    led, best_card, best_seat, best_key = trick_state(t)
    winners, losers = split_winners(t, best_key, led)
    if losers:
        return shed_loser(t, losers, led, lambda side: most_dangerous(t, side))
    later = later_seats(t)
    if not later:
        return dearest(t, winners)
    rivals = [p for p in later if not nil_alive(t, p)]
    return min(winners, key=lambda c: (p_hold(t, c, led, rivals), power[c]))


def most_dangerous(t: Table, cards: Sequence[int]) -> int:
    """The side card most likely to win a trick later (discarded by a nil bidder)."""
    power = t.tables.power
    unseen = t.unseen

    def danger(c: int) -> tuple[int, int]:
        lower_unseen = (unseen & SUIT_MASKS[CARD_SUIT[c]] & ~t.tables.higher[c]).bit_count()
        above = (unseen & t.tables.higher[c]).bit_count()
        return (-above, -lower_unseen) if power[c] >= 0 else (0, 0)

    return max(cards, key=lambda c: (danger(c), power[c]))


def _cover_lead(t: Table) -> int:
    """Covering, on lead: a winner to cash, else a suit the partner is void in, else high in the longest suit."""
    power = t.tables.power
    legal = t.legal
    unseen = t.unseen
    for s in ALL_SUITS:
        cards = legal & SUIT_MASKS[s]
        if cards and not unseen & t.tables.higher[highest(cards, power)]:
            return highest(cards, power)
    for s in SIDE_SUITS:
        cards = legal & SUIT_MASKS[s]
        if cards and t.voids[t.partner] >> s & 1:
            return highest(cards, power)
    best_suit = max(
        (s for s in ALL_SUITS if legal & SUIT_MASKS[s]), key=lambda s: (s != TRUMP, (legal & SUIT_MASKS[s]).bit_count())
    )
    return highest(legal & SUIT_MASKS[best_suit], power)


def _cover_high(t: Table, winners: list[int], led: int, rivals: Sequence[int]) -> int:
    """The cheapest of the winners nearly as likely to hold as the best one."""
    probs = {c: p_hold(t, c, led, rivals) for c in winners}
    top = max(probs.values())
    return cheapest(t, [c for c in winners if probs[c] >= top - COVER_NEAR_BEST])


def play_cover(t: Table, need: int, want: bool = True) -> int:
    """Partner bid nil and has no trick yet: win the tricks it might be forced to take (``want``: the side wants
    tricks of its own; read by the stronger style only)."""
    power = t.tables.power
    partner = t.partner
    if not t.trick_cards:
        return _cover_lead(t)
    led, best_card, best_seat, best_key = trick_state(t)
    winners, losers = split_winners(t, best_key, led)
    rivals = beaters(t, later_seats(t))
    if partner in t.trick_seats:
        if best_seat == partner:
            if winners:
                return _cover_high(t, winners, led, rivals)
            return dump(t, led, losers)
        if t.style.nil_cover and not want:  # the partner is safe in this trick: no bags for nothing
            return play_duck(t)
        return play_win(t, need > 0 and need >= t.rules.num_tricks - t.trick_index - 1)
    # The partner is still to play: make the trick high so that it can duck.
    if winners:
        return _cover_high(t, winners, led, rivals)
    if t.style.nil_cover:  # the trick is already above the partner: keep the high cards
        return dump(t, led, losers)
    follow = t.legal & SUIT_MASKS[led]
    if follow:
        return highest(follow, power)
    return discard(t)


def _coverer_ruffs(t: Table, target: int, suit: int) -> bool:
    """Whether the nil bidder's partner is known void in ``suit`` and may still hold a trump."""
    coverer = t.rules.partner_of(target)
    if coverer is None or suit == TRUMP:
        return False
    voids = t.voids[coverer]
    return bool(voids >> suit & 1) and not voids >> TRUMP & 1


def _attack_lead(t: Table, target: int) -> int:
    """Lead low in a suit the nil bidder holds, the one with most unseen cards above (side suits first;
    strong style: away from suits that the nil bidder's partner can ruff)."""
    power = t.tables.power
    legal = t.legal
    best, best_score = NO_CARD, None
    for s in ALL_SUITS:
        cards = legal & SUIT_MASKS[s]
        if not cards or t.voids[target] >> s & 1:
            continue
        low = lowest(cards, power)
        above = (t.unseen & t.tables.higher[low]).bit_count()
        ruffed = t.style.nil_defence and _coverer_ruffs(t, target, s)
        score = (not ruffed, s != TRUMP, above, -power[low])
        if best_score is None or score > best_score:
            best, best_score = low, score
    return best


def attack_nil(t: Table, targets: Sequence[int]) -> int:
    """Try to make an opponent's nil fail; -1 (:data:`NO_CARD`) when nothing special applies."""
    power = t.tables.power
    if not t.trick_cards:
        return _attack_lead(t, targets[0])
    led, best_card, best_seat, best_key = trick_state(t)
    winners, losers = split_winners(t, best_key, led)
    if best_seat in targets:
        if losers:
            follow = [c for c in losers if CARD_SUIT[c] == led]
            pool = follow or [c for c in losers if CARD_SUIT[c] != TRUMP] or losers
            return max(pool, key=lambda c: power[c])
        return NO_CARD
    if any(p in targets for p in later_seats(t)):
        follow = t.legal & SUIT_MASKS[led]
        if follow:
            return lowest(follow, power)
        if losers:
            return _attack_discard(t) if t.style.nil_defence else discard(t)
    return NO_CARD


def _attack_discard(t: Table) -> int:
    """Attacking a nil, not following: the highest side card that is not a sure trick (low cards force the nil
    later), else the usual discard."""
    power = t.tables.power
    unseen = t.unseen
    spare = [c for c in cards_of(t.legal & NON_SPADE_MASK) if unseen & t.tables.higher[c]]
    return max(spare, key=lambda c: power[c]) if spare else discard(t)
