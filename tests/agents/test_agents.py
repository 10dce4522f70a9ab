"""Agents: legality in every preset, strength against random, scripted heuristic situations,
PIMC sampling, the registry and the position builder."""

from __future__ import annotations

import numpy as np
import pytest

import spades_env
from spades_env.agents import (
    ClassicHeuristicAgent,
    HeuristicAgent,
    PIMCAgent,
    RandomAgent,
    UnknownAgentError,
    VoidTracker,
    available_agents,
    make_agent,
    register_agent,
    register_checkpoint_loader,
    registry,
    rules_from_view,
)
from spades_env.agents.heuristic import estimate_tricks
from spades_env.agents.pimc import SamplingError, equivalent_choices, sample_hands
from spades_env.core import BidKind, HandState, Phase, Rules, deal_cards, parse_action, preset
from spades_env.core.actions import BLIND_NIL, SEE_CARDS, action_name, mask_array
from spades_env.core.cards import CARD_SUIT, SUIT_MASKS, mask_of, parse_cards
from spades_env.core.position import PositionError, build_position
from spades_env.evaluation import EvalConfig, evaluate
from spades_env.obs.decode import decode_observation
from spades_env.obs.encode import encode_observation

PRESET_NAMES = sorted(spades_env.PRESETS)


def observation(state: HandState, scores=None, bags=None, game_rules: Rules | None = None) -> dict:
    """The env's observation dict for the seat to act in a core hand state."""
    rules = game_rules or state.rules
    sides = rules.num_sides
    obs = encode_observation(state, scores or [0] * sides, bags or [0] * sides, rules, state.current)
    return {"observation": obs, "action_mask": mask_array(state.legal_mask())}


def play_env(rules, agents, seed: int, episode: str = "game") -> spades_env.raw_env:
    """Play an AEC episode, checking every action against the mask."""
    env = spades_env.raw_env(rules=rules, episode=episode)
    env.reset(seed=seed)
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.hand.current
        action = agents[seat].act(obs)
        assert obs["action_mask"][action] == 1, (name, action_name(action))
        env.step(action)
    return env


# ------------------------------------------------------------------ legality
@pytest.mark.parametrize("name", PRESET_NAMES)
def test_heuristic_and_random_play_whole_games_in_every_preset(name):
    rules = preset(name).replace(max_hands=8)
    n = rules.num_players
    heuristic, rand = HeuristicAgent(), RandomAgent(seed=1)
    env = play_env(rules, [heuristic] * n, seed=3)
    assert env.game.over
    env = play_env(rules, [rand if s % 2 else heuristic for s in range(n)], seed=4)
    assert env.game.over


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_pimc_tiny_budget_plays_legal_hands_in_every_preset(name):
    rules = preset(name)
    n = rules.num_players
    pimc = PIMCAgent(seed=0, samples=2, oversample=2, bid_samples=2)
    env = play_env(rules, [pimc if s % 2 == 0 else HeuristicAgent() for s in range(n)], seed=5, episode="hand")
    assert env.hand.is_over


def test_crazy_rotation_hands_with_pimc():
    rules = preset("crazy").replace(max_hands=4)
    pimc = PIMCAgent(seed=1, samples=2, oversample=1, bid_samples=2)
    env = play_env(rules, [pimc, HeuristicAgent(), pimc, RandomAgent(seed=2)], seed=6)
    assert env.game.over and len(env.game.results) == 4


def test_act_batch_rows_are_legal():
    env = spades_env.raw_env(rules="standard", episode="hand")
    obs_rows, mask_rows = [], []
    for seed in range(6):
        env.reset(seed=seed)
        # Advance to a play decision with the heuristic.
        h = HeuristicAgent()
        while env.hand.phase != Phase.PLAY or len(env.hand.trick_cards) != 2:
            env.step(h.act(env.observe(env.agent_selection)))
        o = env.observe(env.agent_selection)
        obs_rows.append(o["observation"])
        mask_rows.append(o["action_mask"])
    obs, mask = np.stack(obs_rows), np.stack(mask_rows)
    for agent in (RandomAgent(seed=0), HeuristicAgent(), PIMCAgent(seed=0, samples=2, bid_samples=2)):
        actions = agent.act_batch(obs, mask)
        assert actions.shape == (6,)
        assert all(mask[i, a] == 1 for i, a in enumerate(actions))


@pytest.mark.parametrize("rules", ["standard", "jokers", "cutthroat3"])
def test_heuristic_act_batch_equals_act_row_by_row(rules):
    from spades_env.batch import BatchEnv

    env, rng = BatchEnv(24, rules=rules, episode="game", seed=8), np.random.default_rng(8)
    obs, mask, _ = env.reset()
    batch, single = HeuristicAgent(), HeuristicAgent()
    for _ in range(120):
        actions = batch.act_batch(obs, mask)
        assert actions.tolist() == [single.act({"observation": o, "action_mask": m}) for o, m in zip(obs, mask)]
        assert batch.tracker.history == single.tracker.history  # left where the last row leaves it
        random_play = np.array([rng.choice(np.flatnonzero(m)) for m in mask])  # some variety beyond its own play
        obs, mask, *_ = env.step(np.where(rng.random(len(actions)) < 0.3, random_play, actions))


# ------------------------------------------------------------------ strength
def test_heuristic_beats_random_clearly():
    report = evaluate(EvalConfig("heuristic", "random", deals=24, games=2, workers=1, progress=False))
    ci = report["deals"]["points_diff"]
    assert ci["low"] > 100, ci  # measured about +180 points per deal
    assert report["games"]["a_wins"] == report["games"]["n_games"] == 4


# ----------------------------------------------------------- scripted play
STD = preset("standard")


def position(hands, bids, trick="", leader=0, played=None, won=None, rules=STD, broken=None, dealer=3):
    """A play position from literal cards; ``hands`` are the cards still held per seat."""
    hands = [mask_of(parse_cards(h)) for h in hands]
    trick_cards = parse_cards(trick) if trick else []
    n = rules.num_players
    played_masks = [mask_of(parse_cards(p)) for p in played] if played else [0] * n
    for i, card in enumerate(trick_cards):
        played_masks[(leader + i) % n] |= 1 << card
    kinds, values = [], []
    for bid in bids:
        if bid == "nil":
            kinds.append(BidKind.NIL)
            values.append(0)
        else:
            kinds.append(BidKind.NUMBER)
            values.append(int(bid))
    return build_position(
        rules,
        dealer,
        hands,
        bid_kinds=kinds,
        bid_values=values,
        tricks_won=won or [0] * n,
        played=played_masks,
        trick_cards=trick_cards,
        leader=leader,
        spades_broken=broken,
        validate=False,
    )


def heuristic_play(state) -> str:
    return action_name(HeuristicAgent().act(observation(state)))


def test_heuristic_covers_partner_nil_and_ducks_under_a_winning_partner_otherwise():
    hands = ["KH TH 3H AC", "QC JC TC", "2C 3C 4C", "9C 8C 7C"]
    # Seat 1 led 5H, the partner (seat 2) played 9H, seat 3 played 7H; seat 0 is last.
    state = position(hands, ["3", "4", "nil", "4"], trick="5H 9H 7H", leader=1)
    assert heuristic_play(state) == "TH"  # overtake the nil partner as cheaply as possible
    state = position(hands, ["3", "4", "3", "4"], trick="5H 9H 7H", leader=1)
    assert heuristic_play(state) == "3H"  # the partner wins: play low


def test_heuristic_wins_last_with_the_cheapest_winner():
    # Seat 1 led QD, the partner (seat 2) played 5D, seat 3 played 7D; seat 0 wins with the KD, not the AD.
    state = position(
        ["AD KD 4D 2C", "QC JC TC", "2H 3H 4H", "9C 8C 7C"], ["3", "4", "3", "4"], trick="QD 5D 7D", leader=1
    )
    assert heuristic_play(state) == "KD"


def test_heuristic_second_hand_low():
    # Seat 3 leads 5C; seat 0 holds KC 8C 3C with the AC unseen: play low.
    state = position(["KC 8C 3C 2D", "QD JD TD", "2H 3H 4H", "9S 8S 7S"], ["3", "4", "3", "4"], trick="5C", leader=3)
    assert heuristic_play(state) == "3C"


def test_heuristic_prefers_a_side_lead_to_a_low_spade_and_draws_trumps_with_the_top_spade():
    # Trick 1: seat 1 led 4H, seat 2 5H, seat 3 6H, and seat 0 ruffed with the 2S (spades broken); seat 0 leads.
    played = ["2S", "4H", "5H", "6H"]
    others = ["QD JD TD 9D 8D", "7H 8H 9H TH JH", "KC QC JC TC 9C"]
    state = position(["3S 4S 5S 7C 8C"] + others, ["3", "4", "3", "3"], played=played, won=[1, 0, 0, 0])
    assert CARD_SUIT[parse_action(heuristic_play(state))] != 3
    state = position(["AS KS 3S 7C 8C"] + others, ["3", "4", "3", "3"], played=played, won=[1, 0, 0, 0])
    assert heuristic_play(state) == "AS"


def test_heuristic_nil_plays_the_highest_card_that_loses():
    state = position(
        ["AH QH 4H 2C", "KC JC TC", "2D 3D 4D", "9C 8C 7C"], ["nil", "4", "3", "4"], trick="KH 5H 6H", leader=1
    )
    assert heuristic_play(state) == "QH"


def test_heuristic_attacks_an_opponent_nil():
    # Seat 1 (nil) led 7C; seat 2 holds 9C 5C 2C: play under the nil, not the lowest club.
    state = position(["QD JD TD", "KH 4H 3H", "9C 5C 2C AD", "8S 7S 6S"], ["3", "nil", "4", "4"], trick="7C", leader=1)
    assert heuristic_play(state) == "5C"
    state = position(["QD JD TD", "KH 4H 3H", "9C 5C 2C AD", "8S 7S 6S"], ["3", "3", "4", "4"], trick="7C", leader=1)
    assert heuristic_play(state) == "2C"  # no nil to attack: second hand low


def test_heuristic_bids_by_strength_and_nil_with_a_weak_hand():
    rules = preset("standard")
    strong = "AS KS QS JS 4S AH KH AD KD 8D AC TC 9C"
    weak = "2C 3C 4C 5C 2D 3D 4D 6D 2H 3H 5H 7H 2S"
    others = [c for c in range(52) if c not in set(parse_cards(strong)) | set(parse_cards(weak))]
    deal = [
        strong,
        " ".join(action_name(c) for c in others[:13]),
        weak,
        " ".join(action_name(c) for c in others[13:26]),
    ]
    state = HandState(rules, spades_env.core.make_deal(rules, deal), dealer=3)
    assert estimate_tricks(mask_of(parse_cards(strong)), rules) > 7
    bid = HeuristicAgent().act(observation(state))
    assert action_name(bid).startswith("bid") and int(action_name(bid).split()[1]) >= 8
    state.apply(bid)
    state.apply(HeuristicAgent().act(observation(state)))
    assert state.current == 2
    assert action_name(HeuristicAgent().act(observation(state))) == "nil"


def test_blind_nil_only_when_far_behind_and_exchange_passes_danger():
    rules = preset("online")  # blind nil always allowed
    rng = np.random.default_rng(0)
    state = HandState(rules, deal_cards(rules, rng, 3), dealer=3, scores=[0, 0])
    assert state.phase == Phase.BLIND
    assert HeuristicAgent().act(observation(state)) == SEE_CARDS
    state = HandState(rules, deal_cards(rules, rng, 3), dealer=3, scores=[0, 350])
    # The classic thresholds (behind by 200+); the stronger heuristic's stricter ones: test_heuristic_styles.py.
    assert ClassicHeuristicAgent().act(observation(state, scores=[0, 350])) == BLIND_NIL
    # Pagat: a blind nil bidder passes its most dangerous card first.
    rules = preset("pagat")
    hands = [
        "AS KS 2S 3S 2C 3C 4C 5C 2D 3D 4D 5D 6D",
        "4S 5S 6S 7S 8S 6C 7C 8C 9C 7D 8D 9D TD",
        "9S TS JS QS TC JC QC KC AC JD QD KD AD",
        "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
    ]
    state = HandState(rules, spades_env.core.make_deal(rules, hands), dealer=3, scores=[0, 200])
    state.apply(BLIND_NIL)  # seat 0
    while state.phase != Phase.EXCHANGE:
        state.apply(max(a for a in state.legal_actions() if a != BLIND_NIL))
    assert state.current == 0
    assert action_name(HeuristicAgent().act(observation(state, scores=[0, 200]))) == "AS"


def test_forced_actions_are_taken():
    rules = preset("mirror")
    state = HandState(rules, deal_cards(rules, np.random.default_rng(1), 0), dealer=0)
    assert HeuristicAgent().act(observation(state)) == state.legal_actions()[0]


# --------------------------------------------------------------- knowledge
@pytest.mark.parametrize(
    "name",
    ["standard", "jokers", "barmore", "pagat", "cutthroat", "cutthroat3", "mirror", "suicide", "openspiel", "online"],
)
def test_rules_from_view_recovers_the_hand_rules(name):
    rules = preset(name)
    state = HandState(rules, deal_cards(rules, np.random.default_rng(0), 0), dealer=0)
    view = decode_observation(observation(state)["observation"])
    got = rules_from_view(view)
    assert got == rules  # the preset's name is recognised too


def test_rules_from_view_in_a_crazy_rotation():
    game_rules = preset("crazy")
    for k in range(4):
        rules = game_rules.hand_rules(k)
        state = HandState(rules, deal_cards(rules, np.random.default_rng(k), 0), dealer=0)
        view = decode_observation(observation(state, game_rules=game_rules)["observation"])
        assert rules_from_view(view).to_dict() == {**rules.to_dict(), "name": rules_from_view(view).name}


class TruthCheckingTracker(VoidTracker):
    """A void tracker that checks each inferred void against the true hands."""

    def __init__(self, env):
        super().__init__()
        self.env = env
        self.checked = 0
        self.found = 0

    def voids(self, view, rules):
        voids = super().voids(view, rules)
        hand = self.env.hand
        n = hand.num_players
        for slot in range(1, n):
            seat = (hand.current + slot) % n
            for suit in range(4):
                if voids[slot] >> suit & 1:
                    assert not hand.hands[seat] & SUIT_MASKS[suit], (slot, suit)
                    self.found += 1
            self.checked += 1
        return voids


@pytest.mark.parametrize("name", ["standard", "pagat", "cutthroat3", "barmore"])
def test_known_voids_are_true_and_pimc_samples_are_consistent(name):
    rules = preset(name)
    env = spades_env.raw_env(rules=rules, episode="hand")
    found = 0
    for seed in range(3):
        env.reset(seed=seed)
        agent = PIMCAgent(seed=seed, samples=3, oversample=2, bid_samples=2)
        agent.tracker = TruthCheckingTracker(env)
        samples_seen = []
        original = agent._draw_deals

        def draw(rules_, view, unseen, counts, voids, known, model=None):
            deals = original(rules_, view, unseen, counts, voids, known, model)
            samples_seen.append((view, unseen, counts, list(voids), deals))
            return deals

        agent._draw_deals = draw
        heuristic = HeuristicAgent()
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = env.hand.current
            env.step((agent if seat == 0 else heuristic).act(obs))
        found += agent.tracker.found
        for view, unseen, counts, voids, deals in samples_seen:
            gone = 0
            for m in view.played:
                gone |= m
            for hands in deals:
                dealt = 0
                for p in range(1, len(counts)):
                    assert hands[p].bit_count() == counts[p]
                    assert not hands[p] & dealt and not hands[p] & gone and not hands[p] & view.hand
                    assert not hands[p] & ~unseen
                    for suit in range(4):
                        if voids[p] >> suit & 1:
                            assert not hands[p] & SUIT_MASKS[suit]
                    dealt |= hands[p]
    assert found > 0


def test_void_tracker_sees_a_discard_from_an_earlier_trick():
    rules = STD
    hands = ["AC KC 2H 3H", "QC 4H 5H 6H", "2D 3D 4D 5D", "JC 7H 8H 9H"]
    # Trick 1: seat 0 leads AC, seat 1 QC, seat 2 discards 2D (void in clubs), seat 3 JC.
    state = position(hands, ["3", "3", "3", "3"], leader=0)
    tracker = VoidTracker()
    view = decode_observation(observation(state)["observation"])
    tracker.voids(view, rules)
    for card in "AC QC 2D JC".split():
        state.apply(parse_action(card))
    # Seat 0 leads again: it saw seat 2 (its partner, slot 2) fail to follow clubs.
    view = decode_observation(observation(state)["observation"])
    voids = tracker.voids(view, rules)
    assert voids[2] == 1  # void in clubs
    assert voids[1] == 0 and voids[3] == 0


def test_tracker_rebuilds_every_trick_forced_plays_included():
    env = spades_env.raw_env(rules="standard", episode="hand")
    env.reset(seed=12)
    agent, others = HeuristicAgent(), HeuristicAgent()
    history = {}
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.hand.current
        action = (agent if seat == 1 else others).act(obs)
        if seat == 1 and env.hand.phase == Phase.PLAY:
            history = dict(agent.tracker.history)
        env.step(action)
    plays = [(s, a) for s, a in env.hand.history if a < 54]
    tricks = [plays[4 * t : 4 * t + 4] for t in range(13)]
    assert sorted(history) == list(range(12))  # seat 1's last decision saw the 12 tricks before it
    for t, (slots, cards) in history.items():
        assert [((s - 1) % 4, c) for s, c in tricks[t]] == list(zip(slots, cards))


def test_sample_hands_respects_counts_voids_and_known_cards():
    rng = np.random.default_rng(0)
    unseen = mask_of(range(13, 52))  # diamonds, hearts, spades
    counts = [0, 13, 13, 13]
    voids = [0, 1 << 1, 1 << 2, 0]  # slot 1 lacks diamonds, slot 2 hearts
    known = [0, 0, mask_of(parse_cards("AS KS")), 0]
    for _ in range(20):
        hands = sample_hands(rng, unseen, counts, voids, known)
        assert hands[2] & known[2] == known[2]
        assert not hands[1] & SUIT_MASKS[1] and not hands[2] & SUIT_MASKS[2]
        assert sum(h.bit_count() for h in hands) == 39
        assert hands[1] | hands[2] | hands[3] == unseen


def test_sample_hands_quick_tries_deal_as_they_always_did():
    # pinned from the sampler before its look-ahead existed: where the quick tries succeed, the deals are unchanged
    rng = np.random.default_rng(5)
    unseen, counts, voids = mask_of(range(13, 52)), [0, 13, 13, 13], [0, 1 << 1, 1 << 2, 0]
    assert sample_hands(rng, unseen, counts, voids) == [0, 0xAC2732C000000, 0x11980029DC000, 0x4240CD1622000]
    assert sample_hands(rng, unseen, counts, voids) == [0, 0x8055EF4000000, 0x3E80003266000, 0x412A108D98000]


def test_sample_hands_deals_the_one_consistent_deal_the_quick_tries_miss():
    # from a cutthroat search-vs-PIMC evaluation that stopped on it: slot 1 is void in all but spades and must
    # take the 6 spades left, slot 2 (void in hearts and spades) and slot 3 share the clubs and diamonds
    unseen = mask_of(parse_cards("3C 6C 8C 9C QC 2D 4D 5D 7D TD JD KD 4S 5S 6S 8S KS AS"))
    counts, voids = [0, 6, 6, 6], [0, 0b0111, 0b1100, 0b0100]
    spades = unseen & SUIT_MASKS[3]
    rng = np.random.default_rng(0)
    for _ in range(20):
        hands = sample_hands(rng, unseen, counts, voids, max_tries=1)
        assert hands[1] == spades and hands[0] == 0 and hands[1] | hands[2] | hands[3] == unseen
        assert [h.bit_count() for h in hands] == counts
        assert not hands[2] & (SUIT_MASKS[2] | SUIT_MASKS[3])
    with pytest.raises(SamplingError, match="consistently with the known voids"):  # no such deal: still an error
        sample_hands(rng, unseen, [0, 7, 6, 5], voids)


def test_sample_hands_finds_a_deal_whenever_the_true_one_exists():
    rng = np.random.default_rng(1)
    for _ in range(300):
        sizes = [0, *rng.integers(1, 14, size=3).tolist()]
        cards = rng.permutation(52).tolist()
        hands, start = [0] * 4, 0
        for p in (1, 2, 3):
            hands[p] = mask_of(cards[start : start + sizes[p]])
            start += sizes[p]
        voids = [0] + [sum(1 << s for s in range(4) if not hands[p] & SUIT_MASKS[s]) for p in (1, 2, 3)]
        unseen = hands[1] | hands[2] | hands[3] | mask_of(cards[start : start + int(rng.integers(0, 3))])  # aside
        got = sample_hands(rng, unseen, sizes, voids, max_tries=int(rng.integers(0, 2)))
        assert [h.bit_count() for h in got] == sizes and not (got[1] & got[2] or got[2] & got[3] or got[1] & got[3])
        assert all(not got[p] & SUIT_MASKS[s] for p in (1, 2, 3) for s in range(4) if voids[p] >> s & 1)
        assert (got[1] | got[2] | got[3]) & ~unseen == 0


def test_equivalent_choices_keep_one_card_per_run():
    legal = mask_of(parse_cards("KH QH 9H 2C"))
    unseen = mask_of(parse_cards("JH TH AH 3C"))
    got = sorted(action_name(c) for c in equivalent_choices(legal, unseen, False))
    assert got == ["2C", "9H", "QH"]


def test_pimc_is_reproducible_with_a_seed():
    rules = STD
    state = HandState(rules, deal_cards(rules, np.random.default_rng(3), 0), dealer=0)
    h = HeuristicAgent()
    while state.phase != Phase.PLAY or len(state.trick_cards) != 1:
        state.apply(h.act(observation(state)))
    obs = observation(state)
    a = PIMCAgent(seed=7, samples=4)
    b = PIMCAgent(seed=7, samples=4)
    assert a.act(obs) == b.act(obs)
    assert a.last_values == b.last_values and a.last_values


def test_pimc_searches_bids_around_the_heuristic_bid():
    rules = STD
    state = HandState(rules, deal_cards(rules, np.random.default_rng(8), 3), dealer=3)
    state.apply(HeuristicAgent().act(observation(state)))  # seat 0 bids; seat 1 is to bid
    obs = observation(state)
    heuristic_bid = HeuristicAgent().act(obs)
    agent = PIMCAgent(seed=0, bid_samples=3)
    action = agent.act(obs)
    assert obs["action_mask"][action] == 1 and action in agent.last_values
    assert heuristic_bid in agent.last_values and len(agent.last_values) >= 2
    assert all(abs(a - heuristic_bid) <= 1 or action_name(a) == "nil" for a in agent.last_values)


# ---------------------------------------------------------------- position
def test_build_position_matches_a_hand_played_to_that_point():
    rules = STD
    rng = np.random.default_rng(11)
    state = HandState(rules, deal_cards(rules, rng, 2), dealer=2)
    h = HeuristicAgent()
    for _ in range(4 + 23):  # the bids, then 23 cards (the middle of trick 6)
        state.apply(h.act(observation(state)))
    rebuilt = build_position(
        rules,
        2,
        state.hands,
        bid_kinds=state.bid_kinds,
        bid_values=state.bid_values,
        tricks_won=state.tricks_won,
        played=state.played,
        trick_cards=state.trick_cards,
        leader=state.leader,
    )
    assert rebuilt.current == state.current and rebuilt.legal_mask() == state.legal_mask()
    assert rebuilt.spades_broken == state.spades_broken and rebuilt.trick_index == state.trick_index
    while not state.is_over:
        action = h.act(observation(state))
        state.apply(action)
        rebuilt.apply(action)
    assert rebuilt.tricks_won == state.tricks_won


def test_build_position_bidding_phase_and_validation():
    rules = STD
    deal = deal_cards(rules, np.random.default_rng(0), 0)
    hands = [mask_of(h) for h in deal.hands]
    state = build_position(
        rules, 0, hands, bid_kinds=[0, BidKind.NUMBER, 0, 0], bid_values=[0, 3, 0, 0], phase=Phase.BID
    )
    assert state.phase == Phase.BID and state.current == 2
    with pytest.raises(PositionError, match="appear twice"):
        build_position(rules, 0, [hands[0], hands[0], hands[2], hands[3]], phase=Phase.BID)
    with pytest.raises(PositionError, match="leader"):
        build_position(rules, 0, hands, bid_kinds=[1] * 4, bid_values=[3] * 4)


# ---------------------------------------------------------------- registry
def test_make_agent_by_name_and_unknown_names():
    assert isinstance(make_agent("random", seed=1), RandomAgent)
    assert isinstance(make_agent("heuristic"), HeuristicAgent)
    assert isinstance(make_agent("pimc", samples=3), PIMCAgent)
    assert {"random", "heuristic", "pimc"} <= set(available_agents())
    with pytest.raises(UnknownAgentError, match=r"unknown agent 'nope'.*heuristic.*pimc.*random"):
        make_agent("nope")
    with pytest.raises(FileNotFoundError):
        make_agent("missing_policy.pt")


def test_checkpoint_loader_hook(tmp_path, monkeypatch):
    monkeypatch.setattr(registry, "_LOADERS", [])
    monkeypatch.setattr(registry, "_plugins_loaded", True)  # no plugin may register into the empty list
    ckpt = tmp_path / "tiny.pt"
    ckpt.write_text("weights")
    with pytest.raises(UnknownAgentError, match="no checkpoint loader"):
        make_agent(str(ckpt))

    def loader(path, **options):
        if not str(path).endswith(".pt"):
            return None
        agent = RandomAgent(seed=options.get("seed"))
        agent.loaded_from = str(path)
        return agent

    register_checkpoint_loader("test", loader)
    agent = make_agent(str(ckpt), seed=3)
    assert agent.loaded_from == str(ckpt)
    # A released policy name resolves to spades_env/policies/<name>.pt.
    monkeypatch.setattr(registry, "POLICY_DIR", tmp_path)
    assert make_agent("tiny").loaded_from == str(ckpt)
    assert "tiny" in registry.released_policies()


def test_register_agent(monkeypatch):
    monkeypatch.setattr(registry, "_FACTORIES", dict(registry._FACTORIES))
    monkeypatch.setattr(registry, "_DESCRIPTIONS", dict(registry._DESCRIPTIONS))
    register_agent("lowest", lambda **kw: RandomAgent(**kw), "test agent")
    assert isinstance(make_agent("lowest", seed=0), RandomAgent)
    with pytest.raises(ValueError, match="already registered"):
        register_agent("lowest", lambda **kw: None)


def test_play_model_weights_deals_by_the_heuristic_plays():
    from spades_env.agents.pimc import PlayModel

    # Seat 0 led 5C and seat 1 followed with the 3C; seat 2 is to act (slots: seat 3 = 1, seat 0 = 2, seat 1 = 3).
    hands = ["AH KH QH", "9D 8D 7D", "AD KD QD 4C", "JS TS 9S"]
    state = position(hands, ["3", "3", "3", "3"], trick="5C 3C", leader=0)
    view = decode_observation(observation(state)["observation"])
    model = PlayModel(STD, view, {}, depth=3, eps=0.25, bags_by_seat=[0] * 4)
    me, left, partner = mask_of(parse_cards(hands[2])), mask_of(parse_cards(hands[3])), mask_of(parse_cards(hands[0]))
    # If seat 1 had held the 2C it would have played it (second hand low): such deals are unlikely.
    holds_deuce = mask_of(parse_cards("2C 9D 8D"))
    no_deuce = mask_of(parse_cards("8C 9D 8D"))
    with_deuce = model.weight([me, left, partner, holds_deuce])
    without = model.weight([me, left, partner, no_deuce])
    assert 0 < with_deuce == pytest.approx(0.25 * without)


# ------------------------------------------------------ other env interfaces
@pytest.mark.parametrize("name", ["standard", "cutthroat3", "barmore"])
def test_agents_through_the_gymnasium_wrapper(name):
    from spades_env.gym_env import SingleAgentSpadesEnv

    n = preset(name).num_players
    opponents = [HeuristicAgent(), PIMCAgent(seed=0, samples=2, bid_samples=2), RandomAgent(seed=3)][: n - 1]
    env = SingleAgentSpadesEnv(rules=name, episode="hand", observation_format="dict", opponents=opponents)
    learner = HeuristicAgent()
    obs, info = env.reset(seed=1)
    done = False
    while not done:
        action = learner.act(obs)
        assert obs["action_mask"][action] == 1
        obs, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    assert not info.get("illegal_action", False)


@pytest.mark.parametrize("name", ["standard", "jokers", "cutthroat", "pagat"])
def test_agents_act_on_batch_engine_rows(name):
    from spades_env.batch import BatchEnv

    env = BatchEnv(6, rules=name, episode="hand", seed=2)
    obs, mask, to_act = env.reset(seed=2)
    agents = [HeuristicAgent(), RandomAgent(seed=1)]
    finished = 0
    for step in range(4 * 60):
        actions = agents[step % 2].act_batch(obs, mask)  # the engine raises on an illegal action
        obs, mask, to_act, rewards, dones, info = env.step(actions)
        finished += int(dones.sum())
    assert finished >= 6


# ------------------------------------------------------------------- slow
@pytest.mark.slow
def test_heuristic_wins_nearly_every_game_against_random():
    report = evaluate(EvalConfig("heuristic", "random", b_options={"seed": 1}, deals=0, games=50, progress=False))
    assert report["games"]["a_wins"] >= 98  # of 100 games to 500


@pytest.mark.slow
def test_pimc_beats_the_heuristic_on_duplicate_deals():
    report = evaluate(EvalConfig("pimc", "heuristic", deals=60, seed=1, progress=False))
    assert report["deals"]["points_diff"]["mean"] > 0


# ---------------------------------------------------------------- policies residual over the heuristic
def _residual_agent(tmp_path, weight: float, on_bids: bool = False):
    import torch

    from spades_env.nn import PolicyNet, save_policy

    torch.manual_seed(0)
    path = tmp_path / f"residual_{weight}_{on_bids}.pt"
    save_policy(path, PolicyNet((32, 32), prior_weight=weight, prior_on_bids=on_bids))
    return make_agent(str(path))


@pytest.mark.parametrize("on_bids", [False, True])
def test_residual_policy_with_a_large_prior_plays_the_heuristics_cards(tmp_path, on_bids):
    from spades_env.core.actions import BID_OFFSET

    residual = _residual_agent(tmp_path, 1e3, on_bids)
    assert residual.describe()["prior_weight"] == 1e3
    reference = ClassicHeuristicAgent()  # the prior is the classic heuristic
    env = spades_env.env(rules="standard", episode="hand")
    env.reset(seed=5)
    cards = bids_matched = bids = 0
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action, expected = residual.act(obs), reference.act(obs)
        if expected < BID_OFFSET:
            assert action == expected  # card decisions follow the prior
            cards += 1
        else:
            bids += 1
            bids_matched += action == expected
        env.step(action)
    assert cards == 52 and bids == 4
    # Bids follow the prior only when it covers them; the untrained net's own bids differ from the heuristic's.
    assert (bids_matched == 4) if on_bids else (bids_matched < 4)


def test_policy_file_prior_round_trips_and_old_files_have_none(tmp_path):
    import torch

    from spades_env.nn import CheckpointError, PolicyNet, load_policy, save_policy

    path = tmp_path / "p.pt"
    save_policy(path, PolicyNet((16,), prior_weight=2.5, prior_on_bids=True))
    policy, _ = load_policy(path)
    assert (policy.prior_weight, policy.prior_on_bids) == (2.5, True)
    payload = torch.load(path, weights_only=True)
    del payload["heuristic_prior"]  # a file written before the prior existed
    torch.save(payload, path)
    assert load_policy(path)[0].prior_weight == 0.0
    payload["heuristic_prior"] = {"weight": -1.0, "on_bids": False}
    torch.save(payload, path)
    with pytest.raises(CheckpointError, match="prior_weight must be >= 0"):
        load_policy(path)


def test_released_ppo_policy_loads_by_name_and_plays_legal_games():
    from spades_env.agents.policy import RELEASED_POLICY, PolicyAgent
    from spades_env.nn import load_policy

    assert RELEASED_POLICY.stat().st_size < 5 * 2**20  # a few MB at most
    _, meta = load_policy(RELEASED_POLICY)
    assert {"command", "config", "seed", "training_wall_minutes"} <= set(meta)  # how to reproduce it
    agent = make_agent("ppo")
    assert isinstance(agent, PolicyAgent)
    env = play_env("standard", [agent] * 4, seed=3)  # checks every action against the mask
    assert env.game.over


AGENT_CODE_NOT_IN_THE_NETWORK = (
    "spades_env.agents.heuristic",
    "spades_env.agents.pimc",
    "spades_env.agents.search",
    "spades_env.agents.knowledge",
)


def modules_called_while_the_release_plays(name: str, episode: str, seed: int) -> set[str]:
    """The modules of every Python function called while the released policy plays an episode of preset ``name``
    at every seat (the episode checked to its end)."""
    import sys

    agent = make_agent("ppo")
    assert agent.policy.prior_weight == 0 and agent.heuristic is None  # a pure network: no heuristic prior
    rules = preset(name)
    called: set[str] = set()

    def record(frame, event, _arg):
        if event == "call":
            called.add(frame.f_globals.get("__name__", ""))

    sys.setprofile(record)
    try:
        env = play_env(rules, [agent] * rules.num_players, seed=seed, episode=episode)
    finally:
        sys.setprofile(None)
    assert env.episode_over and (episode == "hand" or env.game.over)
    assert {"spades_env.nn.nets", "spades_env.agents.policy"} <= called  # the recording saw the network play
    return called


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_the_released_ppo_policy_plays_a_hand_of_every_preset_without_heuristic_or_search_code(name):
    """Every Python function called while the released policy plays a hand at every seat is recorded; none may
    belong to the heuristic, PIMC, the learned search or their shared knowledge module (whole games: below)."""
    called = modules_called_while_the_release_plays(name, "hand", seed=11)
    assert sorted(m for m in called if m.startswith(AGENT_CODE_NOT_IN_THE_NETWORK)) == []


@pytest.mark.parametrize("name", ["standard", "two_player"])
def test_the_released_ppo_policy_plays_whole_games_without_heuristic_or_search_code(name):
    called = modules_called_while_the_release_plays(name, "game", seed=11)
    assert sorted(m for m in called if m.startswith(AGENT_CODE_NOT_IN_THE_NETWORK)) == []


@pytest.mark.slow
@pytest.mark.parametrize("name", PRESET_NAMES)
def test_the_released_ppo_policy_plays_whole_games_of_every_preset_without_heuristic_or_search_code(name):
    called = modules_called_while_the_release_plays(name, "game", seed=12)
    assert sorted(m for m in called if m.startswith(AGENT_CODE_NOT_IN_THE_NETWORK)) == []


def test_the_standard_only_release_stays_loadable_by_name_beside_the_every_variant_release():
    from spades_env.core.actions import NUM_ACTIONS

    standard, every = make_agent("ppo_standard"), make_agent("ppo")
    assert {"ppo", "ppo_standard"} <= set(registry.released_policies())
    assert standard.policy.num_actions == 88 and every.policy.num_actions == NUM_ACTIONS  # drawing turns: only ppo
    from spades_env.agents.policy import RELEASED_POLICY
    from spades_env.nn import load_policy

    assert "configs/train/every_variant_v4.yaml" in load_policy(RELEASED_POLICY)[1]["command"]  # its recipe
    earlier = registry.POLICY_DIR / "ppo_v3.pt"  # the release before it, under its own name
    assert "configs/train/every_variant.yaml" in load_policy(earlier)[1]["command"]
    assert make_agent("ppo_v3").policy.num_actions == NUM_ACTIONS
    env = play_env("standard", [standard, every, standard, every], seed=5, episode="hand")
    assert env.episode_over
