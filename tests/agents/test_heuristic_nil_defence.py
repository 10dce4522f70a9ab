"""Nil defence (strong style): attacking an opponent's nil, keep the low cards that force it and lead away from ruffs."""

from __future__ import annotations

from spades_env.agents import ClassicHeuristicAgent, HeuristicAgent
from spades_env.agents.heuristic import CLASSIC, STRONG, act_from_state
from spades_env.core.actions import action_name
from spades_env.core.cards import Suit

from .test_agents import observation, position


def attack_position():
    """Seat 3 (the nil bidder's partner) led the 5H; seat 0 has no heart and plays before the nil bidder (seat 1).

    Bids: seats 0 and 2 three each (made: six tricks), seat 1 nil (no trick yet), seat 3 four."""
    hands = ["2C KC 3D QD", "8C 9C TD JD", "4C 5C 6D 7D", "TC JC QC"]
    return position(hands, ["3", "nil", "3", "4"], trick="5H", leader=3, won=[3, 0, 3, 3])


def plays(agent, state) -> str:
    return action_name(agent.act(observation(state)))


def test_nil_defence_discards_high_and_keeps_the_low_cards_that_force_the_nil():
    state = attack_position()
    assert plays(ClassicHeuristicAgent(), state) == "2C"  # the least useful card for the side's own tricks
    assert plays(HeuristicAgent(), state) == "KC"  # the king is no sure trick; the deuce forces the nil later


def test_nil_defence_is_the_switch_that_keeps_the_low_card():
    assert plays(HeuristicAgent(nil_defence=False), attack_position()) == "2C"


def test_nil_defence_leads_away_from_a_suit_the_nil_bidders_partner_ruffs():
    # Seat 0 leads; the nil bidder (seat 1) holds hearts and clubs, its partner (seat 3) has shown a heart void.
    state = position(
        ["2H 4C 5C 6C", "8C 9C TH JH", "4D 5D 6D 7D", "TC JC QC 3S"], ["3", "nil", "3", "4"], won=[3, 0, 3, 3]
    )
    voids = [0, 0, 0, 1 << Suit.HEARTS]
    lead = {style: action_name(act_from_state(state, voids, [0] * 4, style=style)) for style in (CLASSIC, STRONG)}
    assert lead[CLASSIC] == "2H"  # the lowest lead, under the most unseen cards
    assert lead[STRONG] == "4C"  # a heart lead would be ruffed by the nil bidder's partner, and the nil saved
