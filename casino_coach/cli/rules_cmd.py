"""``casino-coach rules``: show a preset and its options."""

from __future__ import annotations

import orjson
import typer

from casino_coach.cli.app import app, handle_errors
from casino_coach.cli.options import rule_option


@app.command("rules")
@handle_errors
def rules_command(
    preset: str = typer.Argument("classic", help="classic, royal or dominican"),
    option: list[str] = rule_option(
        "Override an option, NAME=VALUE (VALUE as JSON or a bare word), repeatable."
    ),
    json: bool = typer.Option(False, "--json", help="Print the full rule set as JSON."),
    section: str | None = typer.Option(
        None,
        "--section",
        metavar="NUMBER",
        help='Print the section of the rules that a message cites ("rules.md 1.6.1": --section 1.6.1).',
    ),
) -> None:
    """Show every rule option of a preset (rules.md §2), with any overrides, and what each settles;
    or, with --section, the section of the rules (rules.md, shipped with the package) that a message
    cites.

    Example: casino-coach rules dominican -r near_target_20=most_spades
    """
    from casino_coach.engine.rules import OPTION_NAMES, OPTION_QUESTIONS, PRESETS, RuleSet, rules_section
    from casino_coach.formats.codec import parse_options

    if section is not None:
        typer.echo(rules_section(section))
        return

    rules = RuleSet.from_dict({"preset": preset, **parse_options(option)})
    full = {name: getattr(rules, name) for name in OPTION_NAMES}
    if json:
        typer.echo(
            orjson.dumps(
                {"preset": rules.preset, **full}, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS
            ).decode()
        )
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(title=f"Rules: {rules.describe()}")
    table.add_column("option: what it settles (rules.md)", ratio=3)
    table.add_column("value", ratio=2)
    table.add_column("preset default", ratio=1)
    for name, value in full.items():
        default = PRESETS[rules.preset].get(name, getattr(RuleSet(), name))
        cell = Text(name)
        cell.append(f"\n{OPTION_QUESTIONS[name]}", style="dim")
        table.add_row(cell, _words(value), "" if value == default else _words(default))
    Console().print(table)


def _words(value: object) -> str:
    """An option's value as it is typed after ``-r NAME=``: true/false, a number, a word, or the
    names of a list separated by commas (not Python's reprs)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple | list):
        return ", ".join(str(v) for v in value)
    return str(value)
