"""Hand scoring (RULES.md section 5): the worked examples, OpenSpiel's vectors and a
table of hand-computed cases. ``score_hand`` is pure; every expected value below was
worked out by hand from the rules text."""

import pytest

from spades_env.core import Bid, BidKind, Rules, preset, score_hand
from spades_env.core.scoring import ScoringError

from .helpers import bids

STANDARD = preset("standard")
CUTTHROAT = preset("cutthroat")


def score(rules, bid_text, tricks, bags_before=None):
    if bags_before is None:
        bags_before = [0] * rules.num_sides
    return score_hand(rules, bids(bid_text), tricks, bags_before)


# --- RULES.md section 5 worked examples ------------------------------------------------


# Example 1: score 337, 7 bags carried, bid 5 (partnership 0 = seats 0 and 2 bid 3 + 2).
@pytest.mark.parametrize(
    "tricks, points, new_score, bags",
    [
        ([4, 3, 3, 3], 52, 389, 9),  # take 7: +52, bags 9
        ([4, 3, 4, 2], 53 - 100, 290, 0),  # take 8: +53 - 100 (10 bags), bags 0
        ([5, 2, 4, 2], 54 - 100, 291, 1),  # take 9: +54 - 100, bags 1
    ],
)
def test_example_1_bags_carried_from_337(tricks, points, new_score, bags):
    result = score(STANDARD, "3 3 2 3", tricks, [7, 0])
    side = result.sides[0]
    assert side.points == points
    assert 337 + side.points == new_score
    assert side.bags == bags


def test_example_2_bags_chain_across_three_hands():
    hands = [
        ("2 3 2 3", [4, 3, 3, 3], 43, 3),  # bid 4 take 7
        ("2 3 1 3", [3, 4, 3, 3], 33, 6),  # bid 3 take 6
        ("2 3 2 3", [5, 2, 4, 2], 45 - 100, 1),
    ]  # bid 4 take 9: 11 bags, one -100, 1 carries
    bags, total = [0, 0], 0
    for bid_text, tricks, points, carried in hands:
        result = score(STANDARD, bid_text, tricks, bags)
        assert result.sides[0].points == points
        assert result.sides[0].bags == carried
        bags = list(result.bags)
        total += result.sides[0].points
    assert total == 21
    assert bags[0] == 1


def test_example_3_bid_5_take_7():
    side = score(STANDARD, "3 4 2 4", [4, 3, 3, 3]).sides[0]
    assert (side.points, side.bags, side.new_bags, side.made) == (52, 2, 2, True)


@pytest.mark.parametrize(
    "bid, taken, points, bags",
    [
        (5, 3, -50, 0),
        (4, 4, 40, 0),
        (4, 6, 42, 2),
    ],
)
def test_example_4_cutthroat_contracts(bid, taken, points, bags):
    others = 13 - taken  # the rest go to seat 1; seats 2 and 3 take none
    result = score(CUTTHROAT, f"{bid} 3 2 2", [taken, others, 0, 0])
    assert result.sides[0].points == points
    assert result.sides[0].bags == bags
    assert len(result.sides) == 4


def test_example_4_cutthroat_set_from_100():
    result = score(CUTTHROAT, "5 3 2 2", [3, 10, 0, 0])
    assert 100 + result.points[0] == 50


@pytest.mark.parametrize("k", [0, 1, 3])
def test_example_5_cutthroat_nil_from_400(k):
    result = score(CUTTHROAT, "nil 3 2 2", [k, 13 - k, 0, 0], [2, 0, 0, 0])
    expected = 500 if k == 0 else 300 + k
    assert 400 + result.points[0] == expected
    assert result.sides[0].bags == 2 + k
    assert result.nil_made[0] == (k == 0)


def test_example_5_partnership_failed_nil_with_partner_making_4():
    # seat 0 nil takes 2, seat 2 bids 4 takes 4: -100 + 40 + 2 = -58, 2 bags
    side = score(STANDARD, "nil 3 4 3", [2, 4, 4, 3]).sides[0]
    assert (side.points, side.bags) == (-58, 2)


@pytest.mark.parametrize(
    "t1, t2, points",
    [
        (0, 0, 200),  # both make
        (2, 1, -200 + 3),  # both fail: -200 + (t1 + t2)
        (0, 3, 0 + 3),  # one makes, one fails with t tricks: 0 + t
        (4, 0, 0 + 4),
    ],
)
def test_example_6_both_partners_nil(t1, t2, points):
    rest = 13 - t1 - t2
    side = score(STANDARD, "nil 3 nil 3", [t1, rest - rest // 2, t2, rest // 2]).sides[0]
    assert side.points == points
    assert side.bags == t1 + t2
    assert side.contract == 0 and side.made


@pytest.mark.parametrize(
    "bid_text, tricks, points",
    [
        ("b7 3 skip 3", [4, 3, 3, 3], 140),  # blind 7 made exactly
        ("b7 3 skip 3", [3, 4, 3, 3], -140),  # blind 7 set
        ("b8 3 skip 3", [5, 2, 3, 3], 160),  # blind 8 made
        ("5 3 3 3", [4, 3, 3, 3], -80),  # an ordinary contract of 8 set (7 taken)
    ],
)
def test_example_7_barmore_blind_bids(bid_text, tricks, points):
    assert score(preset("barmore"), bid_text, tricks).sides[0].points == points


@pytest.mark.parametrize(
    "tricks, points, bags",
    [
        ([6, 1, 5, 1], 201, 1),  # 11 tricks
        ([5, 2, 4, 2], -200, 0),  # 9 tricks
        ([5, 2, 5, 1], 200, 0),  # exactly 10
    ],
)
def test_example_8_ten_for_200(tricks, points, bags):
    side = score(preset("online"), "10f200 3 skip 3", tricks).sides[0]
    assert (side.points, side.bags) == (points, bags)


@pytest.mark.parametrize("name, blind_nil_points", [("standard", 200), ("online", 200), ("pagat", 100)])
@pytest.mark.parametrize("made", [True, False])
def test_example_9_blind_nil_value_by_preset(name, blind_nil_points, made):
    # seat 0 blind nil takes 0 or 1; seat 2 bids 3 and takes exactly 3 (the blind nil's
    # trick goes to seat 2's contract in pagat: an overtrick there, a bag in the others)
    tricks = [0, 5, 3, 5] if made else [1, 5, 3, 4]
    side = score(preset(name), "bnil 3 3 3", tricks).sides[0]
    expected = (blind_nil_points if made else -blind_nil_points) + 30 + (0 if made else 1)
    assert side.points == expected
    assert side.bags == (0 if made else 1)


@pytest.mark.parametrize("t1, t2, points", [(0, 0, 400), (1, 2, -400 + 3)])
def test_example_9_both_partners_blind_nil(t1, t2, points):
    rest = 13 - t1 - t2
    side = score(STANDARD, "bnil 4 bnil 4", [t1, rest - 5, t2, 5]).sides[0]
    assert side.points == points
    assert side.bags == t1 + t2


def test_example_10_pagat_nil_trick_counts_for_partner():
    side = score(preset("pagat"), "nil 5 4 4", [1, 5, 3, 4]).sides[0]
    assert side.points == -50 + 40
    assert side.bags == 0 and side.made


# --- Example 11: OpenSpiel's vectors (openspiel preset) ---------------------------------

OPENSPIEL = preset("openspiel")


def test_openspiel_vector_1():
    result = score(OPENSPIEL, "4 5 5 nil", [5, 3, 5, 0])
    assert result.points == (91, 50)
    assert result.bags == (1, 0)


def test_openspiel_vector_2():
    result = score(OPENSPIEL, "13 5 nil 1", [4, 6, 1, 2])
    assert result.points[0] == -230
    assert result.points[1] == 62


def test_openspiel_vector_3_from_99_with_9_bags():
    result = score(OPENSPIEL, "3 3 3 2", [4, 2, 5, 2], [9, 0])
    assert result.points[0] == -37
    assert 99 + result.points[0] == 62
    assert result.bags[0] == 2
    assert result.sides[0].bag_penalties == 1


# --- a table of hand-computed cases ----------------------------------------------------

CASES = [
    # (description, rules, bids, tricks, bags before, side, points, bags after)
    ("10 for 200 with every trick", preset("online"), "10f200 2 skip 2", [7, 0, 6, 0], [0, 0], 0, 203, 3),
    ("10 for 200 cancels the partner's nil", preset("online"), "cx0 3 10f200 3", [3, 1, 8, 1], [0, 0], 0, 201, 1),
    ("10 for 200 failed with 0 tricks", preset("online"), "10f200 6 skip 6", [0, 7, 0, 6], [0, 0], 0, -200, 0),
    ("blind 10 made with 12", preset("barmore"), "b10 1 skip 1", [8, 0, 4, 1], [0, 0], 0, 202, 2),
    ("blind 13 made", preset("barmore"), "skip 1 b13 1", [6, 0, 7, 0], [0, 0], 0, 260, 0),
    ("blind 9 set", preset("barmore"), "b9 2 skip 2", [4, 3, 4, 2], [0, 0], 0, -180, 0),
    ("both nil, both make", STANDARD, "nil 5 nil 5", [0, 7, 0, 6], [0, 0], 0, 200, 0),
    ("both nil, pagat, one fails with 2", preset("pagat"), "nil 5 nil 5", [2, 5, 0, 6], [0, 0], 0, 2, 2),
    ("boston with bonus 200", STANDARD.replace(boston_bonus=200), "3 1 3 1", [7, 0, 6, 0], [0, 0], 0, 267, 7),
    ("boston bonus not paid for 12", STANDARD.replace(boston_bonus=200), "3 1 3 1", [7, 1, 5, 0], [0, 0], 0, 66, 6),
    ("bag_value 0", STANDARD.replace(bag_value=0), "3 3 2 3", [4, 3, 4, 2], [0, 0], 0, 50, 3),
    ("bag_value 2", STANDARD.replace(bag_value=2), "3 3 2 3", [4, 3, 4, 2], [0, 0], 0, 56, 3),
    ("bag_value 2 on nil tricks", STANDARD.replace(bag_value=2), "nil 3 4 3", [2, 4, 4, 3], [0, 0], 0, -56, 2),
    ("bag_value 0 still counts bags", STANDARD.replace(bag_value=0), "3 3 2 3", [5, 2, 5, 1], [8, 0], 0, 50 - 100, 3),
    ("bag_limit None: no penalty", STANDARD.replace(bag_limit=None), "3 3 2 3", [6, 2, 4, 1], [9, 0], 0, 55, 14),
    ("25 bags: two penalties", STANDARD, "1 1 1 1", [6, 0, 7, 0], [14, 0], 0, 20 + 11 - 200, 5),
    ("bag_limit 5: two penalties", STANDARD.replace(bag_limit=5), "3 3 2 3", [6, 2, 5, 0], [4, 0], 0, 56 - 200, 0),
    ("bag_penalty 50", STANDARD.replace(bag_penalty=50), "3 3 2 3", [5, 2, 4, 2], [8, 0], 0, 54 - 50, 2),
    ("set contract takes no bags", STANDARD, "5 3 4 3", [3, 5, 4, 1], [9, 0], 0, -90, 9),
    ("set contract with a failed nil's bags", STANDARD, "nil 3 5 3", [2, 4, 3, 4], [0, 0], 0, -148, 2),
    (
        "nil tricks are bags even when the contract is set, into a penalty",
        STANDARD,
        "nil 3 5 3",
        [2, 4, 3, 4],
        [9, 0],
        0,
        -148 - 100,
        1,
    ),
    (
        "nil_value 50, tricks as bags",
        STANDARD.replace(nil_value=50),
        "nil 3 4 3",
        [1, 4, 4, 4],
        [0, 0],
        0,
        -50 + 40 + 1,
        1,
    ),
    ("blind_nil_value 150", STANDARD.replace(blind_nil_value=150), "bnil 3 4 3", [0, 4, 5, 4], [0, 0], 0, 150 + 41, 1),
    (
        "nil counts for partner, becomes an overtrick",
        preset("pagat"),
        "nil 3 4 3",
        [2, 3, 4, 4],
        [0, 0],
        0,
        -50 + 42,
        2,
    ),
    ("other side: two contracts summed", STANDARD, "3 4 2 5", [2, 5, 2, 4], [0, 0], 1, 90, 0),
]


@pytest.mark.parametrize(
    "desc, rules, bid_text, tricks, bags_before, side, points, bags_after", CASES, ids=[c[0] for c in CASES]
)
def test_hand_computed_scoring_case(desc, rules, bid_text, tricks, bags_before, side, points, bags_after):
    result = score(rules, bid_text, tricks, bags_before)
    assert result.sides[side].points == points
    assert result.sides[side].bags == bags_after


def test_boston_is_recorded_even_with_no_bonus():
    result = score(STANDARD, "3 1 3 1", [7, 0, 6, 0])
    assert result.sides[0].boston and not result.sides[1].boston
    assert result.sides[0].points == 67


def test_side_score_details():
    side = score(STANDARD, "3 3 2 3", [4, 3, 4, 2], [5, 0]).sides[0]
    assert (side.contract, side.tricks, side.made, side.new_bags, side.bags, side.bag_penalties) == (
        5,
        8,
        True,
        3,
        8,
        0,
    )


def test_nil_made_reported_per_seat():
    result = score(STANDARD, "nil bnil 4 4", [0, 2, 6, 5])
    assert result.nil_made == (True, False, None, None)


def test_cutthroat_sides_are_players():
    result = score(CUTTHROAT, "3 nil 2 4", [3, 0, 4, 6])
    assert result.points == (30, 100, 22, 42)
    assert result.bags == (0, 0, 2, 2)


def test_cutthroat3_seventeen_tricks():
    result = score(preset("cutthroat3"), "6 nil 9", [7, 0, 10])
    assert result.points == (61, 100, 91)


@pytest.mark.parametrize(
    "bid_text, tricks, bags, fragment",
    [
        ("3 3 3", [4, 3, 3, 3], [0, 0], "4 bids"),
        ("3 3 3 3", [4, 3, 3, 2], [0, 0], "sum to 13"),
        ("3 3 3 3", [4, 3, 3, 3], [0], "bags for 2"),
    ],
)
def test_score_hand_rejects_inconsistent_inputs(bid_text, tricks, bags, fragment):
    with pytest.raises(ScoringError, match=fragment):
        score(STANDARD, bid_text, tricks, bags)


def test_score_hand_rejects_a_side_without_a_bid():
    with pytest.raises(ScoringError):
        score_hand(STANDARD, [Bid(BidKind.NONE)] * 4, [4, 3, 3, 3], [0, 0])


def test_score_hand_is_pure():
    rules = Rules()
    b, t, g = bids("3 3 2 3"), [4, 3, 4, 2], [9, 0]
    first = score_hand(rules, b, t, g)
    assert score_hand(rules, b, t, g) == first
    assert g == [9, 0] and t == [4, 3, 4, 2]
