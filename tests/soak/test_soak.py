"""Soak: long random play on every preset with the invariants checked at every decision.

The batch engine plays the volume (``DECISIONS_PER_PRESET`` random legal decisions per preset,
many tables at once) and the AEC env a smaller share (``AEC_DECISIONS_PER_PRESET``), except for
two-player Spades, where the AEC env plays as many (``TWO_PLAYER_DECISIONS``). Invariants:

* every card of the pack is in exactly one place: a hand, played this hand, set aside, or (two
  players) discarded or still in the stock;
* at a hand's end the seats' tricks sum to the hand's tricks;
* scores (and bags) move only at a hand's end;
* the seat to act always has a legal action;
* partners are paid the same reward.

Run with ``pytest -m slow tests/soak``.
"""

from __future__ import annotations

import numpy as np
import pytest

import spades_env
from spades_env.batch import BatchEnv
from spades_env.core.cards import NUM_CARDS, deck
from spades_env.core.drawing import has_drawing
from spades_env.core.rules import PRESETS
from spades_env.obs.encode import OBS_SLICES, STATE_SLICES

pytestmark = pytest.mark.slow

DECISIONS_PER_PRESET = 100_000
AEC_DECISIONS_PER_PRESET = 10_000
TWO_PLAYER_DECISIONS = 100_000
TABLES = 256


def pack_of(rules) -> np.ndarray:
    """0/1 per card id: the cards of this variant's pack."""
    out = np.zeros(NUM_CARDS, np.int64)
    out[list(deck(rules.jokers))] = 1
    return out


def random_legal(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row of a mask array."""
    return np.argmax(rng.random(masks.shape) * masks, axis=1)


def check_partners_paid_alike(rules, rewards: np.ndarray) -> None:
    if rules.partnerships:
        np.testing.assert_array_equal(rewards[..., 0], rewards[..., 2])
        np.testing.assert_array_equal(rewards[..., 1], rewards[..., 3])


# -------------------------------------------------------------- batch engine
def card_counts(env: BatchEnv) -> np.ndarray:
    """(tables, 54): how many times each card is in a hand, played this hand, set aside, or (two players)
    discarded or in the stock."""
    state = env.state()
    n = env.num_players
    hands = state[:, STATE_SLICES["hands"]].reshape(env.num_envs, 4, NUM_CARDS)[:, :n].sum(axis=1)
    played = state[:, OBS_SLICES["played"]].reshape(env.num_envs, 4, NUM_CARDS)[:, :n].sum(axis=1)
    aside = state[:, STATE_SLICES["set_aside"]]
    discarded = state[:, STATE_SLICES["discarded"]].reshape(env.num_envs, 4, NUM_CARDS)[:, :n].sum(axis=1)
    stock = state[:, STATE_SLICES["stock"]] > 0
    return (hands + played + aside + discarded + stock).round().astype(np.int64)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_batch_soak_keeps_the_invariants(name):
    env = BatchEnv(TABLES, rules=name, episode="game", seed=11, observations=False)
    rng = np.random.default_rng(5)
    packs = {}
    decisions = 0
    hands_ended = 0
    while decisions < DECISIONS_PER_PRESET:
        masks = env.action_masks()
        assert masks.any(axis=1).all(), "a table's seat to act has no legal action"
        scores, bags = env.scores.copy(), env.bags.copy()
        _, _, _, rewards, dones, info = env.step(random_legal(rng, masks))
        decisions += TABLES
        over = np.asarray(info["hand_over"], bool)
        hands_ended += int(over.sum())
        # scores and bags move only where a hand ended (a finished episode restarts its table at 0)
        moved = (env.scores != scores).any(axis=1) | (env.bags != bags).any(axis=1)
        assert not (moved & ~over).any(), "scores or bags moved without a hand's end"
        if over.any():
            tricks = info["tricks"][over].sum(axis=1)
            expected = [hand_rules_of_result(env, info, t).num_tricks for t in np.flatnonzero(over)]
            np.testing.assert_array_equal(tricks, expected)
            kept = over & ~dones
            np.testing.assert_array_equal(env.scores[kept], info["scores"][kept])
        check_partners_paid_alike(env.rules, rewards)
        counts = card_counts(env)
        for table in range(TABLES):
            rules = env.hand_rules(table)
            pack = packs.setdefault(rules.jokers, pack_of(rules))
            if not np.array_equal(counts[table], pack):
                raise AssertionError(f"table {table}: cards out of place {np.flatnonzero(counts[table] != pack)}")
    assert hands_ended > 0


def hand_rules_of_result(env: BatchEnv, info, table: int):
    """Rules of the hand that ended at a table in this step."""
    return (
        spades_env.preset(info["hand_rules"][int(info["hand_rules_id"][table])])
        if env.rules.crazy is not None
        else env.rules
    )


# ------------------------------------------------------------------ AEC env
@pytest.mark.parametrize("name", sorted(PRESETS))
def test_aec_soak_keeps_the_invariants(name):
    env = spades_env.raw_env(rules=name, episode="game")
    rng = np.random.default_rng(3)
    env.reset(seed=17)
    decisions = 0
    hands_ended = 0
    volume = TWO_PLAYER_DECISIONS if has_drawing(env.rules) else AEC_DECISIONS_PER_PRESET
    while decisions < volume:
        if all(env.terminations.values()) or all(env.truncations.values()):
            env.reset()
            continue
        agent = env.agent_selection
        mask = env.observe(agent)["action_mask"]
        assert mask.any(), f"{agent} to act has no legal action"
        scores, bags, hands_before = list(env.game.scores), list(env.game.bags), len(env.game.results)
        env.step(int(random_legal(rng, mask[None])[0]))
        decisions += 1
        check_partners_paid_alike(env.rules, np.array([env.rewards[a] for a in env.possible_agents]))
        if len(env.game.results) == hands_before:
            assert (list(env.game.scores), list(env.game.bags)) == (scores, bags), "scores moved mid-hand"
        else:
            hands_ended += 1
            result = env.infos[agent]["hand_result"]
            rules = env.rules.hand_rules(result["hand_index"])
            assert sum(result["tricks"]) == rules.num_tricks
            assert list(env.game.scores) == result["scores"]
        hand = env.hand
        held = [hand.hands[s] for s in range(hand.num_players)] + [hand.played[s] for s in range(hand.num_players)]
        held += [1 << c for c in hand.deal.set_aside]
        held += list(hand.discards) + [1 << c for c in hand.stock[2 * hand.draw_turn :]]  # two players
        union, total = 0, 0
        for bits in held:
            union |= bits
            total += bits.bit_count()
        assert union == sum(1 << c for c in deck(hand.rules.jokers)) and total == len(deck(hand.rules.jokers)), (
            "a card is missing or in two places"
        )
    assert hands_ended > 0
