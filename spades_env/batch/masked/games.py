"""The masked engine's game layer: games (or one-hand episodes) at many tables on any array form.

``MaskedGames`` is :class:`~spades_env.batch.masked.hands.MaskedHands` plus the core's scoring, game end, the
dealer's rotation, the crazy rotation's hand rules and dealing from the engine's own generator.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ...core.bidding import (
    bidder,
)
from ...core.cards import deck
from ...core.deal import deal_positions
from ...core.drawing import (
    has_drawing,
)
from ...core.game import game_end, next_dealer, side_leaders
from ...core.ops import ARRAY, Ops
from ...core.rules import Rules
from ...core.scoring import score_hands
from ..arguments import check_seed, generator_seed
from . import observe
from .form import OVER
from .hands import MaskedHands


class GameSteps(NamedTuple):
    """What a step of ``MaskedGames`` did at each table (arrays of its form; rows of other tables hold 0 or -1)."""

    hand_over: Any  # the table's hand ended at this step
    points: Any  # (tables, sides) the hand's points, bag penalties included
    scores: Any  # (tables, sides) the scores after the hand (before a new game resets them)
    bags: Any  # (tables, sides) the bags after the hand
    done: Any  # the episode ended (the table has started the next one)
    winner: Any  # the episode's winning side, -1 if none
    truncated: Any  # the episode ended at max_hands without a winner
    bag_penalties: Any  # (tables, sides) the bag penalties this hand paid (for the bag cost of training's rewards)


class MaskedGames:
    """Games (or one-hand episodes) at many tables on any array form: ``MaskedHands`` plus the core's scoring
    (``score_hands``), game end (``game_end``), the dealer's rotation, the crazy rotation's hand rules and dealing
    from the engine's own generator (numpy's, or torch's on the device); a table whose episode ends starts the
    next in the same step. Rewards belong to the RL layer: ``step`` returns what happened (``GameSteps``). Pickles
    with its generator's state (a checkpoint of the tables)."""

    def __getstate__(self) -> dict:
        state = {k: v for k, v in vars(self).items() if k not in ("ops", "form")}
        if self.form.torch:  # a torch generator does not pickle: its state does
            state["_gen"] = self._gen.get_state()
        return state

    def __setstate__(self, state: dict) -> None:
        vars(self).update(state)
        self.ops, self.form = self.hands.ops, self.hands.form
        if self.form.torch:
            import torch

            generator = torch.Generator(device=self.form.device)
            generator.set_state(state["_gen"])
            self._gen = generator

    def __init__(self, rules: Rules, ops: Ops = ARRAY, episode: str = "game", seed: int | None = 0):
        if episode not in ("game", "hand"):
            raise ValueError(f"episode must be 'game' or 'hand', got {episode!r}")
        seed = check_seed(seed)  # the batch engines' seed check: None or a non-negative integer
        self.rules, self.ops, self.episode = rules, ops, episode
        self.hand_rules = [rules.hand_rules(i) for i in range(len(rules.crazy))] if rules.crazy else [rules]
        self.hands = MaskedHands(self.hand_rules, ops)
        self.form = form = self.hands.form
        self.n, self.num_sides = rules.num_players, rules.num_sides
        self._packs = form.ints([deck(r.jokers) for r in self.hand_rules])
        self._hand_size = self.hand_rules[0].hand_size
        self._stocks = has_drawing(self.hand_rules[0])
        if form.torch:
            import torch

            self._gen = torch.Generator(device=form.device)
            if seed is None:
                self._gen.seed()  # from the system's entropy, as numpy's default_rng(None)
            else:
                self._gen.manual_seed(generator_seed(seed))
        else:
            self._gen = np.random.default_rng(seed)

    def _random(self, shape: tuple[int, ...]) -> Any:
        if self.form.torch:
            import torch

            return torch.rand(shape, generator=self._gen, device=self.form.device)
        return self._gen.random(shape)

    def _deal(self, rid: Any, dealer: Any) -> tuple[Any, Any]:
        """New (boards, stocks) for every table: each table's pack shuffled by the engine's generator, dealt one
        card at a time from the dealer's left (core.deal.deal_positions), or kept as the stock."""
        n, T = self.n, self.T
        order = self.form.argsort1(self._random((T, self._packs.shape[1])))
        cards = self.form.take1(self._packs[rid], order)
        boards = self.form.zeros((T, n), "word")
        if self._stocks:
            return boards, cards
        by_position, _ = deal_positions(cards, n, self._hand_size)  # the core's order of dealing
        everyone = dealer >= 0
        for position in range(n):
            board = self.hands._cards_bits(by_position[:, position])
            boards = self.hands._set(boards, bidder(dealer, position, n), board, everyone)
        return boards, None

    def reset(self, num_tables: int) -> None:
        """New episodes at every table: scores and bags 0, a random first dealer, the first hand dealt."""
        f = self.form
        self.T = num_tables
        self.scores = f.zeros((num_tables, self.num_sides))
        self.bags = f.zeros((num_tables, self.num_sides))
        self.hand_index = f.zeros((num_tables,))
        self.first_dealer = self.dealer = self._first_dealers()
        rid = self.hand_index % len(self.hand_rules)
        boards, stocks = self._deal(rid, self.dealer)
        self.hands.start(rid, boards, self.dealer, self.scores, stocks)

    def _first_dealers(self) -> Any:
        return self.form.floor_int(self._random((self.T,)) * self.n)

    def legal(self) -> Any:
        """``MaskedHands.legal`` of every table."""
        return self.hands.legal()

    def observe(self, observer: Any = None) -> Any:
        """Every table's observation of ``observer`` (a seat per table; default: the seat to act)."""
        hands = self.hands
        seat = self.ops.maximum(hands.cur, 0) if observer is None else observer
        return observe.observe(hands, seat, self.scores, self.bags, self.rules)

    def state(self) -> Any:
        """Every table's full-information state relative to the seat to act (:func:`~spades_env.batch.masked.observe.state`)."""
        hands = self.hands
        return observe.state(hands, self.ops.maximum(hands.cur, 0), self.scores, self.bags, self.rules)

    def step(self, actions: Any) -> GameSteps:
        """One action at every table; scores the hands that end, ends the episodes that are over and deals on."""
        ops, hands = self.ops, self.hands
        hands.step(actions)
        ended = hands.phase == OVER
        if not ops.any(ended):  # most steps end no hand: nothing to score or deal (a sync-free form goes on)
            none = ended & False
            zeros = self.scores * 0
            return GameSteps(ended, zeros, self.scores, self.bags, none, self.hand_index * 0 - 1, none, zeros)
        scored = score_hands(
            self.hand_rules, hands.kinds, hands.values, hands.won, self.bags, hands.rid, ops=ops
        )  # every table's (the others' are masked out below)
        points = ops.select(ended[:, None], scored.points, 0)
        scores = self.scores + points
        bags = ops.select(ended[:, None], scored.bags, self.bags)
        played = self.hand_index + ended
        if self.episode == "hand":
            _, _, leaders, first = side_leaders(ops, points)
            winner, truncated = ops.select(leaders == 1, first, -1), ended & False
        else:
            winner, truncated = game_end(self.rules, scores, played, ops=ops)
        over = (winner >= 0) | truncated if self.episode == "game" else ended
        done = ended & over
        winner = ops.select(done, winner, -1)
        truncated = done & truncated
        penalties = ops.select(ended[:, None], scored.bag_penalties, 0)
        result = GameSteps(ended, points, scores, bags, done, winner, truncated, penalties)
        # the games that go on: the deal passes left; the episodes that ended start again
        going = ended & (over == False)  # noqa: E712
        fresh = self._first_dealers()
        self.dealer = ops.select(going, next_dealer(self.dealer, self.n), ops.select(done, fresh, self.dealer))
        self.first_dealer = ops.select(done, fresh, self.first_dealer)
        self.scores = ops.select(done[:, None], 0, scores)
        self.bags = ops.select(done[:, None], 0, bags)
        self.hand_index = ops.select(done, 0, played)
        rid = self.hand_index % len(self.hand_rules)
        boards, stocks = self._deal(rid, self.dealer)
        hands.restart(ended, rid, boards, self.dealer, self.scores, stocks)
        return result
