"""Policy and value networks, and the safe checkpoint format of released policies.

The policy is an MLP over the flat observation (layout in
:mod:`spades_env.encoding`); illegal actions are masked out of its logits. The
same network plays every seat, since observations are relative to the seat.
With ``card_scorer`` > 0 it also has a card-centred scorer
(:mod:`spades_env.card_scorer`): per-card features of the observation and the
MLP's last hidden layer go through one small network shared by all cards,
whose score is added to each card's logit. Given the rows' legal-action masks
(``legal``), it scores only the cards that can change the masked policy (the
legal cards of rows with a choice: :func:`spades_env.card_scorer.scored_cards`);
the masked logits are the same, at about a quarter of the cards.

Observations are mostly zeros (in training play about 93 of the 879
observation features are active, and 122 of the 1,149 of the full state), so a
network's first layer also takes :class:`SparseRows` (each row's active
feature indices and values one row after another, with no padding, from
:func:`sparse_rows`): it then sums the weighted weight columns of the active
features only (``embedding_bag``), equal in function to the dense ``Linear``
on the same input; its weight gradient is one sparse-dense product over the
active features (on the CPU a feature-major CSR matrix and torch's summing
product), or, where training asks for it (``weight_grad``: the default
on CPUs with bf16 matrix units, AMX), one dense bfloat16 product, about twice
as fast there and rounded to bf16 (the forward pass, and so every probability,
stays float32). Without gradients (inference) no autograd node is made, and
inside :func:`fixed_weights` (a rollout, where the weights do not change) each
first layer's transposed weight table is built once instead of at every pass.
Training builds the rows once per table step and picks minibatches from them.
The weights are the same ``Linear`` either way, so policy files do not change.
A policy may be *residual over the heuristic* (``prior_weight`` > 0): its
logits get ``prior_weight`` added at the action the heuristic agent would
take (on card decisions only, or on bids too with ``prior_on_bids``), so it
starts as the heuristic's play and learns where to depart from it. The
weight travels in the policy file; agents compute the prior themselves
(:func:`spades_env.agents.policy.heuristic_prior`).

A policy file is written with ``torch.save`` and read with
``torch.load(..., weights_only=True)``: a dict of tensors and plain values
(``POLICY_FORMAT``), never pickled objects. It records the observation layout
it was trained on (``OBSERVATION.describe()``) and a SHA-256 of its tensors
(names, dtypes, shapes and bytes; the free-form ``meta`` is not covered).
Loading checks, in order and before any network is allocated: the format, the
layout (``LayoutError`` naming both layouts; a file of an older layout that is a
block-subset of this one, such as ``spades_obs_v0``, loads and its network reads
the columns ``OBSERVATION.projection`` names, so it plays as it was trained),
the network description
(hidden sizes, observation size, actions, prior weight, card scorer width; a
file written before the card scorer has none) against the weights' shapes, the content hash, and that every weight is finite. Any other problem
raises :class:`PolicyFileError` naming the file and the problem.
"""

from __future__ import annotations

import hashlib
import math
import os
import warnings
from contextlib import contextmanager
from pathlib import Path
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

import numpy as np

try:
    import torch
except ModuleNotFoundError as exc:  # torch is an extra: the environment itself does not need it
    raise ModuleNotFoundError("spades_env's policy networks and trained-policy agents need torch: "
                              "pip install 'spades_env[train]'", name="torch") from exc
from torch import nn
from torch.nn import functional

from .card_scorer import CARD_FEATURES, CardScorer
from .core.actions import NUM_ACTIONS
from .core.cards import NUM_CARDS
from .obs.encode import OBS_SIZE
from .obs.layout import LayoutError, OBSERVATION, POSITION, STATE

POLICY_FORMAT = "spades_env.policy/1"
# Inputs are clamped to +-FEATURE_CLIP; only the scores (points / target) ever pass 1. Beyond twice the target the
# networks see twice the target: a main-job network (seed 2) that saw such scores at +-10 targets against
# `random` (whose blind nils sink its score by thousands) underbid into bag penalties and won 1 of 12 games (11
# undecided at the hand limit); at +-2, 12 of 12 in 16 hands (README, "Self-play training").
FEATURE_CLIP = 2.0
MASKED_LOGIT = -1e9
HAND_CARD_CHUNK = 8192  # rows made dense at a time for the card scorer's features of a whole batch


@contextmanager
def one_torch_thread() -> Iterator[None]:
    """Run torch on one thread inside (the count restored after): small batched forwards are slower on
    more, and on a shared machine the other processes already fill the cores."""
    threads = torch.get_num_threads()
    if threads != 1:
        torch.set_num_threads(1)
    try:
        yield
    finally:
        if threads != 1:
            torch.set_num_threads(threads)


class CheckpointError(ValueError):
    """A policy or checkpoint file that is corrupt, of another format, or of another shape."""


CRITIC_LAYOUTS = (OBSERVATION, STATE, POSITION)  # what a critic may read


class PolicyFileError(CheckpointError):
    """A policy file that cannot be trusted or does not describe its own network; names the file and the problem."""


def critic_layout(input_size: int) -> dict[str, Any]:
    """The layout description of a critic's input (the observation, the full state or the position), for
    checkpoints."""
    for layout in CRITIC_LAYOUTS:
        if layout.size == input_size:
            return layout.describe()
    known = ", ".join(f"{layout.name!r} ({layout.size})" for layout in CRITIC_LAYOUTS)
    raise LayoutError(f"a critic input of {input_size} floats is none of {known}")


@dataclass(frozen=True)
class SparseRows:
    """Rows of a mostly-zero input as their active features, row after row with no padding (CSR form).

    Row ``r``'s feature indices and values are ``indices[offsets[r]:offsets[r + 1]]`` and the same slice of
    ``values``; a row may have none.
    """

    indices: torch.Tensor  # (active,) int64 feature indices
    values: torch.Tensor  # (active,) float32 feature values; (active, k): k values per feature (not for dense())
    offsets: torch.Tensor  # (rows + 1,) int64: where each row's features start, then the total
    size: int  # the dense row length

    def __len__(self) -> int:
        return self.offsets.shape[0] - 1

    def __reduce__(self) -> tuple:
        # Pickled as numpy arrays with the feature indices in the smallest integer type that holds them: a batch
        # goes to and from the rollout worker (training.pipeline) at about half the bytes, without torch's
        # storage serialization; the rows come back as CPU tensors.
        index_type = np.int16 if self.size <= np.iinfo(np.int16).max + 1 else np.int64
        return (_sparse_rows_from_arrays, (self.indices.cpu().numpy().astype(index_type), self.values.cpu().numpy(),
                                           self.offsets.cpu().numpy(), self.size))

    def counts(self) -> torch.Tensor:
        """The number of active features of each row."""
        return self.offsets[1:] - self.offsets[:-1]

    def row_of_each(self) -> torch.Tensor:
        """The row of each active feature (as ``indices``)."""
        rows = torch.arange(len(self), device=self.offsets.device)
        return torch.repeat_interleave(rows, self.counts(), output_size=self.indices.shape[0])

    def __getitem__(self, rows: torch.Tensor | np.ndarray | slice) -> "SparseRows":
        """These rows (positions, a boolean mask or a slice), in this order: a minibatch."""
        if isinstance(rows, slice):
            rows = torch.arange(len(self), device=self.offsets.device)[rows]
        rows = torch.as_tensor(rows, device=self.offsets.device)
        if rows.dtype == torch.bool:
            rows = rows.nonzero().squeeze(1)
        counts = self.counts().index_select(0, rows)  # index_select: several times faster than indexing
        offsets = torch.zeros(len(rows) + 1, dtype=torch.int64, device=rows.device)
        torch.cumsum(counts, 0, out=offsets[1:])
        total = int(offsets[-1])
        # each picked row's features are one run: its old start, shifted to its new start
        shift = self.offsets[:-1].index_select(0, rows) - offsets[:-1]
        where = torch.arange(total, device=rows.device) + torch.repeat_interleave(shift, counts, output_size=total)
        return SparseRows(self.indices.index_select(0, where), self.values.index_select(0, where), offsets, self.size)

    @staticmethod
    def cat(parts: Sequence["SparseRows"]) -> "SparseRows":
        """The rows of ``parts``, one part after another (all of the same row length)."""
        if not parts or len({part.size for part in parts}) != 1:
            raise ValueError(f"SparseRows.cat needs parts of one row length, got {[part.size for part in parts]}")
        starts = np.cumsum([0] + [int(part.offsets[-1]) for part in parts[:-1]])
        offsets = torch.cat([parts[0].offsets[:1]] + [part.offsets[1:] + int(start) for part, start in zip(parts, starts)])
        return SparseRows(torch.cat([part.indices for part in parts]), torch.cat([part.values for part in parts]),
                          offsets, parts[0].size)

    def to(self, device: torch.device | str) -> "SparseRows":
        """The same rows on ``device``."""
        return SparseRows(self.indices.to(device), self.values.to(device), self.offsets.to(device), self.size)

    def dense(self) -> torch.Tensor:
        """The rows as a dense float tensor."""
        out = torch.zeros(len(self), self.size, dtype=self.values.dtype, device=self.values.device)
        out[self.row_of_each(), self.indices] = self.values
        return out

    def clamp(self, low: float, high: float) -> "SparseRows":
        """Values clamped (a zero stays zero, as in the dense input)."""
        return SparseRows(self.indices, self.values.clamp(low, high), self.offsets, self.size)


def _sparse_rows_from_arrays(indices: np.ndarray, values: np.ndarray, offsets: np.ndarray, size: int) -> SparseRows:
    """SparseRows as pickled by :meth:`SparseRows.__reduce__`."""
    return SparseRows(torch.from_numpy(indices.astype(np.int64)), torch.from_numpy(values), torch.from_numpy(offsets),
                      size)


def sparse_rows(x: torch.Tensor | np.ndarray) -> SparseRows:
    """The active (nonzero) features of each row of a 2-D input, for the sparse first layer."""
    if not isinstance(x, torch.Tensor):
        x = np.asarray(x)
    if x.ndim != 2:
        raise ValueError(f"sparse_rows needs a 2-D input (rows, features), got shape {tuple(x.shape)}")
    if isinstance(x, np.ndarray):
        return _sparse_rows_numpy(x)
    if x.device.type == "cpu" and not x.requires_grad:
        return _sparse_rows_numpy(x.numpy())
    return _sparse_rows_torch(x)


def _sparse_rows_torch(x: torch.Tensor) -> SparseRows:
    """:func:`sparse_rows` on the input's own device (a GPU)."""
    rows, cols = (x != 0).nonzero(as_tuple=True)  # row-major order: each row's features in a run
    offsets = torch.zeros(len(x) + 1, dtype=torch.int64, device=x.device)
    torch.cumsum(torch.bincount(rows, minlength=len(x)), 0, out=offsets[1:])  # bincount: faster than a row sum
    return SparseRows(cols, x[rows, cols], offsets, x.shape[1])


def _sparse_rows_numpy(x: np.ndarray) -> SparseRows:
    """:func:`sparse_rows` of a CPU input: the flat positions of the nonzeros, in numpy (about 4x faster on CPU than
    torch's nonzero on the rollouts' few hundred rows; a boolean array scans much faster than a float one)."""
    size = x.shape[1]
    flat = np.ascontiguousarray(x).reshape(-1)
    where = np.flatnonzero(flat != 0)  # row-major: each row's features in a run
    rows = where // size
    offsets = np.searchsorted(where, np.arange(len(x) + 1, dtype=np.int64) * size)  # each row's first feature
    return SparseRows(torch.from_numpy(where - rows * size), torch.from_numpy(flat[where]),
                      torch.from_numpy(offsets.astype(np.int64, copy=False)), size)


_HELD_TABLES: dict[int, tuple[torch.Tensor, torch.Tensor]] | None = None  # inside fixed_weights: id -> (weight, table)


@contextmanager
def fixed_weights() -> Iterator[None]:
    """Inside, the networks' weights do not change (a rollout): each first layer's embedding table is built once."""
    global _HELD_TABLES
    outer, _HELD_TABLES = _HELD_TABLES, {} if _HELD_TABLES is None else _HELD_TABLES
    try:
        yield
    finally:
        _HELD_TABLES = outer


def feature_table(weight: torch.Tensor) -> torch.Tensor:
    """A first layer's weight as an embedding table (features x outputs); built once inside :func:`fixed_weights`."""
    if _HELD_TABLES is None:
        return weight.t().contiguous()
    held = _HELD_TABLES.get(id(weight))
    if held is None:  # the weight is held with its table, so that its id is not reused inside
        held = _HELD_TABLES[id(weight)] = (weight, weight.detach().t().contiguous())
    return held[1]


def _sum_active(rows: SparseRows, table: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """The weighted sum of the rows' active features' table rows, plus the bias."""
    # in place: the sum is a fresh tensor (called where autograd does not record, in inference or inside
    # _ActiveFeatureLayer), and a second rows x outputs buffer costs about as much as the add
    return functional.embedding_bag(rows.indices, table, rows.offsets, mode="sum", per_sample_weights=rows.values,
                                    include_last_offset=True).add_(bias)


WEIGHT_GRADS = ("float32", "bfloat16", "auto")  # how a sparse first layer's weight gradient is computed


def bf16_matrix_units() -> bool:
    """Whether this CPU multiplies bfloat16 matrices in hardware (AMX tiles), where a dense bf16 product is fast."""
    probe = getattr(torch.cpu, "_is_amx_tile_supported", None)  # torch >= 2.3; older: assume not
    return bool(probe()) if probe is not None else False


def weight_grad_dtype(name: str, device: torch.device | str = "cpu") -> torch.dtype:
    """The dtype of the first layers' weight-gradient product for a ``weight_grad`` choice of :data:`WEIGHT_GRADS`
    ('auto': bfloat16 on a CPU with AMX, else float32)."""
    if name not in WEIGHT_GRADS:
        raise ValueError(f"weight_grad must be one of {WEIGHT_GRADS}, got {name!r}")
    if name == "auto":
        return torch.bfloat16 if torch.device(device).type == "cpu" and bf16_matrix_units() else torch.float32
    return torch.bfloat16 if name == "bfloat16" else torch.float32


def _weight_grad(rows: SparseRows, grad: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """grad^T @ input, the first layer's weight gradient (outputs x features), from the active features."""
    if dtype == torch.bfloat16:
        # A dense bf16 product (the input's zeros included) runs on the CPU's matrix units at about twice the speed
        # of the sparse float32 one; the gradient is then rounded to bf16 (about 0.3% relative error, as in
        # mixed-precision training), while the forward pass, and so every probability and ratio, stays float32.
        dense = torch.zeros(len(rows), rows.size, dtype=torch.bfloat16, device=grad.device)
        dense[rows.row_of_each(), rows.indices] = rows.values.to(torch.bfloat16)
        return torch.mm(dense.t(), grad.to(torch.bfloat16)).t().float()  # this order: the fastest layout
    # One sparse-dense product over the active features only (far faster than embedding_bag's own backward). On
    # the CPU the input goes feature-major (a stable 16-bit sort of the feature indices, about 1 ms for a
    # minibatch) into a (features x rows) CSR matrix, whose summing product runs a vectorized row loop: about
    # 1.7x faster than torch's COO product, which makes one short axpy call per active feature (measured on
    # 2,048 training rows: 10.2 -> 5.3 ms for the observation's layer, 13.1 -> 7.0 ms for the state's).
    if grad.device.type == "cpu":
        order = torch.argsort(rows.indices.to(_sort_key_dtype(rows.size)), stable=True)
        offsets = torch.zeros(rows.size + 1, dtype=torch.int64)
        torch.cumsum(torch.bincount(rows.indices, minlength=rows.size), 0, out=offsets[1:])
        with warnings.catch_warnings():  # torch calls its CSR tensors beta; this product is in its tests since 2.0
            warnings.filterwarnings("ignore", message="Sparse CSR tensor support is in beta", category=UserWarning)
            inputs_t = torch.sparse_csr_tensor(offsets, rows.row_of_each().index_select(0, order),
                                               rows.values.index_select(0, order), (rows.size, len(rows)),
                                               check_invariants=False)
        return torch.sparse.mm(inputs_t, grad, "sum").t()
    inputs_t = torch.sparse_coo_tensor(torch.stack([rows.indices, rows.row_of_each()]), rows.values,
                                       (rows.size, len(rows)), check_invariants=False)
    return torch.sparse.mm(inputs_t, grad).t()


def _sort_key_dtype(size: int) -> torch.dtype:
    """The smallest integer type holding feature indices below ``size`` (a 16-bit sort is about 3x faster)."""
    return torch.int16 if size <= torch.iinfo(torch.int16).max + 1 else torch.int32


class _ActiveFeatureLayer(torch.autograd.Function):
    """A Linear layer on SparseRows: the forward sums active weight columns; the backward needs only the weights' gradient."""

    @staticmethod
    def forward(ctx: Any, rows: SparseRows, weight: torch.Tensor, bias: torch.Tensor,
                grad_dtype: torch.dtype) -> torch.Tensor:
        ctx.rows, ctx.grad_dtype = rows, grad_dtype
        return _sum_active(rows, feature_table(weight), bias)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[None, torch.Tensor, torch.Tensor, None]:
        return None, _weight_grad(ctx.rows, grad, ctx.grad_dtype), grad.sum(0), None


def first_layer(linear: nn.Linear, x: torch.Tensor | SparseRows,
                grad_dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """``linear(x)``; for SparseRows, the weighted sum of the active features' weight columns plus the bias (its weight
    gradient computed in ``grad_dtype``)."""
    if isinstance(x, torch.Tensor):
        return linear(x)
    if x.size != linear.in_features:
        raise ValueError(f"sparse rows of {x.size} features for a layer of {linear.in_features} inputs")
    if not torch.is_grad_enabled():  # inference: no autograd node
        return _sum_active(x, feature_table(linear.weight), linear.bias)
    return _ActiveFeatureLayer.apply(x, linear.weight, linear.bias, grad_dtype)


def mlp_forward(layers: nn.Sequential, x: torch.Tensor | SparseRows,
                grad_dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """An :func:`mlp` on a dense or sparse input (clamped to +-FEATURE_CLIP); a sparse first layer's weight gradient
    in ``grad_dtype``."""
    out = first_layer(layers[0], x.clamp(-FEATURE_CLIP, FEATURE_CLIP), grad_dtype)
    for layer in layers[1:]:
        out = layer(out)
    return out


def mlp(sizes: Sequence[int]) -> nn.Sequential:
    """Linear layers with ReLU between them (none after the last)."""
    layers: list[nn.Module] = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


def is_card_scorer_width(value: Any) -> bool:
    """Whether ``value`` is a card scorer width: an int >= 0 (0: no scorer), not a bool."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


class PolicyNet(nn.Module):
    """Observation -> action logits (unmasked)."""

    def __init__(self, hidden: Sequence[int] = (512, 512, 256), obs_size: int = OBS_SIZE, num_actions: int = NUM_ACTIONS,
                 prior_weight: float = 0.0, prior_on_bids: bool = False, card_scorer: int = 0):
        super().__init__()
        if not 0 <= prior_weight < math.inf:
            raise ValueError(f"prior_weight must be >= 0 and finite, got {prior_weight}")
        if not hidden:
            raise ValueError("hidden must name at least one hidden layer size")
        self.hidden = tuple(int(h) for h in hidden)
        self.prior_weight = float(prior_weight)  # logit bonus at the heuristic's action (0 = no prior)
        self.prior_on_bids = bool(prior_on_bids)
        self.obs_size = obs_size
        self.num_actions = num_actions
        self.body = mlp((obs_size, *self.hidden))
        self.head = nn.Linear(self.hidden[-1], num_actions)
        if not is_card_scorer_width(card_scorer):
            raise ValueError(f"card_scorer must be a width >= 0 (0: none), got {card_scorer!r}")
        self.card_scorer = card_scorer  # width of the card-centred scorer added to the card logits (0: none)
        self.cards = CardScorer(self.hidden[-1], card_scorer) if card_scorer else None
        # The layout the network reads; for a policy of an older layout, load_policy sets the columns of the
        # observation that make it up (a buffer, so that it moves with the network, but not saved).
        self.input_layout: dict[str, Any] = OBSERVATION.describe()
        self.register_buffer("input_columns", None, persistent=False)
        self.weight_grad_dtype = torch.float32  # of a sparse first layer's weight gradient (training sets it)
        with torch.no_grad():  # small initial logits: a near-uniform first policy
            self.head.weight.mul_(0.01)
            self.head.bias.zero_()

    def forward(self, obs: torch.Tensor | SparseRows, hand_cards: SparseRows | None = None,
                legal: torch.Tensor | None = None) -> torch.Tensor:
        """Logits for every action (dense observations or :class:`SparseRows`); ``hand_cards``: the card scorer's
        features of these rows (:meth:`hand_card_features`), computed once for a batch read many times; ``legal``:
        the rows' legal-action masks, with which the scorer scores only the cards that can change the masked
        policy (:func:`spades_env.card_scorer.scored_cards`: the masked logits are the same, at less cost)."""
        if self.input_columns is not None:  # a policy of an older layout reads its own columns
            if isinstance(obs, SparseRows):
                raise TypeError("a policy of an older observation layout takes dense observations, not SparseRows")
            obs = obs.index_select(-1, self.input_columns)
        hidden = torch.relu(mlp_forward(self.body, obs, self.weight_grad_dtype))
        logits = self.head(hidden)
        if self.cards is None:
            return logits
        if hand_cards is not None:
            if len(hand_cards) != hidden.shape[0]:
                raise ValueError(f"hand_cards holds {len(hand_cards)} rows for {hidden.shape[0]} observations")
            scored = self.cards(None, hidden, (hand_cards.row_of_each(), hand_cards.indices, hand_cards.values))
        else:  # the card scorer reads named blocks of the observation: it needs the dense rows
            scored = self.cards(obs if isinstance(obs, torch.Tensor) else obs.dense(), hidden, legal=legal)
        return add_card_scores(logits, *scored)

    def hand_card_features(self, obs: torch.Tensor | SparseRows, legal: torch.Tensor | None = None,
                           chunk: int = HAND_CARD_CHUNK) -> SparseRows | None:
        """The card scorer's features of the scored cards of each row (those of
        :func:`~spades_env.card_scorer.scored_cards` given the ``legal`` masks, else every card in the hand), as
        SparseRows (card ids, one feature row per card) to pass to :meth:`forward` for any selection of these rows;
        None without a card scorer. Made ``chunk`` rows at a time (a dense copy of the whole batch would be large)."""
        if self.cards is None:
            return None
        if legal is not None and len(legal) != len(obs):
            raise ValueError(f"{len(legal)} legal-action masks for {len(obs)} observations")
        parts = []
        for start in range(0, max(len(obs), 1), chunk):  # an empty batch gives one empty part
            rows = obs[start:start + chunk]
            scored = self.cards.features(rows.dense() if isinstance(rows, SparseRows) else rows,
                                         None if legal is None else legal[start:start + chunk])
            parts.append(card_feature_rows(*scored, len(rows)))
        return SparseRows.cat(parts)


def card_feature_rows(row: torch.Tensor, card: torch.Tensor, features: torch.Tensor, rows: int) -> SparseRows:
    """The card scorer's features of scored cards (``row``, in order, ``card`` and ``features``: as
    :class:`~spades_env.card_scorer.CardFeatures` gives them) as SparseRows of ``rows`` rows (card ids, one feature
    row per card), which :meth:`PolicyNet.forward` reads as ``hand_cards``."""
    offsets = torch.zeros(rows + 1, dtype=torch.int64, device=row.device)
    torch.cumsum(torch.bincount(row, minlength=rows), 0, out=offsets[1:])
    return SparseRows(card, features, offsets, NUM_CARDS)


class ValueNet(nn.Module):
    """Observation (or full state) -> expected return of the seat."""

    def __init__(self, input_size: int, hidden: Sequence[int] = (512, 512, 256)):
        super().__init__()
        self.input_size = input_size
        self.hidden = tuple(int(h) for h in hidden)
        self.net = mlp((input_size, *self.hidden, 1))
        self.weight_grad_dtype = torch.float32  # of a sparse first layer's weight gradient (training sets it)

    def forward(self, x: torch.Tensor | SparseRows) -> torch.Tensor:
        """Value per row (dense input or :class:`SparseRows`)."""
        return mlp_forward(self.net, x, self.weight_grad_dtype).squeeze(-1)


def add_card_scores(logits: torch.Tensor, row: torch.Tensor, card: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
    """The head's logits with a card scorer's scores of cards (``row``, ``card``) added to those cards' actions (card
    actions are the card ids)."""
    return logits.index_put((row, card), scores, accumulate=True)


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Logits with illegal actions pushed to a huge negative value."""
    return logits.masked_fill(mask == 0, MASKED_LOGIT)


def apply_prior(logits: torch.Tensor, prior: torch.Tensor | None, weight: float) -> torch.Tensor:
    """Logits plus ``weight`` at each row's prior action (rows with prior -1 unchanged)."""
    if prior is None or weight == 0:
        return logits
    rows = prior >= 0
    bonus = torch.zeros_like(logits)
    bonus[rows, prior[rows]] = weight
    return logits + bonus


def content_digest(state_dict: dict[str, Any]) -> str:
    """SHA-256 of a state dict's tensors: names, dtypes, shapes and bytes, in name order."""
    digest = hashlib.sha256()
    for name in sorted(state_dict):
        tensor = state_dict[name].detach().cpu().contiguous()
        digest.update(f"{name}|{tensor.dtype}|{tuple(tensor.shape)}|".encode())
        digest.update(tensor.reshape(-1).view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()


def save_policy(path: str | os.PathLike, policy: PolicyNet, meta: dict[str, Any] | None = None, half: bool = False) -> None:
    """Write a policy file (optionally float16 weights) atomically, with its layout and content hash."""
    state = {k: (v.half() if half and v.is_floating_point() else v).detach().cpu().clone() for k, v in policy.state_dict().items()}
    bad = [k for k, v in state.items() if v.is_floating_point() and not torch.isfinite(v).all()]
    if bad:
        raise ValueError(f"refusing to save a policy with NaN or infinite weights in {bad}")
    payload = {
        "format": POLICY_FORMAT,
        "layout": policy.input_layout,
        "obs_size": policy.obs_size,
        "num_actions": policy.num_actions,
        "hidden": list(policy.hidden),
        "heuristic_prior": {"weight": policy.prior_weight, "on_bids": policy.prior_on_bids},
        "card_scorer": policy.card_scorer,
        "state_dict": state,
        "content_sha256": content_digest(state),
        "meta": dict(meta or {}),
    }
    atomic_torch_save(payload, path)


def atomic_torch_save(payload: Any, path: str | os.PathLike) -> None:
    """torch.save to a temporary file, then rename: a crash never leaves a half-written file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    torch.save(payload, tmp)
    os.replace(tmp, path)


def safe_load(path: str | os.PathLike) -> dict[str, Any]:
    """torch.load with weights_only=True; any failure becomes a CheckpointError naming the file."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"no such checkpoint file: {path}")
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many types for corrupt files
        raise CheckpointError(f"{path}: cannot be read as a checkpoint ({type(exc).__name__}: {exc})") from None
    if not isinstance(payload, dict):
        raise CheckpointError(f"{path}: expected a dict, got {type(payload).__name__}")
    return payload


def _expected_shapes(hidden: Sequence[int], obs_size: int, num_actions: int,
                     card_scorer: int = 0) -> dict[str, tuple[int, ...]]:
    """Name -> shape of every tensor of a PolicyNet with this description (nothing allocated)."""
    shapes: dict[str, tuple[int, ...]] = {}
    sizes = (obs_size, *hidden)
    for layer in range(len(hidden)):
        index = 2 * layer  # body alternates Linear and ReLU
        shapes[f"body.{index}.weight"] = (sizes[layer + 1], sizes[layer])
        shapes[f"body.{index}.bias"] = (sizes[layer + 1],)
    shapes["head.weight"] = (num_actions, hidden[-1])
    shapes["head.bias"] = (num_actions,)
    if card_scorer:
        shapes.update({"cards.card.weight": (card_scorer, CARD_FEATURES), "cards.card.bias": (card_scorer,),
                       "cards.context.weight": (card_scorer, hidden[-1]),
                       "cards.hidden.weight": (card_scorer, card_scorer), "cards.hidden.bias": (card_scorer,),
                       "cards.score.weight": (1, card_scorer), "cards.score.bias": (1,)})
    return shapes


def _checked_description(payload: dict[str, Any], where: str,
                         obs_size: int = OBS_SIZE) -> tuple[list[int], float, bool, int]:
    """Hidden sizes, prior and card scorer width of a policy payload, checked against its weights' shapes;
    PolicyFileError otherwise."""
    hidden = payload.get("hidden")
    if not isinstance(hidden, (list, tuple)) or not hidden:
        raise PolicyFileError(f"{where}: 'hidden' must be a non-empty list of layer sizes, got {hidden!r}")
    if not all(isinstance(h, int) and not isinstance(h, bool) and h > 0 for h in hidden):
        raise PolicyFileError(f"{where}: 'hidden' must hold positive integers, got {hidden!r}")
    prior = payload.get("heuristic_prior", {"weight": 0.0, "on_bids": False})  # files before the prior had none
    if not isinstance(prior, dict) or "weight" not in prior or "on_bids" not in prior:
        raise PolicyFileError(f"{where}: 'heuristic_prior' must be {{'weight': float, 'on_bids': bool}}, got {prior!r}")
    weight = prior["weight"]
    if isinstance(weight, bool) or not isinstance(weight, (int, float)):
        raise PolicyFileError(f"{where}: prior weight must be a number, got {weight!r}")
    if not 0 <= weight < math.inf:
        raise PolicyFileError(f"{where}: prior_weight must be >= 0 and finite, got {weight}")
    if not isinstance(prior["on_bids"], bool):
        raise PolicyFileError(f"{where}: prior 'on_bids' must be true or false, got {prior['on_bids']!r}")
    card_scorer = payload.get("card_scorer", 0)  # files before the card scorer had none
    if not is_card_scorer_width(card_scorer):
        raise PolicyFileError(f"{where}: 'card_scorer' must be a width >= 0, got {card_scorer!r}")
    if card_scorer and obs_size != OBSERVATION.size:
        raise PolicyFileError(f"{where}: a card scorer reads layout {OBSERVATION.name!r}, not an older one")
    state = payload.get("state_dict")
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise PolicyFileError(f"{where}: 'state_dict' must map names to tensors")
    expected = _expected_shapes(hidden, obs_size, NUM_ACTIONS, card_scorer)
    missing, unexpected = sorted(set(expected) - set(state)), sorted(set(state) - set(expected))
    if missing or unexpected:
        raise PolicyFileError(f"{where}: weights do not fit the network of hidden sizes {list(hidden)}: "
                              f"missing {missing}, unexpected {unexpected}")
    for name, shape in expected.items():
        if tuple(state[name].shape) != shape:
            raise PolicyFileError(f"{where}: weights do not fit the network of hidden sizes {list(hidden)}: "
                                  f"{name} has shape {tuple(state[name].shape)}, the description needs {shape}")
    return list(hidden), float(weight), prior["on_bids"], card_scorer


def load_policy(path: str | os.PathLike) -> tuple[PolicyNet, dict[str, Any]]:
    """A PolicyNet (float32, eval mode) and its meta from a policy file; PolicyFileError or LayoutError if untrusted."""
    payload = safe_load(path)
    where = str(path)
    if payload.get("format") != POLICY_FORMAT:
        raise CheckpointError(f"{path}: not a spades_env policy (format {payload.get('format')!r}, expected {POLICY_FORMAT!r})")
    if "layout" not in payload:
        raise PolicyFileError(f"{where}: records no observation layout (written before layouts were recorded); "
                              f"this version reads layout {OBSERVATION.name!r}")
    columns = OBSERVATION.projection(payload["layout"], where)  # LayoutError unless this layout or a part of it
    obs_size = len(columns)
    if payload.get("obs_size") != obs_size or payload.get("num_actions") != NUM_ACTIONS:
        raise PolicyFileError(
            f"{where}: made for observations of {payload.get('obs_size')} and {payload.get('num_actions')} actions; "
            f"this version has {obs_size} and {NUM_ACTIONS}"
        )
    hidden, weight, on_bids, card_scorer = _checked_description(payload, where, obs_size)
    state = payload["state_dict"]
    stored = payload.get("content_sha256")
    if not isinstance(stored, str):
        raise PolicyFileError(f"{where}: records no content hash ('content_sha256'); it cannot be verified")
    if content_digest(state) != stored:
        raise PolicyFileError(f"{where}: content hash mismatch: the weights are not the ones saved "
                              "(the file is corrupt or was edited)")
    bad = [k for k, v in state.items() if v.is_floating_point() and not torch.isfinite(v).all()]
    if bad:
        raise PolicyFileError(f"{where}: NaN or infinite weights in {bad}")
    policy = PolicyNet(hidden=hidden, obs_size=obs_size, prior_weight=weight, prior_on_bids=on_bids,
                       card_scorer=card_scorer)
    if obs_size != OBSERVATION.size:  # an older layout: read its columns of the observation
        policy.input_layout = payload["layout"]
        policy.input_columns = torch.as_tensor(columns)
    policy.load_state_dict({k: v.float() if v.is_floating_point() else v for k, v in state.items()})
    policy.eval()
    return policy, dict(payload.get("meta", {}))
