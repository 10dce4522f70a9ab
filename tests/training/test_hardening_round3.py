"""Issue 49 (hardening, third round): the training command line refuses bad rules, devices, opponents, mixtures,
worker counts and YAML numbers in one line (exit status 2, no traceback) before anything is written."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from spades_env.cli_args import max_workers
from spades_env.nn import PolicyNet, save_policy
from training import train as train_module
from training.config import from_mapping, load_config
from training.mixture import table_counts
from training.train import configure, main

REPO = Path(__file__).resolve().parents[2]
RUNS = "runs"  # relative to the test's working folder (tmp_path)


@pytest.fixture
def here(tmp_path, monkeypatch):
    """Run in an empty folder, so that a run folder (or any file) written by mistake is seen."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def refused(argv: list[str], capsys, *words: str) -> str:
    """Run ``main(argv)`` and assert it exits 2 naming ``words``, with no traceback and no run folder written."""
    with pytest.raises(SystemExit) as exited:
        main([*argv, "--runs-dir", RUNS])
    err = capsys.readouterr().err
    assert exited.value.code == 2, err
    assert "error:" in err and "Traceback" not in err
    for word in words:
        assert word in err, f"{word!r} not in {err!r}"
    assert not Path(RUNS).exists(), "a refused run wrote its folder"
    return err


def write(path: Path, text: str) -> str:
    path.write_text(text)
    return str(path)


# ------------------------------------------------------------------- item 3: rules


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--rules", "nope"], ["'rules'", "nope"]),
        (["--rules", "missing.yaml"], ["'rules'", "missing.yaml", "not found"]),
        (["--rules", "/etc/passwd"], ["'rules'", "/etc/passwd"]),
    ],
)
def test_item3_bad_rules_are_refused_naming_the_field(here, capsys, argv, words):
    refused(argv, capsys, *words)


def test_item3_bad_rules_in_yaml_are_refused_naming_the_file_and_field(here, capsys):
    config = write(here / "bad.yaml", "rules: /etc/passwd\n")
    refused(["--config", config], capsys, "bad.yaml", "'rules'", "/etc/passwd")


def test_item3_good_rules_are_accepted(here):
    assert configure(["--rules", "pagat"])[0].rules == "pagat"
    path = str(REPO / "configs" / "rules" / "cutthroat.yaml")
    assert configure(["--rules", path])[0].rules == path


# ------------------------------------------------------------------ item 4: device


@pytest.mark.parametrize("device", ["nonsense", "", "mps", "meta", "cuda:99"])
def test_item4_an_unusable_device_is_refused_by_name_before_anything_is_written(here, capsys, device):
    refused([f"--device={device}"], capsys, "'device'", repr(device))


@pytest.mark.skipif(torch.cuda.is_available(), reason="CUDA is here")
def test_item4_cuda_without_cuda_is_refused(here, capsys):
    refused(["--device", "cuda"], capsys, "'device'", "'cuda'")


@pytest.mark.parametrize(
    "device",
    [
        "cpu",
        pytest.param("cuda", marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA")),
    ],
)
def test_item4_usable_devices_are_accepted(here, device):
    assert configure(["--device", device])[0].device == device
    assert train_module.usable_device(device).type == device


# -------------------------------------------------------- item 5: evaluation opponents


def test_item5_an_opponent_file_that_is_not_a_policy_is_refused_naming_field_and_file(here, capsys):
    write(here / "notes.pt", "not a policy\n")
    refused(["--eval-opponents", "heuristic,notes.pt"], capsys, "'eval_opponents'", "notes.pt")
    config = write(here / "train.yaml", "eval_opponents: [random, /etc/passwd]\n")
    refused(["--config", config], capsys, "train.yaml", "'eval_opponents'", "/etc/passwd")
    with pytest.raises(ValueError, match=r"'eval_opponents'.*notes\.pt"):
        from_mapping({"eval_opponents": ["notes.pt"]})


def test_item5_policy_opponents_are_loaded_without_moving_the_training_seed(here):
    path = here / "old.pt"
    save_policy(path, PolicyNet([8]))
    torch.manual_seed(5)
    expected = torch.rand(3)
    torch.manual_seed(5)
    config = from_mapping({"eval_opponents": ["ppo", str(path), "heuristic"]})  # built, each one
    assert torch.equal(torch.rand(3), expected)  # loading a policy builds a network: its draws must not show
    assert config.eval_opponents == ["ppo", str(path), "heuristic"]


# ------------------------------------------------------- item 6: presets and tables


def test_item6_a_mixture_of_more_presets_than_tables_is_refused(here, capsys):
    argv = ["--mixture", "standard,cutthroat,jokers", "--num-envs", "2", "--rollout-workers", "0"]
    refused(argv, capsys, "'num_envs'", "3 presets", "got 2")
    refused([*argv[:4], "--rollout-workers", "1"], capsys, "'num_envs'")
    config = write(here / "mix.yaml", "mixture: [standard, cutthroat, jokers]\nnum_envs: 2\nrollout_workers: 0\n")
    refused(["--config", config], capsys, "mix.yaml", "'num_envs'")
    assert configure([*argv[:2], "--num-envs", "3", "--rollout-workers", "0"])[0].num_envs == 3


# ------------------------------------------------------------ item 7: weights' sum


def test_item7_mixture_weights_whose_sum_overflows_are_refused_naming_the_entry(here, capsys):
    refused(["--mixture", "standard:1e308,cutthroat:1e308"], capsys, "'mixture'", "'cutthroat:1e308'")
    config = write(here / "mix.yaml", 'mixture: ["standard:1e308", "cutthroat:1e308"]\n')
    refused(["--config", config], capsys, "mix.yaml", "'mixture'", "'cutthroat:1e308'")
    with pytest.raises(ValueError, match="'standard:inf'"):
        from_mapping({"mixture": ["standard:inf"]})


def test_item7_huge_but_summable_weights_split_the_tables(here):
    assert table_counts({"standard": 1e308, "cutthroat": 1.0}, 10) == {"standard": 9, "cutthroat": 1}
    assert table_counts({"standard": 1e300, "cutthroat": 1e300, "jokers": 1e-300}, 7) == {
        "standard": 3,
        "cutthroat": 3,
        "jokers": 1,
    }
    config = configure(["--mixture", "standard:1e307,cutthroat:1e307", "--num-envs", "8"])[0]
    assert config.presets == {"standard": 1e307, "cutthroat": 1e307}


# ------------------------------------------------------------ item 12: worker count


def test_item12_more_rollout_workers_than_cores_are_refused_naming_the_cap(here, capsys):
    workers = max_workers() + 1
    argv = ["--rollout-workers", str(workers), "--num-envs", "1000"]
    refused(argv, capsys, "'rollout_workers'", f"{workers} worker", f"{max_workers()} cores", "os.cpu_count()")


def test_item12_the_cap_is_the_tools_shared_one(here, capsys, monkeypatch):
    assert max_workers() == (os.cpu_count() or 1)
    monkeypatch.setattr(train_module, "max_workers", lambda: 1)
    refused(["--rollout-workers", "2", "--num-envs", "8"], capsys, "2 worker", "1 cores")
    assert configure(["--rollout-workers", "1"])[0].rollout_workers == 1


def test_item12_item13_more_tables_than_the_memory_holds_are_refused_before_anything_is_written(here, capsys):
    """The batch engine's memory bound (item 13) checked by the trainer before its run folder, on both backends."""
    refused(["--num-envs", "100000000"], capsys, "'num_envs'", "BatchEnv(100000000) needs about", "GiB available")
    argv = ["--num-envs", "100000000", "--backend", "torch", "--rollout-workers", "0", "--prior-weight", "0"]
    refused(argv, capsys, "'num_envs'", "on the torch backend")


# ---------------------------------------------------------------- item 18: no preset


@pytest.mark.parametrize("value", ["", ",", " , ", "standard,,cutthroat", "standard,"])
def test_item18_an_empty_mixture_on_the_command_line_is_refused(here, capsys, value):
    refused([f"--mixture={value}"], capsys, "--mixture", "empty preset")


def test_item18_yaml_mixtures_keep_their_meaning(here, capsys):
    assert load_config(write(here / "none.yaml", "mixture: []\n")).mixture == []  # no mixture, as documented
    refused(["--config", write(here / "blank.yaml", 'mixture: [""]\n')], capsys, "blank.yaml", "'mixture'")


# ------------------------------------------------------------ item 19: YAML numbers


@pytest.mark.parametrize(
    "text, expected",
    [
        ("learning_rate: 3e-4\n", 3e-4),
        ("learning_rate: '1e-3'\n", 1e-3),
        ("learning_rate: ' 0.5 '\n", 0.5),
        ("learning_rate: 1E-5\n", 1e-5),
        ("learning_rate: 0.0002\n", 2e-4),
    ],
)
def test_item19_numeric_strings_are_read_for_float_fields(here, text, expected):
    assert load_config(write(here / "lr.yaml", text)).learning_rate == expected


@pytest.mark.parametrize(
    "text, words",
    [
        ("learning_rate: true\n", ["'learning_rate'", "must be float", "True"]),
        ("learning_rate: yes\n", ["'learning_rate'", "must be float", "True"]),
        ("learning_rate: abc\n", ["'learning_rate'", "must be float", "'abc'"]),
        ("learning_rate: 'nan'\n", ["'learning_rate'", "finite"]),
        ("learning_rate: 1e999\n", ["'learning_rate'", "finite"]),
        ("num_envs: '8'\n", ["'num_envs'", "must be int"]),  # numeric strings are read for float fields only
        ("seed: " + "9" * 5000 + "\n", ["'seed'", "too long", "line 1"]),
        ("learning_rate: " + "9" * 5000 + "\n", ["'learning_rate'", "too long"]),
        ("hidden: [64, " + "9" * 5000 + "]\n", ["'hidden[1]'", "too long"]),
        ("seed: " + "9" * 400 + "\n", ["'seed'", "2**63 - 1"]),
        ("learning_rate: " + "9" * 400 + "\n", ["'learning_rate'", "finite float"]),
    ],
    ids=lambda v: v[:30] if isinstance(v, str) else None,
)
def test_item19_bad_numbers_are_refused_naming_the_file_and_the_field(here, capsys, text, words):
    err = refused(["--config", write(here / "numbers.yaml", text)], capsys, "numbers.yaml", *words)
    assert len(err.splitlines()[-1]) < 1000  # the huge value is not printed back


def test_item19_huge_ints_from_python_are_refused_naming_the_field():
    for name, value in (("seed", 10**5000), ("num_envs", 2**63), ("learning_rate", 10**400)):
        with pytest.raises(ValueError, match=f"'{name}'"):
            from_mapping({name: value})
    assert from_mapping({"seed": 2**63 - 1}).seed == 2**63 - 1


# ------------------------------------------------------ checkpoints, real processes


def test_init_from_a_file_that_is_not_a_policy_is_refused_in_one_line(here, capsys):
    write(here / "notes.pt", "not a policy\n")
    code = main(["--init-from", "notes.pt", "--bc-decisions", "0", "--runs-dir", RUNS])
    err = capsys.readouterr().err
    assert code == 2 and "error:" in err and "notes.pt" in err and "Traceback" not in err
    assert not Path(RUNS).exists()


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--device", "meta"], ["'device'", "'meta'"]),
        (["--rollout-workers", "1000", "--num-envs", "1000"], ["'rollout_workers'", "cores"]),
        (["--mixture", "standard,cutthroat,jokers", "--num-envs", "2", "--rollout-workers", "0"], ["'num_envs'"]),
        (["--rules", "nope"], ["'rules'"]),
    ],
)
def test_the_real_command_refuses_in_one_line_and_writes_nothing(tmp_path, argv, words):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-m", "training.train", *argv, "--runs-dir", RUNS],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "error:" in done.stderr
    for word in words:
        assert word in done.stderr
    assert list(tmp_path.iterdir()) == []
