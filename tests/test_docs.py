"""The documents are shipped and hold together: every "rules.md N.N" that the package cites is a
section of docs/rules.md, the formats the README names are in docs/, every relative link of the
README and of docs/ reaches a file (and its heading, for a link with an anchor), and the README stays
a front door."""

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


DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _prose(text: str) -> str:
    """The text outside fenced code blocks (a link in an example is not a link)."""
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def _anchors(text: str) -> set[str]:
    """GitHub's anchors for the headings of a Markdown text: lower case, punctuation dropped, spaces
    as hyphens, a repeated one numbered."""
    seen: dict[str, int] = {}
    anchors = set()
    for heading in re.findall(r"^#+ (.+)$", _prose(text), re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        anchors.add(slug if n == 0 else f"{slug}-{n}")
    return anchors


def test_every_relative_link_resolves() -> None:
    broken, checked = [], 0
    for doc in DOCUMENTS:
        for target in re.findall(r"\]\(([^)\s]+)\)", _prose(doc.read_text(encoding="utf-8"))):
            if re.match(r"[a-z]+:", target):
                continue  # https:, mailto:
            checked += 1
            name, _, anchor = target.partition("#")
            path = (doc.parent / name).resolve() if name else doc
            if not path.is_file():
                broken.append(f"{doc.name}: {target}")
            elif anchor and anchor not in _anchors(path.read_text(encoding="utf-8")):
                broken.append(f"{doc.name}: {target} (no such heading)")
    assert checked > 20 and not broken, broken


def test_the_readme_is_a_front_door() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 300
    # Its first lines are the two commands a newcomer needs, the second exactly as .ci/run runs it.
    first = re.search(r"^```bash\n(.*?)^```", readme, re.S | re.M)
    assert first is not None and readme.startswith("# casino_coach\n\n```bash\n")
    install, tests = first.group(1).splitlines()
    assert install.startswith("pip install . && casino-coach analyze replays/")
    assert tests in (ROOT / ".ci" / "run").read_text().splitlines()
    # pip keeps the build backend's output to itself, so the silent minutes of compiling the Rust
    # core are announced where the install is, with the way to watch them.
    intro = readme[first.end() : readme.index("\n## ", first.end())]
    assert "compiles the" in intro and "Rust" in intro and "`pip install -v .`" in intro


def test_the_documents_cite_no_issue_numbers() -> None:
    cited = [
        f"{doc.name}: {m}" for doc in DOCUMENTS for m in re.findall(r"\bissues? \d+", doc.read_text(), re.I)
    ]
    assert not cited, cited
