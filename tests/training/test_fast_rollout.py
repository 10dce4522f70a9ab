"""The faster training path: critic values in one pass at the end of a rollout, snapshot networks built once,
and the headline line of the final evaluation."""

from __future__ import annotations

import numpy as np
import torch

from spades_env.nn import PolicyNet, sparse_rows
from training.config import TrainConfig
from training.learner import SnapshotNets
from training.train import evaluation_line
from training.trajectories import TrajectoryStore


def _store_with_a_finished_and_an_open_hand() -> TrajectoryStore:
    store = TrajectoryStore(num_envs=1, num_seats=4)
    for critic_input in (1.0, 2.0):  # the finished hand: two decisions of seat 0
        store.add(
            np.array([0]),
            np.array([0]),
            obs=np.zeros((1, 2), np.float32),
            mask=np.ones((1, 3), np.int8),
            critic=np.array([[critic_input]], np.float32),
            action=np.array([1]),
            logp=np.zeros(1),
            value=np.zeros(1),
        )
    store.end_hands(np.array([0]), np.array([[1.0, -1.0, 1.0, -1.0]]))
    store.add(
        np.array([0]),
        np.array([1]),
        obs=np.zeros((1, 2), np.float32),
        mask=np.ones((1, 3), np.int8),
        critic=np.array([[5.0]], np.float32),
        action=np.array([1]),
        logp=np.zeros(1),
        value=np.zeros(1),
    )
    return store


def test_values_given_at_take_complete_are_those_of_the_complete_decisions_inputs():
    seen = []

    def value_fn(inputs: np.ndarray) -> np.ndarray:
        seen.append(inputs.copy())
        return inputs[:, 0] / 10

    out = _store_with_a_finished_and_an_open_hand().take_complete(1.0, 1.0, value_fn)
    np.testing.assert_array_equal(seen[0][:, 0], [1.0, 2.0])  # the open hand's decision is not valued yet
    np.testing.assert_allclose(out["value"], [0.1, 0.2], rtol=1e-6)
    np.testing.assert_allclose(out["return"], [1.0, 1.0], rtol=1e-6)  # the hand's reward, whatever the values
    np.testing.assert_allclose(out["advantage"], [0.9, 0.8], rtol=1e-6)


def test_snapshot_networks_are_built_once_per_pool_entry_and_forgotten_when_it_leaves():
    nets = SnapshotNets([8], torch.device("cpu"))
    pool = [PolicyNet((8,)).state_dict() for _ in range(2)]
    first = nets.net(pool[0])
    assert nets.net(pool[0]) is first
    assert all(torch.equal(first.state_dict()[k], pool[0][k]) for k in pool[0])
    nets.keep_only(pool[1:])
    assert nets.net(pool[0]) is not first


def test_the_evaluation_line_shows_games_won_then_bag_adjusted_then_plain_points():
    interval = {"mean": 12.5, "low": 2.0, "high": 23.0}
    report = {
        "games": {"a_win_rate": {"rate": 0.6, "low": 0.5, "high": 0.7}, "n_games": 200},
        "deals": {"bag_adjusted_diff": interval, "points_diff": {"mean": 20.0, "low": 9.0, "high": 31.0}, "n": 400},
    }
    line = evaluation_line(report)
    assert (
        line.index("games won 60.0%")
        < line.index("bag-adjusted points/deal +12.5")
        < line.index("plain points/deal +20.0")
    )


def test_the_main_job_is_a_pure_network_that_plays_games_in_its_final_evaluation():
    config = TrainConfig()
    assert config.prior_weight == 0
    assert config.final_eval_games > 0


def test_snapshots_played_in_one_batched_pass_give_each_rows_own_snapshot_logits():
    torch.manual_seed(0)
    pool = [PolicyNet((16, 8)).state_dict() for _ in range(3)]
    nets = SnapshotNets([16, 8], torch.device("cpu"))
    obs = torch.randn(7, pool[0]["body.0.weight"].shape[1]) * 20  # some features beyond the clip
    which = torch.tensor([2, 0, 1, 1, 0, 2, 2])
    with torch.no_grad():
        batched = nets.logits(pool, obs, which)
        one_by_one = torch.stack([nets.net(pool[int(w)])(obs[i : i + 1])[0] for i, w in enumerate(which)])
    assert torch.allclose(batched, one_by_one, atol=1e-5)
    pool[1] = PolicyNet((16, 8)).state_dict()  # a new snapshot replaces one: the stacked weights follow
    with torch.no_grad():
        assert torch.allclose(nets.logits(pool, obs[:1], torch.tensor([1])), nets.net(pool[1])(obs[:1]), atol=1e-5)


def test_snapshots_on_sparse_rows_give_the_logits_of_the_dense_rows():
    torch.manual_seed(1)
    pool = [PolicyNet((16, 8)).state_dict() for _ in range(3)]
    nets = SnapshotNets([16, 8], torch.device("cpu"))
    obs = torch.randn(6, pool[0]["body.0.weight"].shape[1]) * 20
    obs[obs.abs() < 15] = 0  # mostly zeros, some features beyond the clip, one row with none
    obs[3] = 0
    which = torch.tensor([1, 0, 2, 2, 1, 0])
    with torch.no_grad():
        assert torch.allclose(nets.logits(pool, sparse_rows(obs), which), nets.logits(pool, obs, which), atol=1e-5)
