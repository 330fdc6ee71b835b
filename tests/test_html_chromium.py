"""The HTML report in a real headless Chromium: it loads offline and draws its cards, badges and chart.

Needs Debian's ``chromium`` (``.ci/run`` installs it). The screenshot is decoded here (PNG: zlib and
the five row filters) to check colours the page's CSS and SVG must produce.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib
from collections import Counter
from pathlib import Path

import pytest
from test_analysis import FAST, _log, make_log

from casino_coach.coach.analysis import AnalysisOptions, analyze
from casino_coach.formats.files import atomic_write_text
from casino_coach.report.document import to_html

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


def test_report_renders_in_headless_chromium(tmp_path: Path) -> None:
    assert CHROMIUM is not None
    analysis = analyze(_log(make_log(3, deals=2)), AnalysisOptions(limits=FAST))
    page = tmp_path / "report.html"
    atomic_write_text(page, to_html(analysis))
    shot = tmp_path / "shot.png"
    cmd = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path / 'profile'}",
        f"--screenshot={shot}",
        "--window-size=1200,2000",
        page.as_uri(),
    ]
    subprocess.run(cmd, check=True, capture_output=True, timeout=180)
    width, height, rows = decode_png(shot.read_bytes())
    assert (width, height) == (1200, 2000)
    colours: Counter[tuple[int, int, int]] = Counter()
    for row in rows[::3]:
        for x in range(0, len(row), 9):
            colours[(row[x], row[x + 1], row[x + 2])] += 1
    total = sum(colours.values())
    # The page background fills much of the screen; the white of cards and panels too.
    assert colours[_hex("#f4f1ea")] > total * 0.2
    assert colours[(255, 255, 255)] > total * 0.1
    # The summary's class badges (CSS) and the chart's line (SVG) are drawn.
    for colour in ("#2e7d32", "#b71c1c", "#2f6b4f"):
        assert colours[_hex(colour)] > 20, colour
    # Red suits are drawn in red somewhere on the page.
    assert colours[_hex("#c0262d")] > 0
