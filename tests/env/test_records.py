"""Game records: export, JSON round trip, replay to the identical outcome, errors on bad records."""

from __future__ import annotations

import json

import numpy as np
import pytest

import spades_env
from spades_env.core.hand import Phase
from spades_env.core.scoring import BidKind
from spades_env.records import RECORD_KEYS, RecordError, check_record, iter_replay, load_record, replay, save_record

from .helpers import done


def play_recorded(rules, episode="game", reward="hand_points", seed=0, options=None):
    """Play a seeded random game (blind nil taken once per side when legal); log every decision."""
    env = spades_env.raw_env(rules=rules, episode=episode, reward=reward)
    env.reset(seed=seed, options=options)
    rng = np.random.default_rng(seed + 1000)
    log = []
    while not done(env):
        agent = env.agent_selection
        obs = env.observe(agent)
        legal = env.legal_actions()
        hand = env.hand
        partner = env.rules.partner_of(hand.current)
        blind = 72 in legal and (partner is None or hand.bid_kinds[partner] != BidKind.BLIND_NIL)
        action = 72 if blind else int(rng.choice(legal))
        env.step(action)
        log.append((agent, obs["observation"], obs["action_mask"], action, dict(env.rewards)))
    final = {a: env.observe(a)["observation"] for a in env.possible_agents}
    return env, log, final


def assert_replay_matches(rec, env, log, final, reward="hand_points"):
    out = replay(rec, reward=reward)
    assert len(out.steps) == len(log)
    for i, (step, (agent, obs, mask, action, rewards)) in enumerate(zip(out.steps, log)):
        assert step.agent == agent, i
        np.testing.assert_array_equal(step.observation, obs, err_msg=f"step {i}")
        np.testing.assert_array_equal(step.action_mask, mask, err_msg=f"step {i}")
        assert step.action == action
        assert step.rewards == rewards, i
    assert out.scores == list(env.game.scores)
    assert out.bags == list(env.game.bags)
    assert out.results == rec["results"]
    for agent, obs in final.items():
        np.testing.assert_array_equal(out.final_observations[agent], obs)
    return out


@pytest.fixture(scope="module")
def pagat_game():
    rules = spades_env.preset("pagat").replace(target_score=300, lose_score=-300, max_hands=6)
    env, log, final = play_recorded(rules, seed=3, options={"scores": [0, 200], "bags": [2, 5]})
    return env, log, final


def test_record_has_every_key_and_is_json_ready(pagat_game):
    env, log, _ = pagat_game
    rec = env.game_record()
    assert set(RECORD_KEYS) <= set(rec)
    assert rec["env"] == "spades_v3" and rec["episode"] == "game" and rec["seed"] == 3
    assert rec["scores"] == [0, 200] and rec["bags"] == [2, 5]
    assert rec["actions"] == [a for _, _, _, a, _ in log]
    assert len(rec["deals"]) == len(env.game.results) == len(rec["results"])
    assert json.loads(json.dumps(rec)) == rec


def test_pagat_game_contains_an_exchange(pagat_game):
    env, _, _ = pagat_game
    phases = set()
    out = replay(env.game_record())
    for step in out.steps:
        phases.add(int(np.flatnonzero(step.observation[:5])[0]))
    assert Phase.EXCHANGE in phases and Phase.BLIND in phases


def test_replay_reproduces_every_observation_reward_and_score(pagat_game):
    env, log, final = pagat_game
    rec = json.loads(json.dumps(env.game_record()))
    assert_replay_matches(rec, env, log, final)


def test_save_and_load_record_round_trip(pagat_game, tmp_path):
    env, log, final = pagat_game
    path = tmp_path / "game.json"
    save_record(env.game_record(), path)
    loaded = load_record(path)
    assert loaded == json.loads(json.dumps(env.game_record()))
    assert_replay_matches(loaded, env, log, final)


@pytest.mark.parametrize(
    "rules, episode, reward, options",
    [
        ("standard", "hand", "hand_points", None),
        ("cutthroat3", "hand", "win_loss", {"scores": [0, 150, 20]}),
        ("crazy", "game", "hand_points", {"dealer": 2}),
        ("online", "game", "win_loss", {"scores": [0, 300]}),
        ("barmore", "hand", "hand_points", {"scores": [0, 0]}),
    ],
)
def test_replay_for_other_variants(rules, episode, reward, options):
    r = spades_env.load_rules(rules).replace(max_hands=3)
    env, log, final = play_recorded(r, episode=episode, reward=reward, seed=5, options=options)
    rec = json.loads(json.dumps(env.game_record()))
    assert_replay_matches(rec, env, log, final, reward=reward)


def test_a_game_started_later_in_the_crazy_rotation_replays_from_its_record():
    rules = spades_env.load_rules("crazy").replace(max_hands=4)
    env, log, final = play_recorded(rules, episode="game", reward="hand_points", seed=3, options={"hand_index": 2})
    rec = json.loads(json.dumps(env.game_record()))
    assert rec["hand_index"] == 2 and [r["hand_index"] for r in rec["results"]] == [2, 3]
    assert_replay_matches(rec, env, log, final, reward="hand_points")
    older = dict(rec)
    del older["hand_index"]  # a record written before the key existed starts at the first hand
    with pytest.raises(RecordError):
        replay(older)  # replayed from the first hand, jokers (the second) refuses suicide's 52-card deal
    first = spades_env.raw_env(rules=rules, episode="hand")
    first.reset(seed=3)
    legacy = json.loads(json.dumps(first.game_record()))
    del legacy["hand_index"]
    assert replay(legacy).scores == list(first.game.scores)


def test_record_of_an_unfinished_game_replays_to_the_same_point():
    env = spades_env.raw_env(episode="game")
    env.reset(seed=8)
    for _ in range(70):  # into the second hand
        env.step(env.legal_actions()[-1])
    rec = env.game_record()
    assert len(rec["deals"]) == len(env.game.results) + 1
    out = replay(rec)
    assert len(out.steps) == 70
    assert out.scores == list(env.game.scores)
    for agent in env.possible_agents:
        np.testing.assert_array_equal(out.final_observations[agent], env.observe(agent)["observation"])


def test_iter_replay_yields_steps_lazily(pagat_game):
    env, log, _ = pagat_game
    it = iter_replay(env.game_record())
    first = next(it)
    assert first.agent == log[0][0] and first.action == log[0][3]


def test_tampered_record_with_an_illegal_action_raises(pagat_game):
    env, _, _ = pagat_game
    rec = json.loads(json.dumps(env.game_record()))
    rec["actions"][0] = 0  # a card during the bidding
    with pytest.raises(RecordError, match="action 0"):
        replay(rec)


def test_record_with_actions_after_the_end_raises(pagat_game):
    env, _, _ = pagat_game
    rec = json.loads(json.dumps(env.game_record()))
    rec["actions"].append(54)
    with pytest.raises(RecordError):
        replay(rec)


@pytest.mark.parametrize("text", ["{not json", "", "[1, 2]", '{"env": "spades_v0"}', "null"])
def test_malformed_file_raises_record_error(tmp_path, text):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(RecordError):
        load_record(path)


@pytest.mark.parametrize(
    "key, value",
    [
        ("deals", [["XX"]]),
        ("deals", "nope"),
        ("rules", {"no_such_option": 1}),
        ("rules", "standard?"),
        ("episode", "match"),
        ("actions", None),
        ("actions", ["x"]),
        ("dealer", 9),
        ("scores", [0]),
    ],
)
def test_malformed_record_content_raises_record_error(key, value):
    env = spades_env.raw_env(episode="hand")
    env.reset(seed=1)
    for _ in range(5):
        env.step(env.legal_actions()[0])
    rec = json.loads(json.dumps(env.game_record()))
    assert len(replay(rec).steps) == 5
    rec[key] = value
    with pytest.raises(RecordError):
        replay(rec)


def test_check_record_names_missing_keys():
    with pytest.raises(RecordError, match="actions"):
        check_record({k: None for k in RECORD_KEYS if k != "actions"})
    with pytest.raises(RecordError):
        check_record([])
