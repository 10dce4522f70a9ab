"""The array forms the masked engine runs on (numpy, or torch on any device), and its phase and place constants.

``_Form`` adds to the core's ``Ops`` (:mod:`spades_env.core.ops`) what the engine needs of an array library:
creating arrays, putting values at (row, column) places, concatenation and reading back to numpy. The form of an
engine pickles as a spec (``None`` for numpy, the torch device's name for torch).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...core import actions as A
from ...core.cards import NUM_CARDS
from ...core.hand import Phase
from ...core.ops import ARRAY, Ops

BLIND, BID, EXCHANGE, PLAY, OVER, DRAW = (int(p) for p in Phase)
NO_SEAT = -1
NO_CARD = NUM_CARDS  # an empty place of the trick (its bit is 0)
BID_BITS = A.KEEP - A.BID_OFFSET  # the bid word's actions: BID_OFFSET .. KEEP - 1


class _Form:
    """What the engine needs of an array library beyond ``Ops``: creation, sorting, concatenation."""

    def __init__(self, ops: Ops):
        self.ops = ops
        self.torch = ops is not ARRAY
        if self.torch:
            import torch

            self._torch = torch
            self.int64 = torch.int64
            self.device = ops.word(0).device

    def _tensor(self, values: Any, dtype: Any) -> Any:
        """A tensor of the form: one already on the device keeps its data (no trip through the host)."""
        torch = self._torch
        if isinstance(values, torch.Tensor):
            return values.to(device=self.device, dtype=dtype)
        return torch.from_numpy(np.array(values)).to(device=self.device, dtype=dtype)

    def ints(self, values: Any) -> Any:
        """An integer array of the form (intp on numpy, int64 on torch)."""
        if self.torch:
            return self._tensor(np.asarray(values, dtype=np.int64) if isinstance(values, list) else values, self.int64)
        return np.array(values, dtype=np.intp)

    def words(self, values: Any) -> Any:
        """A bitboard array of the form (uint64 on numpy, int64 on torch: 54 bits, the sign bit never set)."""
        if self.torch:
            if isinstance(values, self._torch.Tensor):
                return values.to(device=self.device, dtype=self.int64)
            return self._tensor(np.asarray(values, dtype=np.uint64).astype(np.int64), self.int64)
        return np.array(values, dtype=np.uint64)

    def bools(self, values: Any) -> Any:
        if self.torch:
            return self._tensor(values, self._torch.bool)
        return np.array(values, dtype=bool)

    def zeros(self, shape: tuple[int, ...], kind: str = "int") -> Any:
        """Zeros made where the form keeps its arrays (``kind``: int, word or bool)."""
        if self.torch:
            dtype = self._torch.bool if kind == "bool" else self.int64
            return self._torch.zeros(shape, dtype=dtype, device=self.device)
        return np.zeros(shape, dtype={"int": np.intp, "word": np.uint64, "bool": bool}[kind])

    def full(self, shape: tuple[int, ...], value: int) -> Any:
        return (
            self._torch.full(shape, value, dtype=self.int64, device=self.device)
            if self.torch
            else np.full(shape, value, np.intp)
        )

    def floats(self, values: Any) -> Any:
        values = np.asarray(values, dtype=np.float32)
        return self._torch.from_numpy(values.copy()).to(self.device) if self.torch else values.copy()

    def floats_zeros(self, shape: tuple[int, ...]) -> Any:
        if self.torch:
            return self._torch.zeros(shape, dtype=self._torch.float32, device=self.device)
        return np.zeros(shape, np.float32)

    def to_floats(self, x: Any) -> Any:
        return x.to(self._torch.float32) if self.torch else np.asarray(x, dtype=np.float32)

    def arange(self, n: int) -> Any:
        return self._torch.arange(n, device=self.device) if self.torch else np.arange(n)

    def put(self, out: Any, rows: Any, cols: Any, values: Any) -> None:
        """``out[rows[i], cols[i]] = values[i]`` (a scalar for all)."""
        out[rows, cols] = values

    def put_rows(self, out: Any, cols: Any, values: Any) -> None:
        """``out[t, cols[t, j]] = values[t, j]`` for every table t (the columns differ by table)."""
        if self.torch:
            out.scatter_(1, cols.expand_as(values) if cols.shape != values.shape else cols, values)
        else:
            np.put_along_axis(out, np.broadcast_to(cols, values.shape), values, axis=1)

    def argsort1(self, x: Any) -> Any:
        return x.argsort(dim=1) if self.torch else x.argsort(axis=1)

    def take1(self, values: Any, index: Any) -> Any:
        """``values[t, index[t, j]]`` (numpy's take_along_axis, torch's gather on axis 1)."""
        return values.gather(1, index) if self.torch else np.take_along_axis(values, index, axis=1)

    def floor_int(self, x: Any) -> Any:
        return x.floor().long() if self.torch else np.floor(x).astype(np.intp)

    def concat1(self, parts: Sequence[Any]) -> Any:
        return self._torch.cat(list(parts), dim=1) if self.torch else np.concatenate(parts, axis=1)

    def numpy(self, x: Any) -> np.ndarray:
        """An array of the form on the host, as numpy (for tests and the host side)."""
        if self.torch:
            x = x.cpu().numpy()
        return np.asarray(x)


def _form_spec(form: _Form) -> tuple | None:
    """What rebuilds a form's operations after unpickling: None for numpy, (device, sync_free) for torch."""
    if not form.torch:
        return None
    from ..torch_ops import _any_unchecked

    return str(form.device), form.ops.any is _any_unchecked


def _ops_of(spec: tuple | None) -> Ops:
    """The operations of a form's spec (:func:`_form_spec`)."""
    if spec is None:
        return ARRAY
    from ..torch_ops import torch_ops

    return torch_ops(*spec)
