"""Behaviour cloning from game records: a policy that plays as the recorded players did (human games as data).

    python -m training.imitate_records RECORDS_DIR --out runs/imitated.pt
    python -m training.imitate_records RECORDS_DIR --seats all --epochs 20 --init-from spades_env/policies/ppo.pt

1. **Read** every ``*.json`` record in the folder (as ``spades-web --record-dir`` writes them, or
   ``env.unwrapped.game_record()`` with a ``seats`` list), in name order. A file that is not a record that replays
   stops the run, naming it (``--skip-bad`` skips it with a warning instead).
2. **Decisions**: each record is replayed (:func:`spades_env.records.iter_replay`), and every decision of the
   seats chosen becomes a row: the observation the seat had, its legal actions, the action it took. ``--seats
   human`` (default) keeps the seats a record names ``human``, up to the decision from which an agent took a seat
   over (``replaced``: a person who left the web table); ``all`` keeps every seat's. Decisions with one legal
   action teach nothing and are left out.
3. **Split** by game: ``--val-fraction`` of the records (at least one when there are two or more) are held out,
   so the accuracy reported is on games the policy never saw.
4. **Train** a :class:`~spades_env.nn.PolicyNet` (fresh, ``--hidden`` and ``--card-scorer``; or the weights of
   ``--init-from``) on the cross-entropy of the recorded actions under the legal mask, Adam, ``--epochs`` passes
   of ``--batch-size`` rows, seeded (``--seed``).
5. **Write** the policy file (``--out``; ``make_agent("ppo", path=...)`` and ``spades-evaluate`` load it), its
   meta holding the command, the records, the decisions and both accuracies; print the same.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from spades_env.cli_args import non_negative_int, positive_int
from spades_env.core.rules import Rules
from spades_env.records import RecordError, iter_replay, load_record

SEAT_CHOICES = ("human", "all")
HUMAN = "human"


@dataclass
class Decisions:
    """Rows of recorded decisions: observations, legal masks, actions, and the game each came from."""

    obs: np.ndarray
    mask: np.ndarray
    action: np.ndarray
    game: np.ndarray

    def take(self, rows: np.ndarray) -> Decisions:
        """The rows ``rows``."""
        return Decisions(self.obs[rows], self.mask[rows], self.action[rows], self.game[rows])


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    parser = argparse.ArgumentParser(
        prog="python -m training.imitate_records", description="Behaviour cloning from game records."
    )
    parser.add_argument("records", help="a folder of game records (*.json)")
    parser.add_argument("--out", default="imitated.pt", help="the policy file written (default imitated.pt)")
    parser.add_argument("--seats", choices=SEAT_CHOICES, default=HUMAN, help="whose decisions to learn (default human)")
    parser.add_argument("--epochs", type=positive_int, default=10, help="passes over the decisions")
    parser.add_argument("--batch-size", type=positive_int, default=512, help="decisions per gradient step")
    parser.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate")
    parser.add_argument("--hidden", type=positive_int, nargs="+", default=[256, 256], help="hidden layer sizes")
    parser.add_argument("--card-scorer", type=non_negative_int, default=64, help="card scorer width (0: none)")
    parser.add_argument("--init-from", default=None, help="start from this policy file's weights")
    parser.add_argument("--val-fraction", type=float, default=0.1, help="share of the games held out")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="seed of the split, weights and batches")
    parser.add_argument("--skip-bad", action="store_true", help="skip a file that is not a record that replays")
    return parser


def read_decisions(folder: Path, seats: str, skip_bad: bool = False) -> tuple[Decisions, list[str]]:
    """The decisions of the chosen seats in every record of ``folder`` (with a choice), and the records read;
    RecordError naming a bad file (skipped, with a warning, when ``skip_bad``)."""
    from spades_env.core.actions import NUM_ACTIONS
    from spades_env.obs import OBS_SIZE

    obs, mask, action, game, names = [], [], [], [], []
    for path in sorted(folder.glob("*.json")):
        try:
            record = load_record(path)
            wanted = chosen_seats(record, seats)
            rows = [
                step
                for index, step in enumerate(iter_replay(record))
                if index < wanted.get(int(step.agent.rsplit("_", 1)[1]), -1) and int(step.action_mask.sum()) > 1
            ]
        except (ValueError, OSError, KeyError, TypeError) as exc:  # RecordError, or rules that do not build
            if not skip_bad:
                raise RecordError(f"{path}: {exc}") from None
            print(f"skipped {path}: {exc}", file=sys.stderr)
            continue
        for step in rows:
            obs.append(step.observation)
            mask.append(step.action_mask)
            action.append(step.action)
            game.append(len(names))
        names.append(path.name)
    if not obs:
        raise RecordError(f"{folder}: no decision of the seats chosen ({seats}) in {len(names)} record(s)")
    return (
        Decisions(
            np.asarray(obs, dtype=np.float32).reshape(-1, OBS_SIZE),
            np.asarray(mask, dtype=np.int8).reshape(-1, NUM_ACTIONS),
            np.asarray(action, dtype=np.int64),
            np.asarray(game, dtype=np.int64),
        ),
        names,
    )


def chosen_seats(record: dict[str, Any], seats: str) -> dict[int, int]:
    """The seats whose decisions are learned, each with the decision index its learning stops at: every seat to the
    end, or those the record names ``human`` until an agent took the seat over (``replaced``)."""
    named = record.get("seats")
    end = len(record["actions"])
    if seats == "all":
        return dict.fromkeys(range(Rules.from_dict(record["rules"]).num_players), end)
    if not isinstance(named, list):
        raise RecordError("the record names no seats ('seats'): use --seats all to learn from every seat")
    wanted = {i: end for i, who in enumerate(named) if who == HUMAN}
    replaced = record.get("replaced", [])
    if not isinstance(replaced, list):
        raise RecordError("'replaced' must be a list of {seat, decision, agent}")
    for change in replaced:
        seat, decision = (change.get("seat"), change.get("decision")) if isinstance(change, dict) else (None, None)
        if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in (seat, decision)):
            raise RecordError(f"'replaced' entries are {{seat, decision, agent}} with indices, got {change!r}")
        if seat in wanted:
            wanted[seat] = min(wanted[seat], decision)
    return wanted


def split_games(decisions: Decisions, games: int, fraction: float, rng: np.random.Generator) -> tuple[Any, Any]:
    """Training and held-out rows, split by game (``fraction`` of the games held out, at least one of two or more)."""
    held = min(games - 1, max(1 if games > 1 else 0, round(games * fraction)))
    out = set(rng.permutation(games)[:held].tolist())
    test = np.isin(decisions.game, list(out))
    return decisions.take(np.flatnonzero(~test)), decisions.take(np.flatnonzero(test))


def accuracy(policy: Any, rows: Decisions) -> float:
    """The share of rows whose recorded action is the policy's most probable legal action (NaN for none)."""
    import torch

    if not len(rows.action):
        return float("nan")
    with torch.no_grad():
        logits = policy(torch.from_numpy(rows.obs), legal=torch.from_numpy(rows.mask))
        logits = logits.masked_fill(torch.from_numpy(rows.mask) == 0, float("-inf"))
        return float((logits.argmax(-1).numpy() == rows.action).mean())


def train(args: argparse.Namespace, decisions: Decisions, games: int) -> tuple[Any, dict[str, float]]:
    """The policy trained on the training games, and its accuracies on them and on the held-out games."""
    import torch

    from spades_env.nn import PolicyNet, load_policy

    rng = np.random.default_rng(args.seed)
    torch.manual_seed(args.seed)
    fit, held = split_games(decisions, games, args.val_fraction, rng)
    if args.init_from:
        policy, _ = load_policy(args.init_from)
    else:
        policy = PolicyNet(args.hidden, card_scorer=args.card_scorer)
    policy.train()
    optimizer = torch.optim.Adam(policy.parameters(), lr=args.lr)
    obs, mask, action = (torch.from_numpy(x) for x in (fit.obs, fit.mask, fit.action))
    for _ in range(args.epochs):
        order = torch.from_numpy(rng.permutation(len(action)))
        for start in range(0, len(action), args.batch_size):
            rows = order[start : start + args.batch_size]
            logits = policy(obs[rows], legal=mask[rows]).masked_fill(mask[rows] == 0, -1e9)
            loss = torch.nn.functional.cross_entropy(logits, action[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    policy.eval()
    return policy, {"train_accuracy": accuracy(policy, fit), "held_out_accuracy": accuracy(policy, held)}


def main(argv: list[str] | None = None) -> int:
    """Read, train, write, report."""
    from spades_env.nn import CheckpointError, save_policy

    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv)
    folder = Path(args.records)
    if not folder.is_dir():
        parser.error(f"{folder}: not a folder of game records")
    if not 0 <= args.val_fraction < 1:
        parser.error(f"--val-fraction must be in [0, 1), got {args.val_fraction}")
    if not args.lr > 0:
        parser.error(f"--lr must be > 0, got {args.lr}")
    try:
        decisions, names = read_decisions(folder, args.seats, args.skip_bad)
        policy, scores = train(args, decisions, len(names))
    except (RecordError, CheckpointError) as exc:
        parser.error(str(exc))
    meta = {
        "command": shlex.join(["python", "-m", "training.imitate_records", *argv]),
        "records": len(names),
        "decisions": len(decisions.action),
        "seats": args.seats,
        **scores,
    }
    save_policy(args.out, policy, meta=meta)
    print(
        f"{len(names)} records, {len(decisions.action):,} decisions of the {args.seats} seats; "
        f"accuracy {scores['train_accuracy']:.1%} on the training games, "
        f"{scores['held_out_accuracy']:.1%} on the held-out games; policy: {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
