"""table_image: an RGB uint8 picture of the table that follows the game and the viewer."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from spades_env.aec import raw_env
from spades_env.render_image import IMAGE_HEIGHT, IMAGE_WIDTH, table_image


def _env(rules: str = "standard", actions: int = 0):
    env = raw_env(rules=rules)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(actions):
        env.step(int(rng.choice(env.legal_actions())))
    return env


def _picture(env, viewer=None):
    return table_image(env.hand, env.game.scores, env.game.bags, env.rules, viewer=viewer)


@pytest.mark.parametrize("rules", ["standard", "cutthroat3", "cutthroat", "jokers"])
def test_table_image_shape_and_dtype(rules):
    image = _picture(_env(rules, actions=6))
    assert image.shape == (IMAGE_HEIGHT, IMAGE_WIDTH, 3)
    assert image.dtype == np.uint8


@pytest.mark.parametrize("earlier, later", [(0, 4), (4, 6), (6, 10), (10, 30)])
def test_table_image_changes_as_the_game_progresses(earlier, later):
    assert not np.array_equal(_picture(_env(actions=earlier)), _picture(_env(actions=later)))


def test_table_image_same_state_same_picture():
    assert np.array_equal(_picture(_env(actions=9)), _picture(_env(actions=9)))


def test_table_image_viewer_hides_the_other_hands():
    env = _env(actions=6)
    assert not np.array_equal(_picture(env), _picture(env, viewer=0))
    assert not np.array_equal(_picture(env, viewer=0), _picture(env, viewer=1))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"viewer": 4}, "viewer must be None or a seat in 0..3"),
        ({"names": ["a", "b"]}, "one name per seat"),
        ({"scores": [0]}, "one value per side"),
    ],
)
def test_table_image_bad_input_is_named(kwargs, message):
    env = _env()
    args = {"scores": env.game.scores, "bags": env.game.bags, **kwargs}
    with pytest.raises(ValueError, match=message):
        table_image(env.hand, args.pop("scores"), args.pop("bags"), env.rules, **args)


def test_table_image_without_pillow_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)  # import PIL now fails
    env = _env()
    with pytest.raises(ImportError, match=r"spades_env\[eval\]"):
        _picture(env)
