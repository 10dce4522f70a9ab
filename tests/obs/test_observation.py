"""Observation layout and semantics (relative slots, hidden hands, exchange blocks, scaling), state()."""

from __future__ import annotations

import numpy as np
import pytest

import spades_env
from spades_env.core.actions import BLIND_NIL, SEE_CARDS, bid_action, card_action
from spades_env.core.hand import Phase
from spades_env.core.scoring import BidKind
from spades_env.obs.decode import decode_observation, decode_observations
from spades_env.obs.encode import OBS_SIZE, OBS_SLICES, STATE_SIZE, STATE_SLICES
from spades_env.obs.layout import BID_FEATURES, NUM_BID_KINDS, RULE_FEATURES
from tests.env.helpers import MIXED_DEAL, PRESET_NAMES, block_cards, cards, play_to_end

# ------------------------------------------------------------------ layout


def test_sizes():
    # spades_obs_v2: v1's 879 floats (v0's 755, the history 2 x 54, the voids 4 x 4), then the drawing blocks:
    # drawing 1, drawing_rules 2, stock_size 1, offered 54, kept 54, discarded 4 x 54
    assert OBS_SIZE == 879 + 1 + 2 + 1 + 54 + 54 + 4 * 54 == 1207
    assert STATE_SIZE == OBS_SIZE + 4 * 54 + 54 + 54


@pytest.mark.parametrize("slices, size", [(OBS_SLICES, OBS_SIZE), (STATE_SLICES, STATE_SIZE)], ids=["obs", "state"])
def test_slices_are_contiguous_and_cover_the_array(slices, size):
    ordered = sorted(slices.values(), key=lambda s: s.start)
    assert ordered[0].start == 0
    for a, b in zip(ordered, ordered[1:]):
        assert a.stop == b.start
    assert ordered[-1].stop == size
    assert all(s.stop > s.start for s in ordered)


@pytest.mark.parametrize(
    "name, size",
    [
        ("phase", 5),
        ("to_act", 4),
        ("dealer", 4),
        ("trick_leader", 4),
        ("bids", 4 * 26),
        ("tricks_won", 4),
        ("spades_broken", 1),
        ("scores", 4),
        ("bags", 4),
        ("target_score", 1),
        ("rules", 26),
        ("hand", 54),
        ("trick", 4 * 54),
        ("played", 4 * 54),
        ("passed", 54),
        ("received", 54),
        ("led", 54),
        ("played_trick", 54),
        ("voids", 4 * 4),
    ],
)
def test_block_sizes_match_the_documented_table(name, size):
    sl = OBS_SLICES[name]
    assert sl.stop - sl.start == size
    assert STATE_SLICES[name] == sl


def test_state_appends_hands_set_aside_and_stock():
    assert STATE_SLICES["hands"] == slice(OBS_SIZE, OBS_SIZE + 4 * 54)
    assert STATE_SLICES["set_aside"] == slice(OBS_SIZE + 4 * 54, OBS_SIZE + 5 * 54)
    assert STATE_SLICES["stock"] == slice(OBS_SIZE + 5 * 54, STATE_SIZE)
    assert len(RULE_FEATURES) == 26
    assert BID_FEATURES == 26 and NUM_BID_KINDS == 8


# --------------------------------------------------------------- accessors


def block(obs: np.ndarray, name: str) -> np.ndarray:
    return obs[OBS_SLICES[name]]


def slots(obs: np.ndarray, name: str) -> np.ndarray:
    return block(obs, name).reshape(4, -1)


def one_hot_slot(obs: np.ndarray, name: str) -> int | None:
    nz = np.flatnonzero(block(obs, name))
    assert len(nz) <= 1
    return int(nz[0]) if len(nz) else None


def slot_bid(obs: np.ndarray, slot: int) -> tuple[int, int | None]:
    row = slots(obs, "bids")[slot]
    kinds = np.flatnonzero(row[:NUM_BID_KINDS])
    values = np.flatnonzero(row[NUM_BID_KINDS:])
    assert len(kinds) == 1 and len(values) <= 1
    return int(kinds[0]), (int(values[0]) if len(values) else None)


def obs_of(env, seat: int) -> np.ndarray:
    return env.observe(f"player_{seat}")["observation"]


def mask_of(env, seat: int) -> set[int]:
    return set(np.flatnonzero(env.observe(f"player_{seat}")["action_mask"]).tolist())


def mixed_env(rules="standard", **options):
    env = spades_env.raw_env(rules=rules)
    env.reset(options={"deal": MIXED_DEAL, "dealer": 0, **options})
    return env


# --------------------------------------------------------------- semantics


def test_dealer_and_to_act_are_relative_slots():
    env = mixed_env()  # dealer 0, seat 1 bids first
    for observer in range(4):
        obs = obs_of(env, observer)
        assert one_hot_slot(obs, "dealer") == (0 - observer) % 4
        assert one_hot_slot(obs, "to_act") == (1 - observer) % 4
        assert one_hot_slot(obs, "trick_leader") is None
        assert one_hot_slot(obs, "phase") == Phase.BID


def test_left_opponent_bid_is_in_slot_1():
    env = mixed_env()
    env.step(bid_action(4))  # seat 1, the left opponent of seat 0
    assert slot_bid(obs_of(env, 0), 1) == (BidKind.NUMBER, 4)
    assert slot_bid(obs_of(env, 1), 0) == (BidKind.NUMBER, 4)
    assert slot_bid(obs_of(env, 2), 3) == (BidKind.NUMBER, 4)
    assert slot_bid(obs_of(env, 3), 2) == (BidKind.NUMBER, 4)
    # Seats that have not bid show kind NONE and no value.
    assert slot_bid(obs_of(env, 0), 0) == (BidKind.NONE, None)
    assert slot_bid(obs_of(env, 0), 2) == (BidKind.NONE, None)


def test_every_bid_so_far_is_visible_to_every_observer():
    env = mixed_env()
    for action in (bid_action(4), bid_action(2), bid_action(3), bid_action(0)):  # seats 1, 2, 3, 0
        env.step(action)
    expected = {0: (BidKind.NIL, None), 1: (BidKind.NUMBER, 4), 2: (BidKind.NUMBER, 2), 3: (BidKind.NUMBER, 3)}
    for observer in range(4):
        obs = obs_of(env, observer)
        for seat, bid in expected.items():
            assert slot_bid(obs, (seat - observer) % 4) == bid


def bid_through(env):
    for action in (bid_action(4), bid_action(2), bid_action(3), bid_action(0)):
        env.step(action)


def test_trick_leader_trick_and_played_blocks_by_slot():
    env = mixed_env()
    bid_through(env)
    assert env.hand.phase == Phase.PLAY and env.hand.current == 1
    env.step(card_action("AH"))  # seat 1 leads
    for observer in range(4):
        obs = obs_of(env, observer)
        slot = (1 - observer) % 4
        assert one_hot_slot(obs, "trick_leader") == slot
        assert block_cards(slots(obs, "trick")[slot]) == {"AH"}
        assert block_cards(slots(obs, "played")[slot]) == {"AH"}
        assert sum(len(block_cards(row)) for row in slots(obs, "trick")) == 1
        assert one_hot_slot(obs, "to_act") == (2 - observer) % 4
        assert block(obs, "spades_broken")[0] == 0.0
    env.step(card_action("AS"))  # seat 2 has no heart: discards the ace of spades
    for observer in range(4):
        assert block(obs_of(env, observer), "spades_broken")[0] == 1.0
    env.step(card_action("2H"))  # seat 3
    obs = obs_of(env, 0)
    assert block_cards(slots(obs, "trick")[3]) == {"2H"}
    assert one_hot_slot(obs, "trick_leader") == 1
    env.step(card_action("2C"))  # seat 0; seat 2 wins the trick with the spade
    assert env.hand.current == 2
    for observer in range(4):
        obs = obs_of(env, observer)
        assert not slots(obs, "trick").any()
        assert one_hot_slot(obs, "trick_leader") is None
        played = {seat: block_cards(slots(obs, "played")[(seat - observer) % 4]) for seat in range(4)}
        assert played == {0: {"2C"}, 1: {"AH"}, 2: {"AS"}, 3: {"2H"}}
        tricks = block(obs, "tricks_won")
        assert tricks[(2 - observer) % 4] == pytest.approx(1 / 13)
        assert tricks.sum() == pytest.approx(1 / 13)
        assert one_hot_slot(obs, "to_act") == (2 - observer) % 4
        assert block(obs, "spades_broken")[0] == 1.0


def test_own_hand_block_shows_own_cards_only():
    env = mixed_env()
    bid_through(env)
    for seat in range(4):
        assert block_cards(block(obs_of(env, seat), "hand")) == set(MIXED_DEAL[seat])
    env.step(card_action("KH"))
    assert block_cards(block(obs_of(env, 1), "hand")) == set(MIXED_DEAL[1]) - {"KH"}
    assert block_cards(block(obs_of(env, 0), "hand")) == set(MIXED_DEAL[0])


def test_hand_is_hidden_while_deciding_blind_nil():
    # standard: blind nil needs a deficit of 100; seat 0's side is behind by 200.
    env = mixed_env(scores=[0, 200], dealer=3)
    assert env.agent_selection == "player_0"
    obs = obs_of(env, 0)
    assert not block(obs, "hand").any()
    assert one_hot_slot(obs, "phase") == Phase.BLIND
    assert mask_of(env, 0) == {SEE_CARDS, BLIND_NIL}
    assert env.infos["player_0"]["phase"] == Phase.BLIND
    # The full-information state still holds the cards.
    state = env.state()
    assert block_cards(state[OBS_SLICES["hand"]]) == set(MIXED_DEAL[0])
    env.step(SEE_CARDS)
    obs = obs_of(env, 0)
    assert block_cards(block(obs, "hand")) == set(MIXED_DEAL[0])
    assert one_hot_slot(obs, "phase") == Phase.BID
    assert mask_of(env, 0) == {bid_action(n) for n in range(14)}
    assert env.infos["player_0"]["phase"] == Phase.BID


def test_blind_nil_bidder_sees_its_hand_after_bidding():
    env = mixed_env(scores=[0, 200], dealer=3)
    env.step(BLIND_NIL)
    obs = obs_of(env, 0)
    assert block_cards(block(obs, "hand")) == set(MIXED_DEAL[0])
    assert slot_bid(obs, 0) == (BidKind.BLIND_NIL, None)
    assert slot_bid(obs_of(env, 1), 3) == (BidKind.BLIND_NIL, None)
    # The opponents (ahead) get no blind decision: seat 1 bids with its cards shown.
    assert env.hand.phase == Phase.BID and env.agent_selection == "player_1"
    assert BLIND_NIL not in mask_of(env, 1)


def test_passed_and_received_blocks_after_pagat_exchange():
    env = mixed_env(rules="pagat", scores=[0, 200], dealer=3)
    env.step(BLIND_NIL)  # seat 0
    env.step(bid_action(3))  # seat 1
    assert env.hand.phase == Phase.BLIND  # seat 2 is behind too
    env.step(SEE_CARDS)
    env.step(bid_action(4))  # seat 2
    env.step(bid_action(3))  # seat 3
    assert env.hand.phase == Phase.EXCHANGE and env.agent_selection == "player_0"
    assert env.infos["player_0"]["phase"] == Phase.EXCHANGE
    assert one_hot_slot(obs_of(env, 0), "phase") == Phase.EXCHANGE
    assert mask_of(env, 0) == {card_action(c) for c in MIXED_DEAL[0]}
    env.step(card_action("2C"))
    assert block_cards(block(obs_of(env, 0), "passed")) == {"2C"}
    assert block_cards(block(obs_of(env, 2), "received")) == {"2C"}
    assert "2C" in block_cards(block(obs_of(env, 2), "hand"))
    env.step(card_action("3C"))
    assert env.agent_selection == "player_2"
    env.step(card_action("AS"))
    env.step(card_action("KD"))
    assert env.hand.phase == Phase.PLAY
    o0, o2 = obs_of(env, 0), obs_of(env, 2)
    assert block_cards(block(o0, "passed")) == {"2C", "3C"}
    assert block_cards(block(o0, "received")) == {"AS", "KD"}
    assert block_cards(block(o2, "passed")) == {"AS", "KD"}
    assert block_cards(block(o2, "received")) == {"2C", "3C"}
    assert block_cards(block(o0, "hand")) == set(MIXED_DEAL[0]) - {"2C", "3C"} | {"AS", "KD"}
    assert block_cards(block(o2, "hand")) == set(MIXED_DEAL[2]) - {"AS", "KD"} | {"2C", "3C"}
    for seat in (1, 3):  # the opponents see nothing of the exchange
        obs = obs_of(env, seat)
        assert not block(obs, "passed").any() and not block(obs, "received").any()
    # pagat: the holder of the lowest club (now seat 2) leads it.
    assert env.agent_selection == "player_2"
    assert one_hot_slot(o0, "to_act") == 2
    assert mask_of(env, 2) == {card_action("2C")}


@pytest.mark.parametrize(
    "rules, scores, bags, observer, exp_scores, exp_bags",
    [
        ("standard", [120, -40], [3, 7], 0, [120, -40, 120, -40], [3, 7, 3, 7]),
        ("standard", [120, -40], [3, 7], 1, [-40, 120, -40, 120], [7, 3, 7, 3]),
        ("cutthroat", [10, 20, 30, 40], [1, 2, 3, 4], 1, [20, 30, 40, 10], [2, 3, 4, 1]),
        ("cutthroat3", [10, 20, 30], [1, 2, 3], 2, [30, 10, 20, 0], [3, 1, 2, 0]),
    ],
)
def test_scores_and_bags_are_scaled_per_slot(rules, scores, bags, observer, exp_scores, exp_bags):
    env = spades_env.raw_env(rules=rules)
    env.reset(seed=0, options={"scores": scores, "bags": bags})
    obs = obs_of(env, observer)
    np.testing.assert_allclose(block(obs, "scores"), np.array(exp_scores) / 500, rtol=1e-6)
    np.testing.assert_allclose(block(obs, "bags"), np.array(exp_bags) / 10, rtol=1e-6)
    assert block(obs, "target_score")[0] == pytest.approx(0.5)


def test_score_scaling_follows_target_score_and_bag_limit():
    rules = spades_env.preset("standard").replace(target_score=200, bag_limit=5)
    env = spades_env.raw_env(rules=rules)
    env.reset(seed=0, options={"scores": [50, 100], "bags": [1, 4]})
    obs = obs_of(env, 0)
    np.testing.assert_allclose(block(obs, "scores"), [0.25, 0.5, 0.25, 0.5], rtol=1e-6)
    np.testing.assert_allclose(block(obs, "bags"), [0.2, 0.8, 0.2, 0.8], rtol=1e-6)
    assert block(obs, "target_score")[0] == pytest.approx(0.2)


def first_obs(rules):
    env = spades_env.raw_env(rules=rules)
    env.reset(seed=0)
    return obs_of(env, 0)


def test_rule_features_differ_between_presets():
    blocks = {name: tuple(block(first_obs(name), "rules")) for name in PRESET_NAMES if name != "crazy"}
    assert len(set(blocks.values())) == len(blocks)
    # crazy's first hand is played under standard rules
    assert tuple(block(first_obs("crazy"), "rules")) == blocks["standard"]


@pytest.mark.parametrize(
    "rules, feature, value",
    [
        ("pagat", "nil_value", 50),
        ("pagat", "blind_nil_exchange", 2),
        ("pagat", "first_trick_lowest_club", 1),
        ("pagat", "nil_tricks_count_for_partner", 1),
        ("standard", "nil_value", 100),
        ("standard", "first_trick_lowest_club", 0),
        ("standard", "blind_nil_requires_deficit", 100),
        ("online", "blind_nil_always", 1),
        ("online", "ten_for_200", 1),
        ("openspiel", "max_team_bid", 13),
        ("openspiel", "lose_score", -350),
        ("openspiel", "blind_nil", 0),
        ("jokers", "jokers", 1),
        ("barmore", "deuce_of_spades_high", 1),
        ("barmore", "blind_bids", 1),
        ("barmore", "dealer_leads_any", 1),
        ("barmore", "nil", 0),
        ("barmore", "blind_bid_min", 7),
        ("cutthroat", "partnerships", 0),
        ("cutthroat3", "three_players", 1),
        ("mirror", "mirror", 1),
        ("suicide", "suicide", 1),
        ("standard", "partnerships", 1),
        ("standard", "bag_limit", 10),
    ],
)
def test_rule_features_decode_to_the_preset_values(rules, feature, value):
    assert decode_observation(first_obs(rules)).rules[feature] == value


def test_crazy_rule_features_follow_the_rotation():
    env = spades_env.raw_env(rules="crazy", episode="game")
    env.reset(seed=2)
    names = []
    while len(names) < 4:
        names.append(env.hand.rules.name)
        view = decode_observation(obs_of(env, 0))
        assert view.rules["jokers"] == (names[-1] == "jokers")
        assert view.rules["mirror"] == (names[-1] == "mirror")
        assert view.rules["suicide"] == (names[-1] == "suicide")
        start = len(env.game.results)
        while len(env.game.results) == start:
            env.step(env.legal_actions()[0])
    assert names == ["standard", "jokers", "mirror", "suicide"]


# ---------------------------------------------------------------- decoding


def check_view(env, seat: int) -> None:
    hand = env.hand
    n = hand.num_players
    view = decode_observation(obs_of(env, seat))
    seat_of = {slot: (seat + slot) % n for slot in range(n)}
    assert view.phase == hand.phase
    assert view.to_act == (None if hand.current < 0 else (hand.current - seat) % n)
    assert view.dealer == (hand.dealer - seat) % n
    assert view.trick_leader == ((hand.leader - seat) % n if hand.trick_cards else None)
    assert view.spades_broken == hand.spades_broken
    assert view.target_score == env.rules.target_score
    assert view.num_players == n and view.hand_size == hand.rules.hand_size
    trick = dict(zip(hand.trick_seats, hand.trick_cards))
    for slot, s in seat_of.items():
        assert view.bid_kinds[slot] == hand.bid_kinds[s]
        if hand.bid_kinds[s] in (BidKind.NUMBER, BidKind.BLIND, BidKind.TEN_FOR_200, BidKind.CANCELLED):
            assert view.bid_values[slot] == hand.bid_values[s]
        assert view.tricks_won[slot] == hand.tricks_won[s]
        side = env.rules.side_of(s)
        assert view.scores[slot] == env.game.scores[side]
        assert view.bags[slot] == env.game.bags[side]
        assert view.played[slot] == hand.played[s]
        assert view.trick[slot] == trick.get(s)
    assert view.hand == (hand.hands[seat] if hand.looked[seat] else 0)
    assert view.passed == hand.passed[seat]
    assert view.received == hand.received[seat]


@pytest.mark.parametrize(
    "rules, scores",
    [
        ("standard", None),
        ("pagat", [0, 250]),
        ("online", [60, 0]),
        ("barmore", None),
        ("cutthroat3", [0, 120, 40]),
        ("crazy", [-30, 70]),
    ],
)
def test_decode_observation_round_trips(rules, scores):
    env = spades_env.raw_env(rules=rules, episode="hand")
    env.reset(seed=11, options={} if scores is None else {"scores": scores})

    def check(env, agent, action):
        for seat in range(env.rules.num_players):
            check_view(env, seat)

    check(env, None, None)
    play_to_end(env, seed=3, on_step=check)


def test_decode_rejects_wrong_shapes():
    with pytest.raises(ValueError):
        decode_observation(np.zeros(10, np.float32))
    with pytest.raises(ValueError, match="shape"):
        decode_observations(np.zeros((2, 10), np.float32))
    with pytest.raises(ValueError, match="shape"):
        decode_observations(np.zeros(OBS_SIZE, np.float32))


@pytest.mark.parametrize("rules", PRESET_NAMES)
def test_decoding_many_rows_at_once_equals_decoding_each(rules):
    from spades_env.batch import BatchEnv

    env, rng = BatchEnv(16, rules=rules, episode="game", seed=4), np.random.default_rng(4)
    obs, mask, _ = env.reset()
    for _ in range(90):  # bids, plays, hand ends and new hands, at every table
        assert decode_observations(obs) == [decode_observation(row) for row in obs]
        obs, mask, *_ = env.step(np.array([rng.choice(np.flatnonzero(row)) for row in mask]))
    assert decode_observations(obs[:0]) == []


# ------------------------------------------------------------------- state


@pytest.mark.parametrize("rules", ["standard", "cutthroat3", "pagat"])
def test_state_holds_every_seat_hand(rules):
    env = spades_env.raw_env(rules=rules, episode="hand")
    env.reset(seed=4)
    n = env.rules.num_players

    def check(env, agent=None, action=None):
        state = env.state()
        hand = env.hand
        observer = hand.current if hand.current >= 0 else 0
        hands = state[STATE_SLICES["hands"]].reshape(4, 54)
        for slot in range(4):
            expected = cards(hand.hands[(observer + slot) % n]) if slot < n else set()
            assert block_cards(hands[slot]) == expected
        assert block_cards(state[STATE_SLICES["set_aside"]]) == cards(sum(1 << c for c in hand.deal.set_aside))
        assert block_cards(state[OBS_SLICES["hand"]]) == cards(hand.hands[observer])
        # Apart from the own-hand block, the state starts with the observation of the seat to act.
        obs = obs_of(env, observer)
        keep = np.ones(OBS_SIZE, bool)
        keep[OBS_SLICES["hand"]] = False
        np.testing.assert_array_equal(state[:OBS_SIZE][keep], obs[keep])

    check(env)
    play_to_end(env, seed=1, on_step=check)
    if rules == "cutthroat3":
        assert len(env.hand.deal.set_aside) == 1


def test_state_shows_hands_during_blind_decision():
    env = mixed_env(scores=[0, 200], dealer=3)
    hands = env.state()[STATE_SLICES["hands"]].reshape(4, 54)
    assert [block_cards(hands[s]) for s in range(4)] == [set(h) for h in MIXED_DEAL]
