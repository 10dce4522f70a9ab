"""The tables of self-play PPO: who plays where, and one rollout of decisions.

A :class:`Rollout` holds everything the tables carry from one update to the
next: its parts, one :class:`~training.mixture.PresetTables` per preset (the
batch engine with its hands in progress, and each table's bags for the bag
cost), the last observations, the unfinished hands' decisions (a
:class:`TrajectoryStore`), the opponent assignment (:class:`Opponents`) and
the heuristic agents with their void memories. A single preset is the
one-part case; a mixture's tables are numbered preset after preset
(:mod:`training.mixture`). It pickles whole, so that a checkpoint resumes bit
for bit. :mod:`training.device_rollout` is the same on the torch engine, and
:mod:`training.tables` picks one for a run.

Tables are of four kinds, drawn when a game starts: self-play (every seat is
the current policy), heuristic (the learner's side against the heuristic, or
against the config's ``opponent``: any agent; the imitation always reads the
heuristic),
random (against random legal actions: without them the network never sees the
far-apart scores of a game against weak play, and it failed to finish such
games) and snapshot (against an earlier policy from the pool).

With ``sparse_input`` the learner's observations are turned into
:class:`~spades_env.nn.SparseRows` once per table step: the policy reads them
and the trajectory store keeps them (and the critic's inputs) in that form.
Actions are drawn by inverse CDF from the masked policy (one uniform per row):
the same distribution as ``Categorical``'s sampling, at a fraction of the cost
on a few hundred rows. With a card scorer, the learner's card features (the
scored cards given the legal masks) are made once per table step from the
dense observations, read by the policy and kept with the decisions for the
update; the snapshot opponents' are made in the same pass
(:func:`step_card_features`: one pass of fixed arithmetic for both).
With an ``expert`` (:mod:`training.expert`), the tables hold the search agent
that gives targets for a sample of the learner's decisions (kept with them as
``expert``, -1 for none, and ``expert_cards``, the target's equivalent
cards); it pickles with the tables. With ``teachers`` (:mod:`training.teachers`),
each preset's teacher gives its probabilities at the learner's decisions
(``teacher``).
The critic reads the tables' position, full state or observation
(``critic_input``); :func:`collect` without a critic (the rollout worker)
leaves the values and GAE to :func:`finish_batch`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from spades_env.agents import make_agent
from spades_env.agents.policy import heuristic_prior, prior_of_actions
from spades_env.core.rules import Rules
from spades_env.nn import (
    PolicyNet,
    SparseRows,
    ValueNet,
    apply_prior,
    card_feature_rows,
    fixed_weights,
    masked_logits,
    sparse_rows,
)
from spades_env.obs.layout import POSITION_COLUMNS
from training.config import CRITIC_INPUTS, TrainConfig
from training.expert import make_expert
from training.learner import Learner, SnapshotNets
from training.mixture import MAX_SEATS, pad_seats, preset_tables
from training.teachers import make_teachers
from training.trajectories import Rows, TrajectoryStore, join_rows, with_advantages

SELF, HEURISTIC, SNAPSHOT, RANDOM = 0, 1, 2, 3  # table kinds
# the position's columns of the state as runs of adjacent columns (three): slices copy several times faster than a
# fancy index of the columns
POSITION_RUNS = [
    slice(int(run[0]), int(run[-1]) + 1)
    for run in np.split(POSITION_COLUMNS, np.flatnonzero(np.diff(POSITION_COLUMNS) != 1) + 1)
]


def policy_step(
    policy: PolicyNet,
    obs: np.ndarray | SparseRows,
    mask: np.ndarray,
    device: torch.device,
    greedy: bool = False,
    prior: np.ndarray | None = None,
    hand_cards: SparseRows | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Sample (or take the best) legal action per row; return actions and their log-probabilities. ``hand_cards``:
    the card scorer's features of these rows (:func:`step_card_features`), else made from ``obs``."""
    with torch.inference_mode():
        legal = torch.as_tensor(mask, device=device)
        logits = policy(network_input(obs, device), None if hand_cards is None else hand_cards.to(device), legal=legal)
        return sample_actions(logits, mask, device, policy.prior_weight, greedy, prior)


CardFeatureRows = tuple[torch.Tensor, torch.Tensor, torch.Tensor]  # (row, card, features), as CardFeatures gives


def step_card_features(
    policy: PolicyNet, obs: np.ndarray, mask: np.ndarray, others: int, device: torch.device
) -> tuple[SparseRows | None, CardFeatureRows | None]:
    """The card scorer's features of the scored cards of a table step's dense rows given their legal masks, in one
    pass on ``device`` (None, None without a card scorer): of the learner's rows (all but the last ``others``) as
    SparseRows (for the policy's step, then kept with the decisions: the update reads them instead of making them
    again), and of the last ``others`` rows (snapshot opponents, for :meth:`SnapshotNets.logits`; None when
    ``others`` is 0)."""
    if policy.cards is None:
        return None, None
    learner = len(obs) - others
    with torch.inference_mode():
        row, card, features = policy.cards.features(
            torch.as_tensor(obs, device=device), torch.as_tensor(mask, device=device)
        )
        cut = int(torch.searchsorted(row, learner))  # rows come in order: the learner's cards first
        mine = card_feature_rows(row[:cut], card[:cut], features[:cut], learner)
        theirs = (row[cut:] - learner, card[cut:], features[cut:]) if others else None
    return mine, theirs


def network_input(x: np.ndarray | SparseRows, device: torch.device) -> torch.Tensor | SparseRows:
    """Rows (dense or SparseRows) on ``device``, for a network."""
    return x.to(device) if isinstance(x, SparseRows) else torch.as_tensor(x, device=device)


def sample_actions(
    logits: torch.Tensor,
    mask: np.ndarray,
    device: torch.device,
    prior_weight: float,
    greedy: bool = False,
    prior: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Sample (or take the best) legal action per row of ``logits``; return actions and their log-probabilities."""
    if prior is not None:
        logits = apply_prior(logits, torch.as_tensor(prior, device=device), prior_weight)
    legal = torch.as_tensor(mask, device=device)
    logits = masked_logits(logits, legal)
    log_probs = torch.log_softmax(logits, -1)
    if greedy:
        actions = log_probs.argmax(-1)
    else:
        actions = inverse_cdf(logits, legal, torch.rand(len(logits), 1, device=device))
    return actions.cpu().numpy(), log_probs.gather(1, actions[:, None]).squeeze(1).cpu().numpy()


def inverse_cdf(logits: torch.Tensor, legal: torch.Tensor, uniforms: torch.Tensor) -> torch.Tensor:
    """One action per row of the masked ``logits`` from one uniform per row (``(rows, 1)`` in [0, 1)): the same
    distribution as ``Categorical``'s sampling (torch.multinomial costs several times more on a few hundred rows)."""
    cdf = torch.softmax(logits, -1).cumsum(-1)  # flat over illegal actions (probability 0): never picked
    picked = torch.searchsorted(cdf, uniforms * cdf[:, -1:], right=True)
    last_legal = legal.shape[1] - 1 - torch.flip(legal != 0, [1]).int().argmax(1)
    return torch.minimum(picked.squeeze(1), last_legal)  # a uniform that rounds up to the total


def values_of(critic: ValueNet, x: np.ndarray | SparseRows, device: torch.device, sparse: bool = False) -> np.ndarray:
    """Critic values per row (through the sparse first layer when ``sparse`` or given SparseRows: faster on a large batch)."""
    with torch.inference_mode():
        inputs = network_input(x, device)
        return critic(sparse_rows(inputs) if sparse and not isinstance(inputs, SparseRows) else inputs).cpu().numpy()


def table_kinds(u: Any, config: TrainConfig, pool_size: int) -> Any:
    """Each table's kind from one uniform in [0, 1) per table (numpy or torch): self-play, heuristic and random by
    their fractions, the rest against a snapshot (self-play while the pool is empty). Both rollouts' one draw."""
    xp = torch if isinstance(u, torch.Tensor) else np
    heuristic_below = config.selfplay_fraction + config.heuristic_fraction
    random_below = heuristic_below + config.random_fraction
    kind = xp.where(u < random_below, RANDOM, SNAPSHOT if pool_size else SELF)
    kind = xp.where(u < heuristic_below, HEURISTIC, kind)
    return xp.where(u < config.selfplay_fraction, SELF, kind)


def table_opponent(config: TrainConfig, heuristic: Any) -> Any:
    """The agent of the heuristic tables (``opponent``): ``heuristic`` itself by default, else the agent built (with
    torch's global generator left as it was: the training's draws do not depend on which agent it plays)."""
    if config.opponent == "heuristic":
        return heuristic
    with torch.random.fork_rng(devices=[]):
        return make_agent(config.opponent, seed=config.seed)


def learner_acts(kinds: Any, learner_side: Any, acting_sides: Any) -> Any:
    """Bool per table (numpy or torch): the seat to act is the learner's (every seat at a self-play table)."""
    return (kinds == SELF) | (acting_sides == learner_side)


class Opponents:
    """Each table's kind, the learner's side and the snapshot it plays against."""

    def __init__(self, num_envs: int):
        self.kinds = np.zeros(num_envs, dtype=np.int64)
        self.learner_side = np.zeros(num_envs, dtype=np.int64)
        self.snapshot_of = np.zeros(num_envs, dtype=np.int64)

    def assign(
        self, tables: np.ndarray, rng: np.random.Generator, config: TrainConfig, num_sides: int, pool_size: int
    ) -> None:
        """Draw the kind, learner side and snapshot of ``tables`` (snapshot tables play self when the pool is empty)."""
        self.kinds[tables] = table_kinds(rng.random(len(tables)), config, pool_size)
        self.learner_side[tables] = rng.integers(num_sides, size=len(tables))
        self.snapshot_of[tables] = rng.integers(max(1, pool_size), size=len(tables))

    def learner_rows(self, acting_sides: np.ndarray) -> np.ndarray:
        """Bool per table: the seat to act is the learner's (every seat at a self-play table)."""
        return learner_acts(self.kinds, self.learner_side, acting_sides)


class Rollout:
    """The tables' state between updates (see the module docstring): one
    :class:`~training.mixture.PresetTables` per preset, a mixture's numbered preset after preset
    (:mod:`training.mixture`), behind one set of tables."""

    def __init__(self, config: TrainConfig, rules: Rules, rng: np.random.Generator):
        self.config = config
        self.heuristic = make_agent("heuristic", seed=config.seed)
        self.opponent = table_opponent(config, self.heuristic)
        self.prior_agent = make_agent("heuristic_classic", seed=config.seed)  # the residual prior, as PolicyAgent uses
        self.random_agent = make_agent("random", seed=config.seed)  # pickled with the rollout: exact resume
        self._rows = np.arange(config.num_envs)
        self.opponents = Opponents(config.num_envs)  # one assignment for every table of every preset
        self.critic_size = CRITIC_INPUTS[config.critic_input].size
        self.store = self.new_store()
        self.obs = self.mask = self.to_act = None
        # the presets' tables last: the config's one trip into the mixture's layout
        self.parts, layout = preset_tables(config, rules, rng)
        self.rules = self.parts[0].rules  # the run's rules; a mixture's first preset (its imitation tables' default)
        self.names = [part.rules.name for part in self.parts]
        self.bounds = [int(b) for b in layout.bounds]
        self.preset_of, self.num_sides, self.table_sides = layout.preset_of, layout.num_sides, layout.table_sides
        self._reward_presets = np.zeros(0, dtype=np.int64)
        self.expert = make_expert(config, rng)  # last: without an expert, the same draws as before there was one
        self.teachers = make_teachers(config, self.names)

    def __setstate__(self, state: dict) -> None:
        # tables pickled before these existed (their heuristic tables played the heuristic)
        self.__dict__.update({"expert": None, "teachers": None, "opponent": state["heuristic"], **state})

    def _spans(self) -> zip:
        """(part, its first table, the table after its last), part after part."""
        return zip(self.parts, self.bounds, self.bounds[1:])

    def _gather(self, outputs: list[tuple]) -> None:
        """The parts' observations, masks and seats to act as one set of tables (a single preset's as they are)."""
        if len(outputs) == 1:
            self.obs, self.mask, self.to_act = outputs[0]
        else:
            self.obs, self.mask, self.to_act = (np.concatenate(parts) for parts in zip(*outputs))

    def new_store(self) -> TrajectoryStore:
        """An empty trajectory store for these tables."""
        return TrajectoryStore(self.config.num_envs, MAX_SEATS, sparse=self.config.sparse_input)

    def reset(self) -> None:
        """New games at every table, with no bags and no recorded decisions."""
        self._gather([part.reset() for part in self.parts])
        self.store = self.new_store()

    def critic_input(self, rows: np.ndarray) -> np.ndarray:
        """The critic's input of these tables (``critic_input``): the position, the full state or the observation."""
        if self.config.critic_input == "observation":
            return self.obs[rows]
        if len(self.parts) == 1:
            return critic_rows(self.config, self.parts[0].env.state(), rows)
        parts = []
        for part, start, stop in self._spans():
            mine = rows[(rows >= start) & (rows < stop)] - start
            if len(mine):
                parts.append(critic_rows(self.config, part.env.state(), mine))
        return np.concatenate(parts)  # rows come in increasing order, so preset by preset

    @property
    def preset_names(self) -> list[str]:
        """The presets the tables play, in the order of their tables."""
        return list(self.names)

    def learner_rows(self) -> np.ndarray:
        """Bool per table: the seat to act is the learner's."""
        return self.opponents.learner_rows(self.table_sides[self._rows, self.to_act])

    def assign_opponents(self, tables: np.ndarray, rng: np.random.Generator, pool_size: int) -> None:
        """Draw the opponents of ``tables`` (games starting there)."""
        self.opponents.assign(tables, rng, self.config, self.num_sides[tables], pool_size)

    def hand_rewards_by_preset(self, rewards: np.ndarray) -> dict[str, list[float]]:
        """Seat 0's rewards of the hands :meth:`step` just ended, by preset."""
        return {name: rewards[self._reward_presets == i, 0].tolist() for i, name in enumerate(self.names)}

    def prior_of(self, obs_rows: np.ndarray, mask_rows: np.ndarray) -> np.ndarray | None:
        """The heuristic prior of these rows, or None for a plain policy."""
        if not self.config.prior_weight:
            return None
        return heuristic_prior(self.prior_agent, obs_rows, mask_rows, self.config.prior_on_bids)

    def start(self, pool_size: int, rng: np.random.Generator) -> None:
        """Draw every table's opponents from ``rng``, then start new games everywhere."""
        self.assign_opponents(np.arange(self.config.num_envs), rng, pool_size)
        self.reset()

    def collect_batch(
        self, learner: Learner, pool: list, rng: np.random.Generator, device: torch.device
    ) -> tuple[dict[str, np.ndarray] | None, dict[str, list[float]]]:
        """One rollout with the learner's networks (:func:`collect`): the batch and seat 0's hand rewards by preset."""
        return collect(self, learner.policy, learner.critic, learner.snapshots, pool, rng, device)

    def host_tables(self, rng: np.random.Generator) -> Rollout:
        """Tables on the numpy engine for the heuristic's imitation: these."""
        return self

    def step(self, store: TrajectoryStore, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Play one action per table, each preset on its engine; reward the finished hands in ``store``; return
        (dones, the finished hands' rewards, preset by preset: a mixture's padded to its widest table's seats)."""
        outputs, dones, rewards, presets = [], [], [], []
        for index, (part, start, stop) in enumerate(self._spans()):
            out, done, tables, reward = part.step(actions[start:stop], self.config)
            if len(self.parts) > 1:  # rows of different presets stack at one width
                reward = pad_seats(reward)
            if len(tables):
                store.end_hands(tables + start, reward)
            outputs.append(out)
            dones.append(done)
            rewards.append(reward)
            presets.append(np.full(len(reward), index))
        self._gather(outputs)
        self._reward_presets = np.concatenate(presets)
        if len(self.parts) == 1:
            return dones[0], rewards[0]
        return np.concatenate(dones), np.concatenate(rewards)


def critic_rows(config: TrainConfig, state: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The critic's input of ``rows`` from the tables' full states: the state, or the position's columns of it."""
    if config.critic_input == "state":
        return state[rows]
    return np.concatenate([state[rows, run] for run in POSITION_RUNS], axis=1)


def add_rewards(into: dict[str, list[float]], more: dict[str, list[float]]) -> None:
    """Extend ``into``'s per-preset hand rewards with ``more``'s."""
    for name, values in more.items():
        into.setdefault(name, []).extend(values)


def opponent_actions(
    rollout: Rollout,
    rows: np.ndarray,
    actions: np.ndarray,
    pool: list,
    snapshots: SnapshotNets,
    device: torch.device,
    snapshot_cards: CardFeatureRows | None = None,
) -> None:
    """Fill ``actions`` at the opponents' tables ``rows``: the heuristic's, random legal ones, or a pool snapshot's
    (``snapshot_cards``: the card scorer's features of the snapshot tables, in order, when already made)."""
    obs, mask, opponents = rollout.obs, rollout.mask, rollout.opponents
    h_rows = rows[opponents.kinds[rows] == HEURISTIC]
    if len(h_rows):
        actions[h_rows] = rollout.opponent.act_batch(obs[h_rows], mask[h_rows])
    r_rows = rows[opponents.kinds[rows] == RANDOM]
    if len(r_rows):
        actions[r_rows] = rollout.random_agent.act_batch(obs[r_rows], mask[r_rows])
    s_rows = rows[opponents.kinds[rows] == SNAPSHOT]
    if len(s_rows):  # every snapshot in one batched pass
        with torch.inference_mode():
            inputs = sparse_rows(obs[s_rows]) if rollout.config.sparse_input else obs[s_rows]
            # the dense rows only feed the card features, when they were not made with the learner's
            dense = None if snapshot_cards is not None else torch.as_tensor(obs[s_rows], device=device)
            logits = snapshots.logits(
                pool,
                network_input(inputs, device),
                torch.as_tensor(opponents.snapshot_of[s_rows], device=device),
                legal=torch.as_tensor(mask[s_rows], device=device),
                dense=dense,
                card_features=snapshot_cards,
            )
            prior = rollout.prior_of(obs[s_rows], mask[s_rows])
            actions[s_rows] = sample_actions(logits, mask[s_rows], device, rollout.config.prior_weight, prior=prior)[0]


def collect(
    rollout: Rollout,
    policy: PolicyNet,
    critic: ValueNet | None,
    snapshots: SnapshotNets,
    pool: list,
    rng: np.random.Generator,
    device: torch.device,
) -> tuple[dict[str, np.ndarray] | None, dict[str, list[float]]]:
    """One rollout of ``rollout_steps`` table steps; the finished decisions and seat 0's hand rewards by preset. The decisions
    come as a batch (the ``critic``'s values, GAE) or, without a critic, with their links for :func:`finish_batch`."""
    config, store = rollout.config, rollout.store
    policy.eval()
    snapshots.keep_only(pool)
    hand_rewards: dict[str, list[float]] = {name: [] for name in rollout.preset_names}
    if rollout.expert is not None:
        rollout.expert.refresh(policy)  # search improves on the weights that play this rollout
    with fixed_weights():  # no update inside a rollout: each first layer's table is built once
        for _ in range(config.rollout_steps):
            learner = rollout.learner_rows()
            actions = np.zeros(config.num_envs, dtype=np.int64)
            rows, opp = np.flatnonzero(learner), np.flatnonzero(~learner)
            # the snapshot tables' card features are made with the learner's, in one pass (the same arithmetic)
            hand_cards = snapshot_cards = None
            if policy.cards is not None:
                snap = opp[rollout.opponents.kinds[opp] == SNAPSHOT]
                both = np.concatenate([rows, snap])
                hand_cards, snapshot_cards = step_card_features(
                    policy, rollout.obs[both], rollout.mask[both], len(snap), device
                )
            if len(rows):
                obs, mask = rollout.obs[rows], rollout.mask[rows]
                expert, expert_cards = rollout.expert.targets(obs, mask) if rollout.expert else (None, None)
                teacher = rollout.teachers.targets(obs, mask, rollout.preset_of[rows]) if rollout.teachers else None
                prior = rollout.prior_of(obs, mask)
                inputs = sparse_rows(obs) if config.sparse_input else obs  # built once: the policy's and the store's
                act, logp = policy_step(policy, inputs, mask, device, prior=prior, hand_cards=hand_cards)
                crit = rollout.critic_input(rows)
                store.add(
                    rows,
                    rollout.to_act[rows],
                    obs=inputs,
                    mask=mask,
                    critic=crit,
                    action=act,
                    logp=logp,
                    value=np.zeros(len(rows)),
                    prior=prior,
                    hand_cards=None if hand_cards is None else hand_cards.to("cpu"),
                    expert=expert,
                    expert_cards=expert_cards,
                    teacher=teacher,
                )
                actions[rows] = act
            if len(opp):
                opponent_actions(rollout, opp, actions, pool, snapshots, device, snapshot_cards)
            dones, rewards = rollout.step(store, actions)
            add_rewards(hand_rewards, rollout.hand_rewards_by_preset(rewards))
            if dones.any():
                rollout.assign_opponents(np.flatnonzero(dones), rng, len(pool))
        decisions = store.take_complete_decisions()
    return (decisions if critic is None else finish_batch(decisions, critic, config, device)), hand_rewards


def finish_batch(
    decisions: dict[str, np.ndarray] | None, critic: ValueNet, config: TrainConfig, device: torch.device
) -> dict[str, np.ndarray] | None:
    """Complete decisions (:func:`collect` without a critic) as a batch: the critic's values (one batched pass), GAE
    advantages and returns."""
    if decisions is None:
        return None
    return with_advantages(
        decisions,
        config.gamma,
        config.gae_lambda,
        lambda inputs: values_of(critic, inputs, device, config.sparse_input),
    )


# ------------------------------------------------------------------ the heuristic's decisions
IMITATION_FIELDS = ("obs", "mask", "action", "critic", "return", "prior")  # what heuristic_decisions returns


def heuristic_decisions(
    rollout: Rollout, config: TrainConfig, decisions: int | None = None, progress: bool | None = None
) -> dict[str, Rows]:
    """At least ``decisions`` (default ``bc_decisions``) finished decisions of the heuristic playing every seat
    (returns = hand rewards)."""
    decisions = config.bc_decisions if decisions is None else decisions
    store = rollout.new_store()
    rollout.reset()
    parts: dict[str, list[Rows]] = {key: [] for key in IMITATION_FIELDS}
    rows = np.arange(config.num_envs)
    bar = tqdm(
        total=decisions,
        desc="imitating heuristic",
        unit="dec",
        disable=not (config.progress if progress is None else progress),
    )
    collected = 0
    while collected < decisions:
        for _ in range(config.rollout_steps):
            actions = rollout.heuristic.act_batch(rollout.obs, rollout.mask)
            prior = prior_of_actions(actions, config.prior_on_bids) if config.prior_weight else None
            store.add(
                rows,
                rollout.to_act,
                obs=rollout.obs.copy(),
                mask=rollout.mask.copy(),
                critic=rollout.critic_input(rows),
                action=actions,
                logp=np.zeros(len(rows)),
                value=np.zeros(len(rows)),
                prior=prior,
            )
            rollout.step(store, actions)
        data = store.take_complete(1.0, 1.0)  # returns = the hand's reward (no discount)
        if data is not None:
            for key in IMITATION_FIELDS:
                parts[key].append(data[key])
            collected += len(data["action"])
            bar.update(len(data["action"]))
    bar.close()
    return {key: join_rows(chunks) for key, chunks in parts.items()}
