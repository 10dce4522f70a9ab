"""The operations the rules are written with, for one hand (ints) and for many tables (arrays).

Every rule of the core is stated once, as a function of an :class:`Ops` and
plain values: :data:`INT` runs it on Python ints and bools for one hand (no
numpy call: the scalar engine's hot paths stay cheap), :data:`ARRAY` on numpy
arrays with one entry per table (the batch engine). The rules use only
arithmetic, comparisons, ``&`` ``|`` on bools and bitboards, and the
operations below; never ``if`` on a value, ``not`` or ``~`` on a bool (``~True``
is ``-2``), which would differ between the two, nor arithmetic that subtracts
a bool (torch refuses it).

Per-seat values are one sequence per hand (``values[seat]``) or one
``(tables, seats)`` array (``values[:, seat]``): :meth:`Ops.seat` reads a fixed
seat, :meth:`Ops.at` a seat that may differ between tables. Values per *place*
(the cards of a trick) are laid out the same way, and :meth:`Ops.argmax_lookup`
gives the place whose value reads the largest entry of a lookup table (one
operation: a loop over the places of one hand, a gather and an argmax over an
array's last axis).

Bitboards (hands) and *bid words* (the bidding actions as bits, see
:mod:`spades_env.core.bidding`) are ints or ``uint64`` arrays; constants the
rules ``select`` between go through :meth:`Ops.word` so that an array keeps its
dtype. Lookup tables are built from one definition for each form
(:meth:`Ops.table`: a tuple, or an array; :func:`per_form` makes them once per
form) and indexed with one flat index. Other array libraries are further
forms of the same operations (``spades_env.batch.torch_ops``: torch tensors on
any device), so every rule has one statement for all of them.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

import numpy as np


def pick(condition: Any, if_true: Any, if_false: Any) -> Any:
    """``numpy.where`` for plain values: the select that the shared rules use on one hand."""
    return if_true if condition else if_false


def _where(condition: Any, if_true: Any, if_false: Any) -> Any:
    # A plain bool (an option that one rules id gives every table) picks without an array op.
    if condition is True:
        return if_true
    if condition is False:
        return if_false
    return np.where(condition, if_true, if_false)


def _lowbit_int(board: int) -> int:
    return board & -board


def _lowbit_array(boards: np.ndarray) -> np.ndarray:
    return boards & (~boards + np.uint64(1))


if hasattr(np, "bitwise_count"):

    def _popcount_array(boards: np.ndarray) -> np.ndarray:
        return np.bitwise_count(boards).astype(np.intp)
else:  # pragma: no cover - numpy < 2.0
    _POP8 = np.array([bin(i).count("1") for i in range(256)], np.intp)

    def _popcount_array(boards: np.ndarray) -> np.ndarray:
        boards = np.ascontiguousarray(boards, dtype=np.uint64)
        return _POP8[boards.view(np.uint8).reshape(boards.shape + (8,))].sum(-1)


def _seat_array(values: np.ndarray, seat: int) -> np.ndarray:
    return values[:, seat]


_ROW_STARTS: dict[int, np.ndarray] = {}  # by row width: the flat index of each row's first entry


def _at_array(values: np.ndarray, seat: np.ndarray) -> np.ndarray:
    rows, width = values.shape
    starts = _ROW_STARTS.get(width)
    if starts is None or len(starts) < rows:  # made once for the largest batch seen, then sliced (no arange a call)
        starts = _ROW_STARTS[width] = np.arange(0, max(rows, 1024) * width, width)
    return values.ravel().take(starts[:rows] + seat)


def _argmax_lookup_int(table: Any, values: Any, stride: int, offset: int) -> int:
    # one loop, no list of the entries: HandState decides each trick with it (the scalar hot path)
    place, top = 0, None
    for i, value in enumerate(values):
        entry = table[value * stride + offset]
        if top is None or entry > top:
            place, top = i, entry
    return place


def _argmax_lookup_array(table: np.ndarray, values: np.ndarray, stride: int, offset: Any) -> np.ndarray:
    return table.take(values * stride + np.asarray(offset)[..., None]).argmax(axis=-1)


def _first_nonempty_int(first: int, second: int, third: int) -> int:
    return first or second or third


def _first_nonempty_array(first: np.ndarray, second: np.ndarray, third: np.ndarray) -> np.ndarray:
    return np.where(first != 0, first, np.where(second != 0, second, third))


def _clip_int(x: int, low: int, high: int) -> int:
    return low if x < low else high if x > high else x


def _clip_array(x: Any, low: int, high: int) -> Any:
    if type(x) is int:  # an option's plain value (one rules id)
        return _clip_int(x, low, high)
    return np.minimum(np.maximum(x, low), high)  # np.clip costs several times more on small arrays


def _any_array(x: Any) -> bool:
    return bool(x.any()) if isinstance(x, np.ndarray) else bool(x)


def _word_array(x: int) -> np.uint64:
    return np.uint64(x)


def _table_array(values: Iterable[Any]) -> np.ndarray:
    out = np.array(list(values))
    return out.astype(np.intp) if out.dtype.kind == "i" else out


def _table_words(values: Iterable[int]) -> np.ndarray:
    return np.array(list(values), np.uint64)


def cached_by_rules(build: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``build(rules)`` made once per rules object (keyed by identity: hashing every field of a Rules at
    each hand would cost more than the build it saves)."""
    cache: dict[int, tuple[Any, Any]] = {}

    def cached(rules: Any) -> Any:
        hit = cache.get(id(rules))
        if hit is not None and hit[0] is rules:
            return hit[1]
        value = build(rules)
        if len(cache) >= _CACHE_SIZE:
            cache.clear()
        cache[id(rules)] = (rules, value)  # the rules stay alive, so their id is not reused
        return value

    return functools.update_wrapper(cached, build)


_CACHE_SIZE = 256


def per_form(build: Callable[[Ops], Any]) -> Callable[[Ops], Any]:
    """``build(ops)`` made once per form (a rule's lookup tables in the form's own kind of array: tuples,
    numpy arrays, or another backend's tensors on its device)."""
    made: dict[int, tuple[Ops, Any]] = {}

    def of(ops: Ops) -> Any:
        hit = made.get(id(ops))
        if hit is None or hit[0] is not ops:
            hit = made[id(ops)] = (ops, build(ops))  # the form stays alive in the entry: its id is not reused
        return hit[1]

    return functools.update_wrapper(of, build)


class Ops(NamedTuple):
    """The operations of one form (see the module docstring)."""

    select: Callable[[Any, Any, Any], Any]  # where(condition, if_true, if_false)
    lowbit: Callable[[Any], Any]  # the lowest card of a bitboard (0 if empty)
    popcount: Callable[[Any], Any]  # cards in a bitboard
    seat: Callable[[Any, int], Any]  # per-seat values at a fixed seat
    at: Callable[[Any, Any], Any]  # per-seat values at a seat per table
    minimum: Callable[[Any, Any], Any]
    maximum: Callable[[Any, Any], Any]
    clip: Callable[[Any, int, int], Any]
    first_nonempty: Callable[[Any, Any, Any], Any]  # the first of three bitboards that is not empty
    any: Callable[[Any], bool]  # whether any table has it (a plain bool: skips a code path)
    word: Callable[[int], Any]  # a bitboard or bid-word constant
    table: Callable[[Iterable[Any]], Any]  # a lookup table of numbers or bools
    words: Callable[[Iterable[int]], Any]  # a lookup table of bitboards or bid words
    keep: Callable[[Any, Any], Any]  # keep(condition, word): the word where the condition holds, else 0
    # argmax_lookup(table, values, stride, offset): the first place (of a sequence, or along an array's last axis)
    # of the largest table[value * stride + offset] (offset: one per table)
    argmax_lookup: Callable[[Any, Any, int, Any], Any]


# Builtins where one fits: a C call costs less than a Python one on the scalar hot paths.
INT = Ops(
    pick,
    _lowbit_int,
    int.bit_count,
    operator.getitem,
    operator.getitem,
    min,
    max,
    _clip_int,
    _first_nonempty_int,
    bool,
    int,
    tuple,
    tuple,
    operator.mul,
    _argmax_lookup_int,
)
ARRAY = Ops(
    _where,
    _lowbit_array,
    _popcount_array,
    _seat_array,
    _at_array,
    np.minimum,
    np.maximum,
    _clip_array,
    _first_nonempty_array,
    _any_array,
    _word_array,
    _table_array,
    _table_words,
    functools.partial(np.multiply, dtype=np.uint64),  # a product: cheaper than where(c, word, 0)
    _argmax_lookup_array,
)
FORMS = (INT, ARRAY)
