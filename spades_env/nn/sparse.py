"""Observations are mostly zeros (in training play about 93 of the 879
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
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.nn import functional

# Inputs are clamped to +-FEATURE_CLIP; only the scores (points / target) ever pass 1. Beyond twice the target the
# networks see twice the target: a main-job network (seed 2) that saw such scores at +-10 targets against
# `random` (whose blind nils sink its score by thousands) underbid into bag penalties and won 1 of 12 games (11
# undecided at the hand limit); at +-2, 12 of 12 in 16 hands (docs/training.md).
FEATURE_CLIP = 2.0


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
        return (
            _sparse_rows_from_arrays,
            (
                self.indices.cpu().numpy().astype(index_type),
                self.values.cpu().numpy(),
                self.offsets.cpu().numpy(),
                self.size,
            ),
        )

    def counts(self) -> torch.Tensor:
        """The number of active features of each row."""
        return self.offsets[1:] - self.offsets[:-1]

    def row_of_each(self) -> torch.Tensor:
        """The row of each active feature (as ``indices``)."""
        rows = torch.arange(len(self), device=self.offsets.device)
        return torch.repeat_interleave(rows, self.counts(), output_size=self.indices.shape[0])

    def __getitem__(self, rows: torch.Tensor | np.ndarray | slice) -> SparseRows:
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
    def cat(parts: Sequence[SparseRows]) -> SparseRows:
        """The rows of ``parts``, one part after another (all of the same row length)."""
        if not parts or len({part.size for part in parts}) != 1:
            raise ValueError(f"SparseRows.cat needs parts of one row length, got {[part.size for part in parts]}")
        starts = np.cumsum([0] + [int(part.offsets[-1]) for part in parts[:-1]])
        offsets = torch.cat(
            [parts[0].offsets[:1]] + [part.offsets[1:] + int(start) for part, start in zip(parts, starts)]
        )
        return SparseRows(
            torch.cat([part.indices for part in parts]),
            torch.cat([part.values for part in parts]),
            offsets,
            parts[0].size,
        )

    def to(self, device: torch.device | str) -> SparseRows:
        """The same rows on ``device``."""
        return SparseRows(self.indices.to(device), self.values.to(device), self.offsets.to(device), self.size)

    def dense(self) -> torch.Tensor:
        """The rows as a dense float tensor."""
        out = torch.zeros(len(self), self.size, dtype=self.values.dtype, device=self.values.device)
        out[self.row_of_each(), self.indices] = self.values
        return out

    def clamp(self, low: float, high: float) -> SparseRows:
        """Values clamped (a zero stays zero, as in the dense input)."""
        return SparseRows(self.indices, self.values.clamp(low, high), self.offsets, self.size)


def _sparse_rows_from_arrays(indices: np.ndarray, values: np.ndarray, offsets: np.ndarray, size: int) -> SparseRows:
    """SparseRows as pickled by :meth:`SparseRows.__reduce__`."""
    return SparseRows(
        torch.from_numpy(indices.astype(np.int64)), torch.from_numpy(values), torch.from_numpy(offsets), size
    )


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
    return SparseRows(
        torch.from_numpy(where - rows * size),
        torch.from_numpy(flat[where]),
        torch.from_numpy(offsets.astype(np.int64, copy=False)),
        size,
    )


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
    return functional.embedding_bag(
        rows.indices, table, rows.offsets, mode="sum", per_sample_weights=rows.values, include_last_offset=True
    ).add_(bias)


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
            inputs_t = torch.sparse_csr_tensor(
                offsets,
                rows.row_of_each().index_select(0, order),
                rows.values.index_select(0, order),
                (rows.size, len(rows)),
                check_invariants=False,
            )
        return torch.sparse.mm(inputs_t, grad, "sum").t()
    inputs_t = torch.sparse_coo_tensor(
        torch.stack([rows.indices, rows.row_of_each()]), rows.values, (rows.size, len(rows)), check_invariants=False
    )
    return torch.sparse.mm(inputs_t, grad).t()


def _sort_key_dtype(size: int) -> torch.dtype:
    """The smallest integer type holding feature indices below ``size`` (a 16-bit sort is about 3x faster)."""
    return torch.int16 if size <= torch.iinfo(torch.int16).max + 1 else torch.int32


class _ActiveFeatureLayer(torch.autograd.Function):
    """A Linear layer on SparseRows: the forward sums active weight columns; the backward needs only the weights' gradient."""

    @staticmethod
    def forward(
        ctx: Any, rows: SparseRows, weight: torch.Tensor, bias: torch.Tensor, grad_dtype: torch.dtype
    ) -> torch.Tensor:
        ctx.rows, ctx.grad_dtype = rows, grad_dtype
        return _sum_active(rows, feature_table(weight), bias)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[None, torch.Tensor, torch.Tensor, None]:
        return None, _weight_grad(ctx.rows, grad, ctx.grad_dtype), grad.sum(0), None


def first_layer(
    linear: nn.Linear, x: torch.Tensor | SparseRows, grad_dtype: torch.dtype = torch.float32
) -> torch.Tensor:
    """``linear(x)``; for SparseRows, the weighted sum of the active features' weight columns plus the bias (its weight
    gradient computed in ``grad_dtype``)."""
    if isinstance(x, torch.Tensor):
        return linear(x)
    if x.size != linear.in_features:
        raise ValueError(f"sparse rows of {x.size} features for a layer of {linear.in_features} inputs")
    if not torch.is_grad_enabled():  # inference: no autograd node
        return _sum_active(x, feature_table(linear.weight), linear.bias)
    return _ActiveFeatureLayer.apply(x, linear.weight, linear.bias, grad_dtype)


def mlp_forward(
    layers: nn.Sequential, x: torch.Tensor | SparseRows, grad_dtype: torch.dtype = torch.float32
) -> torch.Tensor:
    """An :func:`mlp` on a dense or sparse input (clamped to +-FEATURE_CLIP); a sparse first layer's weight gradient
    in ``grad_dtype``."""
    out = first_layer(layers[0], x.clamp(-FEATURE_CLIP, FEATURE_CLIP), grad_dtype)
    for layer in layers[1:]:
        out = layer(out)
    return out
