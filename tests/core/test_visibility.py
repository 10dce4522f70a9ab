"""Which hands a viewer sees (core.visibility): one rule, the same in both forms, the observation's, stated once.

Random hands in progress under every preset (scores that open the blind options included) are read by the
scalar form (``visible_hands``, ``faces_up``) one hand and one viewer at a time, and by the array form
(``cards_seen``, ``face_up`` on ``(tables, seats)`` arrays) all at once; the answers must be equal, follow
the contract, and equal the observation's hand block. The views outside the core must not restate it.
"""

from __future__ import annotations

import ast
import pathlib
import random

import numpy as np
import pytest

import spades_env
from spades_env.core import PRESETS, HandState, Phase, Rules, deal_cards, preset
from spades_env.core.ops import ARRAY
from spades_env.core.visibility import cards_seen, face_up, faces_up, visible_hands
from spades_env.obs.encode import encode_observation
from spades_env.obs.layout import OBSERVATION

K = 600  # random hands in progress
SEATS = 4
HAND_RULES = [preset(name) for name in sorted(PRESETS) if preset(name).crazy is None] + [
    Rules(blind_bids=True, blind_nil_requires_deficit=None),
    Rules(blind_bids=True, blind_bid_min=3, blind_nil_requires_deficit=0, blind_nil_exchange=2),
]
NO_VIEWER = -1  # the array form's spectator


def hands_in_progress(seed: int = 11) -> list[tuple[HandState, int | None, bool]]:
    """K hands stopped after a random number of random actions, each with a viewer and an after_the_fact flag;
    the scores put one side behind by 0..300, so that blind decisions come up."""
    rng = np.random.default_rng(seed)
    pick = random.Random(seed)
    out = []
    for _ in range(K):
        rules = HAND_RULES[int(rng.integers(len(HAND_RULES)))]
        n = rules.num_players
        dealer = int(rng.integers(n))
        scores = [0] * rules.num_sides
        scores[int(rng.integers(rules.num_sides))] = int(rng.integers(4)) * 100
        hand = HandState(rules, deal_cards(rules, rng, dealer), dealer, scores)
        for _ in range(int(rng.integers(0, 12))):  # most stops fall in the bidding, where looking differs by seat
            if hand.is_over:
                break
            hand.apply(pick.choice(hand.legal_actions()))
        viewer = int(rng.integers(-1, n))
        out.append((hand, None if viewer == NO_VIEWER else viewer, bool(rng.random() < 0.3)))
    return out


@pytest.fixture(scope="module")
def situations():
    return hands_in_progress()


def as_arrays(situations):
    """The situations as (tables, SEATS) arrays: hands, looked, own, spectator, after_the_fact (3-player and
    2-player tables padded with empty seats that have not looked)."""
    hands = np.zeros((K, SEATS), np.uint64)
    looked = np.zeros((K, SEATS), bool)
    viewer = np.full(K, NO_VIEWER)
    after = np.zeros(K, bool)
    for i, (hand, seat, after_the_fact) in enumerate(situations):
        n = hand.num_players
        hands[i, :n] = hand.hands
        looked[i, :n] = hand.looked
        viewer[i] = NO_VIEWER if seat is None else seat
        after[i] = after_the_fact
    own = np.arange(SEATS) == viewer[:, None]
    return hands, looked, own, (viewer == NO_VIEWER)[:, None], after[:, None]


def test_the_scalar_and_array_forms_agree(situations):
    hands, looked, own, spectator, after = as_arrays(situations)
    boards = cards_seen(ARRAY, hands, looked, own, spectator, after)
    up = face_up(looked, own, spectator, after)
    assert boards.dtype == np.uint64 and boards.shape == (K, SEATS)
    for i, (hand, viewer, after_the_fact) in enumerate(situations):
        n = hand.num_players
        assert list(visible_hands(hand, viewer, after_the_fact)) == boards[i, :n].tolist(), i
        assert list(faces_up(hand, viewer, after_the_fact)) == up[i, :n].tolist(), i
    # the encoders' call: the observer's own hand, with plain constants (no array op for them)
    assert (cards_seen(ARRAY, hands, looked, True) == np.where(looked, hands, np.uint64(0))).all()


def test_the_contract(situations):
    """Own cards once looked (or after the fact), nobody else's, every hand to a spectator; and the situations
    include the case that matters: a seat that has not looked while another seat bids."""
    unlooked_while_another_bids = 0
    for hand, viewer, after_the_fact in situations:
        seen = visible_hands(hand, viewer, after_the_fact)
        for seat in range(hand.num_players):
            if viewer is None:
                expected = hand.hands[seat]
            elif seat == viewer and (hand.looked[seat] or after_the_fact):
                expected = hand.hands[seat]
            else:
                expected = 0
            assert seen[seat] == expected
        if viewer is not None and not hand.looked[viewer] and hand.phase == Phase.BID and hand.current != viewer:
            assert seen[viewer] == (hand.hands[viewer] if after_the_fact else 0)
            unlooked_while_another_bids += 1
    assert unlooked_while_another_bids >= 20


def test_the_observation_shows_the_hand_the_rule_shows(situations):
    block = OBSERVATION.block("hand")
    for hand, viewer, _ in situations[:200]:
        if viewer is None or hand.is_over:
            continue
        obs = encode_observation(hand, hand.scores, [0] * len(hand.scores), hand.rules, viewer)
        cards = np.flatnonzero(obs[block.slice])
        assert sum(1 << int(c) for c in cards) == visible_hands(hand, viewer)[viewer]


# Where the views read whether a seat has looked: only as an argument of the rule, or as the public fact itself
# (the web table's "looked" field: the table sees a seat pick up its cards). The batch engine's state, legality,
# transitions and masked steps read it as a rule input of the bidding (core.bidding.decides_blind), not as a view.
RULE_CALLS = {"face_up", "cards_seen", "faces_up", "visible_hands"}
NOT_VIEWS = {"core", "batch/state.py", "batch/legality.py", "batch/transitions.py", "batch/masked/hands.py"}
PACKAGE = pathlib.Path(spades_env.__file__).parent


def looked_reads_outside_the_rule(tree: ast.AST) -> list[int]:
    """Lines that read ``.looked`` neither inside a call of the rule nor as the value of a "looked" dict key."""
    allowed: set[int] = set()  # ids of the nodes under an allowed parent
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) in RULE_CALLS:
            allowed.update(id(n) for arg in [*node.args, *(k.value for k in node.keywords)] for n in ast.walk(arg))
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if isinstance(key, ast.Constant) and key.value == "looked":
                    allowed.update(id(n) for n in ast.walk(value))
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr == "looked" and id(node) not in allowed
    ]


def test_no_view_restates_the_rule():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        if name.split("/")[0] in NOT_VIEWS or name in NOT_VIEWS:
            continue
        lines = looked_reads_outside_the_rule(ast.parse(path.read_text(), filename=str(path)))
        found += [f"{name}:{line}" for line in lines]
    assert not found, f"whether a seat sees its hand is decided outside core.visibility at {found}"


def test_the_guard_finds_a_restatement():
    restated = "def shown(hand, seat):\n    return hand.hands[seat] if hand.looked[seat] else 0\n"
    called = "def shown(hand, seat):\n    return cards_seen(INT, hand.hands[seat], hand.looked[seat], True)\n"
    assert looked_reads_outside_the_rule(ast.parse(restated)) == [2]
    assert looked_reads_outside_the_rule(ast.parse(called)) == []
