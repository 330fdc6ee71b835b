"""Text read from a file (player names, events), made safe to show: ``errors.printable`` (the one
path every shown text takes, in the base layer so that every layer reaches it), and the widths.

A log may hold any string, and a name like ``"\\x1b]0;PWNED\\x07Ana"`` would retitle the terminal, or
``"\\x1b[2J"`` clear it, if printed raw. ``printable`` shows every control character as an escape
(``\\x1b``) instead; ``markdown`` also escapes what Markdown would read as markup or HTML. The logs
themselves keep the names as written; only what is shown is changed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from casino_coach.errors import LINE_WIDTH, NAME_WIDTH, printable

_MARKDOWN = re.compile(r"([\\`*_\[\]#|<>&~])")  # marks that act inside a line


def player_name(text: str) -> str:
    """A player's name as it is shown: printable, cut to NAME_WIDTH characters (a name of 100,000
    characters made the replay take minutes to lay out)."""
    return printable(text, NAME_WIDTH)


def side_names(players: Sequence[str], nsides: int) -> list[str]:
    """Each side's name as it is shown: the player's, or the partners' joined with "&" ("Ana & Cy"),
    each name as ``player_name`` shows it."""
    names = [player_name(p) for p in players]
    return [" & ".join(names[s] for s in range(len(names)) if s % nsides == side) for side in range(nsides)]


def markdown(text: str, width: int = LINE_WIDTH) -> str:
    """``text`` for a Markdown document: printable, and with Markdown's and HTML's marks escaped."""
    return _MARKDOWN.sub(r"\\\1", printable(text, width))


__all__ = ["LINE_WIDTH", "NAME_WIDTH", "markdown", "player_name", "printable", "side_names"]
