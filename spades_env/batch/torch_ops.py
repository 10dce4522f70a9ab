"""The core's operations on torch tensors: the rules of :mod:`spades_env.core` on any torch device.

``torch_ops(device, sync_free=None)`` returns an :class:`~spades_env.core.ops.Ops`
whose values are tensors on ``device``, so every rule function of the core
(written once against ``Ops``) runs on torch tensors as it runs on ints and on
numpy arrays. Bitboards and bid words are ``int64`` (54 and 34 bits: the sign
bit is never set), table indices ``int64``, flags ``bool``.

``Ops.any`` lets a rule skip a code path that no table needs. Answering it
reads a tensor back to the host, which on an accelerator stalls the stream;
with ``sync_free`` (the default off the CPU) it answers True without looking,
so every path is computed and masked: the same answers, no host
synchronisation. Tests run both variants on the CPU against the numpy form.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

import torch

from ..core.ops import Ops

INT64 = torch.int64
SIGN = 1 << 63


def signed(word: int) -> int:
    """A 64-bit word as int64 holds it (two's complement): filters of every bit, such as ALL_CARDS, become -1."""
    word = int(word)
    return word - (1 << 64) if word >= SIGN else word


_M1, _M2, _M4, _H01 = 0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F, 0x0101010101010101


def _where(condition: Any, if_true: Any, if_false: Any) -> Any:
    if condition is True:
        return if_true
    if condition is False:
        return if_false
    return torch.where(condition, if_true, if_false)


def _popcount(boards: torch.Tensor) -> torch.Tensor:
    # SWAR on non-negative int64 boards (at most 54 bits): no popcount kernel in torch
    x = boards - ((boards >> 1) & _M1)
    x = (x & _M2) + ((x >> 2) & _M2)
    x = (x + (x >> 4)) & _M4
    return (x * _H01) >> 56  # the top byte holds the count (< 128: no sign trouble)


def _at(values: torch.Tensor, seat: Any) -> torch.Tensor:
    if isinstance(seat, int):
        return values[:, seat]
    # a seat of -1 (no partner) reads a seat that the rule then masks out, as the numpy form does
    return values.gather(1, (seat.reshape(-1, 1) % values.shape[1]).to(INT64)).reshape(-1)


def _minimum(a: Any, b: Any) -> Any:
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return torch.minimum(a, b)
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return torch.clamp(a, max=b) if isinstance(a, torch.Tensor) else torch.clamp(b, max=a)
    return min(a, b)


def _maximum(a: Any, b: Any) -> Any:
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return torch.maximum(a, b)
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return torch.clamp(a, min=b) if isinstance(a, torch.Tensor) else torch.clamp(b, min=a)
    return max(a, b)


def _clip(x: Any, low: int, high: int) -> Any:
    if not isinstance(x, torch.Tensor):
        return low if x < low else high if x > high else x
    return torch.clamp(x, low, high)


def _first_nonempty(first: Any, second: Any, third: Any) -> Any:
    return torch.where(first != 0, first, torch.where(second != 0, second, third))


def _any_checked(x: Any) -> bool:
    return bool(x.any()) if isinstance(x, torch.Tensor) else bool(x)


def _any_unchecked(x: Any) -> bool:
    return True if isinstance(x, torch.Tensor) else bool(x)


def _keep(condition: Any, word: Any) -> Any:
    return condition * word  # a bool tensor times an int64 word: the word or 0


def _argmax_lookup(table: torch.Tensor, values: torch.Tensor, stride: int, offset: Any) -> torch.Tensor:
    offset = torch.as_tensor(offset, device=values.device)  # a plain int offset too (one rules id)
    return torch.take(table, values * stride + offset[..., None]).argmax(dim=-1)


@functools.cache
def torch_ops(device: str | torch.device = "cpu", sync_free: bool | None = None) -> Ops:
    """The core's operations on torch tensors on ``device`` (see the module docstring); one per arguments."""
    device = torch.device(device)
    if sync_free is None:
        sync_free = device.type != "cpu"

    def word(x: int) -> torch.Tensor:
        return torch.tensor(signed(x), dtype=INT64, device=device)

    def table(values: Iterable[Any]) -> torch.Tensor:
        values = list(values)
        if all(isinstance(v, bool) for v in values):
            return torch.tensor(values, dtype=torch.bool, device=device)
        return torch.tensor([int(v) for v in values], dtype=INT64, device=device)

    def words(values: Iterable[int]) -> torch.Tensor:
        return torch.tensor([signed(v) for v in values], dtype=INT64, device=device)

    return Ops(
        _where,
        lambda boards: boards & -boards,
        _popcount,
        lambda values, seat: values[:, seat],
        _at,
        _minimum,
        _maximum,
        _clip,
        _first_nonempty,
        _any_unchecked if sync_free else _any_checked,
        word,
        table,
        words,
        _keep,
        _argmax_lookup,
    )
