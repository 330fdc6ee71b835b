"""The HTML review page in a real headless Chromium: it loads offline, steps through the game and fits
the screen; the keys step through the mistakes, a link to a ply keeps the board in view, the
positions after the move sit side by side or stacked, and a 4-side chart shows the side chosen.

Needs Debian's ``chromium`` (``.ci/run`` installs it), driven through the DevTools protocol over a pipe
(``--remote-debugging-pipe``: JSON messages ended by NUL on file descriptors 3 and 4), with the standard
library only. The test clicks a chart dot and a move-list entry and presses the arrow keys as a person
would (input events at screen coordinates, not calls into the page's script), and checks that the
position shown is the right ply's. Screenshots at 1280 and 400 px (phone emulation, where the viewport
meta decides the layout) must show no horizontal scroll and the summary whole; a screenshot is
decoded here (PNG: zlib and the five row filters) to check colours the page's CSS and SVG must produce.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import select
import shutil
import struct
import subprocess
import time
import zlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_analysis import FAST, _log, make_log

from casino_coach.coach.analysis import AnalysisOptions, GameAnalysis, analyze
from casino_coach.coach.classes import DRILLED, MoveClass
from casino_coach.engine.cards import card_symbol, iter_cards, mask_symbols
from casino_coach.formats.files import atomic_write_text
from casino_coach.formats.log import read_log
from casino_coach.report.document import to_html
from casino_coach.report.words import mark_label

REPLAYS = Path(__file__).parents[1] / "replays"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")


def decode_png(data: bytes) -> tuple[int, int, list[bytes]]:
    """(width, height, rows of RGB(A) bytes) of an 8-bit, non-interlaced RGB or RGBA PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    width = height = bpp = 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows: list[bytes] = []
    prev = bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(
            bytes(line) if bpp == 3 else bytes(v for k in range(0, stride, 4) for v in line[k : k + 3])
        )
        prev = line
    return width, height, rows


def _hex(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


class DevTools:
    """One headless Chromium and one page in it, driven through the DevTools protocol over a pipe."""

    def __init__(self, exe: str, profile: Path, timeout: float = 30.0) -> None:
        chrome_in, to_chrome = os.pipe()  # chromium reads fd 3, we write
        from_chrome, chrome_out = os.pipe()  # chromium writes fd 4, we read

        def fds() -> None:  # in the child: the ends chromium uses, as fds 3 and 4
            a, b = os.dup(chrome_in), os.dup(chrome_out)
            os.dup2(a, 3)
            os.dup2(b, 4)

        cmd = [
            exe,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--hide-scrollbars",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--remote-debugging-pipe",
            f"--user-data-dir={profile}",
            "about:blank",
        ]
        self.proc = subprocess.Popen(
            cmd, preexec_fn=fds, pass_fds=(3, 4), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        os.close(chrome_in)
        os.close(chrome_out)
        self.w, self.r, self.timeout = to_chrome, from_chrome, timeout
        self.buf = b""
        self.n = 0
        self.events: list[dict[str, Any]] = []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.page("Page.enable")
        self.page("Runtime.enable")

    def _message(self) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.r], [], [], left)[0]:
                raise TimeoutError("chromium did not answer")
            chunk = os.read(self.r, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\0", 1)
        message: dict[str, Any] = json.loads(line)
        return message

    def call(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        self.n += 1
        msg: dict[str, Any] = {"id": self.n, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self.w, json.dumps(msg).encode() + b"\0")
        while True:
            m = self._message()
            if m.get("id") == self.n:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                result: dict[str, Any] = m.get("result", {})
                return result
            self.events.append(m)

    def page(self, method: str, **params: Any) -> dict[str, Any]:
        return self.call(method, self.session, **params)

    def js(self, expression: str) -> Any:
        r = self.page("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        assert "exceptionDetails" not in r, r["exceptionDetails"]
        return r["result"].get("value")

    def wait(self, event: str) -> None:
        while not any(e.get("method") == event for e in self.events):
            self.events.append(self._message())
        self.events = [e for e in self.events if e.get("method") != event]

    def open(self, url: str, width: int, mobile: bool = False) -> None:
        self.page(
            "Emulation.setDeviceMetricsOverride", width=width, height=900, deviceScaleFactor=1, mobile=mobile
        )
        self.events.clear()
        self.page("Page.navigate", url=url)
        self.wait("Page.loadEventFired")

    def click(self, selector: str) -> None:
        """A mouse click at the middle of the element, as a person makes it (scrolled into view)."""
        box = self.js(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)}); "
            "e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect(); "
            "return [r.left + r.width / 2, r.top + r.height / 2]; })()"
        )
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.page("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left", clickCount=1)

    def key(self, name: str, code: int, shift: bool = False) -> None:
        for kind in ("rawKeyDown", "keyUp"):
            self.page(
                "Input.dispatchKeyEvent",
                type=kind,
                key=name,
                code=name if len(name) > 1 else f"Key{name.upper()}",
                windowsVirtualKeyCode=code,
                modifiers=8 if shift else 0,
            )

    def screenshot(self, path: Path) -> bytes:
        height = self.js("document.documentElement.scrollHeight")
        width = self.js("innerWidth")
        clip = {"x": 0, "y": 0, "width": width, "height": min(height, 6000), "scale": 1}
        shot = self.page("Page.captureScreenshot", format="png", captureBeyondViewport=True, clip=clip)
        data = base64.b64decode(shot["data"])
        path.write_bytes(data)
        return data

    def close(self) -> None:
        try:
            self.call("Browser.close")
            self.proc.wait(10)
        except (OSError, RuntimeError, TimeoutError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        finally:
            os.close(self.w)
            os.close(self.r)


@pytest.fixture(scope="module")
def analysis() -> GameAnalysis:
    # One whole round (6 deals, 48 plies): the chart, the round's breakdown and the result.
    return analyze(_log(make_log(3)), AnalysisOptions(limits=FAST))


@pytest.fixture(scope="module")
def mistakes() -> GameAnalysis:
    # A round with a mistake (ply 2, Ana, uncertain), blunders (34 and 40, Ana; 43, Ben), the last two
    # exact, and inaccuracies (39, Ben, among others).
    a = analyze(_log(make_log(6)), AnalysisOptions(limits=dataclasses.replace(FAST, samples=8)))
    assert [(m.ply, m.seat, mark_label(m)) for m in a.moves if m.missed and m.cls in DRILLED] == [
        (2, 0, "mistake"),
        (34, 0, "blunder"),
        (40, 0, "blunder"),
        (43, 1, "blunder"),
    ]
    assert a.moves[39].cls == MoveClass.INACCURACY
    return a


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevTools]:
    assert CHROMIUM is not None
    tools = DevTools(CHROMIUM, tmp_path_factory.mktemp("chromium") / "profile")
    yield tools
    tools.close()


_CARDS = "Array.from(document.querySelectorAll('{}')).map(c => c.textContent).join(' ')"


def _shown(b: DevTools) -> tuple[int, str, str]:
    """The ply the board shows: its data attribute, its heading, and the table it draws."""
    return (
        int(b.js("document.getElementById('board').dataset.ply")),
        b.js("document.querySelector('#board .plyno').textContent"),
        b.js(_CARDS.format("#board .tablecards .card")),
    )


def _table(a: GameAnalysis, ply: int) -> str:
    m = a.moves[ply]
    cards = [card_symbol(c) for c in iter_cards(m.loose)]
    for b in m.builds:
        cards += [card_symbol(c) for c in iter_cards(b.cards)]
    return " ".join(cards)


def _expect(b: DevTools, a: GameAnalysis, ply: int) -> None:
    assert _shown(b) == (ply, f"ply {ply}", _table(a, ply))
    # The move list marks the same ply, and the chart's cursor stands on it.
    assert b.js("document.querySelector('#moves .mv.sel').dataset.ply") == str(ply)
    m = a.moves[ply]
    played = b.js("document.querySelector('#detail .mvbox .mvw').textContent")
    assert played.startswith(card_symbol(m.played.card)), played
    if m.hand is not None:
        hand = b.js(_CARDS.format("#board .seat.tomove .card"))
        assert hand == mask_symbols(m.hand)
    # The position after the move (issue 42): its table is the next ply's, and a missed move has the
    # position after the best move beside it.
    if ply + 1 < len(a.moves) and a.moves[ply + 1].round == m.round:
        assert b.js(_CARDS.format("#after .afterbox:first-child .tablecards .card")) == _table(a, ply + 1)
    assert b.js("document.querySelectorAll('#after .afterbox').length") == (2 if m.missed else 1)


def test_the_review_page_steps_through_the_game(
    tmp_path: Path, analysis: GameAnalysis, browser: DevTools
) -> None:
    page = tmp_path / "report.html"
    atomic_write_text(page, to_html(analysis))
    b = browser
    b.open(page.as_uri(), 1280)
    _expect(b, analysis, 0)
    # A dot of the chart: the tenth rated move's.
    dot = [m.ply for m in analysis.moves if m.rated][10]
    b.click(f'svg.chart circle[data-ply="{dot}"]')
    _expect(b, analysis, dot)
    # An entry of the move list, far down (the list scrolls inside itself).
    b.click('#moves a[data-ply="40"]')
    _expect(b, analysis, 40)
    b.key("ArrowRight", 39)
    _expect(b, analysis, 41)
    b.key("ArrowLeft", 37)
    b.key("ArrowLeft", 37)
    _expect(b, analysis, 39)
    # The address follows, and opening it shows that ply.
    assert b.js("location.hash") == "#ply39"
    b.open("about:blank", 1280)  # from the page itself, a new fragment would not load it again
    b.open(page.as_uri() + "#ply17", 1280)
    _expect(b, analysis, 17)
    # The round's breakdown and the result are there.
    assert b.js("document.querySelectorAll('#rounds table.rt').length") == 1
    assert "round" in b.js("document.getElementById('result').textContent")


def _fits(b: DevTools) -> None:
    """No horizontal scroll, and the summary whole: inside the window and not clipped."""
    assert b.js("document.documentElement.scrollWidth") <= b.js("innerWidth")
    left, right, width = b.js(
        "(() => { const r = document.getElementById('summary').getBoundingClientRect(); "
        "return [r.left, r.right, innerWidth]; })()"
    )
    assert left >= 0 and right <= width
    assert b.js(
        "(() => { const s = document.getElementById('summary'); return s.scrollWidth <= s.clientWidth; })()"
    )
    widest = b.js(
        "Math.max(...Array.from(document.querySelectorAll('#summary *'))"
        ".map(e => e.getBoundingClientRect().right))"
    )
    assert widest <= right


def test_the_page_fits_1280_and_400_pixels(tmp_path: Path, analysis: GameAnalysis, browser: DevTools) -> None:
    page = tmp_path / "report.html"
    atomic_write_text(page, to_html(analysis))
    b = browser
    b.open(page.as_uri(), 1280)
    _fits(b)
    shot = b.screenshot(tmp_path / "review-1280.png")
    width, height, rows = decode_png(shot)
    assert width == 1280 and height > 900
    colours: Counter[tuple[int, int, int]] = Counter()
    for row in rows[::3]:
        for x in range(0, len(row), 9):
            colours[(row[x], row[x + 1], row[x + 2])] += 1
    total = sum(colours.values())
    # The page background and the white of the panels fill much of it; the table's felt is drawn.
    assert colours[_hex("#f4f1ea")] > total * 0.05
    assert colours[(255, 255, 255)] > total * 0.3
    assert colours[_hex("#2f6b4f")] > total * 0.01
    # Class badges (CSS), the chart's line in the first side's colour (SVG), red suits in red.
    for colour in ("#2e7d32", "#1f5fa8", "#c0262d"):
        assert colours[_hex(colour)] > 20, colour
    # A phone: the viewport meta lays the page out at the device's width.
    b.open(page.as_uri(), 400, mobile=True)
    assert b.js("innerWidth") == 400
    _fits(b)
    b.screenshot(tmp_path / "review-400.png")
    b.click('#moves a[data-ply="5"]')
    _expect(b, analysis, 5)
    _fits(b)


def _after_layout(b: DevTools, side_by_side: bool) -> None:
    """The positions after the move played and after the best: side by side on a wide screen, one
    above the other on a phone, each inside the window and its cards inside its box."""
    boxes = b.js(
        "Array.from(document.querySelectorAll('#after .afterbox')).map(e => { "
        "const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })"
    )
    assert len(boxes) == 2
    (l1, t1, r1, b1), (l2, t2, r2, _) = boxes
    width = b.js("innerWidth")
    assert l1 >= 0 and r2 <= width and r1 <= width
    if side_by_side:
        assert t1 == t2 and r1 <= l2
    else:
        assert t2 >= b1 and l1 == l2
    widest = b.js(
        "Math.max(...Array.from(document.querySelectorAll('#after .card'))"
        ".map(e => e.getBoundingClientRect().right))"
    )
    assert widest <= max(r1, r2)


def test_the_keys_step_through_the_mistakes(
    tmp_path: Path, mistakes: GameAnalysis, browser: DevTools
) -> None:
    # Issue 42: no "next mistake" key. n / p: either player's mistakes and blunders (the inaccuracy at
    # 39 is skipped); N / P: the chosen player's.
    page = tmp_path / "mistakes.html"
    atomic_write_text(page, to_html(mistakes))
    b = browser
    b.open(page.as_uri(), 1280)
    _expect(b, mistakes, 0)
    assert "inaccuracies are skipped" in b.js("document.getElementById('jumps').textContent")
    for ply in (2, 34, 40, 43):
        b.key("n", 78)
        _expect(b, mistakes, ply)
        _certainty_shown(b, mistakes, ply)
    assert {mistakes.moves[p].exact for p in (2, 34, 40, 43)} == {True, False}  # both kinds are checked
    # Issue 42: a value is the mover's expected margin, never "round points" below 0.
    detail = b.js("document.getElementById('detail').textContent")
    assert "Ben\u2019s expected margin \u2212" in detail and "round points" not in detail, detail
    b.screenshot(tmp_path / "mistakes-1280.png")
    b.key("n", 78)  # none after: it stays, and says so
    _expect(b, mistakes, 43)
    assert b.js("document.getElementById('jump-note').textContent") == "No mistake or blunder after ply 43."
    b.key("p", 80)
    _expect(b, mistakes, 40)
    _after_layout(b, side_by_side=True)
    # N / P: the chosen player's, Ana's at first.
    assert b.js("document.getElementById('jump-who').value") == "0"
    b.key("N", 78, shift=True)
    _expect(b, mistakes, 40)
    assert b.js("document.getElementById('jump-note').textContent").startswith("Ana: no mistake")
    b.key("P", 80, shift=True)
    _expect(b, mistakes, 34)
    b.js(
        "(() => { const s = document.getElementById('jump-who'); s.value = '1'; "
        "s.dispatchEvent(new Event('change', {bubbles: true})); })()"
    )
    b.key("N", 78, shift=True)
    _expect(b, mistakes, 43)
    b.key("P", 80, shift=True)  # Ben has none before 43 but this one
    _expect(b, mistakes, 43)
    # On a phone, the buttons do the same.
    b.open(page.as_uri(), 400, mobile=True)
    _fits(b)
    b.click('#jumps button[data-jump="1"]:not([data-mine])')
    _expect(b, mistakes, 2)
    b.click('#jumps button[data-jump="1"][data-mine]')
    _expect(b, mistakes, 34)
    _fits(b)
    b.click('#board button[data-jump="1"]')  # beside the board too
    _expect(b, mistakes, 40)
    b.click('#board button[data-jump="-1"]')
    _expect(b, mistakes, 34)
    _after_layout(b, side_by_side=False)
    b.screenshot(tmp_path / "mistakes-400.png")


def _certainty_shown(b: DevTools, a: GameAnalysis, ply: int) -> None:
    """Issue 42 (few worlds look as certain as exact): the panel's class and the move list's mark are
    filled where the verdict is exact and a white ring where it is an estimate, as the chart's dots."""
    m = a.moves[ply]
    badge = b.js("getComputedStyle(document.querySelector('#board .bhead .cls')).backgroundColor")
    mark = b.js(
        f"getComputedStyle(document.querySelector('#moves a.mv[data-ply=\"{ply}\"] .mk')).backgroundColor"
    )
    white = "rgb(255, 255, 255)"
    assert (badge == white) == (not m.exact) and (mark == white) == (not m.exact), (ply, badge, mark)


def _board_in_view(b: DevTools) -> None:
    """The board's top, and its ply heading, inside the window."""
    top, height = b.js("[document.getElementById('board').getBoundingClientRect().top, innerHeight]")
    assert -1 <= top < height / 3, (top, height)
    heading = b.js("document.querySelector('#board .plyno').getBoundingClientRect().top")
    assert -1 <= heading < height / 3


def test_an_anchor_keeps_the_board_in_view(tmp_path: Path, mistakes: GameAnalysis, browser: DevTools) -> None:
    # Issue 42: #ply42 scrolled the board's top out of view (the anchor was the move list's entry).
    page = tmp_path / "anchor.html"
    atomic_write_text(page, to_html(mistakes))
    b = browser
    for width, mobile in ((1280, False), (400, True)):
        b.open("about:blank", width, mobile)
        b.open(page.as_uri() + "#ply42", width, mobile)
        b.js("new Promise(r => setTimeout(r, 50))")
        _expect(b, mistakes, 42)
        _board_in_view(b)
        # A link followed within the page: from the top, and from the bottom.
        for start in ("0", "document.documentElement.scrollHeight"):
            b.js(f"window.scrollTo(0, {start})")
            b.js("location.hash = '#ply30'; new Promise(r => setTimeout(r, 50))")
            _expect(b, mistakes, 30)
            _board_in_view(b)
            b.js("location.hash = '#ply44'; new Promise(r => setTimeout(r, 50))")
            _expect(b, mistakes, 44)
            _board_in_view(b)
        _fits(b)


_VISIBLE_DOTS = (
    "Array.from(document.querySelectorAll('#chart circle.dot'))"
    ".filter(d => getComputedStyle(d).display !== 'none').map(d => +d.dataset.ply)"
)


def test_the_chart_of_four_sides_shows_the_chosen_one(tmp_path: Path, browser: DevTools) -> None:
    # Issue 42: the 4-player chart was a sawtooth; one side at a time, chosen in a selector.
    a = analyze(read_log((REPLAYS / "royal-4p-individual.json").read_bytes()), AnalysisOptions(limits=FAST))
    page = tmp_path / "four.html"
    atomic_write_text(page, to_html(a))
    b = browser
    for width, mobile in ((1280, False), (400, True)):
        b.open(page.as_uri(), width, mobile)
        _fits(b)
        assert b.js("document.getElementById('chart-pick').hidden") is False
        shown = b.js(_VISIBLE_DOTS)
        assert shown and sorted(shown) == [m.ply for m in a.moves if m.rated and m.side == 0]
        b.js(
            "(() => { const s = document.getElementById('chart-side'); s.value = '2'; "
            "s.dispatchEvent(new Event('change', {bubbles: true})); })()"
        )
        shown = b.js(_VISIBLE_DOTS)
        assert sorted(shown) == [m.ply for m in a.moves if m.rated and m.side == 2]
        lines = b.js(
            "Array.from(document.querySelectorAll('#chart line.ln'))"
            ".filter(l => getComputedStyle(l).display !== 'none').map(l => l.dataset.k)"
        )
        assert lines and set(lines) == {"2"}
        # A dot of the chosen side selects its ply; its class mark is a ring where the loss is sampled.
        ply = shown[len(shown) // 2]
        b.click(f'#chart circle[data-ply="{ply}"]')
        assert int(b.js("document.getElementById('board').dataset.ply")) == ply
        ring = b.js(f"getComputedStyle(document.querySelector('#chart circle[data-ply=\"{ply}\"]')).fill")
        m = a.moves[ply]
        assert (ring == "rgb(255, 255, 255)") == (not m.exact and m.loss_high - m.loss_low >= 0.005)
        _fits(b)


def _enter(b: DevTools) -> None:
    """Enter as a keyboard types it: the key and its character (a focused button is pressed)."""
    b.page(
        "Input.dispatchKeyEvent",
        type="keyDown",
        key="Enter",
        code="Enter",
        windowsVirtualKeyCode=13,
        text="\r",
    )
    b.page("Input.dispatchKeyEvent", type="keyUp", key="Enter", code="Enter", windowsVirtualKeyCode=13)


def _choices(b: DevTools) -> list[dict[str, Any]]:
    """The moves the drill's current position offers, as the page's data holds them."""
    ply = int(b.js("document.querySelector('#drill p').textContent.match(/ply (\\d+)/)[1]"))
    return list(
        b.js(f"JSON.parse(document.getElementById('review-data').textContent).plies[{ply}].drill.choices")
    )


def test_the_drill_button_gives_the_mistakes_back_as_positions(
    tmp_path: Path, mistakes: GameAnalysis, browser: DevTools
) -> None:
    # Issue 42: the page's Drill, as drill does in the terminal: Ana's mistake (ply 2) and blunders
    # (plies 34 and 40), the position without the answer, a move picked from those the analysis valued, judged
    # as analyze judged it, the reasons after each try, and the score at the end; by the keys alone.
    page = tmp_path / "drill.html"
    atomic_write_text(page, to_html(mistakes))
    b = browser
    b.open(page.as_uri(), 1280)
    assert b.js("document.getElementById('drill').hidden") is True
    assert b.js("document.getElementById('drill-open').hidden") is False
    b.key("d", 68)
    assert b.js("document.getElementById('drill').hidden") is False
    text = b.js("document.getElementById('drill').textContent")
    assert "Position 1 of 3: ply 2" in text and "mistakes of Ana" in text
    m = mistakes.moves[2]
    assert b.js(_CARDS.format("#drill .tablecards .card")) == _table(mistakes, 2)
    assert m.hand is not None and b.js(_CARDS.format("#drill .seat.tomove .card")) == mask_symbols(m.hand)
    assert m.played.describe() not in text and m.best is not None and m.best.describe() not in text
    assert b.js("document.querySelectorAll('#drill .right, #drill .wrong').length") == 0  # no answer yet
    choices = _choices(b)
    texts = [c["move"]["text"] for c in choices]
    assert m.played.describe() in texts and m.best.describe() in texts
    assert b.js("document.querySelectorAll('#drill button[data-choice]').length") == len(choices)
    # The move played in the game: wrong, with the class and loss analyze gave it, and why.
    k = texts.index(m.played.describe())
    b.key(str(k + 1), 49 + k)
    picked = choices[k]
    assert not picked["right"] and picked["cls"] == "mistake" and picked["loss"] == round(m.loss or 0, 2)
    assert b.js(f"document.querySelector('#drill button[data-choice=\"{k}\"]').className") == "wrong"
    best = texts.index(m.best.describe())
    assert "right" in b.js(f"document.querySelector('#drill button[data-choice=\"{best}\"]').className")
    judged = b.js("document.querySelector('#drill .judged').textContent")
    assert judged.startswith(f"{m.played.describe()}: mistake, {m.loss:.2f} of margin behind the best")
    assert "It is the move played in the game." in judged
    assert b.js("document.querySelectorAll('#drill ul.why li').length") == len(m.explanations)
    b.key("ArrowRight", 39)  # the review below does not step while the drill is open
    assert b.js("document.getElementById('board').dataset.ply") == "0"
    for position, ply in ((2, 34), (3, 40)):
        _enter(b)
        assert f"Position {position} of 3: ply {ply}" in b.js("document.getElementById('drill').textContent")
        right = next(i for i, c in enumerate(_choices(b)) if c["right"])
        b.key(str(right + 1), 49 + right)
        assert b.js("document.querySelector('#drill .judged').textContent").startswith("Right: ")
    _enter(b)
    assert b.js("document.querySelector('#drill .score').textContent") == (
        f"Score: 2 of 3 found; {picked['loss']:.2f} of margin lost in all."
    )
    # One skill at a time, as drill --skill: Ana's mistake (ply 2) missed taking pairs and sums, her
    # blunders (plies 34 and 40) keeping aces and Casinos.
    skills = b.js(
        "Array.from(document.querySelectorAll('#drill-skill option')).map(o => o.value + '=' + o.text)"
    )
    assert skills == [
        "=every skill",
        "pairs-and-sums=taking pairs and sums",
        "aces-and-casinos=keeping aces and Casinos",
    ]
    b.js(
        "(() => { const s = document.getElementById('drill-skill'); s.value = 'aces-and-casinos'; "
        "s.dispatchEvent(new Event('change', {bubbles: true})); })()"
    )
    assert "Position 1 of 2: ply 34" in b.js("document.getElementById('drill').textContent")
    assert b.js("document.getElementById('drill-skill').value") == "aces-and-casinos"
    b.key("Escape", 27)
    assert b.js("document.getElementById('drill').hidden") is True
    # On a phone: the buttons, and the page still fits; Ben's drill is chosen in the selector.
    b.open(page.as_uri(), 400, mobile=True)
    b.click("#drill-open")
    _fits(b)
    b.js(
        "(() => { const s = document.getElementById('drill-who'); s.value = '1'; "
        "s.dispatchEvent(new Event('change', {bubbles: true})); })()"
    )
    assert "Position 1 of 1: ply 43" in b.js("document.getElementById('drill').textContent")
    b.click('#drill button[data-choice="0"]')
    _fits(b)
    b.screenshot(tmp_path / "drill-400.png")
    b.click('#drill button[data-drill="next"]')
    assert b.js("document.querySelector('#drill .score').textContent").startswith("Score: ")
    b.click('#drill button[data-drill="close"]')
    assert b.js("document.getElementById('drill').hidden") is True
