"""What an agent can know from one observation: the hand's rules, the known voids, the tricks.

* :func:`rules_from_view` turns the observation's ``rules`` block (plus its
  target score) back into a hand-level :class:`Rules`, so that search agents
  can simulate the hand with the core (a crazy rotation shows the current
  hand's preset; game-level settings the block does not carry, such as
  ``max_hands``, keep their defaults).
* :class:`VoidTracker` reads the suits each player is known to lack from the
  observation itself, which holds everything the seat knows (layout
  ``spades_obs_v1``): the public voids (``voids``: what the cards played show
  the table by the rules, ``spades_env.core.tricks``) plus the observer's own
  deduction that a suit whose every card it has seen (played, or in its hand)
  is void for everyone else. It also rebuilds the completed tricks of the hand
  (``history``) from the ``played``, ``played_trick`` and ``led`` blocks of the
  last observation it saw (a forced play's observation is kept undecoded,
  :meth:`VoidTracker.see`, and decoded only if ``history`` is read). It
  keeps no memory across observations: any observation of any seat, at any
  table, in any order, gives the same answer.
"""

from __future__ import annotations

import numpy as np

from ..core.cards import NUM_SUITS, SUIT_MASKS, cards_of, deck
from ..core.hand import Phase
from ..core.rules import PRESETS, Rules, preset
from ..core.tricks import trick_voids  # noqa: F401 - re-exported: what one trick shows, the core's rule
from ..obs.decode import ObservationView, decode_observation
from ..obs.encode import OBS_SLICES
from ..obs.features import rules_fields_from_features

AGENT_SLOT = 0  # observations number the seats from the observer: the agent is slot 0


def _pack_mask(jokers: bool) -> int:
    mask = 0
    for c in deck(jokers):
        mask |= 1 << c
    return mask


PACK_MASK = {False: _pack_mask(False), True: _pack_mask(True)}

_RULES_CACHE: dict[bytes, Rules] = {}
_PRESET_RULES: list[Rules] | None = None


def _presets_without_name() -> list[Rules]:
    global _PRESET_RULES
    if _PRESET_RULES is None:
        _PRESET_RULES = [preset(name) for name, over in PRESETS.items() if over.get("crazy") is None]
    return _PRESET_RULES


def rules_from_view(view: ObservationView) -> Rules:
    """The hand-level rules an observation was made under (named after a preset when one matches)."""
    values = rules_fields_from_features(view.rules, view.target_score)
    name = "observed"
    for candidate in _presets_without_name():
        if all(getattr(candidate, k) == v for k, v in values.items()):
            name = candidate.name
            break
    return Rules(name=name, **values)


def rules_from_observation(obs: np.ndarray, view: ObservationView) -> Rules:
    """:func:`rules_from_view`, cached on the raw rules block of the observation."""
    key = np.asarray(obs[OBS_SLICES["rules"]]).tobytes() + np.asarray(obs[OBS_SLICES["target_score"]]).tobytes()
    rules = _RULES_CACHE.get(key)
    if rules is None:
        rules = rules_from_view(view)
        if len(_RULES_CACHE) > 512:
            _RULES_CACHE.clear()
        _RULES_CACHE[key] = rules
    return rules


_PHASE_PLAY = OBS_SLICES["phase"].start + int(Phase.PLAY)


def seen_discards(view: ObservationView) -> int:
    """Bitboard of the discards the agent has seen (two players: its own, and the other's when face up; 0 in the
    other variants): out of play for the hand."""
    seen = 0
    for board in view.discarded:
        seen |= board
    return seen


def in_play_phase(obs: np.ndarray) -> bool:
    """Whether an observation array is at a card play (read without decoding it)."""
    return bool(obs[_PHASE_PLAY] > 0.5)


def trick_slots(view: ObservationView) -> list[int]:
    """Slots that have played to the current trick, in play order."""
    if view.trick_leader is None:
        return []
    n = view.num_players
    out = []
    slot = view.trick_leader
    for _ in range(n):
        if view.trick[slot] is None:
            break
        out.append(slot)
        slot = (slot + 1) % n
    return out


def trick_history(view: ObservationView) -> dict[int, tuple[tuple[int, ...], tuple[int, ...]]]:
    """The completed tricks of the hand: trick index -> (slots in play order, cards), from the observation's
    history blocks (a trick the observation does not hold whole is left out)."""
    n = view.num_players
    done = sum(view.tricks_won[:n])
    slot_of: dict[int, int] = {}
    for slot in range(n):
        for card in cards_of(view.played[slot]):
            slot_of[card] = slot
    by_trick: dict[int, dict[int, int]] = {}
    leader: dict[int, int] = {}
    for card, slot in slot_of.items():
        trick = view.played_trick[card]
        if 0 <= trick < done:
            by_trick.setdefault(trick, {})[slot] = card
            if view.led >> card & 1:
                leader[trick] = slot
    history = {}
    for trick in sorted(by_trick):
        cards = by_trick[trick]
        if trick in leader and len(cards) == n:
            order = tuple((leader[trick] + i) % n for i in range(n))
            history[trick] = (order, tuple(cards[s] for s in order))
    return history


class VoidTracker:
    """Known voids per slot, read from one observation (see the module docstring); no memory."""

    def __init__(self) -> None:
        self._view: ObservationView | None = None
        self._unread: np.ndarray | None = None  # an observation seen (at a card play) but not decoded yet

    @property
    def history(self) -> dict[int, tuple[tuple[int, ...], tuple[int, ...]]]:
        """Completed tricks of the hand of the last observation seen (:meth:`voids`, :meth:`see`; :func:`trick_history`)."""
        if self._unread is not None:
            self._view, self._unread = decode_observation(self._unread), None
        if self._view is None:
            return {}
        return trick_history(self._view)

    def see(self, obs: np.ndarray) -> None:
        """Take a card play's observation as the last one seen, decoding it only if :attr:`history` is read
        (a forced play needs no voids: most such observations are never decoded)."""
        self._view, self._unread = None, np.array(obs, dtype=np.float32)  # a copy: batch buffers are reused

    def voids(self, view: ObservationView, rules: Rules) -> list[int]:
        """Suit bitmask per slot (bit s = void in suit s) known at this observation."""
        n = view.num_players
        self._unread = None
        if view.phase != Phase.PLAY:
            self._view = None
            return [0] * n
        self._view = view
        voids = list(view.voids[:n])
        gone = 0
        for m in view.played[:n]:
            gone |= m
        # A suit with no card left unseen is void for everybody else.
        unseen = PACK_MASK[rules.jokers] & ~gone & ~view.hand
        for suit in range(NUM_SUITS):
            if not unseen & SUIT_MASKS[suit]:
                for s in range(1, n):
                    voids[s] |= 1 << suit
        return voids


__all__ = [
    "AGENT_SLOT",
    "PACK_MASK",
    "VoidTracker",
    "in_play_phase",
    "rules_from_observation",
    "rules_from_view",
    "trick_history",
    "trick_slots",
    "trick_voids",
]
