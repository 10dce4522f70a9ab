"""The RLlib adapter's parts that need no ray: RLlib's observation keys, the illegal-action count, the missing-ray error."""

import sys

import numpy as np
import pytest

from spades_env import env
from spades_env.integrations import rllib as adapter


def _first_illegal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask == 0)[0])


def test_observations_are_keyed_as_rllibs_action_masking_module_expects():
    wrapped = adapter.RLlibObservations(env(episode="hand"))
    wrapped.reset(seed=3)
    agent = wrapped.agent_selection
    obs = wrapped.observe(agent)
    inner = wrapped.env.observe(agent)
    assert set(obs) == {adapter.OBS_KEY, adapter.MASK_KEY} == {"observations", "action_mask"}
    np.testing.assert_array_equal(obs["observations"], inner["observation"])
    np.testing.assert_array_equal(obs["action_mask"], inner["action_mask"])
    assert obs["action_mask"].dtype == np.float32
    assert wrapped.observation_space(agent).contains(obs)


@pytest.mark.parametrize("legal, counted", [(True, 0), (False, 1)])
def test_illegal_actions_are_counted_and_legal_ones_are_not(legal, counted):
    wrapped = adapter.RLlibObservations(env(episode="hand"))
    wrapped.reset(seed=5)
    mask = wrapped.observe(wrapped.agent_selection)["action_mask"]
    action = int(np.flatnonzero(mask)[0]) if legal else _first_illegal(mask)
    wrapped.step(action)
    assert wrapped.illegal_actions == counted


def test_an_illegal_action_ends_the_episode_with_minus_one_instead_of_raising():
    wrapped = adapter.RLlibObservations(env(episode="hand"))
    wrapped.reset(seed=5)
    offender = wrapped.agent_selection
    wrapped.step(_first_illegal(wrapped.observe(offender)["action_mask"]))
    assert all(wrapped.terminations.values())
    assert wrapped.rewards[offender] == -1


@pytest.mark.parametrize("mode, expected", [("shared", {"shared"}), ("per_seat", {"player_0", "player_1"})])
def test_policy_mapping_maps_each_seat_to_its_policy(mode, expected):
    policies, mapping = adapter.policy_mapping(mode, ["player_0", "player_1"])
    assert policies == expected
    assert {mapping(agent, None) for agent in ("player_0", "player_1")} == expected


def test_policy_mapping_names_the_modes_on_a_bad_one():
    with pytest.raises(ValueError, match="shared.*per_seat"):
        adapter.policy_mapping("per_side", ["player_0"])


def test_without_ray_the_error_names_the_rllib_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now raises ImportError
    monkeypatch.setitem(sys.modules, "ray.rllib", None)
    with pytest.raises(adapter.RLlibMissingError, match=r"spades_env\[rllib\]"):
        adapter.make_env()
    with pytest.raises(ImportError, match="rllib"):
        adapter.SpadesPPOModule  # noqa: B018 - the lazy attribute is what is tested


def test_policy_net_from_state_rebuilds_the_modules_policy_and_ignores_the_critic():
    torch = pytest.importorskip("torch")
    from spades_env.nn import PolicyNet

    source = PolicyNet(hidden=(16, 8))
    state = {f"pi.{k}": v.numpy() for k, v in source.state_dict().items()}
    state["vf.net.0.weight"] = np.zeros((3, 3), dtype=np.float32)
    rebuilt = adapter.policy_net_from_state(state, hidden=(16, 8))
    for name, tensor in source.state_dict().items():
        assert torch.equal(rebuilt.state_dict()[name], tensor), name


def test_policy_net_from_state_without_policy_weights_names_the_problem():
    pytest.importorskip("torch")
    with pytest.raises(ValueError, match="no policy weights"):
        adapter.policy_net_from_state({"vf.net.0.weight": np.zeros(1)})
