"""Learning from search (``expert``, issue 51 item 2): the expert's targets are the search's own choices, legal,
standing for their run of equivalent cards; the update's cross-entropy at them; a run with an expert learns
something else than one without, and resumes bit for bit."""

from __future__ import annotations

import copy
import csv
import dataclasses
import pickle
from pathlib import Path

import numpy as np
import pytest
import torch

from spades_env.core.cards import CARD_SUIT, cards_of
from spades_env.core.rules import preset
from training import train as train_module
from training.config import load_config
from training.expert import Expert, equivalent_cards
from training.ppo import NO_TARGET, expert_loss, ppo_update, target_sets
from training.rollout import Rollout
from training.train import start_run

REPO = Path(__file__).resolve().parents[2]
SMOKE = str(REPO / "configs" / "train" / "smoke.yaml")
EXPERT = ["--config", SMOKE, "--rules", "cutthroat", "--expert", "pimc", "--expert-samples", "4", "--no-final-eval"]


def _positions(rules: str, steps: int = 40, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of the tables of a heuristic-played rollout, every 4th step (bids and card play)."""
    config = dataclasses.replace(load_config(SMOKE), rules=rules, num_envs=8).validate()
    rng = np.random.default_rng(seed)
    tables = Rollout(config, preset(rules), rng)
    tables.start(0, rng)
    obs, mask = [], []
    for step in range(steps):
        if step % 4 == 0:
            obs.append(tables.obs.copy())
            mask.append(tables.mask.copy())
        tables.step(tables.store, tables.heuristic.act_batch(tables.obs, tables.mask))
    return np.concatenate(obs), np.concatenate(mask)


@pytest.fixture(scope="module")
def cutthroat_positions():
    return _positions("cutthroat")


def test_targets_are_the_search_s_choices_on_those_positions(cutthroat_positions):
    obs, mask = cutthroat_positions
    expert = Expert("pimc", 0.5, samples=4, seed=7)
    replay = copy.deepcopy(expert)  # the same generator: the same rows drawn and the same deals searched
    actions, cards = expert.targets(obs, mask)
    drawn = replay.rng.random(len(obs)) < 0.5
    searched = 0
    for row in range(len(obs)):
        if not drawn[row] or (mask[row] != 0).sum() < 2:
            assert actions[row] == NO_TARGET and cards[row] == 0  # not offered: no target
            continue
        replay.agent.last_values = {}
        chosen = replay.agent.act({"observation": obs[row], "action_mask": mask[row]})
        if len(replay.agent.last_values) > 1:
            searched += 1
            assert actions[row] == chosen
            assert max(replay.agent.last_values, key=replay.agent.last_values.get) == chosen
        else:  # a decision the expert does not search (or one run of equivalent cards): no target
            assert actions[row] == NO_TARGET
    assert searched >= 5
    assert (actions != NO_TARGET).sum() == searched


def test_every_target_is_legal_and_stands_for_its_run_of_equivalent_cards(cutthroat_positions):
    obs, mask = cutthroat_positions
    actions, cards = Expert("pimc", 1.0, samples=4, seed=2).targets(obs, mask)
    rows = np.flatnonzero(actions != NO_TARGET)
    assert len(rows) >= 10
    bids = 0
    for row in rows:
        assert mask[row, actions[row]] != 0
        if cards[row] == 0:  # a bid: the action itself
            assert actions[row] >= 54
            bids += 1
            continue
        run = cards_of(int(cards[row]))
        assert actions[row] in run
        assert all(mask[row, c] != 0 and CARD_SUIT[c] == CARD_SUIT[actions[row]] for c in run)
    assert bids >= 1 and bids < len(rows)  # PIMC searches bids and card play


@pytest.mark.parametrize("decisions", ["bids", "cards"])
def test_expert_decisions_narrows_the_offer_to_the_bidding_or_the_card_play(cutthroat_positions, decisions):
    obs, mask = cutthroat_positions
    every = Expert("pimc", 1.0, samples=4, seed=2)
    narrow = Expert("pimc", 1.0, samples=4, seed=2, decisions=decisions)
    actions, _ = every.targets(obs, mask)
    narrowed, _ = narrow.targets(obs, mask)
    bidding = (mask[:, 54:72] != 0).any(1)
    wanted = bidding if decisions == "bids" else ~bidding
    assert (narrowed[~wanted] == NO_TARGET).all()
    assert ((narrowed != NO_TARGET) == ((actions != NO_TARGET) & wanted)).all()  # the same rows drawn, fewer kept
    kept = narrowed[narrowed != NO_TARGET]
    assert len(kept) >= 2 and ((kept >= 54) if decisions == "bids" else (kept < 54)).all()
    assert narrow.describe()["decisions"] == decisions


def test_expert_decisions_is_checked_and_old_experts_offered_everything():
    with pytest.raises(ValueError, match="'expert_decisions' must be one of"):
        dataclasses.replace(load_config(SMOKE), expert="pimc", expert_decisions="bid").validate()
    with pytest.raises(ValueError, match="'expert_decisions: bids' needs 'expert: pimc'"):
        dataclasses.replace(load_config(SMOKE), expert="search", expert_decisions="bids").validate()
    with pytest.raises(ValueError, match="expert decisions must be one of"):
        Expert("pimc", 0.1, samples=4, seed=0, decisions="play")
    old = Expert("pimc", 0.1, samples=4, seed=0)
    del old.__dict__["decisions"]  # pickled before the field existed
    assert pickle.loads(pickle.dumps(old)).decisions == "all"


def test_a_card_s_run_holds_the_cards_with_no_unseen_card_between_them():
    obs, mask = _positions("standard", steps=60)
    agent = Expert("pimc", 1.0, samples=4, seed=2).agent
    found = 0
    for row in np.flatnonzero((mask[:, :52] != 0).sum(1) > 1):
        legal = np.flatnonzero(mask[row, :52])
        for card in legal:
            run = cards_of(equivalent_cards(agent, obs[row], mask[row], int(card)))
            assert card in run
            if len(run) > 1:
                found += 1
                # every card of the run names the same run
                assert all(
                    equivalent_cards(agent, obs[row], mask[row], c) == sum(1 << r for r in run)
                    for r in run
                    for c in [r]
                )
    assert found >= 1
    assert equivalent_cards(agent, obs[0], mask[0], 60) == 0  # a bid: no run


def test_the_cross_entropy_is_minus_the_log_of_the_probability_of_the_target_s_run():
    probs = torch.zeros(3, 90)
    probs[0, [0, 1, 2]] = torch.tensor([0.5, 0.25, 0.25])
    probs[1, [55, 56]] = torch.tensor([0.8, 0.2])
    probs[2, [3, 4]] = torch.tensor([0.5, 0.5])
    targets = torch.tensor([0, 56, NO_TARGET])
    cards = torch.tensor([0b11, 0, 0])  # row 0's target stands for cards 0 and 1
    expected = -(np.log(0.75) + np.log(0.2)) / 2  # the row without a target adds nothing
    assert expert_loss(probs, targets, cards).item() == pytest.approx(expected, rel=1e-6)
    assert expert_loss(probs, torch.full((3,), NO_TARGET), cards) is None
    sets = target_sets(targets, cards, 90)
    assert sets[0].nonzero().flatten().tolist() == [0, 1]
    assert sets[1].nonzero().flatten().tolist() == [56]
    assert not sets[2].any()


def test_the_search_expert_searches_with_the_learner_s_weights(tmp_path, cutthroat_positions):
    config = dataclasses.replace(load_config(SMOKE), rules="cutthroat", expert="search", expert_samples=4).validate()
    run = start_run(config, tmp_path / "run", resume=False)
    expert = run.rollout.expert
    expert.refresh(run.learner.policy)
    for key, value in run.learner.policy.state_dict().items():
        assert torch.equal(expert.agent.net.policy.state_dict()[key], value)
    with torch.no_grad():
        for p in run.learner.policy.parameters():
            p.mul_(1.01)
    expert.refresh(run.learner.policy)  # the next rollout's weights
    for key, value in run.learner.policy.state_dict().items():
        assert torch.equal(expert.agent.net.policy.state_dict()[key], value)
    obs, mask = cutthroat_positions
    expert.fraction = 1.0
    actions, _ = expert.targets(obs[:40], mask[:40])
    rows = actions != NO_TARGET
    assert rows.any() and (mask[:40][rows, actions[rows]] != 0).all()


def test_tables_pickled_before_experts_existed_have_none(tmp_path):
    config = load_config(SMOKE)
    rollout = Rollout(config, preset("standard"), np.random.default_rng(0))
    assert rollout.expert is None
    del rollout.expert
    assert pickle.loads(pickle.dumps(rollout)).expert is None


def _update(run, batch: dict) -> dict[str, torch.Tensor]:
    """The policy's weights after one PPO update on ``batch`` from the run's weights (the same generators)."""
    policy, critic = copy.deepcopy(run.learner.policy), copy.deepcopy(run.learner.critic)
    params = [*policy.parameters(), *critic.parameters()]
    optimizer = torch.optim.Adam(params, lr=run.config.learning_rate)
    ppo_update(policy, critic, optimizer, params, batch, run.config, np.random.default_rng(0), run.device)
    return policy.state_dict()


def test_the_update_learns_from_the_targets_and_only_from_them(tmp_path):
    config = dataclasses.replace(
        load_config(SMOKE), rules="cutthroat", expert="pimc", expert_fraction=0.05, expert_samples=4
    ).validate()
    run = start_run(config, tmp_path / "run", resume=False)
    run.rollout.start(0, run.rng)
    batch, _ = run.rollout.collect_batch(run.learner, run.pool, run.rng, run.device)
    assert (batch["expert"] != NO_TARGET).sum() >= 5
    plain = {k: v for k, v in batch.items() if k not in ("expert", "expert_cards")}
    none = {**batch, "expert": np.full_like(batch["expert"], NO_TARGET)}
    learned, without = _update(run, batch), _update(run, plain)
    assert _same(_update(run, none), without)  # a batch without targets: PPO alone
    assert not _same(learned, without)
    assert all(torch.isfinite(v).all() for v in learned.values())


def _weights(summary: dict) -> dict[str, torch.Tensor]:
    return torch.load(Path(summary["run_dir"]) / "policy.pt", weights_only=True)["state_dict"]


def _same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_a_run_with_an_expert_and_a_teacher_resumes_bit_identically(tmp_path):
    # one run for both: each keeps its state with the tables (the expert's generator; the teachers' files)
    small = ["--total-decisions", "4500", "--rollout-steps", "20", "--bc-decisions", "0", "--eval-every", "0"]
    args = [*EXPERT, "--expert-fraction", "0.05", "--teachers", "*=ppo", *small]
    whole = train_module.train([*args, "--runs-dir", str(tmp_path / "whole")])
    train_module.train([*args, "--runs-dir", str(tmp_path / "split"), "--max-updates", "1"])
    resumed = train_module.train([*args, "--runs-dir", str(tmp_path / "split"), "--resume", "--max-updates", "0"])
    assert whole["counters"]["update"] == resumed["counters"]["update"] >= 3
    assert _same(_weights(whole), _weights(resumed))
    with open(Path(whole["run_dir"]) / "metrics.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert sum(int(r["expert_targets"]) for r in rows) > 0
    assert all(0 <= float(r["expert_agreement"]) <= 1 for r in rows if r["expert_targets"] != "0")
    assert all(float(r["teacher_kl"]) > 0 for r in rows)
