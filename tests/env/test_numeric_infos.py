"""info_format="numeric": the same keys at every step, numbers and fixed-shape arrays only, matching hand_result."""

from __future__ import annotations

import numpy as np
import pytest

import spades_env
from spades_env.aec import PHASE_NAMES
from spades_env.core.hand import Phase
from spades_env.core.scoring import Bid, BidKind

from .helpers import PRESET_NAMES

QUIET = {"hand_over": False, "hand_index": -1, "hand_dealer": -1}


def numeric(value) -> bool:
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "biu"
    return isinstance(value, (bool, int, np.integer))


def shapes(info):
    return {k: np.shape(v) for k, v in info.items()}


@pytest.mark.parametrize("rules", PRESET_NAMES)
def test_every_step_has_the_same_numeric_keys(rules):
    env = spades_env.raw_env(
        rules=spades_env.load_rules(rules).replace(max_hands=2), episode="game", info_format="numeric"
    )
    env.reset(seed=1)
    first = shapes(env.infos["player_0"])
    rng = np.random.default_rng(1)
    hand_ends = 0
    while not env.episode_over:
        env.step(int(rng.choice(env.legal_actions())))
        for agent in env.possible_agents:
            info = env.infos[agent]
            assert shapes(info) == first, agent
            assert all(numeric(v) for v in info.values()), info
        hand_ends += bool(env.infos["player_0"]["hand_over"])
    assert hand_ends == len(env.game.results)


def test_item25_default_infos_keep_the_same_keys_and_types_at_every_step():
    """Issue 30, item 25: without any option (env() and raw_env()) every info has the same keys, dtypes and shapes."""
    for env in (spades_env.env(episode="game"), spades_env.raw_env(episode="game")):
        env.reset(seed=3)
        first = {k: (np.asarray(v).dtype, np.shape(v)) for k, v in env.infos["player_0"].items()}
        rng = np.random.default_rng(3)
        for _ in range(300):
            obs, _, term, trunc, info = env.last()
            assert {k: (np.asarray(v).dtype, np.shape(v)) for k, v in info.items()} == first
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            if not env.agents:
                break


def test_hand_end_fields_match_the_full_hand_result():
    full = spades_env.raw_env(rules="pagat", episode="game", info_format="full")
    num = spades_env.raw_env(rules="pagat", episode="game", info_format="numeric")
    for env in (full, num):
        env.reset(seed=7)
    rng = np.random.default_rng(7)
    checked = 0
    while checked < 2:
        action = int(rng.choice(full.legal_actions()))
        full.step(action)
        num.step(action)
        info, result = num.infos["player_0"], full.infos["player_0"].get("hand_result")
        phase_code = {name: int(p) for p, name in PHASE_NAMES.items()}
        assert info["phase"] == phase_code[full.infos["player_0"]["phase"]]
        if result is None:
            assert {k: info[k] for k in QUIET} == QUIET and not info["points"].any()
            continue
        checked += 1
        assert info["hand_over"] and info["hand_index"] == result["hand_index"]
        assert info["hand_dealer"] == result["dealer"]
        for key in ("points", "scores", "bags", "tricks", "contracts", "made", "bag_penalties"):
            assert info[key].tolist() == result[key], key
        bids = [str(Bid(BidKind(k), v)) for k, v in zip(info["bid_kinds"], info["bid_values"])]
        assert bids == result["bids"]
        assert [None if m < 0 else bool(m) for m in info["nil_made"]] == result["nil_made"]


def test_numeric_infos_start_quiet_and_name_the_phase_by_code():
    env = spades_env.raw_env(info_format="numeric")
    env.reset(seed=0)
    info = env.infos["player_0"]
    assert info["phase"] == int(Phase.BID) and {k: info[k] for k in QUIET} == QUIET
    assert info["nil_made"].tolist() == [-1] * 4


def test_bad_info_format_and_observation_key_are_refused():
    with pytest.raises(ValueError, match="info_format"):
        spades_env.raw_env(info_format="strings")
    for key in ("", "action_mask", 3):
        with pytest.raises(ValueError, match="observation_key"):
            spades_env.raw_env(observation_key=key)


def test_observation_key_renames_the_observation_entry():
    env = spades_env.env(observation_key="observations")
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    assert set(obs) == {"observations", "action_mask"}
    assert env.observation_space("player_0").contains(obs)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(
    "kwargs",
    [{"info_format": "numeric"}, {"observation_key": "observations"}, {"render_mode": "rgb_array"}],
    ids=["numeric", "observations", "rgb_array"],
)
def test_pettingzoo_api_and_seed_tests_pass_with_the_options(kwargs):
    from pettingzoo.test import api_test, seed_test

    api_test(spades_env.env(**kwargs), num_cycles=20)
    seed_test(lambda: spades_env.env(**kwargs), num_cycles=20)


def test_gym_wrapper_passes_numeric_infos_through():
    env = spades_env.SingleAgentSpadesEnv(info_format="numeric")
    _, info = env.reset(seed=3)
    keys = set(info)
    done, hand_overs = False, 0
    while not done:
        _, _, terminated, truncated, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        assert set(info) == keys and all(numeric(v) for k, v in info.items() if k != "action_mask")
        hand_overs += bool(info["hand_over"])
        done = terminated or truncated
    assert hand_overs == 1 and info["points"].any()
