"""What an agent can know from its observations: the hand's rules and the known voids.

* :func:`rules_from_view` turns the observation's ``rules`` block (plus its
  target score) back into a hand-level :class:`Rules`, so that search agents
  can simulate the hand with the core (a crazy rotation shows the current
  hand's preset; game-level settings the block does not carry, such as
  ``max_hands``, keep their defaults).
* :class:`VoidTracker` infers which suits each player is known to lack (and
  keeps the tricks of the hand it could rebuild, in ``history``). The
  observation holds the cards each player has played this hand but not the
  trick each was played to, so the tracker remembers the agent's previous
  observation of the same hand (keyed by the agent's own cards, which differ
  between seats and tables: one tracker serves every seat and every row of a
  batch) and rebuilds the trick completed in between. A player who did not
  follow suit is void in the suit led; a spade led before spades were broken
  shows a hand of spades only; a non-club on the lowest-club first trick shows
  no club (a spade there: no club, diamond or heart). With no usable previous
  observation (the first decision of a hand, or a gap) only the trick on the
  table is used. A suit whose every card is seen is void for everyone else.
  Agents show the tracker every card-play observation, forced ones included,
  so that no trick is missed.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from ..core.cards import CARD_SUIT, NUM_SUITS, SUIT_MASKS, TRUMP, Suit, deck
from ..core.hand import Phase
from ..core.rules import FIRST_TRICK_LOWEST_CLUB, PRESETS, Rules, preset
from ..encoding import OBS_SLICES, ObservationView, rules_fields_from_features

ALL_SIDE_SUITS = sum(1 << s for s in Suit if s != TRUMP)  # clubs, diamonds, hearts as a suit bitmask
CLUB_BIT = 1 << Suit.CLUBS
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


def trick_voids(rules: Rules, seats: list[int], cards: list[int], gone_before: int, first_trick: bool,
                voids: list[int]) -> None:
    """Add to ``voids`` (suit bitmasks per seat) what one trick's cards show."""
    if not cards:
        return
    led = CARD_SUIT[cards[0]]
    if first_trick and rules.first_trick == FIRST_TRICK_LOWEST_CLUB:
        for seat, card in zip(seats, cards):
            suit = CARD_SUIT[card]
            if suit != Suit.CLUBS:
                voids[seat] |= CLUB_BIT
                if suit == TRUMP:
                    voids[seat] |= ALL_SIDE_SUITS
        return
    if led == TRUMP and not rules.dealer_leads_any and not (gone_before & SUIT_MASKS[TRUMP]):
        voids[seats[0]] |= ALL_SIDE_SUITS  # led a spade before they were broken: nothing else held
    for seat, card in zip(seats[1:], cards[1:]):
        if CARD_SUIT[card] != led:
            voids[seat] |= 1 << led


@dataclass
class _Memory:
    played: tuple[int, ...]
    trick: tuple[int | None, ...]
    leader: int | None
    voids: list[int]
    tricks: dict[int, tuple[tuple[int, ...], tuple[int, ...]]]


class VoidTracker:
    """Known voids per slot from an agent's successive observations (see the module docstring)."""

    def __init__(self, capacity: int = 4096):
        self.capacity = capacity
        self._memory: OrderedDict[int, _Memory] = OrderedDict()
        # Completed tricks of the hand of the last observation: trick index -> (slots in play order, cards).
        self.history: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {}

    def clear(self) -> None:
        """Forget every hand."""
        self._memory.clear()

    def voids(self, view: ObservationView, rules: Rules) -> list[int]:
        """Suit bitmask per slot (bit s = void in suit s) known at this observation; updates the memory."""
        n = view.num_players
        voids = [0] * n
        self.history = {}
        if view.phase != Phase.PLAY:
            return voids
        key = view.hand | view.played[0]
        mem = self._memory.pop(key, None)
        played = view.played[:n]
        gone = 0
        for m in played:
            gone |= m
        seats_now = trick_slots(view)
        cards_now = [view.trick[s] for s in seats_now]
        on_table = 0
        for c in cards_now:
            on_table |= 1 << c
        tricks_done = sum(view.tricks_won[:n])
        same_hand = mem is not None and all(not mem.played[s] & ~played[s] for s in range(n))
        tricks: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {}
        if same_hand:
            voids = list(mem.voids)  # what was known stays known
            tricks = dict(mem.tricks)
        if same_hand and self._continues(mem, played, seats_now, n):
            # Rebuild the trick completed since the previous observation.
            prev_cards = []
            for s in range(n):
                card = mem.trick[s]
                if card is None:
                    new = played[s] & ~mem.played[s] & ~on_table
                    card = new.bit_length() - 1
                prev_cards.append(card)
            leader = mem.leader if mem.leader is not None else 0
            order = [(leader + i) % n for i in range(n)]
            trick_cards = [prev_cards[s] for s in order]
            prev_mask = 0
            for c in trick_cards:
                prev_mask |= 1 << c
            gone_before = gone & ~on_table & ~prev_mask
            trick_voids(rules, order, trick_cards, gone_before, tricks_done == 1, voids)
            tricks[tricks_done - 1] = (tuple(order), tuple(trick_cards))
        trick_voids(rules, seats_now, cards_now, gone & ~on_table, tricks_done == 0, voids)
        # A suit with no card left unseen is void for everybody else.
        unseen = PACK_MASK[rules.jokers] & ~gone & ~view.hand
        for suit in range(NUM_SUITS):
            if not unseen & SUIT_MASKS[suit]:
                for s in range(1, n):
                    voids[s] |= 1 << suit
        self._memory[key] = _Memory(played, tuple(view.trick[:n]), view.trick_leader, list(voids), tricks)
        self.history = tricks
        while len(self._memory) > self.capacity:
            self._memory.popitem(last=False)
        return voids

    @staticmethod
    def _continues(mem: _Memory, played: tuple[int, ...], seats_now: list[int], n: int) -> bool:
        """Whether the cards played since ``mem`` (same hand) are the rest of that trick, then this trick so far."""
        for s in range(n):
            expected = (mem.trick[s] is None) + (s in seats_now)
            if (played[s] & ~mem.played[s]).bit_count() != expected:
                return False
        return True


__all__ = ["AGENT_SLOT", "PACK_MASK", "VoidTracker", "in_play_phase", "rules_from_observation", "rules_from_view",
           "trick_slots", "trick_voids"]
