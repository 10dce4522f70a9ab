"""``import spades_env`` is light; the env ids register whichever library is imported first."""

import json
import subprocess
import sys

import pytest

HEAVY = ("gymnasium", "pettingzoo", "yaml", "torch", "scipy", "matplotlib", "tqdm")


def _run(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout


def test_import_spades_env_loads_no_rl_library_yaml_or_torch():
    out = _run("import sys, json, spades_env; print(json.dumps(sorted(sys.modules)))")
    loaded = {m.split(".")[0] for m in json.loads(out)}
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_public_names_resolve_to_their_home_modules():
    import spades_env
    from spades_env.aec import env, raw_env
    from spades_env.core.rules import Rules

    assert spades_env.env is env and spades_env.raw_env is raw_env and spades_env.Rules is Rules
    assert set(spades_env.__all__) <= set(dir(spades_env))


def test_unknown_public_name_is_an_attribute_error_naming_it():
    import spades_env

    with pytest.raises(AttributeError, match="no_such_name"):
        spades_env.no_such_name  # noqa: B018


@pytest.mark.parametrize(
    "statement",
    [
        "import spades_env, gymnasium, pettingzoo",  # ours first: registered by the import hook
        "import gymnasium, pettingzoo, spades_env",  # libraries first: registered at once
        "import pettingzoo, spades_env, gymnasium",
    ],
    ids=["ours-first", "libraries-first", "mixed"],
)
def test_env_ids_are_registered_whatever_the_import_order(statement):
    code = (
        f"{statement}\n"
        "from pettingzoo.env_registry.registration import aec_registry\n"
        "print('spades_env/Spades-v3' in gymnasium.registry, 'spades_env/spades-v3' in aec_registry)"
    )
    assert _run(code).split() == ["True", "True"]


def test_gymnasium_make_with_module_prefix_imports_and_registers():
    code = (
        "import gymnasium\n"
        "env = gymnasium.make('spades_env:spades_env/Spades-v3')\n"
        "obs, info = env.reset(seed=0)\n"
        "print(obs.shape[0] > 0 and 'action_mask' in info)"
    )
    assert _run(code).strip() == "True"
