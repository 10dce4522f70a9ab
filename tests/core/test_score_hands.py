"""The array scoring (``score_hands``) and the array game end (``game_end``) against the scalar forms.

``score_hand`` scores one hand on plain ints with the same lines as ``score_hands``; here a batch of many
random hands (every bid kind each preset allows, random tricks and carried bags) is scored at once
and each row is compared with ``score_hand`` on that hand alone, and with the loop-based reference
below (the scalar scoring as it was before the array form, kept as an independent statement of
RULES.md section 5).
"""

from __future__ import annotations

import numpy as np
import pytest

from spades_env.core import PRESETS, Bid, BidKind, Rules, preset, score_hand
from spades_env.core.game import game_end
from spades_env.core.rules import BLIND_BID_MULTIPLIER, POINTS_PER_BID_TRICK, TEN_FOR_200_POINTS, TEN_FOR_200_TRICKS
from spades_env.core.scoring import NIL_KINDS, score_hands

HANDS_PER_RULES = 400
ALL_BIDS = Rules(
    ten_for_200=True,
    blind_bids=True,
    blind_bid_min=5,
    boston_bonus=250,
    bag_limit=None,
    nil_tricks_count_for_partner=True,
    blind_nil_value=150,
    bag_value=2,
    name="all_bids",
)


def hand_rules_of_every_preset() -> list[Rules]:
    """Each preset's rules, a crazy rotation's hand rules included, plus a rules object with every bid."""
    out = [ALL_BIDS]
    for name in sorted(PRESETS):
        rules = preset(name)
        count = len(rules.crazy) if rules.crazy else 1
        out += [rules.hand_rules(k) for k in range(count)]
    return out


def reference_side(rules: Rules, bids, tricks, members, bags_before):
    """(points, bags, contract, made, penalties) of one side, written as a plain loop."""
    side_tricks = sum(tricks[m] for m in members)
    kinds = [bids[m].kind for m in members]
    points = new_bags = 0
    if BidKind.TEN_FOR_200 in kinds or BidKind.BLIND in kinds:
        if BidKind.TEN_FOR_200 in kinds:
            contract, value = TEN_FOR_200_TRICKS, TEN_FOR_200_POINTS
        else:
            contract = next(bids[m].value for m in members if bids[m].kind == BidKind.BLIND)
            value = BLIND_BID_MULTIPLIER * POINTS_PER_BID_TRICK * contract
        made = side_tricks >= contract
        new_bags = side_tricks - contract if made else 0
        points = value + rules.bag_value * new_bags if made else -value
    else:
        contract = counted = 0
        for m in members:
            if bids[m].kind in NIL_KINDS:
                value = rules.nil_value if bids[m].kind == BidKind.NIL else rules.blind_nil_points
                points += value if tricks[m] == 0 else -value
                if rules.nil_tricks_count_for_partner:
                    counted += tricks[m]
                else:
                    new_bags += tricks[m]
                    points += rules.bag_value * tricks[m]
            else:
                contract += bids[m].value
                counted += tricks[m]
        made = counted >= contract
        if made:
            new_bags += counted - contract
            points += POINTS_PER_BID_TRICK * contract + rules.bag_value * (counted - contract)
        else:
            points -= POINTS_PER_BID_TRICK * contract
    if side_tricks == rules.num_tricks:
        points += rules.boston_bonus
    bags, penalties = bags_before + new_bags, 0
    while rules.bag_limit is not None and bags >= rules.bag_limit:
        bags, points, penalties = bags - rules.bag_limit, points - rules.bag_penalty, penalties + 1
    return points, bags, contract, made, penalties


def random_hands(rules: Rules, rng: np.random.Generator, k: int):
    """k random finished hands: bid kinds and values (k, n), tricks (k, n), carried bags (k, sides)."""
    n = rules.num_players
    choices = [BidKind.NUMBER] + [BidKind.NIL] * rules.nil + [BidKind.BLIND_NIL] * rules.blind_nil
    kinds = np.array(choices)[rng.integers(len(choices), size=(k, n))]
    values = np.where(kinds == BidKind.NUMBER, rng.integers(1, rules.num_tricks + 1, size=(k, n)), 0)
    for t in range(k):
        seat = int(rng.integers(n))
        partner = rules.partner_of(seat)
        if rules.ten_for_200 and rng.random() < 0.3:
            kinds[t, seat], values[t, seat] = BidKind.TEN_FOR_200, TEN_FOR_200_TRICKS
            kinds[t, partner] = rng.choice([BidKind.SKIPPED, BidKind.CANCELLED])
        elif rules.blind_bids and rng.random() < 0.3:
            kinds[t, seat], values[t, seat] = BidKind.BLIND, int(rng.integers(rules.blind_bid_min, 14))
            kinds[t, partner], values[t, partner] = BidKind.SKIPPED, 0
    cuts = np.sort(rng.integers(0, rules.num_tricks + 1, size=(k, n - 1)), axis=1)
    tricks = np.diff(np.concatenate([np.zeros((k, 1), int), cuts, np.full((k, 1), rules.num_tricks)], axis=1))
    tricks[rng.random(k) < 0.05] = 0  # now and then a Boston: one seat takes every trick
    boston = tricks.sum(axis=1) == 0
    tricks[boston, rng.integers(n, size=int(boston.sum()))] = rules.num_tricks
    bags = rng.integers(0, 2 * (rules.bag_limit or 10), size=(k, rules.num_sides))
    return kinds, values, tricks, bags


@pytest.mark.parametrize("rules", hand_rules_of_every_preset(), ids=lambda r: r.name)
def test_array_scoring_matches_score_hand_and_the_reference_on_random_hands(rules):
    rng = np.random.default_rng(sum(map(ord, rules.name)))
    kinds, values, tricks, bags = random_hands(rules, rng, HANDS_PER_RULES)
    batch = score_hands(rules, kinds, values, tricks, bags)
    for t in range(HANDS_PER_RULES):
        bids = [Bid(BidKind(int(k)), int(v)) for k, v in zip(kinds[t], values[t])]
        one = score_hand(rules, bids, [int(x) for x in tricks[t]], [int(x) for x in bags[t]])
        assert batch.points[t].tolist() == list(one.points), (bids, tricks[t])
        assert batch.bags[t].tolist() == list(one.bags)
        assert batch.new_bags[t].tolist() == [s.new_bags for s in one.sides]
        assert batch.bag_penalties[t].tolist() == [s.bag_penalties for s in one.sides]
        assert batch.contracts[t].tolist() == [s.contract for s in one.sides]
        assert batch.made[t].tolist() == [s.made for s in one.sides]
        assert batch.boston[t].tolist() == [s.boston for s in one.sides]
        assert [None if x < 0 else bool(x) for x in batch.nil_made[t]] == list(one.nil_made)
        for side in range(rules.num_sides):
            members = [s for s in range(rules.num_players) if rules.side_of(s) == side]
            expected = reference_side(rules, bids, tricks[t], members, int(bags[t, side]))
            got = (
                one.points[side],
                one.bags[side],
                one.sides[side].contract,
                one.sides[side].made,
                one.sides[side].bag_penalties,
            )
            assert got == expected, (side, bids, tricks[t])


def reference_game_end(rules: Rules, scores, hands_played):
    """(winner or -1, truncated) of one game, RULES.md section 6 as a plain statement."""
    ended = max(scores) >= rules.target_score or (rules.lose_score is not None and min(scores) <= rules.lose_score)
    leaders = [side for side, s in enumerate(scores) if s == max(scores)]
    winner = leaders[0] if ended and len(leaders) == 1 else -1
    return winner, winner < 0 and hands_played >= rules.max_hands


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_array_game_end_matches_the_reference_on_random_scores(name):
    rules = preset(name).replace(max_hands=5)
    rng = np.random.default_rng(sum(map(ord, name)))
    k = 500
    scores = rng.integers(-600, 700, size=(k, rules.num_sides)) // 50 * 50  # coarse, so ties happen
    hands = rng.integers(1, 8, size=k)
    winner, truncated = game_end(rules, scores, hands)
    for t in range(k):
        assert (int(winner[t]), bool(truncated[t])) == reference_game_end(rules, scores[t].tolist(), int(hands[t]))


@pytest.mark.parametrize(
    "scores, hands, winner, truncated",
    [
        ([510, 300], 3, 0, False),  # target reached
        ([510, 510], 3, -1, False),  # a shared highest score plays another hand
        ([510, 510], 100, -1, True),  # ... unless it was the last hand: truncated
        ([200, 300], 100, -1, True),  # no winner after max_hands
        ([200, 300], 99, -1, False),
    ],
)
def test_game_end_table(scores, hands, winner, truncated):
    got_winner, got_truncated = game_end(preset("standard"), [scores], [hands])
    assert (int(got_winner[0]), bool(got_truncated[0])) == (winner, truncated)


ROTATIONS = [preset(n) for n in sorted(PRESETS) if preset(n).crazy] + [
    Rules(crazy=("standard", "pagat", "openspiel", "online"), name="scoring_rotation")
]  # nil values, counting differ


@pytest.mark.parametrize("rotation", ROTATIONS, ids=lambda r: r.name)
def test_a_rotation_scored_in_one_call_matches_each_hand_scored_under_its_own_rules(rotation):
    hand_rules = [rotation.hand_rules(k) for k in range(len(rotation.crazy))]
    rng = np.random.default_rng(7)
    parts = [random_hands(rules, rng, HANDS_PER_RULES // 4) for rules in hand_rules]
    kinds, values, tricks, bags = (np.concatenate([p[i] for p in parts]) for i in range(4))
    index = np.repeat(np.arange(len(hand_rules)), HANDS_PER_RULES // 4)
    order = rng.permutation(len(index))  # hands of different rules interleaved
    batch = score_hands(hand_rules, kinds[order], values[order], tricks[order], bags[order], rules_index=index[order])
    for row, t in enumerate(order):
        bids = [Bid(BidKind(int(k)), int(v)) for k, v in zip(kinds[t], values[t])]
        one = score_hand(hand_rules[index[t]], bids, [int(x) for x in tricks[t]], [int(x) for x in bags[t]])
        assert batch.points[row].tolist() == list(one.points)
        assert batch.bags[row].tolist() == list(one.bags)
        assert [None if x < 0 else bool(x) for x in batch.nil_made[row]] == list(one.nil_made)


def test_rules_that_differ_in_a_game_level_option_cannot_share_a_call():
    with pytest.raises(ValueError, match="bag_limit"):
        score_hands(
            [preset("standard"), preset("standard").replace(bag_limit=5)],
            [[1] * 4],
            [[3] * 4],
            [[4, 3, 3, 3]],
            [[0, 0]],
            rules_index=[0],
        )
