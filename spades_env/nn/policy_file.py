"""A policy file is written with ``torch.save`` and read with
``torch.load(..., weights_only=True)``: a dict of tensors and plain values
(``POLICY_FORMAT``), never pickled objects. It records the observation layout
it was trained on (``OBSERVATION.describe()``) and a SHA-256 of its tensors
(names, dtypes, shapes and bytes; the free-form ``meta`` is not covered).
A file written before ``spades_v3`` has 88 actions (``NUM_ACTIONS_V2``): it
loads, its outputs are the first 88 actions of the 90 and the two drawing
actions get no logit (``PolicyNet.forward``); a policy agent refuses a
drawing decision for it (it never learned one).
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

import contextlib
import hashlib
import math
import os
import pickle
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from ..card_scorer import CARD_FEATURES
from ..config_io import one_line
from ..core.actions import NUM_ACTIONS, NUM_ACTIONS_V2
from ..obs.encode import OBS_SIZE
from ..obs.layout import OBSERVATION, OBSERVATION_V1, POSITION, STATE, LayoutError
from .nets import PolicyNet, is_card_scorer_width

POLICY_FORMAT = "spades_env.policy/1"


MAX_REASON_CHARS = 300  # of a loader's message quoted in an error (one line)


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


def content_digest(state_dict: dict[str, Any]) -> str:
    """SHA-256 of a state dict's tensors: names, dtypes, shapes and bytes, in name order."""
    digest = hashlib.sha256()
    for name in sorted(state_dict):
        tensor = state_dict[name].detach().cpu().contiguous()
        digest.update(f"{name}|{tensor.dtype}|{tuple(tensor.shape)}|".encode())
        digest.update(tensor.reshape(-1).view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()


def save_policy(
    path: str | os.PathLike, policy: PolicyNet, meta: dict[str, Any] | None = None, half: bool = False
) -> None:
    """Write a policy file (optionally float16 weights) atomically, with its layout and content hash."""
    state = {
        k: (v.half() if half and v.is_floating_point() else v).detach().cpu().clone()
        for k, v in policy.state_dict().items()
    }
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


class SaveError(OSError):
    """A policy or checkpoint file could not be written (disk full, folder gone); the previous file is intact."""


def atomic_torch_save(payload: Any, path: str | os.PathLike) -> None:
    """torch.save to a temporary file, then rename: a crash never leaves a half-written file. A failed write
    (e.g. a full disk, which torch reports as "unexpected pos ...") raises :class:`SaveError` saying what happened."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    try:
        torch.save(payload, tmp)
    except (RuntimeError, OSError) as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        try:
            free = f"{shutil.disk_usage(path.parent).free / 2**20:,.0f} MiB free there"
        except OSError:
            free = "free space unknown"
        kept = f"the previous {path.name} is intact" if path.exists() else f"no {path.name} was written"
        raise SaveError(
            f"could not write {path} ({free}; is the disk full?): {type(exc).__name__}: {exc}; {kept}"
        ) from None
    os.replace(tmp, path)


def safe_load(path: str | os.PathLike) -> dict[str, Any]:
    """torch.load with weights_only=True; any failure becomes a CheckpointError naming the file."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"no such checkpoint file: {path}")
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError:  # torch's message explains weights_only at length: not what the user needs
        raise CheckpointError(
            f"{path}: cannot be read as a checkpoint (not a PyTorch file of tensors and plain "
            "values, which is all a policy or checkpoint holds)"
        ) from None
    except Exception as exc:  # torch raises many types for corrupt files, some with pages of explanation
        reason = one_line(str(exc), MAX_REASON_CHARS)
        raise CheckpointError(f"{path}: cannot be read as a checkpoint ({type(exc).__name__}: {reason})") from None
    if not isinstance(payload, dict):
        raise CheckpointError(f"{path}: expected a dict, got {type(payload).__name__}")
    return payload


def _expected_shapes(
    hidden: Sequence[int], obs_size: int, num_actions: int, card_scorer: int = 0
) -> dict[str, tuple[int, ...]]:
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
        shapes.update(
            {
                "cards.card.weight": (card_scorer, CARD_FEATURES),
                "cards.card.bias": (card_scorer,),
                "cards.context.weight": (card_scorer, hidden[-1]),
                "cards.hidden.weight": (card_scorer, card_scorer),
                "cards.hidden.bias": (card_scorer,),
                "cards.score.weight": (1, card_scorer),
                "cards.score.bias": (1,),
            }
        )
    return shapes


ACTION_COUNTS = (NUM_ACTIONS, NUM_ACTIONS_V2)  # the action spaces a policy file may have been trained on


def _checked_description(
    payload: dict[str, Any], where: str, obs_size: int = OBS_SIZE, num_actions: int = NUM_ACTIONS
) -> tuple[list[int], float, bool, int]:
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
    if card_scorer and obs_size < OBSERVATION_V1.size:  # it reads blocks of spades_obs_v1, at their offsets
        raise PolicyFileError(f"{where}: a card scorer reads layout {OBSERVATION_V1.name!r} or newer, not an older one")
    state = payload.get("state_dict")
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise PolicyFileError(f"{where}: 'state_dict' must map names to tensors")
    odd = sorted(k for k, v in state.items() if v.layout != torch.strided or v.is_quantized or v.is_complex())
    if odd:  # sparse, quantized or complex tensors are not what save_policy writes
        raise PolicyFileError(f"{where}: weights {odd} are not plain dense real tensors")
    expected = _expected_shapes(hidden, obs_size, num_actions, card_scorer)
    missing, unexpected = sorted(set(expected) - set(state)), sorted(set(state) - set(expected))
    if missing or unexpected:
        raise PolicyFileError(
            f"{where}: weights do not fit the network of hidden sizes {list(hidden)}: "
            f"missing {missing}, unexpected {unexpected}"
        )
    for name, shape in expected.items():
        if tuple(state[name].shape) != shape:
            raise PolicyFileError(
                f"{where}: weights do not fit the network of hidden sizes {list(hidden)}: "
                f"{name} has shape {tuple(state[name].shape)}, the description needs {shape}"
            )
    return list(hidden), float(weight), prior["on_bids"], card_scorer


def load_policy(path: str | os.PathLike) -> tuple[PolicyNet, dict[str, Any]]:
    """A PolicyNet (float32, eval mode) and its meta from a policy file; PolicyFileError or LayoutError if untrusted."""
    payload = safe_load(path)
    where = str(path)
    if payload.get("format") != POLICY_FORMAT:
        raise CheckpointError(
            f"{path}: not a spades_env policy (format {payload.get('format')!r}, expected {POLICY_FORMAT!r})"
        )
    if not isinstance(payload.get("meta", {}), dict):
        raise PolicyFileError(f"{where}: 'meta' must be a mapping, got {type(payload['meta']).__name__}")
    if "layout" not in payload:
        raise PolicyFileError(
            f"{where}: records no observation layout (written before layouts were recorded); "
            f"this version reads layout {OBSERVATION.name!r}"
        )
    columns = OBSERVATION.projection(payload["layout"], where)  # LayoutError unless this layout or a part of it
    obs_size = len(columns)
    num_actions = payload.get("num_actions")
    if payload.get("obs_size") != obs_size or type(num_actions) is not int or num_actions not in ACTION_COUNTS:
        raise PolicyFileError(
            f"{where}: made for observations of {payload.get('obs_size')} and {num_actions} actions; "
            f"this version has {obs_size} and {NUM_ACTIONS} (or {NUM_ACTIONS_V2}, before spades_v3)"
        )
    hidden, weight, on_bids, card_scorer = _checked_description(payload, where, obs_size, num_actions)
    state = payload["state_dict"]
    stored = payload.get("content_sha256")
    if not isinstance(stored, str):
        raise PolicyFileError(f"{where}: records no content hash ('content_sha256'); it cannot be verified")
    if content_digest(state) != stored:
        raise PolicyFileError(
            f"{where}: content hash mismatch: the weights are not the ones saved (the file is corrupt or was edited)"
        )
    bad = [k for k, v in state.items() if v.is_floating_point() and not torch.isfinite(v).all()]
    if bad:
        raise PolicyFileError(f"{where}: NaN or infinite weights in {bad}")
    policy = PolicyNet(
        hidden=hidden,
        obs_size=obs_size,
        num_actions=num_actions,
        prior_weight=weight,
        prior_on_bids=on_bids,
        card_scorer=card_scorer,
    )
    if obs_size != OBSERVATION.size:  # an older layout: read its columns of the observation
        policy.input_layout = payload["layout"]
        policy.input_columns = torch.as_tensor(columns)
    policy.load_state_dict({k: v.float() if v.is_floating_point() else v for k, v in state.items()})
    policy.eval()
    return policy, dict(payload.get("meta", {}))
