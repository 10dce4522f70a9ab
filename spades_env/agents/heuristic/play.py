"""Card play of the heuristic: which mode the decision is in, and the card of that mode.

Modes in order of priority: play one's own nil (a broken nil, whose tricks
are bags, ducks); cover a partner's nil; attack an opponent's nil (unless the
side needs nearly every trick left); otherwise win tricks while the side
needs them or can set the opponents, and duck once the contract is safe and
bags are near the limit (or the side is set and the opponents cannot be).

Strong style (:class:`~.table.Style`): duck as soon as the contract is made
(every further trick is a bag) unless an opponent side can be set, and count
an opponent side that would win the game by making its contract as settable
with any number of tricks to spare.
"""

from __future__ import annotations

from ...core.rules import POINTS_PER_BID_TRICK
from ...core.scoring import NIL_KINDS, counts_toward_contract
from .nil_play import attack_nil, play_cover, play_nil
from .table import BAG_PRESSURE_MARGIN, NO_CARD, Table, nil_alive, side_contract, side_need
from .tactics import play_duck, play_win


def _can_set(t: Table, left: int) -> bool:
    """Whether an opponent side still needs tricks and can lose only a few more of the ``left`` ones."""
    seen_sides = set()
    for s in t.opps:
        side = t.rules.side_of(s)
        if side in seen_sides:
            continue
        seen_sides.add(side)
        need_o = side_need(t, s)
        slack = left if t.style.score_aware and _wins_by_making(t, s, left) else t.style.set_slack
        if 0 < need_o <= left and left - need_o <= slack:
            return True
    return False


def _wins_by_making(t: Table, opp: int, left: int) -> bool:
    """Whether the opponent's side would reach the target ahead of ours by making its contract."""
    theirs = t.scores[opp] + POINTS_PER_BID_TRICK * side_contract(t, opp)
    ours = t.scores[t.me]
    if side_need(t, t.me) <= left:
        ours += POINTS_PER_BID_TRICK * side_contract(t, t.me)
    return theirs >= t.rules.target_score and theirs > ours


def _want_tricks(t: Table, need: int, left: int) -> bool:
    """Whether the side wants this trick: its contract, or setting an opponent, against bag pressure."""
    set_chance = _can_set(t, left)
    if need > left:  # set already: take tricks only to set someone
        return set_chance
    if need > 0:
        return True
    if t.style.bag_ducking:  # made: every further trick is a bag
        return set_chance
    bag_limit = t.rules.bag_limit
    pressure = bag_limit is not None and t.bags[t.me] - need >= bag_limit - BAG_PRESSURE_MARGIN
    return set_chance or not pressure


def choose_card(t: Table) -> int:
    """The card to play at this decision (a legal one)."""
    legal = t.legal
    if not legal & (legal - 1):
        return legal.bit_length() - 1
    me = t.me
    if t.kinds[me] in NIL_KINDS:
        if t.won[me] == 0:
            return play_nil(t)
        if not counts_toward_contract(t.rules, t.kinds[me]):
            return play_duck(t)  # a broken nil: every further trick is a bag
    left = t.rules.num_tricks - t.trick_index
    need = side_need(t, me)
    want = _want_tricks(t, need, left)
    urgent = need > 0 and need >= left - 1
    if t.partner >= 0 and nil_alive(t, t.partner):
        return play_cover(t, need, want)
    nil_targets = [s for s in t.opps if nil_alive(t, s)]
    if nil_targets and not urgent:
        card = attack_nil(t, nil_targets)
        if card != NO_CARD:
            return card
    return play_win(t, urgent) if want else play_duck(t)
