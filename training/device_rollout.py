"""The tables of self-play PPO on the torch batch engine (``backend: torch``): tables, inference, trajectories
and GAE on ``device``.

With ``backend: torch`` the run's tables are ``BatchEnv(..., backend="torch", device=device)``
(:class:`~spades_env.batch.torch_env.TorchBatchEnv`): observations, masks, seats to act and the hands' outcomes
stay tensors on the device, the policy reads them there, actions are sampled there, and a rollout's decisions
are kept in tensors of fixed shape, one row per table step and one column per table:

* **Table steps.** Each step every table acts once: the learner's rows by the policy, a snapshot's by the
  pool's stacked networks (:class:`~training.learner.SnapshotNets`), random tables' by a uniform legal action,
  all in one masked sample on the device (one uniform per row from the rollout's own generator). Tables
  against the heuristic are possible: their rows go to the host first, then the device's forward passes are
  queued, and the host's ``heuristic.act_batch`` chooses while they run (its actions go back after the sample;
  the only host synchronisation of a step besides the card scorer's).
* **Trajectories.** The store keeps, per table step and table: observation, mask, action, log-probability,
  seat, whether the learner chose it, reward and whether it ends the seat's hand. A hand's rewards (the side's
  points minus the others', bags charged at their game cost when taken, scaled: :func:`spades_env.rewards.
  training_rewards` on tensors) go to each seat's last decision of the hand. Decisions of hands still in play
  when a rollout stops are carried into the next rollout, as on the numpy path (:mod:`training.trajectories`):
  every table's unfinished hand is its latest, so the carry is the store's last rows (as many as the longest
  unfinished hand), the rows before each table's hand start marked empty.
* **GAE.** The numpy path's function (:func:`training.ppo.gae_advantages`, on tensors): the store keeps each
  decision's successor (the row of the same seat's next decision at its table, within the hand), so the finished
  decisions' chains are swept a place per wave (a hand is an episode); the critic values the
  finished decisions in one pass, reading what ``critic_input`` names: the observation, or the engine's
  full-information state (``TorchBatchEnv.state()``) or its position's columns, kept with the decisions.

What needs the host once per rollout (not per step): the number of finished decisions (the batch's size), the
size of each wave of GAE, and the carry's length. The batch is a dict of tensors on the device in the form :func:`training.ppo.ppo_update`
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
from spades_env.core.actions import NUM_ACTIONS
from spades_env.core.rules import Rules
from spades_env.nn import PolicyNet, ValueNet, fixed_weights, masked_logits
from spades_env.obs.encode import OBS_SIZE
from spades_env.obs.layout import POSITION_COLUMNS
from spades_env.rewards import training_rewards
from training.config import CRITIC_INPUTS, TrainConfig
from training.learner import Learner, SnapshotNets
from training.mixture import MAX_SEATS, SEED_RANGE, preset_tables
from training.ppo import gae_advantages
from training.rollout import HEURISTIC, RANDOM, SNAPSHOT, Rollout, inverse_cdf, learner_acts, table_kinds


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
        if config.bag_cost:
            rewards = training_rewards(
                self.rules, info["points"], config.reward_scale, self.bags, info["bags"], info["bag_penalties"]
            )
        else:
            rewards = training_rewards(self.rules, info["points"], config.reward_scale)
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
        d, n = self.device, config.num_envs
        # the critic's input: the observation (kept once, as the policy's), or the state or its position's columns
        self.critic_columns = torch.as_tensor(POSITION_COLUMNS, device=d) if config.critic_input == "position" else None
        self.critic_size = CRITIC_INPUTS[config.critic_input].size
        self.kinds = torch.zeros(n, dtype=torch.int64, device=d)
        self.learner_side = torch.zeros(n, dtype=torch.int64, device=d)
        self.snapshot_of = torch.zeros(n, dtype=torch.int64, device=d)
        self.store = self._empty_store(0)
        self.last = torch.full((n, MAX_SEATS), -1, dtype=torch.int64, device=d)  # each seat's latest decision's row
        self.hand_start = torch.zeros(n, dtype=torch.int64, device=d)  # the row of each hand's start
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
        vars(self).update(state)
        generator = torch.Generator(device=self.device)
        generator.set_state(state["generator"])
        self.generator = generator

    # ------------------------------------------------------------------ tables
    def _empty_store(self, rows: int) -> dict[str, torch.Tensor]:
        n, d = self.config.num_envs, self.device
        return {
            "obs": torch.zeros(rows, n, OBS_SIZE, device=d),
            "mask": torch.zeros(rows, n, NUM_ACTIONS, dtype=torch.int8, device=d),
            "action": torch.zeros(rows, n, dtype=torch.int64, device=d),
            "logp": torch.zeros(rows, n, device=d),
            **(
                {"critic": torch.zeros(rows, n, self.critic_size, device=d)}
                if self.config.critic_input != "observation"
                else {}
            ),
            "seat": torch.zeros(rows, n, dtype=torch.int64, device=d),
            "learner": torch.zeros(rows, n, dtype=torch.bool, device=d),
            "reward": torch.zeros(rows, n, device=d),
            "done": torch.zeros(rows, n, device=d),  # 1 at a seat's last decision of a hand (a float: it accumulates)
            "valid": torch.zeros(rows, n, dtype=torch.bool, device=d),
            "next": torch.full((rows, n), -1, dtype=torch.int64, device=d),  # the row of the seat's next decision
        }

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
        self.store = self._empty_store(0)
        self.last.fill_(-1)
        self.hand_start.zero_()

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
    n, steps = config.num_envs, config.rollout_steps
    carried = rollout.store
    start = len(carried["action"])
    store = {key: torch.cat([carried[key], fresh]) for key, fresh in rollout._empty_store(steps).items()}
    tables = torch.arange(n, device=device)
    seat0_rewards, seat0_over = [], []
    policy.eval()
    snapshots.keep_only(pool)
    snapshot_tables = bool(pool) and config.selfplay_fraction + config.heuristic_fraction + config.random_fraction < 1
    with torch.inference_mode(), fixed_weights():
        for step in range(steps):
            row = start + step
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
                chosen = rollout.heuristic.act_batch(*host_rows)
                actions[by_heuristic] = torch.as_tensor(chosen, device=device)
            for key, value in (
                ("obs", obs),
                ("mask", mask),
                ("action", actions),
                ("logp", log_probs.gather(1, actions[:, None])[:, 0]),
                ("seat", to_act),
                ("learner", learner),
                ("valid", learner),
                ("critic", rollout.critic_input()),
            ):
                if value is not None:
                    store[key][row] = value
            # the acting learner seat's latest decision is this row, its previous one's successor
            previous = rollout.last[tables, to_act]
            before = previous.clamp(min=0)
            store["next"][before, tables] = torch.where(learner & (previous >= 0), row, store["next"][before, tables])
            rollout.last[tables, to_act] = torch.where(learner, row, previous)
            rewards, over, dones = rollout.step(actions)
            _close_hands(store, rollout.last, rewards, over)
            rollout.last = torch.where(over[:, None], -1, rollout.last)
            rollout.hand_start = torch.where(over, row + 1, rollout.hand_start)
            rollout.assign_opponents(dones, len(pool))
            seat0_rewards.append(rewards[:, 0])
            seat0_over.append(over)
        batch = _finish(store, rollout.hand_start, critic, config)
        # carry the unfinished hands: the last rows, as many as the longest unfinished hand
        end = start + steps
        keep = int((end - rollout.hand_start).max())  # one read of the device per rollout
        first = end - keep
        rows = torch.arange(first, end, device=device)
        store = {key: value[first:end].clone() for key, value in store.items()}
        store["valid"] &= rows[:, None] >= rollout.hand_start[None, :]
        store["next"] = torch.where(store["next"] >= 0, store["next"] - first, -1)
        rollout.store = store
        rollout.last = torch.where(rollout.last >= 0, rollout.last - first, -1)
        rollout.hand_start = rollout.hand_start - first
        paid, ended = torch.stack(seat0_rewards), torch.stack(seat0_over)
        hand_rewards = {
            name: paid[ended & (rollout.preset_of == index)].tolist() for index, name in enumerate(rollout.names)
        }
    return batch, hand_rewards


def _close_hands(store: dict[str, torch.Tensor], last: torch.Tensor, rewards: torch.Tensor, over: torch.Tensor) -> None:
    """Give each seat's last decision of a hand that ended its reward and mark it the hand's end."""
    n, seats = last.shape
    closing = over[:, None] & (last >= 0)
    rows = last.clamp(min=0).flatten()
    cols = torch.arange(n, device=last.device).repeat_interleave(seats)
    store["reward"].index_put_((rows, cols), (rewards * closing).flatten().float(), accumulate=True)
    store["done"].index_put_((rows, cols), closing.flatten().float(), accumulate=True)  # 0 where no hand closes


def _finish(
    store: dict[str, torch.Tensor], hand_start: torch.Tensor, critic: ValueNet, config: TrainConfig
) -> dict[str, torch.Tensor] | None:
    """The finished learner decisions of ``store`` (rows before their table's hand start) with values, GAE
    advantages and returns, in row-major order; None when none finished."""
    rows, n = store["action"].shape
    finished = store["valid"] & (torch.arange(rows, device=hand_start.device)[:, None] < hand_start[None, :])
    where = finished.nonzero(as_tuple=True)  # the batch's size: a read of the device, once per rollout
    if not len(where[0]):
        return None
    inputs = store["critic"][where] if "critic" in store else store["obs"][where]
    values = critic(inputs)
    # each finished decision's successor (same table and seat, a later row of the same hand: finished too) as
    # its place in the batch, for the numpy path's GAE
    place = torch.full((rows, n), -1, dtype=torch.int64, device=hand_start.device)
    place[where] = torch.arange(len(where[0]), device=hand_start.device)
    successor = store["next"][where]
    links = torch.where(successor >= 0, place[successor.clamp(min=0), where[1]], -1)
    done = store["done"][where] > 0
    advantage = gae_advantages(
        store["reward"][where], values, done, links, slice(None), config.gamma, config.gae_lambda
    )
    batch = {
        "obs": store["obs"][where],
        "mask": store["mask"][where],
        "action": store["action"][where],
        "logp": store["logp"][where],
        "value": values,
        "advantage": advantage,
        "table": where[1],
        "seat": store["seat"][where],
        "prior": torch.full_like(where[0], -1),
    }
    batch["critic"] = inputs
    batch["return"] = batch["advantage"] + batch["value"]
    return batch
