"""The environment page's at-a-glance and arguments tables state what the code does: agents, counts, spaces and
bounds from live envs, every argument and default from the signatures (docs/environment.md)."""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

import spades_env
from spades_env import SingleAgentSpadesEnv
from spades_env.batch import BatchEnv
from spades_env.core.actions import NUM_ACTIONS
from spades_env.core.rules import preset
from spades_env.obs import OBS_SIZE, OBSERVATION
from spades_env.obs.encode import STATE_SIZE

from .examples import ROOT

PAGE = (ROOT / "docs" / "environment.md").read_text(encoding="utf-8")


def table(first_header: str) -> dict[str, list[str]]:
    """The markdown table whose first header cell is ``first_header``: {first cell: the other cells}."""
    lines = PAGE.splitlines()
    start = next(
        i
        for i, line in enumerate(lines)
        if line.startswith("|") and line.strip("|").split("|")[0].strip() == first_header
    )
    rows = {}
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows[cells[0]] = cells[1:]
    return rows


def test_at_a_glance_matches_live_envs():
    glance = {key: cells[0] for key, cells in table("").items()}
    env = spades_env.env()
    env.reset(seed=0)
    assert glance["Agents"] == f"`agents = {env.agents!r}`"
    counts = {
        name: len(spades_env.env(rules=name).possible_agents) for name in ("standard", "cutthroat3", "two_player")
    }
    assert glance["Number of agents"] == f"{counts['standard']} (3 in `cutthroat3`, 2 in `two_player`)"
    assert counts == {"standard": 4, "cutthroat3": 3, "two_player": 2}
    assert glance["Action shape"] == f"Discrete({NUM_ACTIONS})" == str(env.action_space("player_0"))
    assert glance["Action values"] == f"[0, {NUM_ACTIONS - 1}]"
    assert glance["Observation shape"] == f'`{{"observation": ({OBS_SIZE},), "action_mask": ({NUM_ACTIONS},)}}`'
    assert glance["State shape"].startswith(f"({STATE_SIZE},)") and env.unwrapped.state().shape == (STATE_SIZE,)
    space = env.observation_space("player_0")["observation"]
    scores = OBSERVATION.slices["scores"] if hasattr(OBSERVATION, "slices") else OBSERVATION["scores"]
    outside = np.ones(OBS_SIZE, dtype=bool)
    outside[scores] = False
    assert (space.low[outside] >= 0).all() and (space.high[outside] <= 1).all()  # [0, 1] but the scores block
    bound = float(space.high.max())
    assert f"within +-{bound:.1f} in `standard`" in glance["Observation values"] and -space.low.min() == pytest.approx(
        bound
    )
    assert glance["Parallel API"] == "No" and not hasattr(spades_env, "parallel_env")
    assert not env.unwrapped.metadata["is_parallelizable"]


def _defaults(callable_) -> dict[str, str]:
    parameters = inspect.signature(callable_).parameters
    return {
        name: "(required)" if p.default is inspect.Parameter.empty else f"`{p.default!r}`".replace("'", '"')
        for name, p in parameters.items()
        if name != "self"
    }


@pytest.mark.parametrize(
    ("header", "callable_"),
    [
        ("`raw_env` / `env`", spades_env.raw_env.__init__),
        ("`SingleAgentSpadesEnv`", SingleAgentSpadesEnv.__init__),
        ("`BatchEnv`", BatchEnv.__init__),
    ],
)
def test_every_argument_and_default_is_in_the_arguments_tables(header, callable_):
    rows = {re.sub(r"^`|`$", "", key): cells[0] for key, cells in table(header).items()}
    assert rows == _defaults(callable_)


def test_the_first_seat_to_act_is_the_dealers_left():
    env = spades_env.raw_env()
    for seed in range(6):
        env.reset(seed=seed)
        dealer = env.unwrapped.game.dealer
        assert env.agent_selection == f"player_{(dealer + 1) % 4}"
    assert len({(env.reset(seed=s), env.unwrapped.game.dealer)[1] for s in range(12)}) > 1  # drawn from the seed
    assert preset("standard").num_players == 4
