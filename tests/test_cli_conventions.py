"""Click and Typer conventions (issue 10): -h, a bare command, usage errors with status 2."""

from __future__ import annotations

import pytest

from casino_coach.cli import main


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    out = capsys.readouterr()
    code = exit_info.value.code
    return int(code) if isinstance(code, int) else 0, out.out, out.err


def test_a_bare_command_and_h_print_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    for args in ([], ["-h"], ["--help"]):
        code, out, err = _run(args, capsys)
        assert code == 0 and out.startswith("Usage: casino-coach") and err == ""
    code, out, _ = _run(["analyze", "-h"], capsys)
    assert code == 0 and "Usage: casino-coach analyze" in out


def test_a_usage_error_is_one_line_with_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["analyze", "--nope", "x.json"], capsys)
    assert code == 2 and out == ""
    (line,) = err.strip().splitlines()
    assert line.startswith("error: casino-coach analyze: No such option: --nope")
    assert line.endswith("(see 'casino-coach analyze --help')")


def test_rules_shows_values_as_they_are_typed(capsys: pytest.CaptureFixture[str]) -> None:
    # issue 10: the options were shown as Python reprs (True, ('cards', 'spades', ...))
    code, out, _ = _run(["rules", "royal", "-o", "sweeps=false"], capsys)
    assert code == 0 and "false" in out and "true" in out and "cards, spades" in " ".join(out.split())
    assert "True" not in out and "False" not in out and "('" not in out
