"""Issue 49 (hardening, third round), items 13 to 17: the torch engine refuses what the numpy engine refuses.

Both backends run one argument check (``spades_env.batch.arguments``): the same inputs are refused with the same
messages naming the argument, a refused call changes nothing, and the memory bound is the same rule on both.
"""

from __future__ import annotations

import copy
import pickle
import time

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from spades_env.batch import BatchEnv, IllegalActionError, state  # noqa: E402
from spades_env.batch.arguments import TORCH_TABLE_BYTES, as_int64, integer_rows  # noqa: E402

TABLES = 4
BACKENDS = ["numpy", "torch"]


def make(backend: str, **kwargs):
    return BatchEnv(TABLES, backend=backend, **{"seed": 5, **kwargs})


def snapshot(env) -> dict:
    """Every array of an engine's state, its generator's state, and every seat's observations, as numpy."""
    if getattr(env, "backend", "numpy") == "torch":
        games = env.games
        out = {f"games.{k}": v.cpu().numpy().copy() for k, v in vars(games).items() if isinstance(v, torch.Tensor)}
        out |= {
            f"hands.{k}": v.cpu().numpy().copy() for k, v in vars(games.hands).items() if isinstance(v, torch.Tensor)
        }
        out["legal"] = env._legal.cpu().numpy().copy()
        out["generator"] = games._gen.get_state().numpy().copy()
        seats = [torch.full((TABLES,), s) for s in range(env.num_players)]
        out |= {f"observe{s}": env.observe(seat).numpy() for s, seat in enumerate(seats)}
        out["state"] = env.state().numpy()
        return out
    out = {k: v.copy() for k, v in vars(env).items() if isinstance(v, np.ndarray)}
    out["generator"] = np.frombuffer(pickle.dumps(env.rng.bit_generator.state), np.uint8)
    out |= {f"observe{s}": env.observe(np.full(TABLES, s)) for s in range(env.num_players)}
    out["state"] = env.state()
    return out


def assert_unchanged(env, before: dict) -> None:
    after = snapshot(env)
    assert after.keys() == before.keys()
    for key, value in before.items():
        np.testing.assert_array_equal(after[key], value, err_msg=key)


def refused(call, error=ValueError) -> BaseException:
    with pytest.raises(error) as caught:
        call()
    return caught.value


def legal_actions(env) -> np.ndarray:
    """A legal action per table (the first legal one), as int64 numpy."""
    mask = env.action_masks()
    return np.asarray(mask.numpy() if isinstance(mask, torch.Tensor) else mask).argmax(axis=1).astype(np.int64)


# ---------------------------------------------------------------- item 13
@pytest.mark.parametrize("backend", BACKENDS)
def test_item13_a_batch_too_large_for_the_memory_is_refused_before_allocating(backend, monkeypatch):
    monkeypatch.setattr(state, "available_memory", lambda: 2 * 2**30)  # the 2 GB the audit saw the torch engine pass
    start = time.perf_counter()
    error = refused(lambda: BatchEnv(10_000_000, backend=backend), MemoryError)
    assert time.perf_counter() - start < 5  # nothing was allocated first
    assert str(error).startswith("BatchEnv(10000000) needs about ")
    assert f"on the {backend} backend" in str(error) and "2.0 GiB available" in str(error)
    # the same rule on both: num_envs times the backend's bytes a table against the same measure of the memory
    table = {"numpy": state.TABLE_BYTES["float32"], "torch": TORCH_TABLE_BYTES}[backend]
    monkeypatch.setattr(state, "available_memory", lambda: 10 * table)
    refused(lambda: BatchEnv(11, backend=backend), MemoryError)
    assert BatchEnv(10, backend=backend).num_envs == 10


def test_item13_the_memory_bound_counts_a_control_group_and_an_address_space_limit(tmp_path, monkeypatch):
    """A container's memory limit (cgroup) and ``ulimit -v`` bound the tables too, not only the host's memory."""
    limit, usage = tmp_path / "memory.max", tmp_path / "memory.current"
    limit.write_text(f"{3 * 2**30}\n")
    usage.write_text(f"{2**30}\n")
    monkeypatch.setattr(state, "CGROUP_FILES", ((str(limit), str(usage)),))
    assert state._cgroup_room() == 2 * 2**30 and state.available_memory() <= 2 * 2**30
    limit.write_text("max\n")  # no limit: the host's memory counts
    assert state._cgroup_room() is None and state.available_memory() == state._host_memory()
    code = (
        "import resource; from spades_env.batch import BatchEnv\n"
        "resource.setrlimit(resource.RLIMIT_AS, (4 * 2**30, resource.RLIM_INFINITY))\n"
        "try:\n    BatchEnv(300_000, backend='torch')\nexcept MemoryError as e:\n    print(e)\n"
    )
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "BatchEnv(300000) needs about 7.0 GiB" in out.stdout, out.stdout + out.stderr


# ---------------------------------------------------------------- item 14
COMPLEX = {
    "list": [54.9 + 5j] * TABLES,
    "array": np.full(TABLES, 54 + 0j),
    "tensor": torch.full((TABLES,), 54.9 + 5j),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("given", sorted(COMPLEX))
def test_item14_step_refuses_complex_actions(backend, given):
    env = make(backend)
    before = snapshot(env)
    error = refused(lambda: env.step(COMPLEX[given]), IllegalActionError)
    assert str(error).startswith("actions must be integers, got ") and "complex" in str(error)
    assert_unchanged(env, before)


# ---------------------------------------------------------------- item 15
HOSTILE_ACTIONS = {
    "str": ("x", ValueError, r"^actions must have shape \(4,\) \(one per table\), got str 'x'$"),
    "None": (None, ValueError, r"^actions must have shape \(4,\) \(one per table\), got NoneType None$"),
    "dict": ({}, ValueError, r"^actions must have shape \(4,\) \(one per table\), got dict \{\}$"),
    "2**63": (
        [2**63] * TABLES,
        IllegalActionError,
        r"^table 0: illegal action 9223372036854775808 \(not an action id\)",
    ),
    "uint64 tensor": (
        torch.from_numpy(np.full(TABLES, 2**63, np.uint64)),
        IllegalActionError,
        r"^table 0: illegal action 9223372036854775808 \(not an action id\)",
    ),
    "2**64": ([2**64] * TABLES, IllegalActionError, r"^actions must be integers, got an array of dtype object"),
    "meta": (torch.zeros(TABLES, dtype=torch.int64, device="meta"), ValueError, r"^actions must be a tensor with"),
    "ragged": ([[1], [1, 2], 3, 4], ValueError, r"^actions must be 4 integers \(one per table\)"),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(HOSTILE_ACTIONS))
def test_item15_hostile_actions_are_refused_naming_the_argument(backend, name):
    actions, error, pattern = HOSTILE_ACTIONS[name]
    env = make(backend)
    before = snapshot(env)
    with pytest.raises(error, match=pattern):
        env.step(actions)
    assert_unchanged(env, before)
    env.step(legal_actions(env))  # and it plays on


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "seats, pattern",
    [
        ("x", r"^seats must have shape \(4,\) \(one per table\), got str 'x'$"),
        (None, r"^seats must have shape \(4,\)"),
        ({}, r"^seats must have shape \(4,\)"),
        ([0.0] * TABLES, r"^seats must be integers, got an array of dtype float64"),
        (torch.zeros(TABLES, dtype=torch.bool), r"^seats must be integers, got a tensor of dtype torch.bool"),
        ([0, 1, 2, 9], r"^seats must be in 0\.\.3; table 3 has seat 9$"),
        ([0, -1, 2, 3], r"^seats must be in 0\.\.3; table 1 has seat -1$"),
        ([2**63] * TABLES, r"^seats must be in 0\.\.3; table 0 has seat 9223372036854775808$"),
        (torch.zeros(TABLES, dtype=torch.int64, device="meta"), r"^seats must be a tensor with"),
    ],
)
def test_item15_observe_refuses_hostile_seats_naming_the_argument(backend, seats, pattern):
    env = make(backend)
    before = snapshot(env)
    with pytest.raises(ValueError, match=pattern):
        env.observe(seats)
    assert_unchanged(env, before)


@pytest.mark.parametrize("name", sorted(HOSTILE_ACTIONS))
def test_item15_both_backends_refuse_hostile_actions_with_the_same_message(name):
    actions, error, _ = HOSTILE_ACTIONS[name]
    messages = [str(refused(lambda b=b: make(b).step(actions), error)) for b in BACKENDS]
    if messages[0].startswith("table "):  # seats and legal actions depend on each engine's deal: the head agrees
        messages = [m.split(" for seat ")[0] for m in messages]
    assert messages[0] == messages[1]


# ---------------------------------------------------------------- item 16
BAD_SEEDS = ["5", 1.7, -1, "abc", True, 2.0, [1, 2], np.float64(3.0), torch.tensor(5)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seed", BAD_SEEDS, ids=repr)
def test_item16_one_seed_check_for_both_backends(backend, seed):
    pattern = r"^seed must be None or a non-negative integer, got "
    with pytest.raises(ValueError, match=pattern):
        make(backend, seed=seed)
    env = make(backend)
    before = snapshot(env)
    with pytest.raises(ValueError, match=pattern):
        env.reset(seed=seed)
    assert_unchanged(env, before)
    messages = [str(refused(lambda b=b: make(b, seed=seed))) for b in BACKENDS]
    assert messages[0] == messages[1]


@pytest.mark.parametrize("backend", BACKENDS)
def test_item16_seeds_of_any_size_are_accepted_and_repeat(backend):
    for seed in (2**64 - 1, 2**64, 2**200, np.uint64(2**64 - 1), np.int8(3)):
        first, second = make(backend, seed=seed), make(backend, seed=seed)
        np.testing.assert_array_equal(snapshot(first)["state"], snapshot(second)["state"])
        first.reset(seed=seed)
    # a seed of 2**64 is not the seed 0 (nor 2**64 + 1) on either backend
    states = [snapshot(make(backend, seed=s))["state"] for s in (0, 2**64, 2**64 + 1)]
    assert not np.array_equal(states[0], states[1]) and not np.array_equal(states[1], states[2])


# ---------------------------------------------------------------- item 17
BAD_OPTIONS = [
    ({"obs_format": "nonsense"}, r"^obs_format must be one of \('float32', 'packed'\), got 'nonsense'$"),
    ({"obs_format": None}, r"^obs_format must be one of"),
    ({"output_buffers": -1}, r"^output_buffers must be 1 or 2, got -1$"),
    ({"output_buffers": 3}, r"^output_buffers must be 1 or 2, got 3$"),
    ({"output_buffers": True}, r"^output_buffers must be 1 or 2, got True$"),
    ({"output_buffers": 1.0}, r"^output_buffers must be 1 or 2, got 1.0$"),
    ({"record_deals": "x"}, r"^record_deals must be True or False, got 'x'$"),
    ({"observations": "x"}, r"^observations must be True or False, got 'x'$"),
    ({"check_actions": 1}, r"^check_actions must be True or False, got 1$"),
    ({"episode": "x"}, r"^episode must be one of \('game', 'hand'\), got 'x'$"),
    ({"episode": ["game"]}, r"^episode must be one of"),
    ({"num_envs": 0}, r"^num_envs must be a positive int, got 0$"),
    ({"num_envs": True}, r"^num_envs must be a positive int, got True$"),
    ({"num_envs": 2.0}, r"^num_envs must be a positive int, got 2.0$"),
    ({"num_envs": "2"}, r"^num_envs must be a positive int, got '2'$"),
    ({"num_envs": np.float32(2)}, r"^num_envs must be a positive int"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("options, pattern", BAD_OPTIONS, ids=[str(o) for o, _ in BAD_OPTIONS])
def test_item17_one_argument_check_for_both_backends(backend, options, pattern):
    options = {"num_envs": 2, **options}
    with pytest.raises(ValueError, match=pattern):
        BatchEnv(backend=backend, **options)
    messages = [str(refused(lambda b=b: BatchEnv(backend=b, **options))) for b in BACKENDS]
    assert messages[0] == messages[1]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("num_envs", [np.int64(2), np.int32(2), np.uint8(2)], ids=repr)
def test_item17_numpy_integers_are_accepted_as_num_envs(backend, num_envs):
    env = BatchEnv(num_envs, backend=backend)
    assert env.num_envs == 2 and type(env.num_envs) is int
    env.step(legal_actions(env))


def test_item17_the_torch_backend_names_what_it_lacks_and_bad_devices():
    with pytest.raises(ValueError, match=r"^obs_format='packed' is not on the torch backend"):
        BatchEnv(2, backend="torch", obs_format="packed")
    with pytest.raises(ValueError, match=r"^device must be a torch device available here, got 'nonsense'"):
        BatchEnv(2, backend="torch", device="nonsense")
    with pytest.raises(ValueError, match=r"^the numpy backend runs on the CPU; device 'cuda' needs backend='torch'"):
        BatchEnv(2, device="cuda")
    with pytest.raises(ValueError, match=r"^backend must be one of \['numpy', 'torch'\], got 'jax'$"):
        BatchEnv(2, backend="jax")
    # the options that do nothing on torch are checked, and accepted when good
    assert BatchEnv(2, backend="torch", record_deals=False, output_buffers=1).num_envs == 2


# ------------------------------------------------ actions of every dtype, as numpy takes them
NUMPY_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32"]
NUMPY_DTYPES += ["float64", "bool", "complex64", "object", "str"]
TORCH_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "bfloat16"]
TORCH_DTYPES += ["float32", "float64", "bool", "complex64"]
KINDS = (
    [("numpy", d) for d in NUMPY_DTYPES] + [("torch", d) for d in TORCH_DTYPES] + [("list", "float"), ("list", "int")]
)


def converted(actions: np.ndarray, kind: str, dtype: str):
    if kind == "numpy":
        return actions.astype(dtype)
    if kind == "torch":
        return torch.from_numpy(actions).to(getattr(torch, dtype))
    return [float(a) if dtype == "float" else int(a) for a in actions]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind, dtype", KINDS, ids=[f"{k}-{d}" for k, d in KINDS])
def test_actions_of_every_dtype_are_taken_or_refused_as_numpy_does(backend, kind, dtype):
    env = make(backend)
    twin = copy.deepcopy(env)
    legal = legal_actions(env)
    given = converted(legal, kind, dtype)
    integer = dtype.startswith(("int", "uint")) or dtype == "int"
    if not integer:  # floats whole or not, bools, complex numbers, objects, strings: not actions
        before = snapshot(env)
        with pytest.raises(IllegalActionError, match=r"^actions must be integers, got "):
            env.step(given)
        assert_unchanged(env, before)
        fractional = legal + 0.5
        with pytest.raises(IllegalActionError, match=r"^actions must be integers, got "):
            env.step(converted(fractional, kind, dtype) if dtype.startswith("float") else given)
        return
    mine, theirs = env.step(given), twin.step(legal)
    for x, y in zip(mine[:5], theirs[:5]):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_refused_step_changes_nothing_on_either_backend(backend):
    env = make(backend)
    for _ in range(30):  # into the play
        env.step(legal_actions(env))
    before = snapshot(env)
    illegal = legal_actions(env)
    mask = np.asarray(env.action_masks())
    illegal[2] = int(np.flatnonzero(mask[2] == 0)[0])
    for bad in (illegal, legal_actions(env)[:3], legal_actions(env).astype(float), "x", [90] * TABLES):
        with pytest.raises(ValueError):
            env.step(bad)
        assert_unchanged(env, before)
    with pytest.raises(TypeError, match="^observe must be True, False or None, got 'yes'"):
        env.step(legal_actions(env), observe="yes")
    assert_unchanged(env, before)


def test_a_device_tensor_is_checked_without_reading_or_copying_it():
    """The shape and dtype checks read no value (no wait for the device) and make no copy of int64 actions."""
    actions = torch.zeros(TABLES, dtype=torch.int64)
    assert integer_rows(actions, TABLES, "actions") is actions
    assert as_int64(actions, actions.device) is actions
