"""The learner: the trained networks (policy and critic), their optimizer, and the snapshot opponents' networks.

:func:`build_learner` makes fresh networks for a config; :class:`SnapshotNets`
plays every snapshot of the pool in one batched pass. Checkpoints
(:mod:`training.checkpoint`) save and restore a :class:`Learner`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
from torch.nn import functional

from spades_env.card_scorer import CardFeatures, score_cards
from spades_env.nn import FEATURE_CLIP, PolicyNet, SparseRows, ValueNet, add_card_scores, weight_grad_dtype
from training.config import CRITIC_INPUTS, TrainConfig

ADAM_EPS = 1e-5


class SnapshotNets:
    """Networks that play the pool's snapshots, one per snapshot, built once (not reloaded at every step).

    :meth:`logits` plays every snapshot in one batched pass: each layer of all
    the pool's networks is one stacked matrix, and each row keeps the block of
    its own snapshot (one call per table step instead of one per snapshot). A
    card scorer's features have no weights and are made once for all rows; its
    layers are stacked in the same way.
    """

    SCORER_LAYERS = ("card", "context", "hidden", "score")  # the card scorer's layers, stacked after the body and head

    def __init__(self, hidden: list, device: torch.device, **options: Any):
        self.hidden, self.device, self.options = list(hidden), device, options
        self._nets: dict[int, tuple[dict, PolicyNet]] = {}  # id of a pool state -> (the state, its network)
        self._stacked: (
            tuple[tuple[int, ...], list, list[tuple[torch.Tensor, torch.Tensor | None]], torch.Tensor] | None
        ) = None
        self._card_features = CardFeatures().to(device) if options.get("card_scorer") else None

    def stacked_layers(self, pool: list) -> list[tuple[torch.Tensor, torch.Tensor | None]]:
        """Per linear layer of the pool's networks (body, head, then any card scorer's): (weights of all snapshots
        stacked by output, their biases, or None for a layer without)."""
        return self._stacks(pool)[0]

    def _stacks(self, pool: list) -> tuple[list[tuple[torch.Tensor, torch.Tensor | None]], torch.Tensor]:
        """The stacked layers and the first layers' weights as one embedding table (snapshot-major, then feature)."""
        key = tuple(id(state) for state in pool)
        if self._stacked is None or self._stacked[0] != key:  # the held pool keeps its ids from being reused
            nets = [self.net(state) for state in pool]
            layers = [
                [m for m in net.body if isinstance(m, torch.nn.Linear)]
                + [net.head]
                + ([getattr(net.cards, name) for name in self.SCORER_LAYERS] if net.cards is not None else [])
                for net in nets
            ]
            stacked = [
                (
                    torch.cat([net_layers[i].weight for net_layers in layers]).detach(),
                    None
                    if layers[0][i].bias is None
                    else torch.cat([net_layers[i].bias for net_layers in layers]).detach(),
                )
                for i in range(len(layers[0]))
            ]
            table = torch.cat([net_layers[0].weight.t() for net_layers in layers]).detach().contiguous()
            self._stacked = (key, list(pool), stacked, table)
        return self._stacked[2], self._stacked[3]

    def logits(
        self,
        pool: list,
        obs: torch.Tensor | SparseRows,
        which: torch.Tensor,
        legal: torch.Tensor | None = None,
        dense: torch.Tensor | None = None,
        card_features: tuple[torch.Tensor, torch.Tensor, torch.Tensor] | None = None,
    ) -> torch.Tensor:
        """Each row's logits (unmasked, no prior) from the pool snapshot at position ``which`` of that row.

        On SparseRows the first layer reads each row's own snapshot's weights only (the layer that costs most
        when every snapshot is applied to every row); the later layers apply every snapshot and keep the row's.
        A card scorer scores the cards of :func:`~spades_env.card_scorer.scored_cards` given the ``legal`` masks
        (else every hand card), reading the ``dense`` observations (made from ``obs`` when not given), or the
        given ``card_features`` of these rows (:class:`~spades_env.card_scorer.CardFeatures`' output).
        """
        stacked, table = self._stacks(pool)
        layers, scorer = stacked[: len(self.hidden) + 1], stacked[len(self.hidden) + 1 :]
        out = obs.clamp(-FEATURE_CLIP, FEATURE_CLIP)  # as PolicyNet's first layer
        first = 0  # the first layer applied below
        if isinstance(out, SparseRows):
            hidden = layers[0][0].shape[0] // len(pool)
            features = out.indices + which.index_select(0, out.row_of_each()) * out.size  # the snapshot's block
            out = (
                functional.embedding_bag(
                    features, table, out.offsets, mode="sum", per_sample_weights=out.values, include_last_offset=True
                )
                + layers[0][1].view(len(pool), hidden)[which]
            )
            first = 1
        for i, (weight, bias) in enumerate(layers[first:-1], first):
            out = _own_block(torch.relu(out) if i else out, weight, bias, which, len(pool))
        context = torch.relu(out)
        logits = _own_block(context, *layers[-1], which, len(pool))
        if not scorer:
            return logits
        if card_features is None:
            if dense is None:
                dense = obs if isinstance(obs, torch.Tensor) else obs.dense()
            card_features = self._card_features(dense, legal)
        row, card, card_features = card_features
        card_which = which.index_select(0, row)
        card_layer, context_layer, hidden_layer, score_layer = scorer  # SCORER_LAYERS' order

        def own_context(x: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
            return _own_block(x, *context_layer, which.index_select(0, rows), len(pool))

        layers = (
            _own_layer(*card_layer, card_which, len(pool)),
            own_context,
            _own_layer(*hidden_layer, card_which, len(pool)),
            _own_layer(*score_layer, card_which, len(pool)),
        )
        return add_card_scores(logits, row, card, score_cards(layers, row, card_features, context))

    def net(self, state: dict[str, torch.Tensor]) -> PolicyNet:
        """The network with these weights (a pool entry), built on first use."""
        key = id(state)
        entry = self._nets.get(key)
        if entry is None or entry[0] is not state:
            net = PolicyNet(self.hidden, **self.options).to(self.device).eval()
            net.load_state_dict(state)
            entry = self._nets[key] = (state, net)
        return entry[1]

    def keep_only(self, pool: list) -> None:
        """Forget the networks of snapshots that left the pool."""
        alive = {id(state) for state in pool}
        self._nets = {k: v for k, v in self._nets.items() if k in alive}


def _own_block(
    x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, which: torch.Tensor, snapshots: int
) -> torch.Tensor:
    """A stacked layer applied to every row, each row keeping the outputs of its own snapshot ``which``."""
    out = x @ weight.t() if bias is None else torch.addmm(bias, x, weight.t())
    return out.view(len(x), snapshots, weight.shape[0] // snapshots)[torch.arange(len(x), device=x.device), which]


def _own_layer(
    weight: torch.Tensor, bias: torch.Tensor | None, which: torch.Tensor, snapshots: int
) -> Callable[[torch.Tensor], torch.Tensor]:
    """:func:`_own_block` as a layer of fixed weights and snapshots."""
    return lambda x: _own_block(x, weight, bias, which, snapshots)


@dataclass
class Learner:
    """The trained networks, their optimizer and the networks that play pool snapshots."""

    policy: PolicyNet
    critic: ValueNet
    optimizer: torch.optim.Optimizer
    snapshots: SnapshotNets
    params: list = field(default_factory=list)


def network_options(config: TrainConfig) -> dict[str, Any]:
    """The PolicyNet options of a run besides its hidden sizes (heuristic prior, card scorer)."""
    return {
        "prior_weight": config.prior_weight,
        "prior_on_bids": config.prior_on_bids,
        "card_scorer": config.card_scorer,
    }


def build_policy(config: TrainConfig, device: torch.device) -> PolicyNet:
    """The run's policy network, fresh (from torch's current random state): a rollout worker's, which needs no critic
    and no optimizer (Adam's first use imports torch's compiler, over a second of a new worker's start)."""
    return PolicyNet(config.hidden, **network_options(config)).to(device)


def build_learner(config: TrainConfig, device: torch.device) -> Learner:
    """Fresh networks (from torch's current random state) and Adam over policy and critic."""
    options = network_options(config)
    policy = build_policy(config, device)
    critic = ValueNet(CRITIC_INPUTS[config.critic_input].size, config.critic_hidden).to(device)
    policy.weight_grad_dtype = critic.weight_grad_dtype = weight_grad_dtype(config.weight_grad, device)
    params = list(policy.parameters()) + list(critic.parameters())
    # fused: one kernel over all the weights, the same update (about 6x faster a step on CPU than the loop per tensor)
    optimizer = torch.optim.Adam(params, lr=config.learning_rate, eps=ADAM_EPS, fused=True)
    return Learner(policy, critic, optimizer, SnapshotNets(config.hidden, device, **options), params)
