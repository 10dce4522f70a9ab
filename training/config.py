"""Training configuration: one typed dataclass, every field documented.

The defaults *are* the embedded default config (the README's main job, at
most 15 minutes on 2 CPU cores: a pure network, imitation of the heuristic
then PPO with sparse first layers, mostly self-play, the rollouts collected in a
second process beside the updates, and a wall-clock guard that stops PPO early on a
slow machine). ``configs/train/*.yaml`` override some fields; a
YAML file with an unknown key is an error. The resolved config is saved beside
every run as ``config.yaml``.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml

from spades_env.agents import available_agents, check_plays, make_agent
from spades_env.agents.pimc import MAX_SAMPLES
from spades_env.config_io import MAX_CONFIG_BYTES, IntegerCheckingLoader, load_rules, one_line, read_limited
from spades_env.core.rules import PRESETS, Rules, RulesError, quoted
from spades_env.nn.policy_file import MAX_REASON_CHARS
from spades_env.obs.layout import OBSERVATION, POSITION, STATE, ObservationLayout
from spades_env.rewards import RELATIVE_TO

BACKENDS = ("numpy", "torch")  # the tables' engine (spades_env.batch's backends)
ROLLOUT_BACKENDS = ("process", "ray")  # where the rollout workers run (training.pipeline, training.ray_workers)
WEIGHT_GRADS = ("float32", "bfloat16", "auto")  # spades_env.nn.WEIGHT_GRADS (not imported: no torch here)
# what the critic reads: the full-information position (every hand, no history of play), the full state (the
# position and the history) or the acting seat's observation
EXPERTS = ("none", "pimc", "search")  # expert: no expert, PIMC, search with the learner's network (training.expert)
EXPERT_DECISIONS = ("all", "bids", "cards")  # expert_decisions: which of the learner's decisions the expert is offered
ADVANTAGE_NORMS = ("batch", "preset")  # advantage_norm: per minibatch only, or per preset of a mixture first
CRITIC_INPUTS: dict[str, ObservationLayout] = {"position": POSITION, "state": STATE, "observation": OBSERVATION}


INF = math.inf
# The range of every number of the config: (low, high, low included); high is always included. Checked, with
# finiteness, when a config is built (TrainConfig.validate); a test asserts every numeric field is listed.
RANGES: dict[str, tuple[float, float, bool]] = {
    **{
        name: (1, INF, True)
        for name in (
            "threads",
            "eval_workers",
            "total_decisions",
            "num_envs",
            "rollout_steps",
            "update_epochs",
            "minibatch_size",
            "snapshot_every",
            "pool_size",
            "checkpoint_every",
            "eval_deals",
            "bc_epochs",
        )
    },
    **{
        name: (0, INF, True)
        for name in (
            "seed",
            "rollout_workers",
            "ray_spares",
            "time_limit_minutes",
            "max_updates",
            "card_scorer",
            "bc_decisions",
            "eval_every",
            "final_eval_deals",
            "final_eval_games",
            "ent_coef",
            "vf_coef",
            "target_kl",
            "prior_weight",
            "win_reward",
        )
    },
    **{name: (0, 1, False) for name in ("learning_rate", "bc_learning_rate", "gamma", "gae_lambda", "clip_coef")},
    **{name: (0, 1, True) for name in ("selfplay_fraction", "heuristic_fraction", "random_fraction")},
    **{
        name: (0, INF, False)
        for name in ("max_grad_norm", "reward_scale", "bc_bid_weight", "expert_coef", "teacher_coef")
    },
    "expert_fraction": (0, 1, False),
    "expert_samples": (1, MAX_SAMPLES, True),
}
MAX_INT = 2**63 - 1  # the largest value of an int field: they reach numpy and torch as 64-bit integers
RUN_NAME_CHARACTERS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")


def _f(default: Any, help: str) -> Any:  # noqa: A002 - the word argparse uses
    if isinstance(default, list):
        return field(default_factory=lambda: list(default), metadata={"help": help})
    return field(default=default, metadata={"help": help})


@dataclass
class TrainConfig:
    """Every hyperparameter of self-play PPO (see each field's help)."""

    exp_name: str = _f("ppo", "experiment name; the run folder is <runs_dir>/<exp_name>-<rules>-seed<seed>")
    runs_dir: str = _f("runs", "folder holding run folders")
    seed: int = _f(1, "seed of the tables, the networks and the opponent draws")
    rules: str = _f("standard", "rules preset or YAML path")
    mixture: list = _f(
        [],
        "train on several presets at once: entries 'preset' or 'preset:weight' (e.g. standard:2, cutthroat, "
        "two_player); the tables are split among them by weight, each preset's rewards its own (individual or shared "
        "by partners); [] = every table plays 'rules'",
    )
    device: str = _f("cpu", "torch device: cpu, or cuda when available")
    backend: str = _f(
        "numpy",
        "the tables' engine: 'numpy' (the batch engine on the host; inference on 'device') or 'torch' (the batch "
        "engine, the rollout's decisions and GAE on 'device' as tensors: training end to end on a GPU; needs "
        "no heuristic prior and rollout_workers: 0; see training.device_rollout)",
    )
    threads: int = _f(1, "torch CPU threads (1 is fastest when other processes share the cores)")
    eval_workers: int = _f(2, "processes of the duplicate evaluations")
    # scale
    total_decisions: int = _f(4_000_000, "stop after this many learner decisions (trained on)")
    time_limit_minutes: float = _f(
        13.0,
        "also stop PPO this many wall-clock minutes after the imitation began (0 = "
        "no limit; a run stopped by it depends on the machine's speed)",
    )
    max_updates: int = _f(
        0, "also stop PPO after this many updates in all (0 = no limit; the LR schedule is unchanged)"
    )
    num_envs: int = _f(256, "tables stepped in lockstep")
    rollout_steps: int = _f(64, "table steps per rollout (each step is one decision per table)")
    rollout_workers: int = _f(
        1,
        "processes collecting rollouts during the update before it (one update of policy lag, see "
        "training.pipeline): 0 = in this process; 1 = one worker (both of 2 cores busy); N > 1 splits the tables "
        "among N workers, for machines with more cores (the learner stays in this process)",
    )
    rollout_backend: str = _f(
        "process",
        "where the rollout workers run: 'process' (processes of this machine, training.pipeline) or 'ray' (Ray "
        "actors, on this machine or a cluster: training.ray_workers; the same decisions as 'process' for the same "
        "rollout_workers; needs the ray extra)",
    )
    ray_address: str = _f(
        "",
        "with rollout_backend: ray, the cluster to join ('auto', or HOST:PORT of 'ray start --head'); '' starts a "
        "local Ray for the run",
    )
    ray_spares: int = _f(
        1,
        "with rollout_backend: ray, standby actors (idle, no CPU reserved): one takes over the tables of an actor "
        "that dies, so that its rollout is redone at once rather than after Ray has started it again",
    )
    # network
    hidden: list = _f([256, 256], "hidden layer sizes of the policy MLP")
    critic_hidden: list = _f(
        [256, 128],
        "hidden layer sizes of the critic (value MLP); only training runs it "
        "(the batches' values and the update), never play",
    )
    sparse_input: bool = _f(True, "updates feed the first layers only the active features (equal in function to dense)")
    weight_grad: str = _f(
        "auto",
        "sparse first layers' weight gradient: 'float32' (an exact sparse product), "
        "'bfloat16' (a dense bf16 product: about 2x faster on CPUs with AMX, slower elsewhere) or "
        "'auto' (bfloat16 on a CPU with AMX, else float32)",
    )
    card_scorer: int = _f(
        64,
        "width of the policy's card-centred scorer (spades_env.card_scorer: per-card features "
        "scored by one network shared by all cards, added to the card logits; 0 = none)",
    )
    critic_input: str = _f(
        "position",
        "'position' (every hand and the table, no history of play: a full-information "
        "critic), 'state' (the position and the history) or 'observation'",
    )
    prior_weight: float = _f(0.0, "residual policy: logit bonus at the heuristic's action (0 = plain policy)")
    prior_on_bids: bool = _f(False, "apply the heuristic prior to bids too (else card decisions only)")
    init_from: str = _f("", "start from this policy file or training checkpoint (skips imitation; '' = fresh)")
    # PPO
    learning_rate: float = _f(2e-4, "Adam learning rate of PPO")
    anneal_lr: bool = _f(True, "decay the learning rate linearly to 0")
    gamma: float = _f(1.0, "discount within a hand (a hand is one episode for credit assignment)")
    gae_lambda: float = _f(0.95, "GAE lambda")
    update_epochs: int = _f(2, "passes over each batch")
    minibatch_size: int = _f(2048, "decisions per gradient step")
    clip_coef: float = _f(0.2, "PPO ratio clip")
    ent_coef: float = _f(0.01, "entropy bonus")
    vf_coef: float = _f(0.5, "value loss weight")
    max_grad_norm: float = _f(0.5, "gradient norm clip")
    target_kl: float = _f(0.05, "stop an update's epochs early above this approximate KL (0 = never)")
    advantage_norm: str = _f(
        "batch",
        "'batch': advantages normalized per minibatch, every preset together; 'preset': first to unit spread "
        "within each preset of a mixture's batch (so that a preset whose points spread less weighs as much)",
    )
    reward_scale: float = _f(0.01, "points -> reward scale (hand_points reward)")
    bag_cost: bool = _f(True, "charge bag_penalty/bag_limit per bag when taken instead of the penalty when paid")
    reward_others: str = _f(
        "mean",
        "a hand's reward is the side's points minus the 'mean' of the other sides' points, or minus the 'best' of "
        "them (individual games: what the hand gains on the strongest rival; two sides: the same)",
    )
    win_reward: float = _f(
        0.0,
        "paid at a game's end on top of the hand's reward: +win_reward to the winning side, -win_reward to each "
        "other side (-win_reward/(sides-1) in individual games; 0 when the game is truncated); 1.0 weighs as much as "
        "100 points at the default reward_scale (0 = none)",
    )
    # learning from search (training.expert)
    expert: str = _f(
        "none",
        "expert iteration: 'pimc' or 'search' gives its searched action as a target for a sample of the learner's "
        "decisions, and the update adds expert_coef times the policy's cross-entropy at them to PPO's loss "
        "('search' searches with the learner's current network); 'none' = plain PPO (see training.expert)",
    )
    expert_fraction: float = _f(
        0.01, "share of the learner's decisions with a choice offered to the expert (each searched one costs ~0.1 s)"
    )
    expert_samples: int = _f(16, "sampled deals per decision the expert searches")
    expert_coef: float = _f(1.0, "weight of the cross-entropy at the expert's targets in the update's loss")
    expert_decisions: str = _f(
        "all",
        "which decisions with a choice the expert is offered: 'all', 'bids' (the bidding only: the card play stays "
        "PPO's) or 'cards' (the card play only); expert_fraction is the share of those",
    )
    teachers: list = _f(
        [],
        "policy distillation: 'preset=agent' entries ('*=agent' for every preset not named; an agent is a released "
        "policy name or a policy file) whose probabilities the network learns at its decisions of that preset, "
        "teacher_coef times the KL divergence added to PPO's loss (see training.teachers); [] = none",
    )
    teacher_coef: float = _f(1.0, "weight of the KL divergence from the teachers in the update's loss")
    # opponents
    selfplay_fraction: float = _f(0.70, "share of tables where every seat is the current policy")
    heuristic_fraction: float = _f(
        0.15, "share of tables where the learner's side plays 'opponent' (the heuristic unless told otherwise)"
    )
    random_fraction: float = _f(
        0.05,
        "share of tables where the learner's side plays opponents who play random "
        "legal actions (so that training sees the far-apart scores of games against weak play)",
    )
    opponent: str = _f(
        "heuristic",
        "the agent the learner's side plays at the heuristic_fraction's tables: any agent the evaluation tool takes "
        "(a name, a released policy or a policy file; spades-exploit trains against its target this way)",
    )
    snapshot_every: int = _f(10, "updates between snapshots added to the opponent pool")
    pool_size: int = _f(8, "snapshots kept in the pool (the rest of the tables play a random snapshot)")
    # warm start
    bc_decisions: int = _f(1_000_000, "heuristic decisions to imitate before PPO (0 = none)")
    bc_epochs: int = _f(6, "passes over the imitation data")
    bc_learning_rate: float = _f(1e-3, "Adam learning rate of the imitation")
    bc_bid_weight: float = _f(
        1.0,
        "weight in the imitation loss of the bidding decisions (every action past the "
        "cards: bids, nil, blind options) against 1 for a card play",
    )
    # logging, evaluation, checkpoints
    eval_every: int = _f(40, "updates between evaluations (0 = only at the end)")
    eval_deals: int = _f(50, "duplicate deals per evaluation during training")
    final_eval_deals: int = _f(200, "duplicate deals of the final evaluation")
    final_eval_games: int = _f(25, "duplicate game pairs to the target in the final evaluation")
    eval_opponents: list = _f(["random", "heuristic"], "agents evaluated against")
    checkpoint_every: int = _f(20, "updates between checkpoints")
    progress: bool = _f(True, "show a progress bar")

    @property
    def run_name(self) -> str:
        """Reproducible run name."""
        rules = "mixture" if self.mixture else Path(self.rules).stem
        return f"{self.exp_name}-{rules}-seed{self.seed}"

    @property
    def presets(self) -> dict[str, float]:
        """The presets the tables play and their weights: the mixture's, or ``{rules: 1}``."""
        return mixture_weights(self.mixture) if self.mixture else {self.rules: 1.0}

    def played_rules(self) -> dict[str, Rules]:
        """Each preset the tables play (as :attr:`presets` names it: a preset or a rules file) and its rules."""
        return {spec: load_rules(spec) for spec in self.presets}

    def validate(self) -> TrainConfig:
        """Raise ValueError naming the first bad field."""
        for name, (low, high, low_included) in RANGES.items():
            value = getattr(self, name)
            if isinstance(value, int):  # finite however long, but past MAX_INT neither torch nor numpy takes it
                high = min(high, MAX_INT)
            above = value >= low if low_included else value > low
            if not ((isinstance(value, int) or math.isfinite(value)) and above and value <= high):
                top = "2**63 - 1" if high == MAX_INT else f"{high:g}"
                bounds = f"{'[' if low_included else '('}{low:g}, {top}{']' if high != INF else ')'}"
                raise ValueError(f"train config '{name}' must be a finite number in {bounds}, got {quoted(value)}")
        if not self.exp_name or not set(self.exp_name) <= RUN_NAME_CHARACTERS:
            raise ValueError(
                f"train config 'exp_name' must be a non-empty name of letters, digits, '.', '_' and '-' "
                f"(it names the run folder), got {self.exp_name!r}"
            )
        if not self.runs_dir:
            raise ValueError("train config 'runs_dir' must name a folder, got ''")
        if not self.mixture:  # a mixture's presets are checked with its weights below
            try:
                load_rules(self.rules)
            except (RulesError, OSError) as exc:  # OSError: a file that exists but cannot be read
                raise ValueError(f"train config 'rules': {one_line(str(exc), MAX_REASON_CHARS)}") from None
        if not isinstance(self.eval_opponents, list):
            raise ValueError(f"train config 'eval_opponents' must list agents, got {quoted(self.eval_opponents)}")
        if self.backend not in BACKENDS:
            raise ValueError(f"train config 'backend' must be one of {BACKENDS}, got {self.backend!r}")
        if self.expert not in EXPERTS:
            raise ValueError(f"train config 'expert' must be one of {EXPERTS}, got {self.expert!r}")
        if self.expert_decisions not in EXPERT_DECISIONS:
            raise ValueError(
                f"train config 'expert_decisions' must be one of {EXPERT_DECISIONS}, got {quoted(self.expert_decisions)}"
            )
        if self.expert == "search" and self.expert_decisions == "bids":  # its bids are the network's own, unsearched
            raise ValueError(
                "train config 'expert_decisions: bids' needs 'expert: pimc': the search expert takes the network's bid "
                "without searching it, so it would give no targets"
            )
        if self.backend == "torch":
            refused = {
                "expert": (self.expert != "none", "none (the expert searches on the host's observations)"),
                "teachers": (bool(self.teachers), "[] (the teachers read the host's observations)"),
                "prior_weight": (bool(self.prior_weight), "0 (the heuristic prior reads the host's engine)"),
                "rollout_workers": (bool(self.rollout_workers), "0 (the device steps every table)"),
            }
            for name, (bad, wanted) in refused.items():
                if bad:
                    raise ValueError(
                        f"train config 'backend: torch' needs '{name}': {wanted}, got {getattr(self, name)!r}"
                    )
        if self.rollout_backend not in ROLLOUT_BACKENDS:
            raise ValueError(
                f"train config 'rollout_backend' must be one of {ROLLOUT_BACKENDS}, got {quoted(self.rollout_backend)}"
            )
        if self.rollout_backend == "ray" and not self.rollout_workers:
            raise ValueError("train config 'rollout_backend: ray' needs 'rollout_workers' of at least 1 (its actors)")
        if self.ray_address and self.rollout_backend != "ray":
            raise ValueError(
                f"train config 'ray_address' ({self.ray_address!r}) is read with 'rollout_backend: ray' only, "
                f"got {quoted(self.rollout_backend)}"
            )
        if self.weight_grad not in WEIGHT_GRADS:
            raise ValueError(f"train config 'weight_grad' must be one of {WEIGHT_GRADS}, got {self.weight_grad!r}")
        if self.reward_others not in RELATIVE_TO:
            raise ValueError(f"train config 'reward_others' must be one of {RELATIVE_TO}, got {self.reward_others!r}")
        if self.advantage_norm not in ADVANTAGE_NORMS:
            raise ValueError(
                f"train config 'advantage_norm' must be one of {ADVANTAGE_NORMS}, got {self.advantage_norm!r}"
            )
        if self.critic_input not in CRITIC_INPUTS:
            raise ValueError(
                f"train config 'critic_input' must be one of {sorted(CRITIC_INPUTS)}, got {self.critic_input!r}"
            )
        fractions = (self.selfplay_fraction, self.heuristic_fraction, self.random_fraction)
        if not 0 <= sum(fractions) <= 1 or min(fractions) < 0:
            raise ValueError(
                "train config 'selfplay_fraction', 'heuristic_fraction' and 'random_fraction' must be >= 0 "
                "and sum to at most 1"
            )
        if self.mixture:
            if self.rules != TrainConfig.rules:
                raise ValueError(
                    f"train config: give either 'rules' ({self.rules!r}) or 'mixture', not both (a mixture names its presets)"
                )
            mixture_weights(self.mixture)  # raises naming a bad entry
            if self.num_envs < len(self.presets):  # each preset plays at least one table
                raise ValueError(
                    f"train config 'num_envs': a mixture of {len(self.presets)} presets needs at least as many "
                    f"tables, got {self.num_envs}"
                )
        played = self.played_rules()  # the mixture is checked: each preset's rules, loaded once for these checks
        problem = _teachers_problem(self, played)
        if problem:
            raise ValueError(f"train config 'teachers': {problem}")
        for name in self.eval_opponents:
            problem = _opponent_problem(name, played)
            if problem:
                raise ValueError(f"train config 'eval_opponents': {problem}")
        problem = _opponent_problem(self.opponent, played)
        if problem:
            raise ValueError(f"train config 'opponent': {problem}")
        tables_per_worker = len(self.presets) if self.mixture else 1  # each worker's share plays every preset
        if self.rollout_workers > 1 and self.num_envs < self.rollout_workers * tables_per_worker:
            raise ValueError(
                f"train config 'rollout_workers': {self.rollout_workers} workers need at least "
                f"{self.rollout_workers * tables_per_worker} tables (num_envs), got {self.num_envs}"
            )
        for name in ("hidden", "critic_hidden"):
            sizes = getattr(self, name)
            if not sizes or any(not isinstance(h, int) or isinstance(h, bool) or h <= 0 for h in sizes):
                raise ValueError(f"train config '{name}' must list positive integer sizes, got {sizes}")
        return self

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of every field."""
        return dataclasses.asdict(self)


def worker_configs(config: TrainConfig) -> list[TrainConfig]:
    """Each rollout worker's config: its share of the tables as ``num_envs`` (split as evenly as can be, the first
    workers one more), as the config of a run with one worker; ``[config]`` with 0 or 1 worker."""
    if config.rollout_workers <= 1:
        return [config]
    shares = [len(part) for part in _even_split(config.num_envs, config.rollout_workers)]
    return [dataclasses.replace(config, num_envs=share, rollout_workers=1) for share in shares]


def _even_split(total: int, parts: int) -> list[range]:
    size, extra = divmod(total, parts)
    bounds = [i * size + min(i, extra) for i in range(parts + 1)]
    return [range(a, b) for a, b in zip(bounds, bounds[1:])]


# Keys of older configs (saved beside runs, in checkpoints) read as today's: key -> (today's key, conversion)
LEGACY_KEYS: dict[str, tuple[str, Any]] = {"rollout_worker": ("rollout_workers", int)}  # a bool up to 0.3.0


def with_legacy_keys(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with the keys of older configs renamed to today's (ValueError when both forms are given, or an old
    key has a value of the wrong type)."""
    out = dict(data)
    for old, (new, convert) in LEGACY_KEYS.items():
        if old not in out:
            continue
        if new in out:
            raise ValueError(f"train config: give '{new}' only ('{old}' is its older form)")
        value = out.pop(old)
        if not isinstance(value, bool):
            raise ValueError(f"train config '{old}' (now '{new}') must be bool, got {value!r}")
        out[new] = convert(value)
    return out


def from_mapping(data: dict[str, Any], base: TrainConfig | None = None) -> TrainConfig:
    """A config from a mapping (strict about unknown keys and types; older keys read as today's: LEGACY_KEYS)."""
    base = base or TrainConfig()
    data = with_legacy_keys(data)
    known = {f.name: f for f in fields(TrainConfig)}
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise ValueError(f"unknown train config key(s) {unknown}; known: {sorted(known)}")
    values = base.to_dict()
    for key, value in data.items():
        expected = type(values[key])
        if expected is float:
            value = _as_float(key, value)
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise ValueError(f"train config '{key}' must be {expected.__name__}, got {quoted(value)}")
        values[key] = value
    return TrainConfig(**values).validate()


def _as_float(key: str, value: Any) -> Any:
    """A float field's value as a float when it is an int or a numeric string (YAML 1.1 reads ``3e-4``, without a
    dot, as a string; surrounding spaces allowed), else unchanged (a bool stays a bool: refused as not a float)."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return value
    try:
        return float(value)
    except OverflowError:  # an int past the largest float
        raise ValueError(f"train config '{key}' must be a finite float, got {quoted(value)}") from None
    except ValueError:  # not a number: refused by the caller, naming the value
        return value


def load_config(path: str | None) -> TrainConfig:
    """The embedded default, or it overridden by a YAML file."""
    if path is None:
        return TrainConfig().validate()
    try:
        text = read_limited(path, MAX_CONFIG_BYTES, "a train config").decode("utf-8")
        stream = io.StringIO(text)
        stream.name = Path(path).name  # PyYAML's marks name the stream ("in 'x.yaml', line 2")
        data = yaml.load(stream, Loader=IntegerCheckingLoader) or {}  # noqa: S506 - a SafeLoader subclass
    except (OSError, yaml.YAMLError, UnicodeDecodeError, RecursionError) as exc:
        reason = one_line(str(exc), MAX_REASON_CHARS)  # YAML errors span several lines
        raise ValueError(f"cannot read train config {path}: {type(exc).__name__}: {reason}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a train config must be a mapping")
    try:
        return from_mapping(data)
    except ValueError as exc:  # a bad field: say which file holds it
        raise ValueError(f"{path}: {exc}") from None


MIXTURE_WEIGHT_SEPARATOR = ":"


def mixture_weights(entries: list) -> dict[str, float]:
    """``{preset: weight}`` of a mixture's entries (``"preset"`` or ``"preset:weight"``, each preset once, weights
    finite and positive); ValueError naming the bad entry."""
    weights: dict[str, float] = {}
    if not isinstance(entries, list) or not entries:
        raise ValueError(f"train config 'mixture' must list presets, got {quoted(entries)}")
    for entry in entries:
        if not isinstance(entry, str):
            raise ValueError(
                f"train config 'mixture': entries are 'preset' or 'preset:weight' strings, got {quoted(entry)}"
            )
        name, _, weight_text = entry.partition(MIXTURE_WEIGHT_SEPARATOR)
        name = name.strip()
        if name not in PRESETS:
            raise ValueError(
                f"train config 'mixture': unknown preset {quoted(name)} in {quoted(entry)}; presets: {sorted(PRESETS)}"
            )
        if name in weights:
            raise ValueError(f"train config 'mixture': preset {quoted(name)} is listed twice")
        try:
            weight = float(weight_text) if weight_text.strip() else 1.0
        except ValueError:
            raise ValueError(f"train config 'mixture': the weight of {quoted(entry)} is not a number") from None
        if not (math.isfinite(weight) and weight > 0):
            raise ValueError(f"train config 'mixture': the weight of {quoted(entry)} must be a finite number > 0")
        weights[name] = weight
        if not math.isfinite(sum(weights.values())):  # the tables are split by weight / sum
            raise ValueError(
                f"train config 'mixture': the weights up to {quoted(entry)} sum past the largest float; give smaller "
                "weights (only their ratios count)"
            )
    return weights


def _opponent_problem(name: Any, presets: Mapping[str, Rules]) -> str | None:
    """Why ``make_agent(name)`` cannot build an opponent that plays every one of ``presets`` (each preset as the
    config names it, and its rules: :meth:`TrainConfig.played_rules`; the opponent built here as the
    tables and the final evaluation will build it: a file that is not a policy, or a policy without the drawing
    turns in two_player, fails now, not after the training), or None when it can."""
    import torch  # loaded with the agents' plugins anyway; imported here, the module reads without it

    if not isinstance(name, str) or not name:
        return f"an opponent is an agent name or a policy file, got {quoted(name)}"
    try:
        # building a policy's network draws from torch's global generator: a config's check must not move it
        with torch.random.fork_rng(devices=[]):
            agent = make_agent(name)
    except Exception as exc:  # whatever the factory or loader raises: unknown name, unreadable or foreign file
        return (
            f"cannot load {quoted(name)} ({type(exc).__name__}: {one_line(str(exc), MAX_REASON_CHARS)}); use "
            f"registered names ({sorted(available_agents())}), released policies or policy files"
        )
    for spec, rules in presets.items():
        try:
            check_plays(agent, rules)
        except ValueError as exc:
            return f"{quoted(name)} cannot play {quoted(spec)}: {one_line(str(exc), MAX_REASON_CHARS)}"
    return None


def _teachers_problem(config: TrainConfig, presets: Mapping[str, Rules]) -> str | None:
    """Why the ``teachers`` entries cannot teach this run, whose tables play ``presets``
    (:meth:`TrainConfig.played_rules`), or None: a bad entry, a preset the run does not play. Whether their agents
    load is :func:`teacher_problem`'s question."""
    from training.teachers import EVERY_OTHER, parse_teachers

    if not isinstance(config.teachers, list):
        return f"must list 'preset=agent' entries, got {quoted(config.teachers)}"
    try:
        spec = parse_teachers(config.teachers)
    except ValueError as exc:
        return str(exc)
    played = sorted({rules.name for rules in presets.values()})  # the tables' names of their presets
    for preset in spec:
        if preset != EVERY_OTHER and preset not in played:
            return f"preset {preset!r} is not played by this run (it plays {played})"
    return None


def teacher_problem(config: TrainConfig) -> str | None:
    """Why a teacher of ``config`` cannot be loaded (an unknown name, a missing or foreign file, an agent that is
    not a trained policy) or cannot play a preset it teaches, or None. Checked when a run starts, as ``init_from``
    is, not when a config is built: a shipped config may name the policy an earlier run of the chain writes."""
    from training.teachers import EVERY_OTHER, load_teacher, parse_teachers

    spec = parse_teachers(config.teachers)
    played = {rules.name: rules for rules in config.played_rules().values()}  # by the tables' names
    for preset, agent in spec.items():
        try:
            teacher = load_teacher(agent)
        except Exception as exc:  # whatever the loader raises: unknown name, unreadable or foreign file
            return f"cannot load {quoted(agent)} ({type(exc).__name__}: {one_line(str(exc), MAX_REASON_CHARS)})"
        taught = [name for name in played if name not in spec] if preset == EVERY_OTHER else [preset]
        for name in taught:
            try:
                check_plays(teacher, played[name])
            except ValueError as exc:
                return f"{quoted(agent)} cannot teach {name}: {one_line(str(exc), MAX_REASON_CHARS)}"
    return None


SIZE_LISTS = ("hidden", "critic_hidden")  # list fields of layer sizes (integers on the command line)
TRUE_WORDS, FALSE_WORDS = ("true", "yes", "on", "1"), ("false", "no", "off", "0")


def parse_bool(text: str) -> bool:
    """A command-line switch's value: one of TRUE_WORDS or FALSE_WORDS (any case), else an error naming them."""
    word = text.strip().lower()
    if word in TRUE_WORDS or word in FALSE_WORDS:
        return word in TRUE_WORDS
    # a typo must not silently mean false
    raise argparse.ArgumentTypeError(f"expected one of {', '.join(TRUE_WORDS + FALSE_WORDS)}, got {text!r}")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """One ``--field`` option per config field (typed, with its help), overriding the config file."""
    for f in fields(TrainConfig):
        kind = type(f.default) if f.default is not dataclasses.MISSING else list
        flag = "--" + f.name.replace("_", "-")
        if kind is bool:
            parser.add_argument(flag, type=parse_bool, default=None, help=f.metadata["help"] + " (true or false)")
        elif kind is list:
            parser.add_argument(flag, type=str, default=None, help=f.metadata["help"] + " (comma-separated)")
        else:
            parser.add_argument(flag, type=kind, default=None, help=f.metadata["help"])


def overrides(args: argparse.Namespace) -> dict[str, Any]:
    """Config fields given on the command line."""
    out: dict[str, Any] = {}
    for f in fields(TrainConfig):
        value = getattr(args, f.name, None)
        if value is None:
            continue
        if f.default is dataclasses.MISSING:  # list field
            items = [v.strip() for v in value.split(",")]
            if f.name == "mixture" and "" in items:  # '' or ',' once trained on 'rules' without a word
                raise ValueError(
                    f"--mixture: an empty preset in {quoted(value)}; give presets separated by commas "
                    "(e.g. standard:2,cutthroat), or leave --mixture out to train on --rules"
                )
            items = [v for v in items if v]
            value = [int(v) for v in items] if f.name in SIZE_LISTS else items
        out[f.name] = value
    return out


def dump(config: TrainConfig) -> str:
    """YAML of the resolved config."""
    return yaml.safe_dump(config.to_dict(), sort_keys=False)
