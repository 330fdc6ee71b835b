"""Text read from a file (player names, events), made safe to show.

A log may hold any string, and a name like ``"\\x1b]0;PWNED\\x07Ana"`` would retitle the terminal, or
``"\\x1b[2J"`` clear it, if printed raw. ``printable`` shows every control character as an escape
(``\\x1b``) instead; ``markdown`` also escapes what Markdown would read as markup or HTML. The logs
themselves keep the names as written; only what is shown is changed.
"""

from __future__ import annotations

import re
import unicodedata

_MARKDOWN = re.compile(r"([\\`*_\[\]#|<>&~])")  # marks that act inside a line


def printable(text: str) -> str:
    """``text`` with every control or format character (C0, C1, DEL, bidi overrides) escaped."""
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if ch.isprintable() or ch == " ":
            out.append(ch)
        elif unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            out.append(ch.encode("unicode_escape").decode("ascii"))
        else:
            out.append(ch)
    return "".join(out)


NAME_WIDTH = 40


def player_name(text: str) -> str:
    """A player's name for the terminal: printable, and cut to NAME_WIDTH characters (a name of
    100,000 characters made the replay take minutes to lay out)."""
    text = printable(text)
    return text if len(text) <= NAME_WIDTH else text[: NAME_WIDTH - 1] + "…"


def markdown(text: str) -> str:
    """``text`` for a Markdown document: printable, and with Markdown's and HTML's marks escaped."""
    return _MARKDOWN.sub(r"\\\1", printable(text))
