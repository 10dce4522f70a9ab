"""``check_plays(agent, rules)``: an agent says up front why it cannot play a rule set (a policy of the older
88-action space has no output for the drawing turns of two players), so that tables, evaluations and training runs
refuse it before play instead of failing at its first drawing turn."""

from __future__ import annotations

import numpy as np
import pytest

from spades_env.aec import raw_env
from spades_env.agents import check_plays, make_agent
from spades_env.agents.registry import POLICY_DIR
from spades_env.agents.search import SearchAgent
from spades_env.core import Phase
from spades_env.core.rules import PRESETS, preset
from spades_env.nn import PolicyFileError

STANDARD_ONLY = str(POLICY_DIR / "ppo_standard.pt")  # the release of 2026-12-03: 88 actions (spades_v2)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_policy_without_the_drawing_actions_is_refused_exactly_where_hands_start_with_drawing(name):
    rules = preset(name)
    old = make_agent("ppo_standard")
    if rules.num_players == 2:
        with pytest.raises(PolicyFileError, match=r"88 actions.*'keep', 'discard'.*spades_v3") as refused:
            check_plays(old, rules)
        assert "ppo_standard.pt" not in str(refused.value)  # no server path: a web table shows the message
    else:
        check_plays(old, rules)
    for every in ("ppo", "heuristic", "random", "pimc"):
        check_plays(make_agent(every), rules)


def test_the_refusal_says_what_the_first_drawing_turn_would_raise():
    env = raw_env(rules="two_player")
    env.reset(seed=0)
    assert env.hand.phase == Phase.DRAW
    old = make_agent("ppo_standard")
    with pytest.raises(PolicyFileError) as up_front:
        check_plays(old, env.rules)
    with pytest.raises(PolicyFileError) as at_the_turn:
        old.act(env.observe(env.agent_selection))
    assert str(at_the_turn.value).endswith(str(up_front.value))


def test_search_is_refused_only_when_its_network_takes_the_drawing_turns():
    two = preset("two_player")
    check_plays(SearchAgent(seed=0, policy=STANDARD_ONLY), two)  # the heuristic takes the unsearched turns
    with pytest.raises(PolicyFileError, match="drawing turns"):
        check_plays(SearchAgent(seed=0, policy=STANDARD_ONLY, others="network"), two)


def test_an_agent_without_check_rules_is_taken_to_play_every_rule_set():
    class Bare:
        def act(self, observation):
            return int(np.flatnonzero(observation["action_mask"])[0])

    for name in PRESETS:
        check_plays(Bare(), preset(name))
