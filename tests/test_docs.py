"""The documents the messages and the README cite are shipped (issue 10): every "rules.md N.N" that
the package cites is a section of docs/rules.md, and the formats the README names are in docs/."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_cited_rules_section_exists() -> None:
    rules = (ROOT / "docs" / "rules.md").read_text()
    cited = set()
    for path in (ROOT / "casino_coach").rglob("*.py"):
        cited |= set(re.findall(r"rules\.md §?(\d+(?:\.\d+)*)", path.read_text()))
    assert cited
    missing = [n for n in sorted(cited) if not _has_section(rules, n)]
    assert not missing, missing


def _has_section(rules: str, number: str) -> bool:
    """A heading "N.M ..." (or the number in the text), or item K of section N.M ("1.3.2" is item 2 of
    section 1.3, a numbered list)."""
    if re.search(rf"(^|[\s(§]){re.escape(number)}(\b|\s)", rules, re.M):
        return True
    parent, _, item = number.rpartition(".")
    heading = re.search(rf"^#+ {re.escape(parent)} .*$", rules, re.M)
    if heading is None:
        return False
    body = rules[heading.end() :].split("\n#", 1)[0]
    return re.search(rf"^{item}\. ", body, re.M) is not None


def test_the_formats_are_shipped() -> None:
    text = (ROOT / "docs" / "replay-format.md").read_text()
    assert "casino-replay" in text and "casino-position" in text
