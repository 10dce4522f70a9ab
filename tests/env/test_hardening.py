"""Bad input to the envs and to replay: a clear error naming the problem, and every state as it was."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

import spades_env
from spades_env.aec import EnvStateError
from spades_env.core.hand import IllegalActionError
from spades_env.gym_env import SingleAgentSpadesEnv
from spades_env.obs.bounds import START_SCORE_TARGETS
from spades_env.records import RecordError, replay

from .helpers import play_to_end


def env_snapshot(env) -> tuple:
    """Everything an agent can see of a raw env, plus its record."""
    obs = {a: env.observe(a)["observation"].tobytes() for a in env.possible_agents}
    return (
        env.agent_selection,
        list(env.agents),
        dict(env.terminations),
        dict(env.truncations),
        json.dumps(env.game_record(), sort_keys=True),
        obs,
        env.state().tobytes(),
    )


def started_env(rules="standard"):
    env = spades_env.raw_env(rules=rules, episode="game")
    env.reset(seed=3, options={"scores": [20] + [0] * (spades_env.load_rules(rules).num_sides - 1)})
    for _ in range(6):
        env.step(env.legal_actions()[0])
    return env


STANDARD = spades_env.load_rules("standard")  # target 500, bag limit 10
SCORE_BOUND = START_SCORE_TARGETS * STANDARD.target_score


# ------------------------------------------------------------------ reset options
@pytest.mark.parametrize(
    "options, message",
    [
        ({"scores": [10**400, 0]}, "scores must be in"),
        ({"scores": [SCORE_BOUND + 1, 0]}, "scores must be in"),
        ({"scores": [0, -SCORE_BOUND - 1]}, "scores must be in"),
        ({"scores": [1.5, 0]}, "scores must be integers"),
        ({"scores": [True, 0]}, "scores must be integers"),
        ({"scores": 5}, "scores must be a list"),
        ({"scores": [0, 0, 0]}, "one value per side"),
        ({"bags": [10**6, 0]}, "bags must be in 0..9"),
        ({"bags": [10, 0]}, "bags must be in 0..9"),
        ({"bags": [0, -1]}, "bags must be in 0..9"),
        ({"bags": ["3", 0]}, "bags must be integers"),
    ],
)
def test_bad_start_scores_and_bags_raise_before_anything_changes(options, message):
    env = started_env()
    before = env_snapshot(env)
    rng_state = copy.deepcopy(env.game.rng.bit_generator.state)
    with pytest.raises(ValueError, match=message):
        env.reset(options=options)  # unseeded: would draw from the env's generator
    assert env_snapshot(env) == before
    assert env.game.rng.bit_generator.state == rng_state


@pytest.mark.parametrize(
    "options",
    [
        {"scores": [SCORE_BOUND, -SCORE_BOUND]},
        {"scores": [np.int64(450), 0]},
        {"bags": [9, 0]},
        {"bags": (0, np.int32(9))},
    ],
)
def test_start_scores_and_bags_at_the_edges_of_their_ranges_are_accepted(options):
    env = spades_env.raw_env()
    env.reset(seed=1, options=options)
    for key, values in options.items():
        assert list(getattr(env.game, key)) == [int(v) for v in values]


def test_without_a_bag_limit_bags_are_bounded_by_what_a_game_can_collect():
    rules = STANDARD.replace(bag_limit=None, max_hands=4)
    env = spades_env.raw_env(rules=rules)
    most = rules.max_hands * rules.num_tricks
    env.reset(seed=1, options={"bags": [most, 0]})
    with pytest.raises(ValueError, match=f"bags must be in 0..{most}"):
        env.reset(seed=1, options={"bags": [most + 1, 0]})


def test_lose_score_widens_the_score_range():
    rules = STANDARD.replace(target_score=200, lose_score=-1000)
    env = spades_env.raw_env(rules=rules)
    env.reset(seed=1, options={"scores": [-START_SCORE_TARGETS * 1000, 0]})
    assert env.game.scores[0] == -START_SCORE_TARGETS * 1000


# ------------------------------------------------------------------ call order
@pytest.mark.parametrize(
    "call",
    [
        lambda env: env.step(0),
        lambda env: env.last(),
        lambda env: env.observe("player_0"),
        lambda env: env.state(),
    ],
)
def test_calls_before_reset_raise_env_state_error(call):
    env = spades_env.raw_env()
    with pytest.raises(EnvStateError, match=r"before reset\(\)"):
        call(env)


def finished_env():
    env = spades_env.raw_env(episode="hand")
    env.reset(seed=2)
    play_to_end(env, seed=2)
    while env.agents:
        env.step(None)
    return env


@pytest.mark.parametrize("call", [lambda env: env.step(None), lambda env: env.step(0), lambda env: env.last()])
def test_step_and_last_after_every_agent_is_removed_raise_env_state_error(call):
    env = finished_env()
    record = env.game_record()
    with pytest.raises(EnvStateError, match=r"episode is over.*call reset\(\)"):
        call(env)
    assert env.game_record() == record
    env.reset(seed=2)  # and the env is usable again
    assert env.agents == env.possible_agents


def test_wrapped_env_keeps_pettingzoos_warning_for_a_step_after_the_end(caplog):
    env = spades_env.env(episode="hand")
    env.reset(seed=2)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    env.step(None)  # PettingZoo's order-enforcing wrapper logs a warning; our error is never reached
    assert "step() called after all agents are terminated or truncated" in caplog.text


def test_observe_of_an_unknown_agent_names_it():
    env = spades_env.raw_env()
    env.reset(seed=0)
    with pytest.raises(KeyError, match="player_7"):
        env.observe("player_7")


# ------------------------------------------------------------------ gym actions
def gym_env(**kwargs):
    env = SingleAgentSpadesEnv(episode="hand", **kwargs)
    env.reset(seed=4)
    return env


def legal_action(env) -> int:
    return int(np.flatnonzero(env.action_masks())[0])


@pytest.mark.parametrize(
    "make_bad",
    [
        lambda a: a + 0.9,  # a float that int() would truncate to the legal action
        lambda a: float(a),
        lambda a: np.float64(a),
        lambda a: str(a),
        lambda a: True,
        lambda a: np.array([a]),
    ],
)
def test_gym_step_rejects_non_integer_actions(make_bad):
    env = gym_env()
    bad = make_bad(legal_action(env))
    history = list(env.aec.hand.history)
    _, reward, terminated, _, info = env.step(bad)
    assert terminated and info["illegal_action"] and reward == -1
    assert "integer" in info["error"]
    assert env.aec.hand.history == history  # nothing was played

    strict = gym_env(illegal_action="raise")
    with pytest.raises(IllegalActionError, match="integer"):
        strict.step(make_bad(legal_action(strict)))


@pytest.mark.parametrize("wrap", [int, np.int64, np.int32, np.uint8, lambda a: np.array(a)])
def test_gym_step_accepts_python_and_numpy_integers(wrap):
    env = gym_env()
    action = legal_action(env)
    before = len(env.aec.game_record()["actions"])
    _, _, _, _, info = env.step(wrap(action))
    assert not info.get("illegal_action")
    assert env.aec.game_record()["actions"][before] == action


# ------------------------------------------------------------------ replay
@pytest.fixture(scope="module")
def finished_record():
    env = spades_env.raw_env(rules=STANDARD.replace(max_hands=2), episode="game")
    env.reset(seed=5)
    play_to_end(env, seed=5)
    return json.loads(json.dumps(env.game_record()))


def tampered(record, change):
    rec = copy.deepcopy(record)
    change(rec)
    return rec


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda r: r["actions"].__setitem__(0, float(r["actions"][0])), "action 0 is .*float.*integers"),
        (lambda r: r["actions"].__setitem__(3, str(r["actions"][3])), "action 3 is .*str.*integers"),
        (lambda r: r["actions"].__setitem__(1, True), "action 1 is True"),
        (lambda r: r["actions"].pop(), "marked over=True"),
        (lambda r: (r["actions"].pop(), r.pop("over")), "stores 2 hand results but its actions finish 1"),
        (lambda r: r["results"][0]["points"].__setitem__(0, 9999), r"hand 0 does not match the replay in \['points'\]"),
        (lambda r: r["results"][1]["scores"].__setitem__(1, -1), r"hand 1 does not match the replay in \['scores'\]"),
        (lambda r: r["results"].pop(), "stores 1 hand results but its actions finish 2"),
        (lambda r: r.update(results="all good"), "'results' must be a list"),
        (lambda r: r.update(over="yes"), "'over' must be true or false"),
        (lambda r: r.update(over=False), "marked over=False"),
    ],
)
def test_replay_refuses_incomplete_or_tampered_records(finished_record, change, message):
    with pytest.raises(RecordError, match=message):
        replay(tampered(finished_record, change))


def test_an_untampered_record_still_replays(finished_record):
    out = replay(finished_record)
    assert out.results == finished_record["results"] and finished_record["over"] is True
