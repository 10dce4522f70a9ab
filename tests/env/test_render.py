"""Text rendering: ansi returns a readable table, human prints it, no mode warns."""

from __future__ import annotations

import re

import pytest

import spades_env
from spades_env.core.actions import bid_action, card_action

from .helpers import MIXED_DEAL


def started(render_mode, **options):
    env = spades_env.raw_env(render_mode=render_mode)
    env.reset(options={"deal": MIXED_DEAL, "dealer": 0, "scores": [30, -10], "bags": [2, 3], **options})
    return env


def test_ansi_render_returns_a_table_with_bids_and_scores():
    env = started("ansi")
    env.step(bid_action(4))  # seat 1
    env.step(bid_action(0))  # seat 2: nil
    text = env.render()
    assert isinstance(text, str)
    lines = text.splitlines()
    assert len(lines) >= 6
    for seat in range(4):
        assert any(line.lstrip().startswith(f"player_{seat}") for line in lines)
    assert re.search(r"player_1 \| bid\s+4 ", text)
    assert re.search(r"player_2 \| bid\s+nil ", text, re.IGNORECASE)
    assert "30 (2 bags)" in text and "-10 (3 bags)" in text
    assert "target 500" in text
    assert "dealer player_0" in text
    assert "to act: player_3" in text


def test_ansi_render_shows_the_trick_and_the_hands():
    env = started("ansi")
    for n in (4, 2, 3, 0):
        env.step(bid_action(n))
    env.step(card_action("AH"))
    text = env.render()
    assert "AH" in text
    assert "phase play" in text
    assert "spades broken: no" in text


def test_human_render_prints(capsys):
    env = started("human")
    capsys.readouterr()
    assert env.render() is None
    out = capsys.readouterr().out
    assert "player_0" in out and "target 500" in out
    env.step(bid_action(4))  # human mode also prints after each step
    assert "player_1" in capsys.readouterr().out


def test_render_without_mode_warns_and_returns_none():
    env = started(None)
    with pytest.warns(UserWarning, match="render_mode"):
        assert env.render() is None


def test_render_before_reset_returns_none():
    assert spades_env.raw_env(render_mode="ansi").render() is None


def test_single_agent_env_render_delegates():
    env = spades_env.SingleAgentSpadesEnv(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and "player_0" in text
