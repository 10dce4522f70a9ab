"""What a trick shows the table (core.tricks): the one home of public voids."""

from __future__ import annotations

from spades_env.core import preset
from spades_env.core.cards import NUM_CARDS, SPADE_MASK, Suit, parse_cards
from spades_env.core.tricks import (
    FOLLOWS,
    LEADS_BEFORE_BROKEN,
    LEADS_FREELY,
    LOWEST_CLUB_TRICK,
    VOIDS_SHOWN,
    play_situation,
    trick_voids,
    voids_shown,
    voids_shown_table,
)

CLUBS, DIAMONDS, HEARTS, SPADES = (1 << s for s in Suit)
SIDE_SUITS = CLUBS | DIAMONDS | HEARTS


def cards(text: str) -> list[int]:
    return parse_cards(text.split())


def shown(rules, text: str, gone_before: int = 0, first_trick: bool = False) -> list[int]:
    voids = [0] * rules.num_players
    trick_voids(rules, list(range(rules.num_players)), cards(text), gone_before, first_trick, voids)
    return voids


def test_failing_to_follow_suit_shows_a_void_in_the_suit_led():
    assert shown(preset("standard"), "AC 2D 3C 4S") == [0, CLUBS, 0, CLUBS]


def test_a_spade_led_before_spades_are_broken_shows_nothing_but_spades():
    assert shown(preset("standard"), "AS 2S 3S 4S") == [SIDE_SUITS, 0, 0, 0]


def test_a_spade_led_after_spades_are_broken_shows_nothing():
    broken = 1 << parse_cards(["KS"])[0]
    assert broken & SPADE_MASK
    assert shown(preset("standard"), "AS 2S 3S 4S", gone_before=broken) == [0, 0, 0, 0]


def test_a_joker_counts_as_a_spade():
    assert shown(preset("jokers"), "BJ 2S 3S 4S") == [SIDE_SUITS, 0, 0, 0]
    assert shown(preset("jokers"), "AH LJ 3H 4H") == [0, HEARTS, 0, 0]


def test_any_lead_is_free_when_the_dealer_leads_any():
    assert shown(preset("barmore"), "AS 2S 3S 4S") == [0, 0, 0, 0]


def test_the_lowest_club_first_trick_shows_no_club_and_a_spade_shows_nothing_else():
    pagat = preset("pagat")
    assert shown(pagat, "2C 3D 4S 5C", first_trick=True) == [0, CLUBS, SIDE_SUITS, 0]
    # the same cards on a later trick follow the usual rule: a discard shows the suit led only
    assert shown(pagat, "2C 3D 4S 5C") == [0, CLUBS, CLUBS, 0]


def test_the_table_and_the_scalar_rule_agree():
    standard, pagat = preset("standard"), preset("pagat")
    assert play_situation(standard, True, True, False) == LEADS_BEFORE_BROKEN
    assert play_situation(standard, False, True, True) == LEADS_FREELY
    assert play_situation(standard, True, False, False) == FOLLOWS
    assert play_situation(pagat, True, False, False) == LOWEST_CLUB_TRICK
    assert play_situation(pagat, False, False, False) == FOLLOWS
    assert voids_shown(FOLLOWS, Suit.HEARTS, parse_cards(["2S"])[0]) == HEARTS
    assert VOIDS_SHOWN[FOLLOWS, Suit.HEARTS, Suit.SPADES] == HEARTS
    assert not VOIDS_SHOWN.flags.writeable


def test_voids_shown_table_is_voids_shown_of_play_situation_in_every_case():
    for name in ("standard", "pagat", "barmore", "jokers"):
        rules = preset(name)
        table = voids_shown_table(rules)
        for first in (False, True):
            for leads in (False, True):
                for broken in (False, True):
                    situation = play_situation(rules, first, leads, broken)
                    for led in Suit:
                        assert list(table[first][leads][broken][led]) == [
                            voids_shown(situation, led, card) for card in range(NUM_CARDS)
                        ], (name, first, leads, broken, led)
