"""The native core and the Python reference are one program: the setting chooses one per process,
the version line names it, and values cross the boundary unchanged."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

import casino_coach
from casino_coach import core
from casino_coach.cli import app
from casino_coach.engine.rules import RuleSet
from casino_coach.search.result import Limits
from tests.conftest import near_deal_end

native = pytest.mark.skipif(core.NATIVE is None, reason="the native core is not built here")


def _version(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    code = "from casino_coach.cli import main; main(['--version'])"
    return subprocess.run(
        [sys.executable, "-c", code], env={**os.environ, **env}, capture_output=True, text=True
    )


def test_version_names_what_runs_the_hot_path() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.strip() == f"casino-coach {casino_coach.__version__} ({casino_coach.build()})"
    ref = _version({core.CORE_ENV: "python"})
    assert ref.returncode == 0
    assert ref.stdout.strip().endswith(f"(Python reference: {core.CORE_ENV}=python)")


def test_a_bad_setting_is_one_line() -> None:
    bad = _version({core.CORE_ENV: "fast\x1b[31m"})
    assert bad.returncode == 1
    assert bad.stdout == ""
    assert bad.stderr.count("\n") == 1 and "\x1b" not in bad.stderr
    assert "CASINO_COACH_CORE must be one of native, python" in bad.stderr


@native
def test_the_native_core_is_the_default() -> None:
    assert _version({core.CORE_ENV: ""}).stdout.strip().endswith("(native core)")


def test_frozen_values_pickle() -> None:
    order = tuple(reversed(RuleSet().count_out_order))
    rules = RuleSet.from_preset("dominican", sweeps=False, count_out_order=order)
    for value in (rules, Limits(samples=7, nodes=None, seed=3)):
        back = pickle.loads(pickle.dumps(value))
        assert back == value and repr(back) == repr(value)
    assert pickle.loads(pickle.dumps(rules)).pair_value == rules.pair_value  # derived fields again


@native
@pytest.mark.parametrize("preset", RuleSet.preset_names())
def test_rules_cross_with_their_tables(preset: str) -> None:
    assert core.NATIVE is not None
    for options in ({}, {"ace_value": "hand14_table1"} if preset != "classic" else {"court_builds": True}):
        rules = RuleSet.from_preset(preset, **options)
        tables = core.NATIVE.Rules(rules).tables()
        expected = (
            rules.max_build,
            list(rules.build_value),
            list(rules.pair_value),
            list(rules.capture_masks),
            rules.simple_tables,
        )
        assert tables == expected


@native
@given(st.sampled_from([2, 3, 4]), st.integers(0, 10**6), st.integers(1, 12), st.booleans())
def test_states_cross_unchanged(nplayers: int, seed: int, left: int, last: bool) -> None:
    assert core.NATIVE is not None
    state = near_deal_end(RuleSet.from_preset("royal"), nplayers, seed, min(left, 4 * nplayers), last)
    back = core.NATIVE.state_round_trip(state)
    assert back == tuple(state)


@native
@pytest.mark.parametrize("place", ["hand", "pile", "loose", "stock", "set aside", "build"])
def test_a_card_in_two_places_is_refused(place: str) -> None:
    # The core keys a state by where each card is (bit planes), which takes the places to be disjoint.
    assert core.NATIVE is not None
    state = near_deal_end(RuleSet.from_preset("royal"), 3, 5, 6, False)
    card = state.hands[0] & -state.hands[0]
    fields = state._asdict()
    if place == "hand":
        fields["hands"] = (state.hands[0], state.hands[1] | card, *state.hands[2:])
    elif place == "pile":
        fields["captured"] = (state.captured[0] | card, *state.captured[1:])
    elif place == "build":
        fields["builds"] = ((card | 1 << 51, 9, 0, False),)
    else:
        key = {"loose": "loose", "stock": "stock", "set aside": "set_aside"}[place]
        fields[key] = fields[key] | card
    assert core.NATIVE.state_round_trip(state) == tuple(state)
    with pytest.raises(ValueError, match=r"^a card in two places of a state$"):
        core.NATIVE.state_round_trip(tuple(fields.values()))


def test_the_install_says_that_it_compiles(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 42: `pip install .` sat silent for minutes while it compiled. pyproject.toml builds with
    # maturin's backend behind build_backend/casino_coach_build.py, which first says so on the
    # terminal, or on standard error (pip -v) where no terminal is at hand.
    import builtins
    import importlib.util
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    system = tomllib.loads((root / "pyproject.toml").read_text())["build-system"]
    assert (system["build-backend"], system["backend-path"]) == ("casino_coach_build", ["build_backend"])
    pytest.importorskip("maturin")
    spec = importlib.util.spec_from_file_location(
        "casino_coach_build", root / "build_backend/casino_coach_build.py"
    )
    assert spec is not None and spec.loader is not None
    backend = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(backend)
    built: list[tuple[str, str]] = []
    monkeypatch.setattr(
        backend.maturin, "build_wheel", lambda d, c=None, m=None: built.append(("wheel", d)) or "w.whl"
    )
    monkeypatch.setattr(
        backend.maturin, "build_editable", lambda d, c=None, m=None: built.append(("editable", d)) or "e.whl"
    )
    real_open = builtins.open

    def no_terminal(file: object, *args: object, **kwargs: object) -> object:
        if file == "/dev/tty":
            raise OSError("no terminal")
        return real_open(file, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(builtins, "open", no_terminal)
    assert backend.build_wheel("out") == "w.whl" and backend.build_editable("out") == "e.whl"
    assert built == [("wheel", "out"), ("editable", "out")]
    err = capsys.readouterr().err.splitlines()
    assert err == [backend.SAYING] * 2 and "compiling the native core in Rust" in backend.SAYING
