"""Policy distillation from teachers (``teachers``, issue 51): each preset's teacher gives its probabilities at the
learner's decisions, the update adds the policy's KL divergence from them, and the network moves toward them."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path

import numpy as np
import pytest
import torch

from spades_env.agents import make_agent
from spades_env.core.actions import NUM_ACTIONS
from training import train as train_module
from training.config import from_mapping, load_config, teacher_problem
from training.ppo import BATCH_KEYS, batch_tensors, choice_rows, policy_log_probs, ppo_update, teacher_kl
from training.teachers import Teachers, parse_teachers
from training.train import start_run

REPO = Path(__file__).resolve().parents[2]
SMOKE = str(REPO / "configs" / "train" / "smoke.yaml")
STANDARD_ONLY = str(REPO / "spades_env" / "policies" / "ppo_standard.pt")


def test_entries_name_a_preset_or_every_other_and_bad_ones_are_named():
    assert parse_teachers(["cutthroat=a.pt", "*=ppo"]) == {"cutthroat": "a.pt", "*": "ppo"}
    for bad in (["cutthroat"], ["=ppo"], ["cutthroat="], ["standard=ppo", "standard=x.pt"], [3]):
        with pytest.raises(ValueError, match="teacher|two teachers"):
            parse_teachers(bad)


@pytest.mark.parametrize(
    ("teachers", "message"),
    [
        (["two_player=ppo"], "'two_player' is not played by this run"),
        (["standard"], "preset=agent"),
        ("ppo", "must be list"),
    ],
)
def test_the_config_refuses_teachers_that_cannot_teach_naming_them(teachers, message):
    with pytest.raises(ValueError, match=f"'teachers'.*{message}"):
        from_mapping({"mixture": ["standard", "cutthroat"], "teachers": teachers})
    with pytest.raises(ValueError, match="'teachers': \\[\\]"):
        from_mapping({"teachers": ["*=ppo"], "backend": "torch", "rollout_workers": 0})


@pytest.mark.parametrize(
    ("teacher", "message"), [("*=heuristic", "not a trained policy"), ("*=/no/such/file.pt", "cannot load")]
)
def test_a_run_with_a_teacher_that_does_not_load_is_refused_before_anything_is_written(
    tmp_path, capsys, teacher, message
):
    with pytest.raises(SystemExit) as stopped:
        train_module.train(["--config", SMOKE, "--teachers", teacher, "--runs-dir", str(tmp_path / "runs")])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "'teachers'" in err and message in err
    assert not (tmp_path / "runs").exists()


def test_a_teacher_that_cannot_play_a_preset_it_teaches_is_refused_naming_it():
    mixture = {"mixture": ["standard", "cutthroat", "two_player"], "num_envs": 6}
    assert teacher_problem(from_mapping({**mixture, "teachers": ["standard=ppo_standard", "*=ppo"]})) is None
    assert teacher_problem(from_mapping({**mixture, "teachers": ["two_player=ppo", "*=ppo_standard"]})) is None
    for teachers in (["*=ppo_standard"], ["two_player=ppo_standard"], ["cutthroat=ppo", "*=ppo_standard"]):
        problem = teacher_problem(from_mapping({**mixture, "teachers": teachers}))
        assert problem is not None and problem.startswith("'ppo_standard' cannot teach two_player: trained on 88")


def test_each_preset_s_rows_get_its_teacher_s_probabilities_and_others_none(tmp_path):
    config = dataclasses.replace(
        load_config(SMOKE), mixture=["standard", "cutthroat", "two_player"], num_envs=12
    ).validate()
    run = start_run(config, tmp_path / "run", resume=False)
    tables = run.rollout
    tables.start(0, run.rng)
    teachers = Teachers([f"cutthroat={STANDARD_ONLY}", "*=ppo"], ["standard", "cutthroat", "two_player"])
    teachers.agent_of[2] = None  # two_player: no teacher
    agents = {"ppo": make_agent("ppo"), STANDARD_ONLY: make_agent(STANDARD_ONLY)}
    seen = set()
    for _ in range(30):
        obs, mask, presets = tables.obs, tables.mask, tables.preset_of
        probs = teachers.targets(obs, mask, presets)
        assert probs.shape == (len(obs), NUM_ACTIONS)
        for row in range(len(obs)):
            agent = teachers.agent_of[presets[row]]
            if agent is None or (mask[row] != 0).sum() < 2:
                assert not probs[row].any()
                continue
            seen.add(agent)
            expected = agents[agent].probabilities({"observation": obs[row], "action_mask": mask[row]})
            np.testing.assert_allclose(probs[row, : len(expected)], expected, atol=1e-5)
            assert probs[row][mask[row] == 0].sum() == 0
        tables.step(tables.store, tables.heuristic.act_batch(obs, mask))
    assert seen == {"ppo", STANDARD_ONLY}


def test_the_kl_divergence_is_the_hand_computed_one_over_rows_with_a_teacher():
    probs = torch.tensor([[0.5, 0.5, 0.0], [0.25, 0.75, 0.0], [0.2, 0.3, 0.5]])
    teacher = torch.tensor([[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.0, 0.0, 0.0]])
    expected = (np.log(1 / 0.5) + 0.5 * np.log(0.5 / 0.25) + 0.5 * np.log(0.5 / 0.75)) / 2
    assert teacher_kl(probs, teacher).item() == pytest.approx(expected, rel=1e-6)
    assert teacher_kl(probs, torch.zeros(3, 3)) is None
    assert teacher_kl(teacher[:2], teacher[:2]).item() == pytest.approx(0.0, abs=1e-7)


def _kl_from_teacher(policy, batch, device) -> float:
    t = batch_tensors(batch, BATCH_KEYS, True, device)
    rows = torch.arange(len(batch["action"]))
    choice = choice_rows(t["mask"])
    if policy.cards is not None:
        t["hand_cards"] = policy.hand_card_features(t["obs"], t["mask"])
    with torch.no_grad():
        _, probs = policy_log_probs(policy, t, rows, choice)
    return teacher_kl(probs, t["teacher"][choice]).item()


def test_the_update_moves_the_policy_toward_its_teacher(tmp_path):
    config = dataclasses.replace(
        load_config(SMOKE), teachers=["*=ppo"], teacher_coef=5.0, update_epochs=4, max_grad_norm=5.0, target_kl=0.0
    ).validate()
    run = start_run(config, tmp_path / "run", resume=False)
    run.rollout.start(0, run.rng)
    batch, _ = run.rollout.collect_batch(run.learner, run.pool, run.rng, run.device)
    assert (batch["teacher"].sum(1) > 0).mean() > 0.5  # every preset is taught: the rows with a choice
    plain = {k: v for k, v in batch.items() if k != "teacher"}
    before = _kl_from_teacher(run.learner.policy, batch, run.device)
    after, keys = {}, {}
    for name, data in (("taught", batch), ("plain", plain)):
        policy, critic = copy.deepcopy(run.learner.policy), copy.deepcopy(run.learner.critic)
        params = [*policy.parameters(), *critic.parameters()]
        optimizer = torch.optim.Adam(params, lr=1e-3)
        for _ in range(5):
            stats = ppo_update(policy, critic, optimizer, params, data, config, np.random.default_rng(0), run.device)
        after[name], keys[name] = _kl_from_teacher(policy, batch, run.device), set(stats)
    assert "teacher_kl" in keys["taught"] and "teacher_kl" not in keys["plain"]
    assert after["taught"] < 0.8 * before  # a 32 x 32 network: it cannot become the released one
    assert after["taught"] < 0.8 * after["plain"]
