"""Policy and value networks, their sparse first-layer inputs, and the safe format of policy files.

One module a job:

* :mod:`~spades_env.nn.sparse`: sparse first-layer inputs (:class:`SparseRows`),
  the first layer over the active features and its weight gradient;
* :mod:`~spades_env.nn.nets`: the networks (:class:`PolicyNet`,
  :class:`ValueNet`), masking and the heuristic prior;
* :mod:`~spades_env.nn.policy_file`: policy files (``save_policy``,
  ``load_policy``: checked before any network is built).

Every public name of the three is importable from ``spades_env.nn``. The
package needs torch (the ``train`` extra); the environment itself does not.
"""

from __future__ import annotations

try:
    import torch  # noqa: F401 - checked first: a clear message when the extra is missing
except ModuleNotFoundError as exc:  # torch is an extra: the environment itself does not need it
    raise ModuleNotFoundError(
        "spades_env's policy networks and trained-policy agents need torch: pip install 'spades_env[train]'",
        name="torch",
    ) from exc

from .nets import (
    HAND_CARD_CHUNK,
    MASKED_LOGIT,
    PolicyNet,
    ValueNet,
    add_card_scores,
    apply_prior,
    card_feature_rows,
    is_card_scorer_width,
    masked_logits,
    mlp,
    one_torch_thread,
)
from .policy_file import (
    CRITIC_LAYOUTS,
    POLICY_FORMAT,
    CheckpointError,
    PolicyFileError,
    SaveError,
    atomic_torch_save,
    content_digest,
    critic_layout,
    load_policy,
    safe_load,
    save_policy,
)
from .sparse import (
    FEATURE_CLIP,
    WEIGHT_GRADS,
    SparseRows,
    bf16_matrix_units,
    feature_table,
    first_layer,
    fixed_weights,
    mlp_forward,
    sparse_rows,
    weight_grad_dtype,
)

__all__ = [
    "HAND_CARD_CHUNK",
    "MASKED_LOGIT",
    "PolicyNet",
    "SaveError",
    "ValueNet",
    "add_card_scores",
    "apply_prior",
    "card_feature_rows",
    "is_card_scorer_width",
    "masked_logits",
    "mlp",
    "one_torch_thread",
    "CRITIC_LAYOUTS",
    "POLICY_FORMAT",
    "CheckpointError",
    "PolicyFileError",
    "atomic_torch_save",
    "content_digest",
    "critic_layout",
    "load_policy",
    "safe_load",
    "save_policy",
    "FEATURE_CLIP",
    "WEIGHT_GRADS",
    "SparseRows",
    "bf16_matrix_units",
    "feature_table",
    "first_layer",
    "fixed_weights",
    "mlp_forward",
    "sparse_rows",
    "weight_grad_dtype",
]
