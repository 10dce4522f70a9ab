"""PettingZoo / Gymnasium API conformance, registration, metadata and constructor arguments."""

from __future__ import annotations

from pathlib import Path

import gymnasium
import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test

import spades_env
from spades_env import preset
from spades_env.core.actions import NUM_ACTIONS
from spades_env.core.rules import RulesError
from spades_env.obs.encode import OBS_SIZE, STATE_SIZE

from .helpers import PRESET_NAMES

REPO = Path(__file__).resolve().parents[2]
PAGAT_YAML = REPO / "configs" / "rules" / "pagat.yaml"

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def test_there_are_twelve_presets_two_player_among_them():
    assert len(PRESET_NAMES) == 12 and "two_player" in PRESET_NAMES


@pytest.mark.parametrize("episode", ["game", "hand"])
@pytest.mark.parametrize("rules", PRESET_NAMES)
def test_api_test_passes_on_wrapped_env(rules, episode):
    api_test(spades_env.env(rules=rules, episode=episode), num_cycles=60)


@pytest.mark.parametrize("episode", ["game", "hand"])
@pytest.mark.parametrize("rules", PRESET_NAMES)
def test_seed_test_passes_on_wrapped_env(rules, episode):
    seed_test(lambda: spades_env.env(rules=rules, episode=episode), num_cycles=60)


@pytest.mark.parametrize("episode", ["game", "hand"])
@pytest.mark.parametrize("rules", ["standard", "pagat", "cutthroat3", "crazy"])
def test_api_test_passes_on_raw_env(rules, episode):
    api_test(spades_env.raw_env(rules=rules, episode=episode), num_cycles=60)


def test_metadata_name_is_versioned():
    assert spades_env.raw_env.metadata["name"] == "spades_v3"
    assert spades_env.env().metadata["name"] == "spades_v3"
    assert spades_env.ENV_NAME == "spades_v3"


def test_env_wraps_raw_env_with_pettingzoo_wrappers():
    from pettingzoo.utils import wrappers

    env = spades_env.env()
    layers = []
    while hasattr(env, "env"):
        layers.append(type(env))
        env = env.env
    assert isinstance(env, spades_env.raw_env)
    # env() is one lean layer that is each of PettingZoo's three stock wrappers (spades_env.wrappers)
    for stock in (wrappers.OrderEnforcingWrapper, wrappers.AssertOutOfBoundsWrapper, wrappers.TerminateIllegalWrapper):
        assert any(issubclass(layer, stock) for layer in layers)
    assert type(spades_env.raw_env()) is spades_env.raw_env


def test_pettingzoo_make_builds_the_wrapped_env():
    env = pettingzoo.make("aec", "spades_env/spades-v3", rules="pagat", episode="hand")
    assert env.metadata["name"] == "spades_v3"
    assert env.unwrapped.rules == preset("pagat")
    assert env.unwrapped.episode == "hand"
    env.reset(seed=0)
    obs, reward, term, trunc, info = env.last()
    assert obs["observation"].shape == (OBS_SIZE,)


def test_gymnasium_make_builds_the_single_agent_env():
    env = gymnasium.make("spades_env/Spades-v3", rules="cutthroat", seat=2)
    assert isinstance(env.unwrapped, spades_env.SingleAgentSpadesEnv)
    assert env.unwrapped.seat == 2
    assert env.unwrapped.aec.rules == preset("cutthroat")
    obs, info = env.reset(seed=0)
    assert obs.shape == (OBS_SIZE,)
    assert info["seat"] == 2
    assert env.unwrapped.action_masks().any()
    assert spades_env.GYM_ENV_ID == "spades_env/Spades-v3"


def test_registration_is_idempotent():
    spades_env.register_envs()
    spades_env.register_envs()
    assert "spades_env/spades-v3" in pettingzoo.aec_registry
    assert "spades_env/Spades-v3" in gymnasium.registry
    for old in ("v0", "v1", "v2"):  # retired: their spaces are gone
        assert f"spades_env/spades-{old}" not in pettingzoo.aec_registry
        assert f"spades_env/Spades-{old}" not in gymnasium.registry


@pytest.mark.parametrize("old", ["v0", "v1", "v2"])
def test_a_retired_version_is_refused_naming_the_current_one(old):
    from gymnasium.error import DeprecatedEnv
    from pettingzoo.env_registry.exceptions import VersionNotFound

    with pytest.raises(DeprecatedEnv, match="spades_env/Spades-v3"):
        gymnasium.make(f"spades_env/Spades-{old}")
    with pytest.raises(VersionNotFound, match="v3"):
        pettingzoo.make("aec", f"spades_env/spades-{old}")


@pytest.mark.parametrize(
    "rules",
    ["pagat", PAGAT_YAML, str(PAGAT_YAML), preset("pagat")],
    ids=["preset-name", "yaml-path", "yaml-str", "rules-object"],
)
def test_rules_accepted_as_name_path_or_object(rules):
    env = spades_env.raw_env(rules=rules)
    assert env.rules.to_dict() == preset("pagat").to_dict()
    env.reset(seed=1)
    assert env.observe("player_0")["observation"].shape == (OBS_SIZE,)


def test_yaml_rules_with_overrides_take_effect(tmp_path):
    path = tmp_path / "short.yaml"
    path.write_text("base: standard\ntarget_score: 100\nmax_hands: 7\n")
    env = spades_env.raw_env(rules=path)
    assert env.rules.target_score == 100 and env.rules.max_hands == 7
    assert env.rules.name == "short"


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"rules": "nosuch"}, RulesError),
        ({"rules": 42}, RulesError),
        ({"episode": "match"}, ValueError),
        ({"reward": "nosuch"}, ValueError),
        ({"reward": object()}, TypeError),
        ({"render_mode": "video"}, ValueError),
    ],
)
def test_bad_constructor_arguments_raise(kwargs, error):
    with pytest.raises(error):
        spades_env.raw_env(**kwargs)


@pytest.mark.parametrize("rules, n", [("standard", 4), ("cutthroat", 4), ("cutthroat3", 3)])
def test_agents_are_player_k_for_seat_k(rules, n):
    env = spades_env.raw_env(rules=rules)
    assert env.possible_agents == [f"player_{k}" for k in range(n)]
    env.reset(seed=0)
    assert env.agents == env.possible_agents
    assert env.agent_selection == f"player_{env.hand.current}"


def test_spaces():
    env = spades_env.raw_env()
    for agent in env.possible_agents:
        space = env.observation_space(agent)
        assert space["observation"].shape == (OBS_SIZE,) and space["observation"].dtype == np.float32
        assert space["action_mask"].shape == (NUM_ACTIONS,) and space["action_mask"].dtype == np.int8
        assert env.action_space(agent) == gymnasium.spaces.Discrete(90)
    assert env.state_space.shape == (STATE_SIZE,)


@pytest.mark.parametrize("rules", PRESET_NAMES)
def test_observation_dtypes_and_shapes(rules):
    env = spades_env.raw_env(rules=rules)
    env.reset(seed=5)
    for agent in env.possible_agents:
        obs = env.observe(agent)
        assert obs["observation"].dtype == np.float32 and obs["observation"].shape == (OBS_SIZE,)
        assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].shape == (NUM_ACTIONS,)
        assert env.observation_space(agent).contains(obs)
    state = env.state()
    assert state.dtype == np.float32 and state.shape == (STATE_SIZE,)


def test_env_pickles_with_its_arguments():
    import pickle

    env = spades_env.raw_env(rules=preset("pagat").replace(target_score=300), episode="hand", reward="win_loss")
    clone = pickle.loads(pickle.dumps(env))
    assert clone.rules == env.rules and clone.episode == "hand"
    assert clone.reward_scheme.name == "win_loss"
    clone.reset(seed=0)
    env.reset(seed=0)
    np.testing.assert_array_equal(clone.observe("player_0")["observation"], env.observe("player_0")["observation"])
