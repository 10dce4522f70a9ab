"""The tables of self-play PPO on the torch batch engine (``backend: torch``): tables, inference, trajectories
and GAE on ``device``.

With ``backend: torch`` the run's tables are ``BatchEnv(..., backend="torch", device=device)``
(:class:`~spades_env.batch.torch_env.TorchBatchEnv`): observations, masks, seats to act and the hands' outcomes
stay tensors on the device, the policy reads them there, actions are sampled there, and a rollout's decisions
are kept on the device in the one trajectory store of both backends (:class:`training.trajectories.TrajectoryStore`
on tensors):

* **Table steps.** Each step every table acts once: the learner's rows by the policy, a snapshot's by the
  pool's stacked networks (:class:`~training.learner.SnapshotNets`), random tables' by a uniform legal action,
  all in one masked sample on the device (one uniform per row from the rollout's own generator). Tables
  against the heuristic (or the config's ``opponent``) are possible: their rows go to the host first, then the
  device's forward passes are queued, and the host's ``opponent.act_batch`` chooses while they run (its actions go back after the sample;
  the only host synchronisation of a step besides the card scorer's).
* **Trajectories.** Every table's row of each step goes to the store, ``valid`` where the learner chose it:
  observation, mask, action, log-probability, seat and the critic's input where it is not the observation. A
  hand's rewards (the side's points minus the others', bags charged at their game cost when taken, scaled:
  :func:`spades_env.rewards.training_rewards` on tensors) go to each seat's last decision of the hand. Decisions
  of hands still in play when a rollout stops are carried into the next rollout, as on the numpy path.
* **GAE.** The numpy path's (:func:`training.trajectories.with_advantages`, :func:`training.ppo.gae_advantages`
  on tensors): the finished decisions' chains (a hand is an episode) swept a place per wave; the critic values
  the finished decisions in one pass, reading what ``critic_input`` names: the observation, or the engine's
  full-information state (``TorchBatchEnv.state()``) or its position's columns, kept with the decisions.

What needs the host once per rollout (not per step): the number of finished decisions (the batch's size) and
of carried ones, and the size of each wave of GAE. The batch is a dict of tensors on the device in the form :func:`training.ppo.ppo_update`
takes. Options that read the host's engine are refused with this backend by the config
(:meth:`training.config.TrainConfig.validate`): the heuristic prior and rollout workers. A mixture of presets
has one engine per preset, its tables numbered preset after preset, each paying its own rewards (individual or
shared by partners), as on the numpy path (:mod:`training.mixture`).
"""

from __future__ import annotations

import numpy as np
import torch

from spades_env.agents import make_agent
from spades_env.batch import BatchEnv
from spades_env.core.rules import Rules
from spades_env.nn import PolicyNet, ValueNet, fixed_weights, masked_logits
from spades_env.obs.layout import POSITION_COLUMNS
from spades_env.rewards import training_rewards
from training.config import CRITIC_INPUTS, TrainConfig
from training.learner import Learner, SnapshotNets
from training.mixture import MAX_SEATS, SEED_RANGE, preset_tables
from training.rollout import (
    HEURISTIC,
    RANDOM,
    SNAPSHOT,
    Rollout,
    inverse_cdf,
    learner_acts,
    table_kinds,
    table_opponent,
)
from training.trajectories import TrajectoryStore, with_advantages


class _Engine:
    """One preset's tables on the torch engine, and their bags at each hand's start (for the bag cost)."""

    def __init__(self, config: TrainConfig, rules: Rules, tables: int, seed: int, device: torch.device):
        self.config, self.rules = config, rules
        self.env = BatchEnv(
            tables,
            rules=rules,
            episode="game",
            seed=seed,
            backend="torch",
            device=device,
            check_actions=False,  # the actions are sampled from the mask
        )
        self.bags = torch.zeros(tables, rules.num_sides, dtype=torch.int64, device=device)

    def reset(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        self.bags.zero_()
        return self.env.reset()

    def step(self, actions: torch.Tensor) -> tuple[tuple, torch.Tensor, torch.Tensor, torch.Tensor]:
        """Play; ((obs, mask, to_act), the hands' rewards padded to MAX_SEATS seats (0 where no hand ended), hand
        over, episode done)."""
        obs, mask, to_act, _, dones, info = self.env.step(actions)
        config, over = self.config, info["hand_over"]
        ending = {"others": config.reward_others, "winner": info["winner"], "win_reward": config.win_reward}
        if config.bag_cost:
            rewards = training_rewards(
                self.rules,
                info["points"],
                config.reward_scale,
                self.bags,
                info["bags"],
                info["bag_penalties"],
                **ending,
            )
        else:
            rewards = training_rewards(self.rules, info["points"], config.reward_scale, **ending)
        self.bags = torch.where(dones[:, None], 0, torch.where(over[:, None], info["bags"], self.bags))
        rewards = torch.where(over[:, None], rewards, 0.0)
        padded = torch.nn.functional.pad(rewards, (0, MAX_SEATS - rewards.shape[1]))
        return (obs, mask, to_act), padded, over, dones


class DeviceRollout:
    """The tables' state between updates on the device (see the module docstring); pickles whole (checkpoints).
    A mixture's presets each have their engine and share of the tables (:func:`training.mixture.table_counts`),
    numbered preset after preset, each with its own rewards, as on the numpy path."""

    def __init__(self, config: TrainConfig, rules: Rules, rng: np.random.Generator, device: torch.device):
        self.config, self.device = config, torch.device(device)
        self.heuristic = make_agent("heuristic", seed=config.seed)
        self.opponent = table_opponent(config, self.heuristic)
        d, n = self.device, config.num_envs
        # the critic's input: the observation (kept once, as the policy's), or the state or its position's columns
        self.critic_columns = torch.as_tensor(POSITION_COLUMNS, device=d) if config.critic_input == "position" else None
        self.critic_size = CRITIC_INPUTS[config.critic_input].size
        self.kinds = torch.zeros(n, dtype=torch.int64, device=d)
        self.learner_side = torch.zeros(n, dtype=torch.int64, device=d)
        self.snapshot_of = torch.zeros(n, dtype=torch.int64, device=d)
        self.store = TrajectoryStore(n, MAX_SEATS, device=d)
        self.obs = self.mask = self.to_act = None
        # the presets' engines last: the config's one trip into the mixture's layout
        self.engines, layout = preset_tables(
            config, rules, rng, lambda part_rules, count, seed: _Engine(config, part_rules, count, seed, d)
        )
        self.rules = self.engines[0].rules  # the run's rules; a mixture's first preset (its imitation tables' default)
        self.names = [engine.rules.name for engine in self.engines]
        self.bounds = [int(b) for b in layout.bounds]
        self.generator = torch.Generator(device=d).manual_seed(int(rng.integers(SEED_RANGE)))  # after the engines'
        self.preset_of = torch.as_tensor(layout.preset_of, device=d)  # each table's preset (index)
        self.table_sides = torch.as_tensor(layout.table_sides, device=d)  # the side of each seat at each table
        self.num_sides = torch.as_tensor(layout.num_sides, device=d)

    # ------------------------------------------------------------------ pickling (a torch generator does not)
    def __getstate__(self) -> dict:
        return {**vars(self), "generator": self.generator.get_state()}

    def __setstate__(self, state: dict) -> None:
        vars(self).update({"opponent": state["heuristic"], **state})  # tables pickled before 'opponent' existed
        generator = torch.Generator(device=self.device)
        generator.set_state(state["generator"])
        self.generator = generator

    # ------------------------------------------------------------------ tables
    def assign_opponents(self, tables: torch.Tensor, pool_size: int) -> None:
        """Draw the kind, learner side and snapshot of the tables where ``tables`` (bool) is set."""
        g, n = self.generator, self.config.num_envs
        kind = table_kinds(torch.rand(n, generator=g, device=self.device), self.config, pool_size)
        side = (torch.rand(n, generator=g, device=self.device) * self.num_sides).long()
        snap = (torch.rand(n, generator=g, device=self.device) * max(1, pool_size)).long()
        self.kinds = torch.where(tables, kind, self.kinds)
        self.learner_side = torch.where(tables, side, self.learner_side)
        self.snapshot_of = torch.where(tables, snap, self.snapshot_of)

    def start(self, pool_size: int, rng: np.random.Generator | None = None) -> None:
        """Draw every table's opponents and start new games everywhere, with no bags and nothing recorded (the draws
        come from the rollout's own generator on the device, not ``rng``)."""
        n = self.config.num_envs
        self.assign_opponents(torch.ones(n, dtype=torch.bool, device=self.device), pool_size)
        self._gather([engine.reset() for engine in self.engines])
        self.store = TrajectoryStore(n, MAX_SEATS, device=self.device)

    def _gather(self, outputs: list[tuple]) -> None:
        self.obs, self.mask, self.to_act = (torch.cat(parts) for parts in zip(*outputs))

    def step(self, actions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """One action per table, each preset on its engine; (the hands' rewards (tables, MAX_SEATS), hand over,
        episode done)."""
        outputs, rewards, over, dones = [], [], [], []
        for engine, start, stop in zip(self.engines, self.bounds, self.bounds[1:]):
            out, reward, ended, done = engine.step(actions[start:stop])
            outputs.append(out)
            rewards.append(reward)
            over.append(ended)
            dones.append(done)
        self._gather(outputs)
        return torch.cat(rewards), torch.cat(over), torch.cat(dones)

    def collect_batch(
        self, learner: Learner, pool: list, rng: np.random.Generator | None = None, device: torch.device | None = None
    ) -> tuple[dict[str, torch.Tensor] | None, dict[str, list[float]]]:
        """One rollout with the learner's networks (:func:`collect_on_device`; its generator and device are the
        rollout's own): the batch and seat 0's hand rewards by preset."""
        return collect_on_device(self, learner.policy, learner.critic, learner.snapshots, pool)

    def host_tables(self, rng: np.random.Generator) -> Rollout:
        """Tables on the numpy engine for the heuristic's imitation (the heuristic plays on the host): new ones,
        of the same config and presets, drawn from ``rng``."""
        return Rollout(self.config, self.rules, rng)

    def critic_input(self) -> torch.Tensor | None:
        """Every table's critic input when it is not the observation: the full state, or its position's columns."""
        if self.config.critic_input == "observation":
            return None
        state = torch.cat([engine.env.state() for engine in self.engines])
        return state if self.critic_columns is None else state.index_select(1, self.critic_columns)

    def learner_rows(self) -> torch.Tensor:
        """Bool per table: the seat to act is the learner's (every seat at a self-play table)."""
        return learner_acts(self.kinds, self.learner_side, self.table_sides.gather(1, self.to_act[:, None])[:, 0])


def _sample(logits: torch.Tensor, mask: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """One action per row from the masked ``logits``, one uniform per row from the rollout's ``generator``."""
    uniforms = torch.rand(len(logits), 1, generator=generator, device=logits.device)
    return inverse_cdf(masked_logits(logits, mask), mask, uniforms)


def collect_on_device(
    rollout: DeviceRollout, policy: PolicyNet, critic: ValueNet, snapshots: SnapshotNets, pool: list
) -> tuple[dict[str, torch.Tensor] | None, dict[str, list[float]]]:
    """One rollout of ``rollout_steps`` table steps on the device; the finished learner decisions as a batch of
    tensors (values, GAE advantages, returns) or None, and seat 0's hand rewards."""
    config, device = rollout.config, rollout.device
    store, tables = rollout.store, torch.arange(config.num_envs, device=device)
    seat0_rewards, seat0_over = [], []
    policy.eval()
    snapshots.keep_only(pool)
    snapshot_tables = bool(pool) and config.selfplay_fraction + config.heuristic_fraction + config.random_fraction < 1
    with torch.inference_mode(), fixed_weights():
        for _ in range(config.rollout_steps):
            obs, mask, to_act = rollout.obs, rollout.mask, rollout.to_act
            learner = rollout.learner_rows()
            kinds = rollout.kinds
            # the heuristic's rows go to the host first, so that the device's forward passes (queued next, not
            # waited for) run while the host's heuristic chooses
            by_heuristic = host_rows = None
            if config.heuristic_fraction:
                by_heuristic = ((kinds == HEURISTIC) & ~learner).nonzero()[:, 0]
                if len(by_heuristic):
                    host_rows = (obs[by_heuristic].cpu().numpy(), mask[by_heuristic].cpu().numpy())
            logits = policy(obs, None, legal=mask)
            log_probs = torch.log_softmax(masked_logits(logits, mask), -1)
            mixed = torch.where((kinds == RANDOM)[:, None] & ~learner[:, None], 0.0, logits)  # random: uniform
            if snapshot_tables:
                theirs = snapshots.logits(pool, obs, rollout.snapshot_of, legal=mask, dense=obs)
                mixed = torch.where(((kinds == SNAPSHOT) & ~learner)[:, None], theirs, mixed)
            actions = _sample(mixed, mask, rollout.generator)
            if host_rows is not None:
                chosen = rollout.opponent.act_batch(*host_rows)
                actions[by_heuristic] = torch.as_tensor(chosen, device=device)
            logp = log_probs.gather(1, actions[:, None])[:, 0]
            store.add(
                tables, to_act, learner, obs=obs, mask=mask, action=actions, logp=logp, critic=rollout.critic_input()
            )
            rewards, over, dones = rollout.step(actions)
            store.end_hands(tables, rewards, over)
            rollout.assign_opponents(dones, len(pool))
            seat0_rewards.append(rewards[:, 0])
            seat0_over.append(over)
        decisions = store.take_complete_decisions()
        batch = None if decisions is None else with_advantages(decisions, config.gamma, config.gae_lambda, critic)
        paid, ended = torch.stack(seat0_rewards), torch.stack(seat0_over)
        hand_rewards = {
            name: paid[ended & (rollout.preset_of == index)].tolist() for index, name in enumerate(rollout.names)
        }
    return batch, hand_rewards
