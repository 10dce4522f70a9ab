"""The heuristic's styles: ``heuristic`` (every improvement on) against ``heuristic_classic`` (today's play).

Each tactic is checked on a literal position (standard rules; seats 0 and 2 are partners), worked out
by hand: the stronger heuristic plays the card the tactic calls for, the classic one the card it
always played there.
"""

from __future__ import annotations

import pytest

from spades_env.agents import ClassicHeuristicAgent, HeuristicAgent, make_agent
from spades_env.agents.heuristic import CLASSIC, STRONG, Style, choose_blind
from spades_env.agents.policy import PolicyAgent
from spades_env.core import preset
from spades_env.core.actions import BLIND_NIL, SEE_CARDS, action_name
from spades_env.nn import PolicyNet

from .test_agents import observation, position

STD = preset("standard")


def plays(agent, state, scores=None) -> str:
    """The card (or bid) the agent picks in a literal position."""
    return action_name(agent.act(observation(state, scores=scores)))


def made_side_position(won, hands=("KH 2H 5C 6C 7C", "TD JD QD KD", "3H 4D 5D 6D", "AD 8C 9C TC")):
    """Seat 1 led the 9H, seat 2 (the partner) played the 3H, seat 3 the 5H; seat 0, last, holds KH 2H.

    Bids: seats 0 and 2 one each (their side's contract 2), seats 1 and 3 three each (6)."""
    return position(list(hands), ["1", "3", "1", "3"], trick="9H 3H 5H", leader=1, won=won)


def test_registered_names_build_the_two_styles():
    assert isinstance(make_agent("heuristic"), HeuristicAgent) and make_agent("heuristic").style == STRONG
    classic = make_agent("heuristic_classic")
    assert isinstance(classic, ClassicHeuristicAgent) and classic.style == CLASSIC
    assert classic.describe()["name"] == "heuristic_classic"


def test_heuristic_and_heuristic_classic_differ_on_a_literal_decision():
    state = made_side_position(won=[1, 4, 1, 2])  # the side has its 2 tricks; the opponents have their 6
    assert plays(ClassicHeuristicAgent(), state) == "KH"  # classic: bags are far from the limit, win it
    assert plays(HeuristicAgent(), state) == "2H"  # bag ducking: every further trick is a bag


def test_bag_ducking_plays_under_once_the_contract_is_made():
    state = made_side_position(won=[1, 4, 1, 2])
    assert plays(HeuristicAgent(), state) == "2H"
    assert plays(HeuristicAgent(bag_ducking=False), state) == "KH"  # the switch alone brings back the win


def test_bag_ducking_still_wins_while_the_side_needs_tricks():
    state = made_side_position(won=[0, 4, 1, 2])  # the side has 1 of its 2 tricks
    assert plays(HeuristicAgent(), state) == "KH"


def test_set_play_takes_the_trick_when_the_opponents_can_be_set():
    # 9 tricks played, 4 left: the opponents have 4 of their 6 and can lose at most 2 more.
    state = made_side_position(won=[2, 2, 3, 2])
    assert plays(HeuristicAgent(), state) == "KH"


def test_set_play_ducks_when_the_opponents_have_tricks_to_spare():
    # 5 tricks played, 8 left: the opponents need 4 of them; a set is too far off to pay for the bags.
    state = made_side_position(won=[1, 1, 1, 2], hands=("KH 2H 5C 6C 7C 8C 9C TC JC", "", "", ""))
    assert plays(HeuristicAgent(), state) == "2H"


def test_score_aware_play_sets_opponents_who_would_win_the_game_by_making_their_contract():
    state = made_side_position(won=[1, 1, 1, 2], hands=("KH 2H 5C 6C 7C 8C 9C TC JC", "", "", ""))
    about_to_win = [100, 450]  # per side: the opponents reach 510 with their 6 tricks
    assert plays(HeuristicAgent(), state, scores=about_to_win) == "KH"
    assert plays(HeuristicAgent(score_aware=False), state, scores=about_to_win) == "2H"
    assert plays(HeuristicAgent(), state, scores=[100, 300]) == "2H"  # they would not reach 500


def test_nil_cover_keeps_its_high_cards_when_the_trick_is_already_above_the_partner():
    # Seat 3 led the AH; seat 0 is to play before its nil partner (seat 2) and cannot beat the ace.
    state = position(["KH 2H 5C 6C", "TD JD QD", "3H 4H 4D", "8C 9C TC"], ["4", "3", "nil", "3"], trick="AH", leader=3)
    assert plays(ClassicHeuristicAgent(), state) == "KH"
    assert plays(HeuristicAgent(), state) == "2H"


def test_nil_cover_still_overtakes_the_partner_cheaply():
    hands = ["KH TH 3H AC", "QC JC TC", "2C 3C 4C", "9C 8C 7C"]
    state = position(hands, ["3", "4", "nil", "4"], trick="5H 9H 7H", leader=1)
    assert plays(HeuristicAgent(), state) == "TH"


@pytest.mark.parametrize(
    "scores, classic, strong",
    [
        ((0, 100), SEE_CARDS, SEE_CARDS),  # behind by 100 early: neither dares
        ((300, 400), BLIND_NIL, SEE_CARDS),  # behind by 100, the leader 100 from the target: only classic dares
        ((150, 400), BLIND_NIL, BLIND_NIL),  # behind by 250 with the leader near the target: both
    ],
)
def test_strict_blind_nil_only_when_the_leader_is_near_the_target_and_far_ahead(scores, classic, strong):
    legal = 1 << BLIND_NIL | 1 << SEE_CARDS
    kinds = [0, 0, 0, 0]
    per_seat = [scores[STD.side_of(s)] for s in range(4)]
    assert choose_blind(STD, legal, 0, kinds, per_seat, STD.target_score, CLASSIC) == classic
    assert choose_blind(STD, legal, 0, kinds, per_seat, STD.target_score, STRONG) == strong


def test_the_trained_policys_prior_is_the_classic_heuristic():
    agent = PolicyAgent(PolicyNet((8,), prior_weight=1.0))
    assert type(agent.heuristic) is ClassicHeuristicAgent


@pytest.mark.parametrize(
    "options, error",
    [
        ({"style": "strong"}, "style must be a Style"),
        ({"bag_ducking": 1}, "bag_ducking must be a bool"),
        ({"set_slack": -1}, "set_slack must be a non-negative int"),
        ({"nosuch": True}, "unknown option"),
    ],
)
def test_style_options_are_checked_when_built(options, error):
    with pytest.raises(TypeError, match=error):
        HeuristicAgent(**options)


def test_style_switches_are_kept_and_described():
    agent = HeuristicAgent(bag_ducking=False, bias=0.5)
    assert agent.style == Style(**{**vars(STRONG), "bag_ducking": False}) and agent.params.bias == 0.5
    assert agent.describe()["style"] == {"bag_ducking": False}
    assert "style" not in HeuristicAgent().describe() and "style" not in ClassicHeuristicAgent().describe()
