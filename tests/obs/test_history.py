"""Observation v1 (``spades_obs_v1``): the trick history and the public voids, in the AEC encoder, the
tracker, the decoder, the agents' knowledge and policy files of the older layout."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import spades_env
import spades_env.obs as obs_package
from spades_env.agents.knowledge import VoidTracker, rules_from_view, trick_history
from spades_env.core import preset
from spades_env.core.cards import SUIT_MASKS, Suit, mask_of, parse_cards
from spades_env.core.hand import Phase
from spades_env.core.position import build_position
from spades_env.core.scoring import BidKind
from spades_env.obs.decode import decode_observation
from spades_env.obs.encode import OBS_SLICES, encode_observation
from spades_env.obs.layout import OBSERVATION, OBSERVATION_V0, OBSERVATION_V1, LayoutError, ObservationLayout
from tests.env.helpers import PRESET_NAMES, done, random_policy

CLUBS, DIAMONDS, HEARTS, SPADES = (1 << s for s in Suit)
SIDE_SUITS = CLUBS | DIAMONDS | HEARTS
NOT_PLAYED = -1


def position(rules, hands, leader=0, won=None):
    """A play position at the start of a trick with literal hands (fewer cards than a deal: not validated)."""
    n = rules.num_players
    return build_position(
        rules,
        (leader - 1) % n,
        [mask_of(parse_cards(h.split())) for h in hands],
        bid_kinds=[BidKind.NUMBER] * n,
        bid_values=[3] * n,
        tricks_won=won or [0] * n,
        leader=leader,
        validate=False,
    )


def play(state, text: str) -> None:
    for card in parse_cards(text.split()):
        state.apply(card)


def view_of(state, observer: int):
    sides = state.rules.num_sides
    return decode_observation(encode_observation(state, [0] * sides, [0] * sides, state.rules, observer))


def card(text: str) -> int:
    return parse_cards([text])[0]


# ----------------------------------------------------------------- literal deals
def test_a_player_showing_out_is_void_in_the_suit_led_for_every_observer():
    state = position(preset("standard"), ["AC KC 2H 3H", "QC 4H 5H 6H", "2D 3D 4D 5D", "JC 7H 8H 9H"])
    play(state, "AC QC 2D JC")
    for observer in range(4):
        view = view_of(state, observer)
        assert view.voids == tuple(CLUBS if (observer + slot) % 4 == 2 else 0 for slot in range(4))
    view = view_of(state, 0)
    assert view.led == 1 << card("AC")
    assert [c for c, t in enumerate(view.played_trick) if t != NOT_PLAYED] == sorted(parse_cards("2D QC JC AC".split()))
    assert {view.played_trick[c] for c in parse_cards("AC QC 2D JC".split())} == {0}
    obs = encode_observation(state, [0, 0], [0, 0], state.rules, 0)
    assert obs[OBS_SLICES["played_trick"]][card("AC")] == np.float32(1 / 13)  # (trick + 1) / hand size


def test_the_second_trick_is_numbered_and_its_leader_is_the_winner_of_the_first():
    state = position(preset("standard"), ["AC KC 2H 3H", "QC 4H 5H 6H", "2D 3D 4D 5D", "JC 7H 8H 9H"])
    play(state, "AC QC 2D JC 2H 4H")
    view = view_of(state, 1)  # seat 1 sees seat 0 as slot 3
    assert view.played_trick[card("2H")] == view.played_trick[card("4H")] == 1
    assert view.led == (1 << card("AC")) | (1 << card("2H"))
    assert trick_history(view) == {0: ((3, 0, 1, 2), tuple(parse_cards("AC QC 2D JC".split())))}


def test_a_spade_led_before_spades_are_broken_shows_a_hand_of_spades():
    state = position(preset("standard"), ["AS KS QS", "2S 3C 4C", "3S 5C 6C", "4S 7C 8C"])
    play(state, "AS 2S 3S 4S")
    assert view_of(state, 0).voids == (SIDE_SUITS, 0, 0, 0)


def test_a_spade_led_once_spades_are_broken_shows_nothing():
    state = position(preset("standard"), ["AC KS QS", "3S 4S 4D", "3C 5C 6C", "4C 7C 8C"])
    play(state, "AC 3S 3C 4C")  # seat 1 trumps the first trick: spades are broken, seat 1 leads
    play(state, "4S")
    assert view_of(state, 0).voids == (0, CLUBS, 0, 0)  # seat 1 showed out of clubs; its 4S lead shows nothing


def test_with_dealer_leads_any_a_spade_lead_shows_nothing():
    state = position(preset("barmore"), ["AS KS QS", "2S 3C 4C", "3S 5C 6C", "4S 7C 8C"])
    play(state, "AS 2S 3S 4S")
    assert view_of(state, 0).voids == (0, 0, 0, 0)


def test_the_lowest_club_first_trick_shows_no_club_and_a_spade_there_shows_nothing_else():
    state = position(preset("pagat"), ["2C 5C AH", "3D 4D 5D", "2S 3S 4S", "3C KH QH"])
    play(state, "2C 3D 2S 3C")
    assert view_of(state, 0).voids == (0, CLUBS, SIDE_SUITS, 0)


def test_the_trick_on_the_table_counts_and_a_fresh_tracker_reads_it_without_memory():
    state = position(preset("standard"), ["AC KC 2H 3H", "QC 4H 5H 6H", "2D 3D 4D 5D", "JC 7H 8H 9H"])
    play(state, "AC QC 2D")  # seat 3 is to act: it saw seat 2 show out of clubs on this trick
    view = view_of(state, 3)
    assert view.voids == (0, 0, 0, CLUBS)
    assert VoidTracker().voids(view, rules_from_view(view))[3] & CLUBS


# ------------------------------------------------------------- random play
def walk(rules_name: str, seed: int, on_decision) -> None:
    """Random legal play of one game (max 2 hands); ``on_decision(env, obs)`` at each decision."""
    rules = spades_env.load_rules(rules_name).replace(max_hands=2)
    env = spades_env.raw_env(rules=rules, episode="game")
    env.reset(seed=seed)
    choose = random_policy(seed)
    while not done(env):
        on_decision(env, env.observe(env.agent_selection)["observation"])
        env.step(choose(env))


@pytest.mark.parametrize("rules", PRESET_NAMES)
def test_public_voids_are_true_and_the_history_is_the_tricks_played(rules):
    checked = []

    def check(env, obs):
        hand = env.hand
        if hand.phase != Phase.PLAY:
            return
        view = decode_observation(obs)
        n, me = hand.num_players, hand.current
        for slot in range(n):
            seat = (me + slot) % n
            for suit in range(4):
                if view.voids[slot] >> suit & 1:
                    assert not hand.hands[seat] & SUIT_MASKS[suit], (rules, seat, suit)
                    checked.append(suit)
        plays = hand.history[len(hand.history) - sum(m.bit_count() for m in hand.played) :]
        tricks = {t: plays[n * t : n * t + n] for t in range(hand.trick_index)}
        assert trick_history(view) == {
            t: (tuple((s - me) % n for s, _ in tr), tuple(c for _, c in tr)) for t, tr in tricks.items()
        }
        for i, (_, c) in enumerate(plays):
            assert view.played_trick[c] == i // n and bool(view.led >> c & 1) == (i % n == 0)
        assert sum(t != NOT_PLAYED for t in view.played_trick) == len(plays)

    for seed in range(2):
        walk(rules, seed, check)
    assert checked  # random play shows voids in every preset


@pytest.mark.parametrize("rules", ["standard", "pagat", "cutthroat3", "jokers", "barmore"])
def test_the_decoded_voids_are_what_the_core_rule_gives_for_every_trick(rules):
    from spades_env.core.tricks import trick_voids

    def check(env, obs):
        hand = env.hand
        if hand.phase != Phase.PLAY:
            return
        view = decode_observation(obs)
        n = hand.num_players
        expected = [0] * n
        gone = 0
        history = trick_history(view)
        current = [(slot, view.trick[slot]) for slot in range(n) if view.trick[slot] is not None]
        for t in sorted(history):
            slots, cards = history[t]
            trick_voids(hand.rules, list(slots), list(cards), gone, t == 0, expected)
            gone |= mask_of(cards)
        if current:
            leader = view.trick_leader
            order = [(leader + i) % n for i in range(len(current))]
            trick_voids(hand.rules, order, [view.trick[s] for s in order], gone, hand.trick_index == 0, expected)
        assert list(view.voids[:n]) == expected

    walk(rules, 3, check)


# ------------------------------------------------------------------ layout
def _documented_table(text: str) -> list[tuple[str, int]]:
    """(name, size) rows of the first rst table of a docstring (``4 x 54`` -> 216)."""
    rows = []
    for line in text.splitlines():
        m = re.match(r"^(\w+)\s+(\d+)(?: x (\d+))?(?:\s|$)", line)
        if m and not line.startswith("="):
            rows.append((m.group(1), int(m.group(2)) * int(m.group(3) or 1)))
    return rows


def test_the_docstring_table_is_the_layout():
    """The block table is written once, in the observation package's docstring, and it is the layout."""
    table = _documented_table(obs_package.__doc__)
    assert table == [(b.name, b.size) for b in OBSERVATION.blocks.values()]
    assert f"{OBSERVATION.size}" in obs_package.__doc__ and OBSERVATION.name in obs_package.__doc__


def test_versions_0_and_1_are_the_first_blocks_of_version_2():
    assert OBSERVATION.name == "spades_obs_v2" and OBSERVATION_V0.name == "spades_obs_v0"
    assert OBSERVATION_V1.name == "spades_obs_v1"
    assert (OBSERVATION_V0.size, OBSERVATION_V1.size) == (755, 879)
    columns = OBSERVATION.projection(OBSERVATION_V0.describe(), "a v0 file")
    assert np.array_equal(columns, np.arange(755))
    assert np.array_equal(OBSERVATION.projection(OBSERVATION_V1.describe(), "a v1 file"), np.arange(879))
    assert np.array_equal(OBSERVATION.projection(OBSERVATION.describe(), "a v2 file"), np.arange(OBSERVATION.size))


def test_a_block_subset_in_another_order_projects_to_its_columns():
    part = ObservationLayout("part", [("voids", 4, 4), ("phase", 1, 5)])
    columns = OBSERVATION.projection(part.describe(), "a file")
    assert list(columns) == list(range(OBSERVATION["voids"].start, OBSERVATION["voids"].stop)) + list(range(5))


@pytest.mark.parametrize(
    "blocks, problem",
    [
        ([("phase", 1, 6)], "'phase' is 1 x 6, here 1 x 5"),
        ([("phase", 1, 5), ("kitty", 1, 13)], "'kitty'"),
    ],
)
def test_a_layout_that_is_not_a_part_is_refused_naming_both(blocks, problem):
    other = ObservationLayout("spades_obs_v7", blocks)
    with pytest.raises(LayoutError, match=rf"spades_obs_v7.*{OBSERVATION.name}.*{re.escape(problem)}"):
        OBSERVATION.projection(other.describe(), "policy.pt")
    with pytest.raises(LayoutError, match="lists no blocks"):
        OBSERVATION.projection({"name": "x", "size": 3}, "policy.pt")


# ------------------------------------------------------------ released policy
def test_the_v0_policy_plays_as_it_did_with_version_0_observations():
    from tests.nn.ppo_v0_fixture import V0_POLICY, play

    fixture = json.loads(V0_POLICY.with_name("ppo_v0_fixture.json").read_text())
    assert fixture["layout"] == OBSERVATION_V0.name
    for case in fixture["cases"]:
        actions, digest = play(case["preset"], case["seed"])
        assert digest == case["digest"], case["preset"]  # the v0 columns of every observation are v0's
        assert actions == case["actions"], case["preset"]  # and the policy reads them to the same actions


def test_the_v0_policy_reads_only_its_columns():
    torch = pytest.importorskip("torch")
    from spades_env.nn import PolicyNet, load_policy
    from tests.nn.ppo_v0_fixture import V0_POLICY

    policy, _ = load_policy(V0_POLICY)
    payload = torch.load(V0_POLICY, weights_only=True)
    plain = PolicyNet(hidden=payload["hidden"], obs_size=OBSERVATION_V0.size, num_actions=payload["num_actions"])
    plain.load_state_dict(payload["state_dict"])
    rng = np.random.default_rng(0)
    obs = rng.random((16, OBSERVATION.size), dtype=np.float32)
    with torch.no_grad():
        a = policy(torch.as_tensor(obs))
        b = plain(torch.as_tensor(obs[:, : OBSERVATION_V0.size]))
        obs[:, OBSERVATION_V0.size :] = rng.random((16, OBSERVATION.size - OBSERVATION_V0.size), dtype=np.float32)
        c = policy(torch.as_tensor(obs))
    assert torch.equal(a, b) and torch.equal(a, c)  # the history blocks do not reach a v0 network


def test_the_void_tracker_keeps_no_memory_across_observations():
    seen = []
    walk("standard", 5, lambda env, obs: seen.append(obs.copy()) if env.hand.phase == Phase.PLAY else None)
    shared = VoidTracker()
    answers = []
    for obs in seen:  # one tracker for every seat, in play order
        view = decode_observation(obs)
        answers.append((shared.voids(view, rules_from_view(view)), shared.history))
    for obs, answer in reversed(list(zip(seen, answers))):  # a fresh tracker per observation, backwards
        view = decode_observation(obs)
        fresh = VoidTracker()
        assert (fresh.voids(view, rules_from_view(view)), fresh.history) == answer
    assert any(any(voids) for voids, _ in answers) and any(history for _, history in answers)
