"""reset(seed, options): determinism, options that take effect, invalid options leave the env unchanged."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import spades_env
from spades_env.core.cards import format_cards, parse_cards

from .helpers import MIXED_DEAL, assert_same_snapshot, done, random_policy, snapshot, suit


def trajectory(rules, seed, steps=300, episode="game"):
    env = spades_env.raw_env(rules=rules, episode=episode)
    env.reset(seed=seed)
    choose = random_policy(99)
    out = []
    for _ in range(steps):
        if done(env):
            break
        out.append((env.agent_selection, {a: env.observe(a)["observation"] for a in env.possible_agents}))
        env.step(choose(env))
    return out, env


@pytest.mark.parametrize("rules", ["standard", "pagat", "cutthroat3", "crazy"])
def test_same_seed_gives_the_same_game(rules):
    a, env_a = trajectory(rules, seed=7)
    b, env_b = trajectory(rules, seed=7)
    assert len(a) == len(b)
    for (agent_a, obs_a), (agent_b, obs_b) in zip(a, b):
        assert agent_a == agent_b
        for agent in obs_a:
            np.testing.assert_array_equal(obs_a[agent], obs_b[agent])
    assert env_a.game.deals == env_b.game.deals
    assert env_a.game.scores == env_b.game.scores


def test_different_seeds_give_different_deals():
    deals = set()
    for seed in range(5):
        env = spades_env.raw_env()
        env.reset(seed=seed)
        deals.add(env.hand.deal)
    assert len(deals) == 5


def test_reset_with_the_same_seed_replays_in_the_same_env():
    env = spades_env.raw_env()
    env.reset(seed=3)
    first = (env.hand.deal, env.game.dealer)
    for _ in range(20):
        env.step(env.legal_actions()[-1])
    env.reset(seed=3)
    assert (env.hand.deal, env.game.dealer) == first
    assert env.hand.history == []
    env.reset()  # unseeded: continues the generator
    assert env.hand.deal != first[0] or env.game.dealer != first[1]


def test_deal_and_dealer_options_take_effect():
    env = spades_env.raw_env()
    env.reset(seed=0, options={"deal": MIXED_DEAL, "dealer": 2})
    assert env.hand.deal.hands == tuple(tuple(sorted(parse_cards(h))) for h in MIXED_DEAL)
    assert [set(h) for h in env.hand.deal.to_strings()] == [set(h) for h in MIXED_DEAL]
    assert env.game.dealer == 2 and env.hand.dealer == 2
    assert env.agent_selection == "player_3"  # left of the dealer bids first


def test_deal_accepts_card_ids_and_strings_alike():
    env = spades_env.raw_env()
    ids = [parse_cards(h) for h in MIXED_DEAL]
    env.reset(options={"deal": ids, "dealer": 0})
    by_ids = env.hand.deal
    env.reset(options={"deal": [" ".join(h) for h in MIXED_DEAL], "dealer": 0})
    assert env.hand.deal == by_ids


def test_scores_and_bags_options_take_effect():
    env = spades_env.raw_env()
    env.reset(seed=1, options={"scores": [-120, 330], "bags": [4, 8]})
    assert env.game.scores == [-120, 330]
    assert env.game.bags == [4, 8]
    record = env.game_record()
    assert record["scores"] == [-120, 330] and record["bags"] == [4, 8]


def test_hand_index_option_starts_later_in_the_crazy_rotation_and_counts_toward_max_hands():
    rules = spades_env.load_rules("crazy").replace(max_hands=3)
    env = spades_env.raw_env(rules=rules, episode="game")
    env.reset(seed=2, options={"hand_index": 1})
    assert env.hand_index == 1 and env.hand.rules.name == rules.hand_rules(1).name == "jokers"
    assert len(env.hand.deal.to_strings()[0]) == 13 and env.game_record()["hand_index"] == 1
    names = []
    while not env.episode_over:
        if len(env.game.results) > len(names):
            names.append(env.game.results[-1].rules_name)
        env.step(env.legal_actions()[-1])
    names.append(env.game.results[-1].rules_name)
    # Hands 1 and 2 played (mirror after jokers), then truncated: max_hands counts the hand already played.
    assert names == ["jokers", "mirror"] and [r.hand_index for r in env.game.results] == [1, 2]
    assert env.game.truncated and env.hand_index == 2
    plain = spades_env.raw_env(rules=rules, episode="hand")
    plain.reset(seed=2)
    assert plain.hand.rules.name == "standard"  # the default: the first hand of the rotation


def test_deals_option_supplies_several_hands():
    env = spades_env.raw_env(episode="game")
    second = [suit("S"), suit("C"), suit("D"), suit("H")]
    env.reset(options={"deals": [MIXED_DEAL, second], "dealer": 0})
    assert [set(h) for h in env.hand.deal.to_strings()] == [set(h) for h in MIXED_DEAL]
    start = len(env.game.results)
    while len(env.game.results) == start:
        env.step(env.legal_actions()[0])
    assert [set(h) for h in env.hand.deal.to_strings()] == [set(h) for h in second]
    assert env.game.dealer == 1


def dup_deal():
    deal = [list(h) for h in MIXED_DEAL]
    deal[1][0] = deal[0][0]  # 2C twice
    return deal


def short_deal():
    return [h[:-1] for h in MIXED_DEAL]


def bad_card_deal():
    deal = [list(h) for h in MIXED_DEAL]
    deal[0][0] = "1X"
    return deal


def joker_deal():
    deal = [list(h) for h in MIXED_DEAL]
    deal[0][0] = "BJ"  # no jokers in the standard pack
    return deal


@pytest.mark.parametrize(
    "options",
    [
        {"deal": dup_deal()},
        {"deal": short_deal()},
        {"deal": MIXED_DEAL[:3]},
        {"deal": bad_card_deal()},
        {"deal": joker_deal()},
        {"deal": "AS KS"},
        {"deal": None},
        {"deals": [MIXED_DEAL, dup_deal()]},
        {"deals": "nope"},
        {"deal": MIXED_DEAL, "deals": [MIXED_DEAL]},
        {"dealer": 4},
        {"dealer": -1},
        {"dealer": True},
        {"dealer": "1"},
        {"dealer": 1.0},
        {"scores": [0, 0, 0]},
        {"scores": [0]},
        {"scores": 5},
        {"scores": [0, "10"]},
        {"bags": [1]},
        {"bags": [-1, 0]},
        {"bags": [0.5, 0]},
        {"hand_index": -1},
        {"hand_index": 100},  # max_hands of standard: no hand is left to play
        {"hand_index": 1.0},
        {"hand_index": True},
        {"hand_index": "2"},
        {"hand_index": "2", "deals": [MIXED_DEAL]},
    ],
    ids=lambda o: repr(o)[:40],
)
def test_invalid_options_raise_value_error_and_leave_env_unchanged(options):
    env = spades_env.raw_env()
    env.reset(seed=5, options={"scores": [10, 20]})
    for _ in range(9):
        env.step(env.legal_actions()[0])
    before = snapshot(env)
    with pytest.raises(ValueError):
        env.reset(seed=77, options=options)
    assert_same_snapshot(before, snapshot(env))
    with pytest.raises(ValueError):
        env.reset(options=options)  # unseeded: the generator must not move either
    assert_same_snapshot(before, snapshot(env))
    # and the env still plays on
    env.step(env.legal_actions()[0])


def test_a_bad_hand_index_is_named_before_the_deals_are_read():
    # The deals are read with the rules of the hand they start at, so hand_index is checked first: a jokers
    # deal for crazy's hand 1 with a malformed index is refused for the index, not for the deal.
    rules = spades_env.load_rules("crazy")
    env = spades_env.raw_env(rules=rules, episode="game")
    env.reset(seed=4, options={"hand_index": 1})
    jokers_deal = env.hand.deal.to_strings()
    for bad in ("1", 1.0, True, -1, rules.max_hands):
        with pytest.raises(ValueError, match="hand_index must be"):
            env.reset(options={"hand_index": bad, "deals": [jokers_deal]})
    env.reset(options={"hand_index": 1, "deals": [jokers_deal]})
    assert env.hand.deal.to_strings() == jokers_deal and env.hand.rules.name == "jokers"


def test_failed_unseeded_reset_does_not_consume_randomness():
    a, b = spades_env.raw_env(), spades_env.raw_env()
    a.reset(seed=9)
    b.reset(seed=9)
    with pytest.raises(ValueError):
        a.reset(options={"dealer": 9})
    with pytest.raises(ValueError, match="hand_index"):
        a.reset(options={"hand_index": -1})  # refused before the first dealer is drawn
    a.reset()
    b.reset()
    assert a.hand.deal == b.hand.deal and a.game.dealer == b.game.dealer


def test_options_must_be_a_dict():
    env = spades_env.raw_env()
    env.reset(seed=0)
    with pytest.raises(ValueError):
        env.reset(options=[("dealer", 1)])


def test_invalid_deal_error_names_the_problem():
    env = spades_env.raw_env()
    with pytest.raises(ValueError, match="twice"):
        env.reset(options={"deal": dup_deal()})
    with pytest.raises(ValueError, match="13"):
        env.reset(options={"deal": short_deal()})


def test_unknown_option_keys_warn():
    env = spades_env.raw_env()
    with pytest.warns(UserWarning, match="unknown reset option"):
        env.reset(seed=0, options={"dealr": 1})
    assert env.hand is not None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.reset(seed=0, options={"dealer": 1})


def test_cutthroat3_deal_option_sets_the_remaining_card_aside():
    env = spades_env.raw_env(rules="cutthroat3")
    pack = [r + s for s in "CDHS" for r in "23456789TJQKA"]
    hands = [pack[0:17], pack[17:34], pack[34:51]]
    env.reset(options={"deal": hands, "dealer": 0})
    assert format_cards(env.hand.deal.set_aside) == "AS"
