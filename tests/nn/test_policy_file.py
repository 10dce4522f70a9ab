"""Policy files record their observation layout and a content hash, and are checked before anything is built."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch

import spades_env
import spades_env.nn as nn_module
from spades_env.agents import make_agent
from spades_env.agents.policy import RELEASED_POLICY
from spades_env.agents.registry import POLICY_DIR
from spades_env.core.actions import DISCARD, KEEP, NUM_ACTIONS, NUM_ACTIONS_V2
from spades_env.nn import (
    CheckpointError,
    PolicyFileError,
    PolicyNet,
    content_digest,
    critic_layout,
    load_policy,
    save_policy,
)
from spades_env.obs.layout import OBSERVATION, OBSERVATION_V0, OBSERVATION_V1, STATE, LayoutError

from .ppo_v0_fixture import V0_POLICY
from .ppo_v1_fixture import FIXTURE as V1_FIXTURE
from .ppo_v1_fixture import play as play_released

SMALL = (16, 8)
STANDARD_RELEASE = POLICY_DIR / "ppo_standard.pt"  # the standard-only release of 2026-12-03 (spades_obs_v1)


@pytest.fixture
def policy_file(tmp_path):
    torch.manual_seed(0)
    path = tmp_path / "policy.pt"
    save_policy(path, PolicyNet(SMALL, prior_weight=1.5), meta={"update": 1})
    return path


def rewrite(path, change, resign: bool = False) -> None:
    """Edit a policy file's payload in place; ``resign`` recomputes its content hash (a careful forger)."""
    payload = torch.load(path, weights_only=True)
    change(payload)
    if resign:
        payload["content_sha256"] = content_digest(payload["state_dict"])
    torch.save(payload, path)


def test_policy_file_records_the_layout_and_loads_back(policy_file):
    payload = torch.load(policy_file, weights_only=True)
    assert payload["layout"] == OBSERVATION.describe()
    assert payload["content_sha256"] == content_digest(payload["state_dict"])
    policy, meta = load_policy(policy_file)
    assert policy.hidden == SMALL and policy.prior_weight == 1.5 and meta == {"update": 1}


@pytest.mark.parametrize(
    "path, layout",
    [(RELEASED_POLICY, OBSERVATION), (STANDARD_RELEASE, OBSERVATION_V1), (V0_POLICY, OBSERVATION_V0)],
)
def test_a_policy_file_records_the_layout_it_was_trained_on(path, layout):
    payload = torch.load(path, weights_only=True)
    assert payload["layout"] == layout.describe()  # a version 0 file is read through the projection
    policy, _ = load_policy(path)  # its hash verifies
    assert policy.input_layout == layout.describe() and policy.obs_size == layout.size


def test_a_file_for_another_layout_raises_layout_error_naming_both(policy_file):
    other = OBSERVATION.extended("spades_obs_v9", (("extra", 1, 3),)).describe()
    rewrite(policy_file, lambda p: p.update(layout=other))
    with pytest.raises(LayoutError, match=rf"spades_obs_v9.*{OBSERVATION.name}") as info:
        load_policy(policy_file)
    assert str(policy_file) in str(info.value)


def test_a_file_without_a_layout_is_refused(policy_file):
    rewrite(policy_file, lambda p: p.pop("layout"))
    with pytest.raises(PolicyFileError, match="no observation layout"):
        load_policy(policy_file)


def test_flipped_bytes_inside_the_file_are_detected(policy_file):
    payload = torch.load(policy_file, weights_only=True)
    weights = payload["state_dict"]["head.weight"]
    pattern = weights.reshape(-1)[:8].numpy().tobytes()  # the first weights, as stored in the file
    data = bytearray(policy_file.read_bytes())
    at = bytes(data).find(pattern)
    assert at >= 0 and bytes(data).find(pattern, at + 1) < 0
    data[at + 1] ^= 0x5A
    policy_file.write_bytes(bytes(data))
    with pytest.raises(PolicyFileError, match="content hash") as info:
        load_policy(policy_file)
    assert str(policy_file) in str(info.value)


def test_edited_weights_without_a_new_hash_are_detected(policy_file):
    rewrite(policy_file, lambda p: p["state_dict"]["head.bias"].add_(1.0))
    with pytest.raises(PolicyFileError, match="content hash"):
        load_policy(policy_file)


def test_a_file_without_a_content_hash_is_refused(policy_file):
    rewrite(policy_file, lambda p: p.pop("content_sha256"))
    with pytest.raises(PolicyFileError, match="no content hash"):
        load_policy(policy_file)


def _never_built(*args, **kwargs):
    raise AssertionError("a network was allocated before the file was checked")


@pytest.mark.parametrize(
    "hidden, message",
    [
        ([], "non-empty"),
        (
            [12000, 12000],
            rf"body.0.weight has shape \(16, {OBSERVATION.size}\), the description needs "
            rf"\(12000, {OBSERVATION.size}\)",
        ),
        ([16], "unexpected"),
        ([16, 8, 4], "missing"),
        ([16, 0], "positive integers"),
        ("16,8", "non-empty list"),
        ([16.0, 8], "positive integers"),
    ],
)
def test_a_network_description_that_does_not_fit_the_weights_is_refused_before_allocating(
    policy_file, monkeypatch, hidden, message
):
    rewrite(policy_file, lambda p: p.update(hidden=hidden))
    monkeypatch.setattr(nn_module, "PolicyNet", _never_built)
    with pytest.raises(PolicyFileError, match=message) as info:
        load_policy(policy_file)
    assert str(policy_file) in str(info.value)


@pytest.mark.parametrize(
    "field, value", [("obs_size", 700), ("num_actions", 52), ("num_actions", 88.0), ("num_actions", None)]
)
def test_observation_size_and_actions_must_be_this_versions(policy_file, field, value):
    rewrite(policy_file, lambda p: p.update({field: value}))
    with pytest.raises(PolicyFileError, match=f"this version has {OBSERVATION.size} and 90"):
        load_policy(policy_file)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_weights_are_refused_even_with_a_valid_hash(policy_file, monkeypatch, bad):
    rewrite(policy_file, lambda p: p["state_dict"]["body.2.bias"].__setitem__(0, bad), resign=True)
    monkeypatch.setattr(nn_module, "PolicyNet", _never_built)
    with pytest.raises(PolicyFileError, match=r"NaN or infinite weights in \['body.2.bias'\]"):
        load_policy(policy_file)


@pytest.mark.parametrize(
    "prior, message",
    [
        ({"weight": math.inf, "on_bids": False}, "finite"),
        ({"weight": math.nan, "on_bids": False}, "finite"),
        ({"weight": -1.0, "on_bids": False}, ">= 0"),
        ({"weight": "8", "on_bids": False}, "must be a number"),
        ({"weight": 1.0, "on_bids": "yes"}, "on_bids"),
        ({"weight": 1.0}, "heuristic_prior"),
    ],
)
def test_a_bad_prior_weight_is_refused(policy_file, prior, message):
    rewrite(policy_file, lambda p: p.update(heuristic_prior=prior))
    with pytest.raises(PolicyFileError, match=message):
        load_policy(policy_file)


def test_policy_file_error_is_a_checkpoint_and_value_error():
    assert issubclass(PolicyFileError, CheckpointError) and issubclass(PolicyFileError, ValueError)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"hidden": ()}, "at least one hidden layer"),
        ({"hidden": (8,), "prior_weight": math.inf}, "finite"),
    ],
)
def test_policy_net_refuses_a_description_that_cannot_be_a_network(kwargs, message):
    with pytest.raises(ValueError, match=message):
        PolicyNet(**kwargs)


def test_saving_non_finite_weights_is_refused(tmp_path):
    policy = PolicyNet((8,))
    with torch.no_grad():
        policy.head.bias[3] = math.nan
    with pytest.raises(ValueError, match="NaN or infinite"):
        save_policy(tmp_path / "nan.pt", policy)
    assert not (tmp_path / "nan.pt").exists()


@pytest.mark.parametrize("size, layout", [(OBSERVATION.size, OBSERVATION), (STATE.size, STATE)])
def test_critic_layout_names_the_observation_or_the_state(size, layout):
    assert critic_layout(size) == layout.describe()


def test_critic_layout_of_an_unknown_size_is_a_layout_error():
    with pytest.raises(LayoutError, match="700 floats"):
        critic_layout(700)


# ------------------------------------------------------------------ the spades_v3 bump (90 actions)
def test_the_released_policy_plays_bit_identically_after_the_v3_bump():
    """Every action and every observation (its v1 columns, the mask's first 88 entries) of seeded hands of every
    preset of spades_v2, as recorded with that release."""
    fixture = json.loads(V1_FIXTURE.read_text())
    assert len(fixture["cases"]) == 22 and fixture["layout"] == OBSERVATION_V1.name
    for case in fixture["cases"]:
        actions, digest = play_released(case["preset"], case["seed"])
        assert digest == case["digest"], case  # the observations the policy reads are unchanged
        assert actions == case["actions"], case  # and it plays them to the same actions


def test_a_file_of_88_actions_gives_the_same_logits_and_none_to_the_drawing_actions(tmp_path):
    torch.manual_seed(1)
    old = PolicyNet(SMALL, obs_size=OBSERVATION_V1.size, num_actions=NUM_ACTIONS_V2)
    old.input_layout = OBSERVATION_V1.describe()
    save_policy(tmp_path / "old.pt", old)
    policy, _ = load_policy(tmp_path / "old.pt")
    assert policy.num_actions == NUM_ACTIONS_V2 and policy.head.out_features == NUM_ACTIONS_V2
    obs = torch.rand(5, OBSERVATION.size)
    with torch.no_grad():
        logits = policy(obs)
        direct = old.head(torch.relu(old.body(obs[:, : OBSERVATION_V1.size])))
    assert logits.shape == (5, NUM_ACTIONS)
    assert torch.equal(logits[:, :NUM_ACTIONS_V2], direct)
    assert (logits[:, [KEEP, DISCARD]] <= -1e8).all()


def test_a_policy_of_88_actions_refuses_a_drawing_turn_naming_its_file():
    env = spades_env.raw_env(rules="two_player")
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    assert obs["action_mask"][[KEEP, DISCARD]].all()
    agent = make_agent("ppo_standard")  # the standard-only release of 2026-12-03
    with pytest.raises(PolicyFileError, match=r"ppo_standard\.pt.*88 actions.*'keep', 'discard'.*spades_v3"):
        agent.act(obs)
    while env.hand.phase.name == "DRAW":  # it still bids and plays two-player hands
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        obs = env.observe(env.agent_selection)
    assert obs["action_mask"][int(agent.act(obs))]


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda p: p.update(meta="not a mapping"), "'meta' must be a mapping"),
        (lambda p: p.update(meta=[1, 2]), "'meta' must be a mapping"),
        (lambda p: p["state_dict"].update({"head.bias": p["state_dict"]["head.bias"].to_sparse()}), "not plain dense"),
    ],
)
def test_item14_a_crafted_meta_or_sparse_weights_get_the_loaders_own_error(tmp_path, capsys, edit, message):
    """Issue 30, item 14: PolicyFileError naming the problem (not TypeError or RuntimeError), and spades-play
    exits 2 with it."""
    import torch

    from spades_env.nn import PolicyFileError, PolicyNet, load_policy, save_policy
    from spades_env.play import main as play_main

    path = tmp_path / "crafted.pt"
    save_policy(path, PolicyNet([8]), meta={})
    payload = torch.load(path, weights_only=True)
    edit(payload)
    torch.save(payload, path)
    with pytest.raises(PolicyFileError, match=message):
        load_policy(path)
    assert play_main(["--seats", f"human,{path},random,random", "--seed", "1"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
