"""PIMC: perfect-information Monte Carlo search for card play and bids.

At each card play with more than one sensibly different choice, the agent

1. samples deals of the unseen cards to the other players
   (:func:`sample_hands`), consistent with everything it has seen: its own
   hand, every card played, the trick on the table, the number of cards each
   player still holds, the cards it passed in a blind-nil exchange (still
   held by the partner unless played) and the known voids (from
   :class:`~spades_env.agents.knowledge.VoidTracker`); in three-player
   cutthroat one unseen card is set aside; with two players the discards it
   has seen are out of play and the other unseen cards are dealt to the other
   player's hand or left in its discards (:func:`.knowledge.seen_discards`):
   each unseen card is alike as far as the agent saw (the draws it watched
   showed it nothing more), so :func:`sample_hands` deals the other player's
   count of them and leaves the rest as its discards;
2. draws ``oversample`` times more deals than it searches and keeps
   ``samples`` of them with probability proportional to how well they
   explain the other players' bids (:func:`bid_weight`: the heuristic's
   trick estimate against each number bid, its nil risk against each nil)
   and their plays in the last ``play_depth`` tricks (:class:`PlayModel`:
   each play among several legal cards that the heuristic would not have
   made costs a factor ``play_eps``): the other players are modelled as the
   heuristic, a prior that stays usable against any player;
3. builds the core position of each sample with
   :func:`spades_env.core.position.build_position`, plays every candidate
   card in every sample and finishes the hand with the heuristic's play logic
   working directly on the core state (every player plays from its own cards
   and the public information, as the heuristic does at the table);
4. scores each finished hand with the core scoring and picks the card with
   the best mean utility: the side's points minus the mean of the other
   sides' points (bag penalties of this hand included), each new bag charged
   ``bag_cost`` more (default 0: plain points).

Cards of one suit with no unseen card between them are equivalent and only
the lowest is searched. With ``margin`` > 0 the heuristic's card is kept
unless the search finds one better by at least that much.

Bids (``bid_samples`` > 0) are searched the same way among the heuristic's
bid, one trick more or less and nil: each sampled deal plays the rest of the
bidding and the whole hand with the heuristic (with two players, the
heuristic's fitted two-player bids: :data:`BID_STYLE`, also the model of the
other player's bid in :func:`bid_weight`). Blind decisions and the
exchange, and the drawing turns of two players, are the heuristic's. The budget is ``samples`` (and
``bid_samples``) per decision, optionally cut by ``time_limit`` seconds for
card play (at least ``min_samples`` are always searched).

The pieces that :mod:`~spades_env.agents.search` builds on are public:
:func:`sample_hands` (deals consistent with an observation),
:func:`play_position` (the core position of a sampled deal),
:func:`side_context` (scores and bags per side), :func:`position_utility`
(a finished hand's value for slot 0) and :func:`representative_card` (the
searched card a card is equivalent to).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..core.actions import BID_OFFSET, MAX_BID
from ..core.cards import CARD_SUIT, NUM_SUITS, SUIT_MASKS, cards_of
from ..core.hand import NO_SEAT, HandState, Phase, trick_winner
from ..core.position import build_position
from ..core.rules import Rules
from ..core.scoring import BidKind, score_hand
from ..obs.decode import decode_observation
from .base import Agent, check_observation, check_option, mask_bits
from .heuristic import (
    DEFAULT_BID_PARAMS,
    TABLES,
    BidParams,
    Style,
    act_from_state,
    choose_card,
    decide,
    estimate_tricks,
    nil_risk,
    table_from_state,
    table_from_view,
)
from .heuristic.bidding import TWO_PLAYER_BIAS, two_player_tricks
from .knowledge import (
    AGENT_SLOT,
    PACK_MASK,
    VoidTracker,
    in_play_phase,
    rules_from_observation,
    seen_discards,
    trick_slots,
    trick_voids,
)

# The heuristic's style of the bids (prior and rollouts): its fitted two-player bids, which change nothing with three
# or four players (the search, the rollouts' play and the other decisions keep the classic style).
BID_STYLE = Style(two_player_bids=True)
# Option limits: far above any useful budget (the defaults are 16 samples, oversampled 5 times), and below what
# makes one decision take minutes.
MAX_SAMPLES = 4096
MAX_OVERSAMPLE = 64
MAX_TRICKS = 18  # play_depth: tricks of history replayed, at most a hand's (17 with three players)
TWO_PLAYERS = 2


class SamplingError(RuntimeError):
    """No deal of the unseen cards satisfies the constraints (should not happen with true observations)."""


def sample_hands(
    rng: np.random.Generator,
    unseen: int,
    counts: Sequence[int],
    voids: Sequence[int],
    known: Sequence[int] | None = None,
    max_tries: int = 100,
) -> list[int]:
    """Deal the ``unseen`` cards: ``counts[p]`` to player p (0 for the agent itself), never a card of a suit
    p is void in (``voids[p]`` suit bitmask); ``known[p]`` cards are p's for sure. Cards left over (the
    set-aside card) are dealt to nobody. Returns one bitboard per player; SamplingError only when no deal
    satisfies the constraints."""
    n = len(counts)
    known = list(known) if known is not None else [0] * n
    fixed = 0
    for m in known:
        fixed |= m
    free = cards_of(unseen & ~fixed)
    need = [counts[p] - known[p].bit_count() for p in range(n)]
    if any(x < 0 for x in need):
        raise SamplingError(f"known cards exceed the hand sizes: {need}")
    spare = len(free) - sum(need)
    if spare < 0:
        raise SamplingError(f"{len(free)} unseen cards for {sum(need)} places")
    suits_left = 0
    for suit in range(NUM_SUITS):
        if unseen & ~fixed & SUIT_MASKS[suit]:
            suits_left |= 1 << suit
    if not any(need[p] > 0 and voids[p] & suits_left for p in range(n)):
        return _deal_in_order(rng, free, need, known)
    allowed_by_suit = []
    for suit in range(NUM_SUITS):
        allowed_by_suit.append([p for p in range(n) if need[p] > 0 and not voids[p] >> suit & 1])
    for _ in range(max_tries):
        hands = _try_deal(rng, free, need, spare, allowed_by_suit, known)
        if hands is not None:
            return hands
    # the quick tries can all miss where the voids leave few deals (one player void in three suits must take the
    # fourth whole): deal again, card by card, keeping only choices after which the rest can still be dealt
    hands = _deal_looking_ahead(rng, free, need, spare, allowed_by_suit, known)
    if hands is None:
        raise SamplingError("could not deal the unseen cards consistently with the known voids")
    return hands


def _deal_in_order(rng: np.random.Generator, free: list[int], need: list[int], known: list[int]) -> list[int]:
    """No void matters: a shuffled pack dealt out in order is a uniform deal."""
    order = rng.permutation(len(free))
    hands = list(known)
    i = 0
    for p in range(len(need)):
        for j in order[i : i + need[p]]:
            hands[p] |= 1 << free[j]
        i += need[p]
    return hands


def _try_deal(
    rng: np.random.Generator,
    free: list[int],
    need: list[int],
    spare: int,
    allowed_by_suit: list[list[int]],
    known: list[int],
) -> list[int] | None:
    """One attempt at a deal respecting the voids (None when it runs into a dead end)."""
    left = list(need)
    spare_left = spare
    hands = list(known)
    order = list(rng.permutation(len(free)))
    # Most constrained suits first, random within.
    order.sort(key=lambda i: len(allowed_by_suit[CARD_SUIT[free[i]]]))
    for i in order:
        card = free[i]
        players = [p for p in allowed_by_suit[CARD_SUIT[card]] if left[p] > 0]
        weights = [left[p] for p in players]
        if sum(weights) + spare_left <= 0:
            return None
        chosen = _weighted_choice(rng, [*players, NO_SEAT], [*weights, spare_left])
        if chosen == NO_SEAT:
            spare_left -= 1  # the card is set aside
            continue
        hands[chosen] |= 1 << card
        left[chosen] -= 1
    return None if any(left) else hands


def _weighted_choice(rng: np.random.Generator, options: list[int], weights: list[int]) -> int:
    """One of ``options``, drawn in proportion to its weight (>= 0) with one uniform of ``rng``."""
    pick = rng.random() * sum(weights)
    for option, weight in zip(options, weights):
        if pick < weight:
            return option
        pick -= weight
    return options[-1]  # float rounding


def _can_deal(left: list[int], supply: list[int], allowed_by_suit: list[list[int]]) -> bool:
    """Whether ``supply[s]`` cards of each suit can give every player p its ``left[p]`` cards, each of a suit it may
    hold (Hall's condition: every set of players needs no more than the suits open to it hold); the cards over go
    aside, which takes any suit."""
    players = [p for p in range(len(left)) if left[p] > 0]
    open_suits = [[s for s in range(NUM_SUITS) if p in allowed_by_suit[s]] for p in players]
    for subset in range(1, 1 << len(players)):
        chosen = [i for i in range(len(players)) if subset >> i & 1]
        suits = {s for i in chosen for s in open_suits[i]}
        if sum(left[players[i]] for i in chosen) > sum(supply[s] for s in suits):
            return False
    return True


def _deal_looking_ahead(
    rng: np.random.Generator,
    free: list[int],
    need: list[int],
    spare: int,
    allowed_by_suit: list[list[int]],
    known: list[int],
) -> list[int] | None:
    """A deal respecting the voids whenever one exists (None when none does): :func:`_try_deal`'s card-by-card
    draw, each card's choices (a player, or aside) weighted as there, but only among those after which the
    remaining cards can still be dealt (:func:`_can_deal`), so that it never runs into a dead end."""
    left, spare_left, hands = list(need), spare, list(known)
    supply = [0] * NUM_SUITS
    for card in free:
        supply[CARD_SUIT[card]] += 1
    if not _can_deal(left, supply, allowed_by_suit):
        return None
    for i in rng.permutation(len(free)):
        card = free[i]
        suit = CARD_SUIT[card]
        supply[suit] -= 1
        options, weights = [], []
        for p in allowed_by_suit[suit]:
            if left[p] > 0:
                left[p] -= 1
                if _can_deal(left, supply, allowed_by_suit):
                    options.append(p)
                    weights.append(left[p] + 1)
                left[p] += 1
        if spare_left > 0 and _can_deal(left, supply, allowed_by_suit):
            options.append(NO_SEAT)  # the card is set aside
            weights.append(spare_left)
        chosen = _weighted_choice(rng, options, weights)  # some option is left: the state before this card could
        if chosen == NO_SEAT:
            spare_left -= 1
        else:
            hands[chosen] |= 1 << card
            left[chosen] -= 1
    return hands


def equivalent_choices(legal: int, unseen: int, deuce_high: bool) -> list[int]:
    """One card per run of legal cards of a suit with no unseen card between them (the lowest)."""
    tables = TABLES[deuce_high]
    power = tables.power
    out = []
    for suit in range(NUM_SUITS):
        cards = sorted(cards_of(legal & SUIT_MASKS[suit]), key=lambda c: power[c])
        prev = -1
        for c in cards:
            if prev >= 0:
                between = unseen & tables.higher[prev] & ~tables.higher[c] & ~(1 << c)
                if not between:
                    prev = c
                    continue
            out.append(c)
            prev = c
    return out


def representative_card(card: int, choices: Sequence[int], unseen: int, deuce_high: bool) -> int:
    """The searched card equivalent to ``card`` (same suit, no unseen card between them)."""
    if card in choices:
        return card
    higher = TABLES[deuce_high].higher
    for c in choices:
        if CARD_SUIT[c] == CARD_SUIT[card]:
            lo, hi = (c, card) if higher[c] >> card & 1 else (card, c)
            if not unseen & higher[lo] & ~higher[hi] & ~(1 << hi):
                return c
    raise ValueError(f"card {card} has no equivalent among {choices}")


def rollout(state: HandState, voids: list[int], bags_by_seat: Sequence[int]) -> None:
    """Finish the hand's play with the heuristic for every seat (in place)."""
    while state.phase == Phase.PLAY:
        seat = state.current
        legal = state.legal_mask()
        if not legal & (legal - 1):
            card = legal.bit_length() - 1
        else:
            card = choose_card(table_from_state(state, voids, bags_by_seat))
        if state.trick_cards:
            led = CARD_SUIT[state.trick_cards[0]]
            if CARD_SUIT[card] != led:
                voids[seat] |= 1 << led
        state.apply(card)


def bid_weight(
    rules: Rules,
    hands: Sequence[int],
    kinds: Sequence[int],
    values: Sequence[int],
    params: BidParams = DEFAULT_BID_PARAMS,
    sigma: float = 1.0,
    dealer: int | None = None,
) -> float:
    """How well a deal explains the other players' bids, by the heuristic's bidding model.

    ``hands`` are the players' cards at the start of play (bitboards, slot 0 ignored). A number bid is
    compared with the heuristic's trick estimate (Gaussian, ``sigma`` tricks); a nil with its nil risk. With two
    players the estimate is the fitted two-player model's (``BID_STYLE``), which reads the first bid when the other
    player bid second (``dealer``: the dealer's slot; the non-dealer bids first).
    """
    weight = 1.0
    for p in range(1, len(hands)):
        kind = kinds[p]
        if kind == BidKind.NUMBER:
            if rules.num_players == TWO_PLAYERS:
                first = values[0] if dealer == p and kinds[0] == BidKind.NUMBER else None
                expected = two_player_tricks(hands[p], rules, 0, first) + TWO_PLAYER_BIAS - 0.5
            else:
                expected = estimate_tricks(hands[p], rules) + params.bias - 0.5
            gap = (expected - values[p]) / sigma
            weight *= math.exp(-0.5 * gap * gap)
        elif kind == BidKind.NIL:
            if nil_risk(hands[p], rules) * params.nil_risk_scale >= params.nil_risk_max:
                weight *= 0.1
    return weight


def history_window(history: Mapping[int, tuple[tuple[int, ...], tuple[int, ...]]], tricks_done: int, depth: int) -> int:
    """First trick of the last run of known tricks (at most ``depth``) before the current one."""
    t = tricks_done - 1
    while t >= max(0, tricks_done - depth) and t in history:
        t -= 1
    return t + 1


class PlayModel:
    """Weights deals by how well they explain the other players' recent plays under the heuristic's play.

    Built once per decision from the observation and the tracked trick history; :meth:`weight` replays
    the last ``depth`` tricks and the trick on the table from the sampled hands and multiplies ``eps``
    for each play (among several legal cards) that the heuristic would not have made.
    """

    def __init__(self, rules: Rules, view, history, depth: int, eps: float, bags_by_seat: Sequence[int]):
        n = view.num_players
        self.rules, self.n, self.eps, self.bags = rules, n, eps, list(bags_by_seat)
        done = sum(view.tricks_won[:n])
        start = history_window(history, done, depth)
        self.plays: list[tuple[int, int]] = []
        later = [0] * n
        won = list(view.tricks_won[:n])
        for t in range(start, done):
            seats, cards = history[t]
            self.plays += list(zip(seats, cards))
            won[trick_winner(rules, seats, cards)] -= 1
        current = trick_slots(view)
        self.plays += [(s, view.trick[s]) for s in current]
        for seat, card in self.plays:
            later[seat] |= 1 << card
        self.later = later
        self.active = any(seat != 0 for seat, _ in self.plays)
        self.won = won
        self.played = [view.played[s] & ~later[s] for s in range(n)]
        if start < done:
            self.leader = history[start][0][0]
        else:
            self.leader = current[0] if current else 0
        voids = [0] * n
        gone = 0
        for t in sorted(k for k in history if k < start):
            seats, cards = history[t]
            trick_voids(rules, list(seats), list(cards), gone, t == 0, voids)
            for c in cards:
                gone |= 1 << c
        self.voids = voids
        self.dealer = view.dealer
        self.kinds = list(view.bid_kinds[:n])
        self.values = list(view.bid_values[:n])

    def weight(self, hands_now: Sequence[int]) -> float:
        """The likelihood factor of a deal (``hands_now``: every slot's current cards)."""
        if not self.active:
            return 1.0
        n = self.n
        hands = [hands_now[s] | self.later[s] for s in range(n)]
        state = build_position(
            self.rules,
            self.dealer,
            hands,
            bid_kinds=self.kinds,
            bid_values=self.values,
            tricks_won=self.won,
            played=self.played,
            leader=self.leader,
            validate=False,
        )
        voids = list(self.voids)
        weight = 1.0
        for seat, card in self.plays:
            legal = state.legal_mask()
            if not legal >> card & 1:
                return 0.0
            if seat != 0 and legal & (legal - 1):
                if choose_card(table_from_state(state, voids, self.bags)) != card:
                    weight *= self.eps
            if state.trick_cards:
                led = CARD_SUIT[state.trick_cards[0]]
                if CARD_SUIT[card] != led:
                    voids[seat] |= 1 << led
            state.apply(card)
        return weight


class PIMCAgent(Agent):
    """Perfect-information Monte Carlo over sampled hands for card play and bids (see the module docstring)."""

    name = "pimc"

    def __init__(
        self,
        seed: int | None = None,
        rng: np.random.Generator | None = None,
        samples: int = 16,
        time_limit: float | None = None,
        min_samples: int = 4,
        bag_cost: float = 0.0,
        oversample: int = 5,
        bid_sigma: float = 0.6,
        margin: float = 0.0,
        play_depth: int = 13,
        play_eps: float = 0.1,
        bid_samples: int = 32,
    ):
        super().__init__(seed, rng)
        check_option("samples", samples, 1, MAX_SAMPLES, integer=True)
        check_option("min_samples", min_samples, 1, MAX_SAMPLES, integer=True)
        check_option("bid_samples", bid_samples, 0, MAX_SAMPLES, integer=True)
        check_option("oversample", oversample, 1, MAX_OVERSAMPLE, integer=True)
        check_option("play_depth", play_depth, 0, MAX_TRICKS, integer=True)
        check_option("bid_sigma", bid_sigma, 0, math.inf, low_included=False)
        check_option("play_eps", play_eps, 0, 1)
        check_option("bag_cost", bag_cost, 0, math.inf)
        check_option("margin", margin, 0, math.inf)
        if time_limit is not None:
            check_option("time_limit", time_limit, 0, math.inf, low_included=False)
        self.samples = int(samples)
        self.time_limit = time_limit
        self.min_samples = int(min_samples)
        self.bag_cost = float(bag_cost)
        self.oversample = int(oversample)
        self.bid_sigma = float(bid_sigma)
        self.margin = float(margin)
        self.play_depth = int(play_depth)
        self.play_eps = float(play_eps)
        self.bid_samples = int(bid_samples)
        self.tracker = VoidTracker()
        self.bid_params = DEFAULT_BID_PARAMS
        self.last_values: dict[int, float] = {}  # mean utility per searched card at the last search

    def reseed(self, rng: np.random.Generator) -> None:
        """Use a new generator (the evaluation tool reseeds agents per task)."""
        self.rng = rng

    def describe(self) -> dict[str, Any]:
        """Name and budget."""
        return {
            "name": self.name,
            "samples": self.samples,
            "time_limit": self.time_limit,
            "min_samples": self.min_samples,
            "bag_cost": self.bag_cost,
            "oversample": self.oversample,
            "bid_sigma": self.bid_sigma,
            "margin": self.margin,
            "play_depth": self.play_depth,
            "play_eps": self.play_eps,
            "bid_samples": self.bid_samples,
        }

    def act(self, observation: Mapping[str, np.ndarray]) -> int:
        """A legal action: searched for card play and bids, the heuristic's otherwise."""
        obs, mask = check_observation(observation)
        legal = mask_bits(mask)
        forced = not legal & (legal - 1)
        if forced and not in_play_phase(obs):
            return legal.bit_length() - 1
        view = decode_observation(obs)
        rules = rules_from_observation(obs, view)
        voids = self.tracker.voids(view, rules)
        if forced:  # seen by the tracker only, so that no trick is missed
            return legal.bit_length() - 1
        if view.phase == Phase.PLAY:
            return int(self.search(view, rules, legal, voids))
        if view.phase == Phase.BID and self.bid_samples:
            return int(self.search_bid(view, rules, legal))
        return int(self.unsearched(view, rules, legal, voids))

    def unsearched(self, view, rules: Rules, legal: int, voids: Sequence[int]) -> int:
        """A decision not searched (blind calls, the exchange, two players' drawing turns): the heuristic's."""
        return int(decide(view, rules, legal, voids, self.bid_params, BID_STYLE))

    # ------------------------------------------------------------------ search
    def search(self, view, rules: Rules, legal: int, voids: Sequence[int]) -> int:
        """The card with the best mean utility over sampled deals."""
        hand = view.hand
        unseen, choices = self._card_choices(view, rules, legal)
        self.last_values = {}
        if len(choices) == 1:
            return choices[0]
        scores, bags, bags_by_seat = side_context(view, rules)
        deals = self._position_deals(view, rules, unseen, voids, bags_by_seat)
        base: HandState | None = None
        totals = {c: 0.0 for c in choices}
        start = time.perf_counter()
        drawn = 0
        for hands in deals:
            if (
                self.time_limit is not None
                and drawn >= self.min_samples
                and time.perf_counter() - start > self.time_limit
            ):
                break
            hands[0] = hand
            if base is None:
                base = sample = play_position(rules, view, hands, scores)
            else:
                sample = base.clone()
                sample.hands = hands
                sample.forget_legal()
            for card in choices:
                state = sample.clone()
                state.apply(card)
                rollout(state, list(voids), bags_by_seat)
                totals[card] += position_utility(rules, state, bags, self.bag_cost)
            drawn += 1
        self.last_values = {c: totals[c] / drawn for c in choices}
        best = max(choices, key=lambda c: (self.last_values[c], -c))
        if self.margin > 0:
            # Keep the heuristic's card unless the search finds a clearly better one.
            prior = choose_card(table_from_view(view, rules, legal, voids))
            rep = representative_card(prior, choices, unseen, rules.deuce_of_spades_high)
            if self.last_values[best] - self.last_values[rep] < self.margin:
                return prior
        return best

    def search_bid(self, view, rules: Rules, legal: int) -> int:
        """The bid with the best mean utility over sampled deals, among the heuristic's bid, one trick more
        or less, and nil; each sample plays the rest of the bidding and the hand with the heuristic."""
        n = view.num_players
        prior = decide(view, rules, legal, None, self.bid_params, BID_STYLE)
        choices = {prior}
        if BID_OFFSET <= prior <= BID_OFFSET + MAX_BID:
            for delta in (-1, 1):
                action = prior + delta
                if BID_OFFSET < action <= BID_OFFSET + MAX_BID and legal >> action & 1:
                    choices.add(action)
        if legal >> BID_OFFSET & 1 and nil_risk(view.hand, rules) * self.bid_params.nil_risk_scale < 0.9:
            choices.add(BID_OFFSET)
        choices_list = sorted(choices)
        self.last_values = {}
        if len(choices_list) == 1:
            return prior
        scores, bags, bags_by_seat = side_context(view, rules)
        kinds, values = view.bid_kinds[:n], view.bid_values[:n]
        deals = self._bid_deals(view, rules)
        totals = {a: 0.0 for a in choices_list}
        zero_voids = [0] * n
        for hands in deals:
            hands[0] = view.hand
            base = build_position(
                rules, view.dealer, hands, bid_kinds=kinds, bid_values=values, scores=scores, phase=Phase.BID
            )
            for action in choices_list:
                state = base.clone()
                state.apply(action)
                while state.phase != Phase.PLAY and not state.is_over:
                    state.apply(act_from_state(state, zero_voids, bags_by_seat, self.bid_params, BID_STYLE))
                rollout(state, list(zero_voids), bags_by_seat)
                totals[action] += position_utility(rules, state, bags, self.bag_cost)
        self.last_values = {a: totals[a] / len(deals) for a in choices_list}
        return max(choices_list, key=lambda a: (self.last_values[a], a == prior))

    def _bid_deals(self, view, rules: Rules) -> list[list[int]]:
        """``bid_samples`` deals of the cards not in the agent's hand at a bid; with ``oversample`` > 1 and bids
        already made, chosen among that many times more by how well they explain those bids."""
        n = view.num_players
        unseen = PACK_MASK[rules.jokers] & ~view.hand & ~seen_discards(view)
        counts = [0] + [rules.hand_size] * (n - 1)
        kinds, values = view.bid_kinds[:n], view.bid_values[:n]
        if self.oversample > 1 and any(k != BidKind.NONE for k in kinds[1:]):
            pool = [sample_hands(self.rng, unseen, counts, [0] * n) for _ in range(self.bid_samples * self.oversample)]
            weights = [
                bid_weight(rules, hands, kinds, values, self.bid_params, self.bid_sigma, view.dealer) for hands in pool
            ]
            return self._resample(pool, weights, self.bid_samples)
        return [sample_hands(self.rng, unseen, counts, [0] * n) for _ in range(self.bid_samples)]

    def _card_choices(self, view, rules: Rules, legal: int) -> tuple[int, list[int]]:
        """The cards unseen by the agent, and one legal card per run of equivalent cards (those searched)."""
        gone = 0
        for m in view.played[: view.num_players]:
            gone |= m
        unseen = PACK_MASK[rules.jokers] & ~gone & ~view.hand & ~seen_discards(view)
        return unseen, equivalent_choices(legal, unseen, rules.deuce_of_spades_high)

    def _position_deals(
        self, view, rules: Rules, unseen: int, voids: Sequence[int], bags_by_seat: Sequence[int]
    ) -> list[list[int]]:
        """Deals of the unseen cards at a card play: each player's count, known voids, the partner's passed
        cards; weighted by the bids and recent plays when ``oversample`` > 1."""
        n = view.num_players
        seats = trick_slots(view)
        done = sum(view.tricks_won[:n])
        counts = [0] + [rules.hand_size - done - (1 if s in seats else 0) for s in range(1, n)]
        known = [0] * n
        partner = rules.partner_of(AGENT_SLOT)
        if partner is not None:
            known[partner] = view.passed & unseen  # cards passed to the partner and not played yet
        model = None
        if self.play_depth > 0 and self.oversample > 1:
            model = PlayModel(rules, view, self.tracker.history, self.play_depth, self.play_eps, bags_by_seat)
        return self._draw_deals(rules, view, unseen, counts, voids, known, model)

    def _draw_deals(
        self,
        rules: Rules,
        view,
        unseen: int,
        counts: list[int],
        voids: Sequence[int],
        known: list[int],
        model: PlayModel | None = None,
    ) -> list[list[int]]:
        """``samples`` deals of the unseen cards; with ``oversample`` > 1, chosen among that many times more
        by how well they explain the bids and recent plays (sampling-importance-resampling)."""
        n = view.num_players
        pool = [sample_hands(self.rng, unseen, counts, voids, known) for _ in range(self.samples * self.oversample)]
        if self.oversample == 1:
            return pool
        kinds, values = view.bid_kinds[:n], view.bid_values[:n]
        played = view.played[:n]
        weights = [
            bid_weight(
                rules,
                [h | played[p] for p, h in enumerate(hands)],
                kinds,
                values,
                self.bid_params,
                self.bid_sigma,
                view.dealer,
            )
            for hands in pool
        ]
        if model is not None and model.active:
            hand = view.hand
            for i, hands in enumerate(pool):
                if weights[i] > 0:
                    weights[i] *= model.weight([hand] + hands[1:])
        return self._resample(pool, weights, self.samples)

    def _resample(self, pool: list[list[int]], weights: Sequence[float], k: int) -> list[list[int]]:
        """``k`` distinct deals of the pool, drawn with probability proportional to their weights."""
        w = np.asarray(weights, dtype=np.float64)
        w = w + 1e-9 * max(float(w.max()), 1e-300)  # every deal stays possible
        pick = self.rng.choice(len(pool), size=k, replace=False, p=w / w.sum())
        return [pool[i] for i in pick]


def play_position(rules: Rules, view, hands: list[int], scores: Sequence[int]) -> HandState:
    """The core position of an observation at a card play, with ``hands`` for every slot."""
    n = view.num_players
    seats = trick_slots(view)
    return build_position(
        rules,
        view.dealer,
        hands,
        bid_kinds=view.bid_kinds[:n],
        bid_values=view.bid_values[:n],
        tricks_won=view.tricks_won[:n],
        played=view.played[:n],
        trick_cards=[view.trick[s] for s in seats],
        leader=seats[0] if seats else AGENT_SLOT,
        spades_broken=view.spades_broken,
        scores=scores,
        passed=[view.passed] + [0] * (n - 1),
        received=[view.received] + [0] * (n - 1),
    )


def side_context(view, rules: Rules) -> tuple[list[int], list[int], list[int]]:
    """Scores and bags per side, and each slot's side's bags, from an observation."""
    n = view.num_players
    side_slot = [next(s for s in range(n) if rules.side_of(s) == side) for side in range(rules.num_sides)]
    scores = [view.scores[slot] for slot in side_slot]
    bags = [view.bags[slot] for slot in side_slot]
    return scores, bags, [view.bags[s] for s in range(n)]


def position_utility(rules: Rules, state: HandState, bags_before: Sequence[int], bag_cost: float) -> float:
    """Slot 0's side points minus the mean of the other sides', bags charged ``bag_cost`` each (then a bag penalty
    paid is refunded, as :func:`spades_env.rewards.charged_points` does: the bags are not charged twice)."""
    score = score_hand(rules, state.bids, state.tricks_won, bags_before)
    mine = rules.side_of(0)
    refund = rules.bag_penalty if bag_cost and rules.bag_limit else 0
    values = [s.points + refund * s.bag_penalties - bag_cost * s.new_bags for s in score.sides]
    others = [v for side, v in enumerate(values) if side != mine]
    return values[mine] - sum(others) / len(others)
