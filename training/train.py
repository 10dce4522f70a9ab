"""Masked PPO self-play for Spades on the batch engine (reads top to bottom, CleanRL style).

    python -m training.train                                   # embedded default config (~10 min on 2 cores)
    python -m training.train --config configs/train/release.yaml
    python -m training.train --config configs/train/release.yaml --resume
    python -m training.train --total-decisions 200000 --num-envs 128   # any field can be overridden

1. Config: the embedded default (``training.config.TrainConfig``), a YAML file,
   then command-line overrides; the resolved config is saved as
   ``<run>/config.yaml``. The run folder's name is reproducible.
2. One policy network plays every seat (observations are relative to the seat);
   illegal actions are masked out of the logits. The critic sees the
   full-information state (``critic_input: state``) or the observation.
3. Warm start (optional): behaviour cloning of the heuristic agent, or the
   weights of an earlier policy file or checkpoint (``init_from``). With
   ``prior_weight`` > 0 the policy is residual over the heuristic (see
   :mod:`spades_env.nn`): the heuristic's action is computed for every
   learner decision, stored with it and added to the logits in the update.
4. Each update: a rollout of ``rollout_steps`` steps on ``num_envs`` tables.
   Tables are of three kinds, drawn when a game starts: self-play (every seat is
   the current policy), heuristic (the learner's partnership against the
   heuristic) and snapshot (against an earlier policy from the pool). Partners
   share the reward: each hand's points for the side minus the opponents',
   scaled, with bags charged when taken (``bag_cost``). A hand is one episode
   for credit assignment; decisions of unfinished hands wait for the next
   update. Then PPO epochs over the finished decisions.
5. Metrics go to ``metrics.csv`` (and TensorBoard when installed), a learning
   curve to ``learning_curve.png``; duplicate evaluations against ``random`` and
   ``heuristic`` run every ``eval_every`` updates; checkpoints are written
   atomically every ``checkpoint_every`` updates (``--resume`` continues from
   the last one: weights, optimizer, counters, opponent pool, random state).
6. At the end: the policy file ``<run>/policy.pt`` (loadable with
   ``spades_env.make_agent("ppo", path=...)``) and a final evaluation.
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch.distributions import Categorical
from tqdm import tqdm

from spades_env.batch import BatchEnv
from spades_env.config_io import load_rules
from spades_env.core.actions import NUM_ACTIONS
from spades_env.encoding import OBS_SIZE, STATE_SIZE
from spades_env.rewards import relative_points
from spades_env.nn import (
    POLICY_FORMAT,
    CheckpointError,
    PolicyNet,
    ValueNet,
    apply_prior,
    atomic_torch_save,
    load_policy,
    masked_logits,
    safe_load,
    save_policy,
)
from training.config import TrainConfig, add_arguments, dump, from_mapping, load_config, overrides
from training.trajectories import TrajectoryStore

CHECKPOINT_FORMAT = "spades_env.train_checkpoint/1"
SELF, HEURISTIC, SNAPSHOT = 0, 1, 2
METRIC_FIELDS = [
    "update", "learner_decisions", "env_decisions", "seconds", "decisions_per_second", "learning_rate",
    "policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac", "explained_variance", "mean_hand_reward",
    "eval_random_ppd", "eval_random_low", "eval_random_high", "eval_heuristic_ppd", "eval_heuristic_low",
    "eval_heuristic_high",
]


def parse_args(argv: list[str] | None = None) -> tuple[TrainConfig, argparse.Namespace]:
    """Config from the embedded default, ``--config`` and per-field overrides."""
    parser = argparse.ArgumentParser(description="Masked PPO self-play for Spades.")
    parser.add_argument("--config", default=None, help="YAML file overriding the embedded default config")
    parser.add_argument("--resume", action="store_true", help="continue the run from its last checkpoint")
    parser.add_argument("--overwrite", action="store_true", help="delete an existing run folder of the same name")
    parser.add_argument("--no-final-eval", action="store_true", help="skip the final evaluation")
    add_arguments(parser)
    args = parser.parse_args(argv)
    config = from_mapping(overrides(args), base=load_config(args.config))
    return config, args


def policy_step(policy: PolicyNet, obs: np.ndarray, mask: np.ndarray, device: torch.device, greedy: bool = False,
                prior: np.ndarray | None = None):
    """Sample (or take the best) legal action per row; return actions and their log-probabilities."""
    with torch.no_grad():
        logits = policy(torch.as_tensor(obs, device=device))
        if prior is not None:
            logits = apply_prior(logits, torch.as_tensor(prior, device=device), policy.prior_weight)
        logits = masked_logits(logits, torch.as_tensor(mask, device=device))
        dist = Categorical(logits=logits)
        actions = logits.argmax(-1) if greedy else dist.sample()
        return actions.cpu().numpy(), dist.log_prob(actions).cpu().numpy()


def values_of(critic: ValueNet, x: np.ndarray, device: torch.device) -> np.ndarray:
    """Critic values per row."""
    with torch.no_grad():
        return critic(torch.as_tensor(x, device=device)).cpu().numpy()


def training_rewards(info: dict[str, Any], tables: np.ndarray, bags_before: np.ndarray, rules, config: TrainConfig,
                     sides: np.ndarray) -> np.ndarray:
    """Per-seat rewards of the hands that ended at ``tables``: side points minus opponents', scaled.

    With ``bag_cost`` each bag taken costs bag_penalty / bag_limit points at once and the
    penalty itself is not charged when it falls due, so a hand carries the full cost of its bags.
    """
    points = np.asarray(info["points"], dtype=np.float64)[tables]
    if config.bag_cost and rules.bag_limit:
        penalties = np.asarray(info["bag_penalties"])[tables]
        new_bags = np.asarray(info["bags"])[tables] + penalties * rules.bag_limit - bags_before[tables]
        points = points + penalties * rules.bag_penalty - new_bags * (rules.bag_penalty / rules.bag_limit)
    return (relative_points(points) * config.reward_scale)[:, sides].astype(np.float32)


class HandEnds:
    """Closes finished hands in a TrajectoryStore and keeps each table's bags for the bag cost."""

    def __init__(self, env: BatchEnv, rules, config: TrainConfig):
        self.rules, self.config = rules, config
        self.sides = np.array([rules.side_of(s) for s in range(rules.num_players)])
        self.bags = np.zeros((env.num_envs, rules.num_sides))

    def __call__(self, store: TrajectoryStore, info: dict[str, Any], dones: np.ndarray) -> np.ndarray:
        """Reward the recorded decisions of tables whose hand ended; return those rewards (rows = tables)."""
        hand_over = np.asarray(info["hand_over"], dtype=bool)
        rewards = np.zeros((0, self.rules.num_players), dtype=np.float32)
        if hand_over.any():
            tables = np.flatnonzero(hand_over)
            rewards = training_rewards(info, tables, self.bags, self.rules, self.config, self.sides)
            store.end_hands(tables, rewards)
            self.bags[tables] = np.asarray(info["bags"])[tables]
        self.bags[dones] = 0  # a new game starts with no bags
        return rewards


def train(argv: list[str] | None = None) -> dict[str, Any]:
    """Train, then evaluate; return the run's summary (also written to ``<run>/summary.json``)."""
    config, cli = parse_args(argv)
    # ------------------------------------------------------------------ run folder
    run_dir = Path(config.runs_dir) / config.run_name
    ckpt_path = run_dir / "checkpoints" / "last.pt"
    if run_dir.exists() and not cli.resume:
        if not cli.overwrite:
            sys.exit(f"run folder {run_dir} exists: pass --resume to continue it or --overwrite to start over")
        shutil.rmtree(run_dir)
    if cli.resume and not ckpt_path.exists():
        sys.exit(f"--resume: no checkpoint at {ckpt_path}")
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(dump(config))
    print(f"run folder: {run_dir}")

    # ------------------------------------------------------------------ seeding, device
    torch.set_num_threads(config.threads)
    if config.device.startswith("cuda") and not torch.cuda.is_available():
        sys.exit("device 'cuda' was asked for but CUDA is not available; use --device cpu")
    device = torch.device(config.device)
    torch.manual_seed(config.seed)
    rng = np.random.default_rng(config.seed)
    rules = load_rules(config.rules)
    sides = np.array([rules.side_of(s) for s in range(rules.num_players)])  # side of each seat

    # ------------------------------------------------------------------ networks, pool
    policy = PolicyNet(config.hidden, prior_weight=config.prior_weight, prior_on_bids=config.prior_on_bids).to(device)
    critic_size = STATE_SIZE if config.critic_input == "state" else OBS_SIZE
    critic = ValueNet(critic_size, config.hidden).to(device)
    params = list(policy.parameters()) + list(critic.parameters())
    optimizer = torch.optim.Adam(params, lr=config.learning_rate, eps=1e-5)
    pool: list[dict[str, torch.Tensor]] = []  # snapshot state dicts (CPU)
    counters = {"update": 0, "learner_decisions": 0, "env_decisions": 0, "seconds": 0.0, "bc_done": False,
                "bc_seconds": 0.0, "bc_decisions": 0}

    if cli.resume:
        payload = safe_load(ckpt_path)
        if payload.get("format") != CHECKPOINT_FORMAT:
            raise CheckpointError(f"{ckpt_path}: not a training checkpoint (format {payload.get('format')!r})")
        try:
            policy.load_state_dict(payload["policy"])
            critic.load_state_dict(payload["critic"])
            optimizer.load_state_dict(payload["optimizer"])
        except (KeyError, RuntimeError, ValueError) as exc:
            raise CheckpointError(f"{ckpt_path}: does not fit this config's networks: {exc}") from None
        pool = list(payload["pool"])
        counters.update(payload["counters"])
        rng = np.random.default_rng(payload["rng_seed"])
        torch.manual_seed(int(payload["rng_seed"][-1]))
        print(f"resumed at update {counters['update']} ({counters['learner_decisions']:,} learner decisions)")
    elif config.init_from:
        init_weights(config.init_from, policy, critic)
        counters["bc_done"] = True  # the loaded weights replace the imitation
        print(f"initial weights from {config.init_from}")

    def save_checkpoint() -> None:
        seed_state = [config.seed, counters["update"], int(rng.integers(2**31))]
        atomic_torch_save({
            "format": CHECKPOINT_FORMAT, "config": config.to_dict(), "policy": policy.state_dict(),
            "critic": critic.state_dict(), "optimizer": optimizer.state_dict(), "pool": pool,
            "counters": dict(counters), "rng_seed": seed_state,
        }, ckpt_path)

    from spades_env.agents import make_agent  # agents import torch-free modules; policy agents via nn
    from spades_env.agents.policy import heuristic_prior, prior_of_actions

    heuristic = make_agent("heuristic", seed=config.seed)
    snapshot_net = PolicyNet(config.hidden, prior_weight=config.prior_weight, prior_on_bids=config.prior_on_bids).to(device).eval()
    prior_agent = make_agent("heuristic", seed=config.seed)  # own void memory, apart from the opponents'

    def prior_of(obs_rows: np.ndarray, mask_rows: np.ndarray) -> np.ndarray | None:
        """The heuristic prior of these rows, or None for a plain policy."""
        if not config.prior_weight:
            return None
        return heuristic_prior(prior_agent, obs_rows, mask_rows, config.prior_on_bids)

    # ------------------------------------------------------------------ metrics
    metrics_path = run_dir / "metrics.csv"
    new_metrics = not metrics_path.exists()
    metrics_file = open(metrics_path, "a", newline="")
    writer = csv.DictWriter(metrics_file, fieldnames=METRIC_FIELDS)
    if new_metrics:
        writer.writeheader()
    try:
        from torch.utils.tensorboard import SummaryWriter  # optional
        tb = SummaryWriter(str(run_dir / "tb"))
    except Exception:  # tensorboard not installed
        tb = None

    env = BatchEnv(config.num_envs, rules=rules, episode="game", seed=int(rng.integers(2**31)))
    n_players = rules.num_players

    hand_ends = HandEnds(env, rules, config)

    def critic_input(obs: np.ndarray, rows: np.ndarray) -> np.ndarray:
        return env.state()[rows] if config.critic_input == "state" else obs[rows]

    # ------------------------------------------------------------------ warm start: imitate the heuristic
    if config.bc_decisions > 0 and not counters["bc_done"]:
        t0 = time.time()
        bc_obs, bc_mask, bc_act, bc_crit, bc_ret, bc_prior = [], [], [], [], [], []
        store = TrajectoryStore(config.num_envs, n_players, OBS_SIZE, NUM_ACTIONS, critic_size)
        obs, mask, to_act = env.reset()
        collected = 0
        bar = tqdm(total=config.bc_decisions, desc="imitating heuristic", disable=not config.progress, unit="dec")
        rows = np.arange(config.num_envs)
        while collected < config.bc_decisions:
            for _ in range(config.rollout_steps):
                actions = heuristic.act_batch(obs, mask)
                prior = prior_of_actions(actions, config.prior_on_bids) if config.prior_weight else None
                store.add(rows, to_act, obs.copy(), mask.copy(), critic_input(obs, rows), actions,
                          np.zeros(len(rows)), np.zeros(len(rows)), prior)
                obs, mask, to_act, _, dones, info = env.step(actions)
                hand_ends(store, info, dones)
            data = store.take_complete(1.0, 1.0)  # returns = the hand's reward (no discount)
            if data is not None:
                for key, parts in (("obs", bc_obs), ("mask", bc_mask), ("action", bc_act), ("critic", bc_crit),
                                   ("return", bc_ret), ("prior", bc_prior)):
                    parts.append(data[key])
                collected += len(data["action"])
                bar.update(len(data["action"]))
        bar.close()
        for group in optimizer.param_groups:
            group["lr"] = config.bc_learning_rate
        X, M, A = np.concatenate(bc_obs), np.concatenate(bc_mask), np.concatenate(bc_act)
        C, R, P = np.concatenate(bc_crit), np.concatenate(bc_ret), np.concatenate(bc_prior)

        def bc_logits(idx: np.ndarray) -> torch.Tensor:
            logits = apply_prior(policy(torch.as_tensor(X[idx], device=device)), torch.as_tensor(P[idx], device=device),
                                 policy.prior_weight)
            return masked_logits(logits, torch.as_tensor(M[idx], device=device))

        for epoch in range(config.bc_epochs):
            order = rng.permutation(len(A))
            losses = []
            for start in range(0, len(A), config.minibatch_size):
                idx = order[start:start + config.minibatch_size]
                logits = bc_logits(idx)
                pl = torch.nn.functional.cross_entropy(logits, torch.as_tensor(A[idx], device=device))
                vl = ((critic(torch.as_tensor(C[idx], device=device)) - torch.as_tensor(R[idx], device=device)) ** 2).mean()
                optimizer.zero_grad()
                (pl + config.vf_coef * vl).backward()
                torch.nn.utils.clip_grad_norm_(params, config.max_grad_norm)
                optimizer.step()
                losses.append((pl.item(), vl.item()))
            pl_mean, vl_mean = np.mean(losses, axis=0)
            print(f"imitation epoch {epoch + 1}/{config.bc_epochs}: policy loss {pl_mean:.3f}, value loss {vl_mean:.3f}")
        with torch.no_grad():  # how often the imitation picks the heuristic's action
            idx = rng.choice(len(A), size=min(20_000, len(A)), replace=False)
            logits = bc_logits(idx)
            agreement = float((logits.argmax(-1).cpu().numpy() == A[idx]).mean())
        print(f"imitation: {len(A):,} decisions, agreement with the heuristic {agreement:.1%}, {time.time() - t0:.0f} s")
        counters["bc_decisions"] = int(len(A))
        del X, M, C, R, P, bc_obs, bc_mask, bc_act, bc_crit, bc_ret
        counters["bc_done"] = True
        counters["bc_seconds"] = round(time.time() - t0, 1)
        for group in optimizer.param_groups:  # fresh Adam moments for PPO
            group["lr"] = config.learning_rate
        optimizer.state.clear()
        save_checkpoint()  # a resumed run does not imitate again

    # ------------------------------------------------------------------ table assignment
    kinds = np.zeros(config.num_envs, dtype=np.int64)
    learner_side = np.zeros(config.num_envs, dtype=np.int64)
    snapshot_of = np.zeros(config.num_envs, dtype=np.int64)

    def assign_tables(tables: np.ndarray) -> None:
        u = rng.random(len(tables))
        kind = np.where(u < config.selfplay_fraction, SELF,
                        np.where(u < config.selfplay_fraction + config.heuristic_fraction, HEURISTIC, SNAPSHOT))
        if not pool:
            kind = np.where(kind == SNAPSHOT, SELF, kind)
        kinds[tables] = kind
        learner_side[tables] = rng.integers(rules.num_sides, size=len(tables))
        snapshot_of[tables] = rng.integers(max(1, len(pool)), size=len(tables))

    assign_tables(np.arange(config.num_envs))
    obs, mask, to_act = env.reset()
    store = TrajectoryStore(config.num_envs, n_players, OBS_SIZE, NUM_ACTIONS, critic_size)
    hand_ends.bags[:] = 0

    # ------------------------------------------------------------------ evaluation
    def evaluate(deals: int, games: int, tag: str) -> dict[str, Any]:
        from spades_env.evaluation import EvalConfig, evaluate as run_evaluation

        policy_path = run_dir / "policy.pt"
        save_policy(policy_path, policy, meta={"config": config.to_dict(), "update": counters["update"]})
        out = {}
        for opponent in config.eval_opponents:
            report = run_evaluation(EvalConfig(str(policy_path), opponent, rules=config.rules, deals=deals, games=games,
                                               seed=config.seed + 1000, workers=config.eval_workers, progress=False))
            out[opponent] = report
            ppd = report["deals"]["points_diff"]
            line = f"[{tag}] ppo vs {opponent}: points/deal {ppd['mean']:+.1f} (95% CI {ppd['low']:+.1f} .. {ppd['high']:+.1f})"
            if games:
                win = report["games"]["a_win_rate"]
                line += f", games won {win['rate']:.1%} (95% CI {win['low']:.1%} .. {win['high']:.1%})"
            print(line)
        return out

    # ------------------------------------------------------------------ training loop
    batch_target = config.total_decisions
    bar = tqdm(total=batch_target, initial=min(counters["learner_decisions"], batch_target), desc="ppo", unit="dec",
               disable=not config.progress)
    hand_rewards: list[float] = []
    run_start = time.time() - counters["seconds"] - counters["bc_seconds"]  # the limit covers resumed runs too
    while counters["learner_decisions"] < batch_target:
        if config.time_limit_minutes and time.time() - run_start > 60 * config.time_limit_minutes:
            print(f"time limit of {config.time_limit_minutes} minutes reached")
            break
        if config.max_updates and counters["update"] >= config.max_updates:
            print(f"update limit of {config.max_updates} reached")
            break
        t_start = time.time()
        frac = 1.0 - counters["learner_decisions"] / batch_target
        lr = config.learning_rate * (frac if config.anneal_lr else 1.0)
        for group in optimizer.param_groups:
            group["lr"] = lr
        policy.eval()
        for _ in range(config.rollout_steps):
            learner_rows_mask = (kinds == SELF) | (sides[to_act] == learner_side)
            actions = np.zeros(config.num_envs, dtype=np.int64)
            rows = np.flatnonzero(learner_rows_mask)
            if len(rows):
                prior = prior_of(obs[rows], mask[rows])
                act, logp = policy_step(policy, obs[rows], mask[rows], device, prior=prior)
                crit = critic_input(obs, rows)
                store.add(rows, to_act[rows], obs[rows], mask[rows], crit, act, logp, values_of(critic, crit, device), prior)
                actions[rows] = act
            opp = np.flatnonzero(~learner_rows_mask)
            if len(opp):
                h_rows = opp[kinds[opp] == HEURISTIC]
                if len(h_rows):
                    actions[h_rows] = heuristic.act_batch(obs[h_rows], mask[h_rows])
                s_rows = opp[kinds[opp] == SNAPSHOT]
                for snap in np.unique(snapshot_of[s_rows]):
                    r = s_rows[snapshot_of[s_rows] == snap]
                    snapshot_net.load_state_dict(pool[int(snap)])
                    actions[r] = policy_step(snapshot_net, obs[r], mask[r], device, prior=prior_of(obs[r], mask[r]))[0]
            obs, mask, to_act, _, dones, info = env.step(actions)
            counters["env_decisions"] += config.num_envs
            hand_rewards.extend(hand_ends(store, info, dones)[:, 0].tolist())
            if dones.any():
                assign_tables(np.flatnonzero(dones))
        batch = store.take_complete(config.gamma, config.gae_lambda)
        if batch is None:
            continue

        # ---------------------------------------------------------------- PPO update
        policy.train()
        n = len(batch["action"])
        tensors = {k: torch.as_tensor(v, device=device) for k, v in batch.items()
                   if k in ("obs", "mask", "critic", "action", "logp", "advantage", "return", "prior")}
        stats = {"policy_loss": [], "value_loss": [], "entropy": [], "approx_kl": [], "clipfrac": []}
        for epoch in range(config.update_epochs):
            order = torch.as_tensor(rng.permutation(n), device=device)
            kl_epoch = []
            for start in range(0, n, config.minibatch_size):
                idx = order[start:start + config.minibatch_size]
                logits = apply_prior(policy(tensors["obs"][idx]), tensors["prior"][idx], policy.prior_weight)
                logits = masked_logits(logits, tensors["mask"][idx])
                dist = Categorical(logits=logits)
                new_logp = dist.log_prob(tensors["action"][idx])
                log_ratio = new_logp - tensors["logp"][idx]
                ratio = log_ratio.exp()
                adv = tensors["advantage"][idx]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - config.clip_coef, 1 + config.clip_coef)).mean()
                v_loss = 0.5 * ((critic(tensors["critic"][idx]) - tensors["return"][idx]) ** 2).mean()
                # Entropy over legal actions only (masked logits give illegal actions zero probability).
                probs = dist.probs
                entropy = -(probs * torch.log(probs.clamp_min(1e-12))).sum(-1).mean()
                loss = pg_loss + config.vf_coef * v_loss - config.ent_coef * entropy
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(params, config.max_grad_norm)
                optimizer.step()
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - log_ratio).mean().item()
                    stats["clipfrac"].append(((ratio - 1).abs() > config.clip_coef).float().mean().item())
                stats["policy_loss"].append(pg_loss.item())
                stats["value_loss"].append(v_loss.item())
                stats["entropy"].append(entropy.item())
                stats["approx_kl"].append(approx_kl)
                kl_epoch.append(approx_kl)
            if config.target_kl and np.mean(kl_epoch) > config.target_kl:
                break
        with torch.no_grad():
            pred = values_of(critic, batch["critic"], device)
        var = np.var(batch["return"])
        explained = float(1 - np.var(batch["return"] - pred) / var) if var > 0 else float("nan")

        counters["update"] += 1
        counters["learner_decisions"] += n
        counters["seconds"] += time.time() - t_start
        bar.update(n)
        if counters["update"] % config.snapshot_every == 0:
            pool.append({k: v.detach().cpu().clone() for k, v in policy.state_dict().items()})
            pool = pool[-config.pool_size:]
        row = {
            "update": counters["update"], "learner_decisions": counters["learner_decisions"],
            "env_decisions": counters["env_decisions"], "seconds": round(counters["seconds"], 1),
            "decisions_per_second": round(counters["env_decisions"] / max(counters["seconds"], 1e-9)),
            "learning_rate": lr, "explained_variance": explained,
            "mean_hand_reward": float(np.mean(hand_rewards)) if hand_rewards else float("nan"),
            **{k: float(np.mean(v)) for k, v in stats.items()},
        }
        hand_rewards.clear()
        if config.eval_every and counters["update"] % config.eval_every == 0:
            result = evaluate(config.eval_deals, 0, f"update {counters['update']}")
            for opponent, res in result.items():
                ppd = res["deals"]["points_diff"]
                row[f"eval_{opponent}_ppd"], row[f"eval_{opponent}_low"], row[f"eval_{opponent}_high"] = \
                    ppd["mean"], ppd["low"], ppd["high"]
        writer.writerow({k: row.get(k, "") for k in METRIC_FIELDS})
        metrics_file.flush()
        if tb is not None:
            for k, v in row.items():
                if isinstance(v, (int, float)) and k != "update":
                    tb.add_scalar(k, v, counters["learner_decisions"])
        bar.set_postfix(dps=row["decisions_per_second"], ent=f"{row['entropy']:.2f}", r=f"{row['mean_hand_reward']:.3f}")
        if counters["update"] % config.checkpoint_every == 0:
            save_checkpoint()
    bar.close()
    save_checkpoint()
    metrics_file.close()
    print(f"training: {counters['learner_decisions']:,} learner decisions, {counters['env_decisions']:,} table decisions "
          f"in {counters['seconds']:.0f} s of PPO ({counters['env_decisions'] / max(counters['seconds'], 1e-9):,.0f} "
          f"decisions/s, rollouts and updates included) after {counters['bc_seconds']:.0f} s of imitation")
    save_policy(run_dir / "policy.pt", policy, meta={"config": config.to_dict(), "update": counters["update"],
                                                     "learner_decisions": counters["learner_decisions"],
                                                     "seconds": round(counters["seconds"], 1)})
    plot_learning_curve(metrics_path, run_dir / "learning_curve.png")
    summary: dict[str, Any] = {"run_dir": str(run_dir), "counters": counters}
    if not cli.no_final_eval and (config.final_eval_deals or config.final_eval_games):
        summary["evaluation"] = evaluate(config.final_eval_deals, config.final_eval_games, "final")
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=1, default=str))
    print(f"policy: {run_dir / 'policy.pt'}")
    return summary


def init_weights(path: str, policy: PolicyNet, critic: ValueNet) -> None:
    """Load a policy file's weights, or a training checkpoint's policy and critic, into fresh networks."""
    payload = safe_load(path)
    if payload.get("format") == POLICY_FORMAT:
        source, _meta = load_policy(path)
        states = {"policy": source.state_dict()}
    elif payload.get("format") == CHECKPOINT_FORMAT:
        states = {"policy": payload["policy"], "critic": payload["critic"]}
    else:
        raise CheckpointError(f"{path}: neither a policy file nor a training checkpoint (format {payload.get('format')!r})")
    try:
        policy.load_state_dict(states["policy"])
        if "critic" in states:
            critic.load_state_dict(states["critic"])
    except RuntimeError as exc:
        raise CheckpointError(f"{path}: does not fit this config's networks: {exc}") from None


def plot_learning_curve(metrics_path: Path, png_path: Path) -> None:
    """Entropy, hand reward and evaluation points per deal against learner decisions."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(metrics_path) as fh:
        rows = list(csv.DictReader(fh))
    if not rows:
        return
    x = [float(r["learner_decisions"]) for r in rows]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4))
    for ax, key in zip(axes[:2], ("mean_hand_reward", "entropy")):
        ax.plot(x, [float(r[key]) if r[key] not in ("", "nan") else np.nan for r in rows])
        ax.set_title(key)
        ax.set_xlabel("learner decisions")
    for opponent in ("random", "heuristic"):
        pts = [(float(r["learner_decisions"]), float(r[f"eval_{opponent}_ppd"]), float(r[f"eval_{opponent}_low"]),
                float(r[f"eval_{opponent}_high"])) for r in rows if r.get(f"eval_{opponent}_ppd")]
        if pts:
            xs, ys, lo, hi = map(np.array, zip(*pts))
            axes[2].plot(xs, ys, marker="o", label=f"vs {opponent}")
            axes[2].fill_between(xs, lo, hi, alpha=0.2)
    axes[2].axhline(0, color="grey", lw=0.5)
    axes[2].set_title("duplicate points per deal (95% CI)")
    axes[2].set_xlabel("learner decisions")
    if axes[2].get_legend_handles_labels()[0]:
        axes[2].legend()
    fig.tight_layout()
    fig.savefig(png_path, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    """Console entry point (``spades-train``)."""
    train(argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
