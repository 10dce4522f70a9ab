"""The argument checks of both batch engines: one check, so the numpy and the torch backends refuse the same input.

* ``check_arguments(...)``: a constructor's arguments (``num_envs``, ``episode``, ``seed``, the flags
  ``observations``, ``record_deals`` and ``check_actions``, ``output_buffers``, ``obs_format``, the backend's
  ``device``), then the memory bound: ``num_envs`` times the bytes a table takes at its peak (the numpy engine's
  measured ``state.TABLE_BYTES`` by ``obs_format``; :data:`TORCH_TABLE_BYTES` on the torch backend) must fit in the
  memory available (``state.available_memory()``: the host's MemAvailable within the process's cgroup limit and
  ``ulimit -v``; on a CUDA device, its free memory),
  or a :class:`MemoryError` says what it would need, before anything is allocated.
* ``check_seed(seed)``: None or a non-negative integer (``int`` or a numpy integer, not a bool), of any size;
  ``generator_seed(seed)`` is the 64-bit seed a torch generator takes for it.
* ``integer_rows(values, count, name)``: one integer per table (actions, seats) as a numpy array, or a torch
  tensor left on its device: the shape and the dtype are checked, no value is read (no wait for the device).
* ``check_observe(observe)``: ``step``'s ``observe`` flag; ``illegal_action(...)``: the error naming the first
  table whose action is illegal.

Every refusal is a ``ValueError`` (:class:`~spades_env.core.hand.IllegalActionError` for actions that are not
integers or not legal, ``TypeError`` for ``observe``) naming the argument and the bad value; the callers check
before they change anything.
"""

from __future__ import annotations

import functools
import reprlib
import sys
from typing import Any

import numpy as np

from ..core import actions as A
from ..core.hand import IllegalActionError, Phase
from . import state
from .pieces import OBS_FORMATS
from .state import EPISODE_MODES

BACKENDS = ("numpy", "torch")
# Peak bytes a table on the torch backend (CPU, resident memory after 120 steps and state(), 20,000 to 60,000
# tables of standard, cutthroat3, two_player and crazy, 2026-12-06: 22 to 24 KB), rounded up.
TORCH_TABLE_BYTES = 25_000
SEED_BITS = 64  # a torch generator's seed


def _shown(value: Any) -> str:
    return reprlib.repr(value)


def _is_integer(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _flag(name: str, value: Any) -> None:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {_shown(value)}")


def check_seed(seed: Any) -> int | None:
    """``seed`` as an int (None stays None), or a ValueError naming it."""
    if seed is None:
        return None
    if not _is_integer(seed) or seed < 0:
        raise ValueError(f"seed must be None or a non-negative integer, got {_shown(seed)}")
    return int(seed)


def generator_seed(seed: int) -> int:
    """The seed a torch generator takes for a checked seed: itself below 2**64, else its numpy SeedSequence hash
    (a torch generator's seed has 64 bits; numpy's generator takes any size)."""
    if seed < 1 << SEED_BITS:
        return seed
    return int(np.random.SeedSequence(seed).generate_state(1, np.uint64)[0])


def _device(device: Any, backend: str) -> Any:
    if backend == "numpy":
        if device is not None and str(device) != "cpu":
            raise ValueError(f"the numpy backend runs on the CPU; device {device!r} needs backend='torch'")
        return None
    import torch

    try:
        checked = torch.device("cpu" if device is None else device)
        torch.empty(0, device=checked)  # a device that this torch cannot reach fails here, not mid-allocation
    except (RuntimeError, AssertionError, TypeError, ValueError) as error:
        raise ValueError(f"device must be a torch device available here, got {device!r} ({error})") from None
    return checked


def _available(device: Any) -> int | None:
    """Bytes free where the tables will live: the device's memory for CUDA, else the host's (None: unknown)."""
    if device is not None and device.type == "cuda":
        import torch

        return int(torch.cuda.mem_get_info(device)[0])
    if device is not None and device.type != "cpu":
        return None  # no portable measure of other devices' memory
    return state.available_memory()


def check_arguments(
    num_envs: Any,
    episode: Any,
    seed: Any,
    observations: Any,
    record_deals: Any,
    output_buffers: Any,
    obs_format: Any,
    check_actions: Any,
    backend: str = "numpy",
    device: Any = None,
) -> tuple[int, int | None, Any]:
    """A batch engine's constructor arguments checked (see the module docstring), memory bound last; returns
    ``(num_envs, seed, device)`` as ints (the seed None if None) and a ``torch.device`` (None on numpy)."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {list(BACKENDS)}, got {backend!r}")
    if not _is_integer(num_envs) or num_envs < 1:
        raise ValueError(f"num_envs must be a positive int, got {_shown(num_envs)}")
    if not isinstance(episode, str) or episode not in EPISODE_MODES:
        raise ValueError(f"episode must be one of {EPISODE_MODES}, got {_shown(episode)}")
    seed = check_seed(seed)
    _flag("observations", observations)
    _flag("record_deals", record_deals)
    _flag("check_actions", check_actions)
    if not _is_integer(output_buffers) or output_buffers not in (1, 2):
        raise ValueError(f"output_buffers must be 1 or 2, got {_shown(output_buffers)}")
    if not isinstance(obs_format, str) or obs_format not in OBS_FORMATS:
        raise ValueError(f"obs_format must be one of {OBS_FORMATS}, got {_shown(obs_format)}")
    if backend == "torch" and obs_format != "float32":
        raise ValueError(f"obs_format={obs_format!r} is not on the torch backend (its float32 rows stay on the device)")
    device = _device(device, backend)
    num_envs = int(num_envs)
    check_memory(num_envs, obs_format, backend, device)
    return num_envs, seed, device


def check_memory(num_envs: int, obs_format: str = "float32", backend: str = "numpy", device: Any = None) -> None:
    """MemoryError unless ``num_envs`` tables fit in the memory available where they would live (see the module
    docstring); ``device`` is a checked ``torch.device`` or None (the host), read on the torch backend only: the
    numpy engine lives on the host whatever device its learner uses."""
    table = state.TABLE_BYTES[obs_format] if backend == "numpy" else TORCH_TABLE_BYTES
    device = device if backend == "torch" else None  # the numpy engine's tables are on the host
    need, available = num_envs * table, _available(device)
    if available is not None and need > available:
        where = "this machine has" if device is None or device.type == "cpu" else f"device {device} has"
        raise MemoryError(
            f"BatchEnv({num_envs}) needs about {need / 2**30:,.1f} GiB ({table:,} bytes a table with "
            f"obs_format={obs_format!r} on the {backend} backend); {where} {available / 2**30:,.1f} GiB available"
        )


@functools.cache
def _torch_integers() -> frozenset:
    """torch's integer dtypes (the unsigned ones this torch has); torch is imported only by its callers."""
    import torch

    names = ("uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64")
    return frozenset(getattr(torch, name) for name in names if hasattr(torch, name))


def _is_tensor(values: Any) -> bool:
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(values, torch.Tensor)


def integer_rows(values: Any, count: int, name: str, not_integers: type[ValueError] = ValueError) -> Any:
    """``values`` as ``count`` integers, one per table: a torch tensor as it is (on its device, unread), anything
    else as a numpy array; else a ValueError naming ``name`` (``not_integers`` for a dtype that is not an integer
    one). Values are not checked (their range is the caller's)."""
    if _is_tensor(values):
        if values.device.type == "meta":
            raise ValueError(f"{name} must be a tensor with values, got a tensor on the meta device")
        shape, integer, kind = values.shape, values.dtype in _torch_integers(), "a tensor"
    else:
        try:
            array = np.asarray(values)
        except (ValueError, TypeError) as error:  # ragged lists and objects numpy cannot hold
            raise ValueError(
                f"{name} must be {count} integers (one per table), got {_shown(values)} ({error})"
            ) from None
        if array.ndim == 0:
            raise ValueError(
                f"{name} must have shape ({count},) (one per table), got {type(values).__name__} {_shown(values)}"
            )
        values, shape, integer, kind = array, array.shape, array.dtype.kind in "iu", "an array"
    if shape != (count,):
        raise ValueError(f"{name} must have shape ({count},) (one per table), got {tuple(shape)}")
    if not integer:  # bools, floats (whole or not), complex numbers, strings, objects
        raise not_integers(f"{name} must be integers, got {kind} of dtype {values.dtype}; no table was changed")
    return values


def as_int64(values: Any, device: Any) -> Any:
    """Checked rows (:func:`integer_rows`) as an int64 tensor on ``device``; unsigned values of 2**63 and more wrap
    around to negative ones, as numpy's cast to intp does (out of range either way), without reading them."""
    import torch

    if isinstance(values, np.ndarray):
        values = torch.from_numpy(values.astype(np.int64))
    elif values.dtype == getattr(torch, "uint64", None):
        values = values.view(torch.int64)  # torch's cast refuses values over int64's range: the bits, as numpy reads
    return values.to(device=device, dtype=torch.int64)


def on_host(values: Any) -> np.ndarray:
    """Checked rows (:func:`integer_rows`) as a numpy array (a tensor's values, from any device; uint64 kept)."""
    return values if isinstance(values, np.ndarray) else values.cpu().numpy()


def check_observe(observe: Any) -> None:
    """``step``'s ``observe``: True, False or None, else a TypeError naming it."""
    if observe is not None and not isinstance(observe, (bool, np.bool_)):
        raise TypeError(f"observe must be True, False or None, got {_shown(observe)}; no table was changed")


def illegal_action(table: int, action: int, seat: int, phase: int, legal: list[int], bad: list[int]) -> Exception:
    """The error for an illegal ``action`` at ``table`` (the first of the tables ``bad``), its ``legal`` actions."""
    name = A.ACTION_NAMES[action] if 0 <= action < A.NUM_ACTIONS else "not an action id"
    more = f" (and {len(bad) - 1} other table(s): {bad[1:11]})" if len(bad) > 1 else ""
    return IllegalActionError(
        f"table {table}: illegal action {action} ({name}) for seat {seat} in phase {Phase(phase).name}; "
        f"legal: {[A.ACTION_NAMES[x] for x in legal]}{more}; no table was changed"
    )
