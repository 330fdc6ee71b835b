"""The compiled and the pure build are the same program: one build at a time, no compiled module
shadowing a source in a checkout, frozen values that cross to worker processes either way."""

from __future__ import annotations

import dataclasses
import importlib
import pickle
import tomllib
from pathlib import Path

from typer.testing import CliRunner

import casino_coach
from casino_coach.cli import app
from casino_coach.engine.rules import RuleSet
from casino_coach.frozen import Frozen
from casino_coach.search.result import Limits

ROOT = Path(__file__).resolve().parents[1]
HOOK = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["hatch"]["build"]["targets"]["wheel"]
MODULES = [m.removesuffix(".py").replace("/", ".") for m in HOOK["hooks"]["custom"]["modules"]]


def _compiled(name: str) -> bool:
    return not str(importlib.import_module(name).__file__).endswith(".py")


def test_every_listed_module_is_built_the_same_way() -> None:
    kinds = {name: _compiled(name) for name in MODULES}
    assert len(set(kinds.values())) == 1, kinds  # never half compiled
    assert casino_coach.build() == ("compiled" if kinds[MODULES[0]] else "pure")


def test_a_checkout_has_no_compiled_module_beside_its_sources() -> None:
    # An editable install imports the checkout: a stray extension there would shadow an edited file.
    assert not [p for p in (ROOT / "casino_coach").rglob("*") if p.suffix in (".so", ".pyd")]
    if Path(casino_coach.__file__).resolve().parent == ROOT / "casino_coach":
        assert casino_coach.build() == "pure"


def test_version_names_the_build() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.strip() == f"casino-coach {casino_coach.__version__} ({casino_coach.build()})"


def test_frozen_values_of_the_compiled_modules_pickle() -> None:
    for name in MODULES:
        module = importlib.import_module(name)
        for value in vars(module).values():
            if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == name:
                frozen = value.__dataclass_params__.frozen  # type: ignore[attr-defined]
                assert not frozen or issubclass(value, Frozen), f"{name}.{value.__name__} must derive Frozen"
    order = tuple(reversed(RuleSet().count_out_order))
    rules = RuleSet.from_preset("dominican", sweeps=False, count_out_order=order)
    for value in (rules, Limits(samples=7, nodes=None, seed=3)):
        back = pickle.loads(pickle.dumps(value))
        assert back == value and repr(back) == repr(value)
    assert pickle.loads(pickle.dumps(rules)).pair_value == rules.pair_value  # derived fields again
