"""Audit the explanations: how much of each loss they put down to named scoring categories, and that
none names a card the mover had not seen as if it were held.

The games are those of ``experiments/verdict_stability.py`` (twelve one-round self-play games that are not
in ``replays/``), analysed at default settings. It prints:

* the share of the lost points explained by named categories and events rather than the catch-all
  ``other`` line (target >= 80%), overall and per game;
* the number of explanations that name a card unseen by the mover other than as a scoring item still
  to be won (target 0), with the first few;
* with ``--show N``, N explanations spread over the games, to read as a strong player would.

    python experiments/explanation_audit.py [--jobs 2] [--show 50] [--games 12]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from casino_coach.coach.analysis import AnalysisOptions, analyze
from casino_coach.coach.verdict import analysis_limits
from casino_coach.engine.cards import ACES_MASK, BIG_CASINO, LITTLE_CASINO, card_symbol
from casino_coach.formats.replay import replay_log
from casino_coach.report.words import loss_words

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verdict_stability import GAMES, game_log

CARD = re.compile(r"(?:10|[2-9AJQK])[♣♦♥♠]")
SYMBOLS = {card_symbol(c): c for c in range(52)}
CASH = ACES_MASK | 1 << BIG_CASINO | 1 << LITTLE_CASINO
# The catch-all lines: today's "other", and the "later play" and "likely continuation" lines of the
# explanations before (so that the script measures older code too, run with its PYTHONPATH).
CATCH_ALL = ("other", "later_play", "continuation")


def named_as_held(text: str, unseen: int) -> list[str]:
    """The cards of ``text`` that the mover had not seen and that it does not name as a scoring item
    still to be won ("10♦ (not seen yet)")."""
    bad = []
    for sym in CARD.findall(text):
        c = SYMBOLS[sym]
        if unseen >> c & 1 and not (CASH >> c & 1 and f"{sym} (not seen yet)" in text):
            bad.append(sym)
    return bad


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--games", type=int, default=len(GAMES))
    ap.add_argument("--show", type=int, default=0, help="print this many explanations to read")
    args = ap.parse_args()
    lost = other = 0.0
    count = 0
    violations: list[str] = []
    shown: list[str] = []
    ngames = min(args.games, len(GAMES))
    per_game = max(1, -(-args.show // ngames)) if args.show else 0
    for gi in range(ngames):
        preset, bots, _ = GAMES[gi]
        log = game_log(gi)
        plies = replay_log(log).plies
        a = analyze(log, AnalysisOptions(limits=analysis_limits(), jobs=args.jobs))
        g_lost = g_other = 0.0
        picked = 0
        for m in a.moves:
            if not m.explanations:
                continue
            obs = plies[m.ply].observation
            assert obs is not None
            count += len(m.explanations)
            g_lost += sum(e.points for e in m.explanations)
            g_other += sum(abs(e.points) for e in m.explanations if e.kind in CATCH_ALL)
            for e in m.explanations:
                bad = named_as_held(e.text, obs.unseen)
                if bad:
                    violations.append(f"game {gi + 1} ply {m.ply}: {', '.join(bad)}: {e.text}")
            if picked < per_game and m.loss and m.loss >= 0.3 and len(shown) < args.show:
                picked += 1
                head = (
                    f"[game {gi + 1}, {preset} {len(bots)}p, ply {m.ply}, {log.players[m.seat]}] "
                    f"{m.played.describe()}: {m.cls.value if m.cls else ''}, {loss_words(m)}; best "
                    f"{m.best.describe() if m.best else '?'}"
                )
                shown.append("\n".join([head, *(f"  - {e.text} ({e.points:.2f})" for e in m.explanations)]))
        lost += g_lost
        other += g_other
        share = 100 * (1 - g_other / g_lost) if g_lost else 100.0
        print(
            f"game {gi + 1:2d} {preset} {len(bots)}p: {g_lost:.2f} points lost and explained, "
            f"{share:.1f}% by named categories",
            flush=True,
        )
    print()
    print(
        f"{count} explanations; lost points explained by named categories and events: "
        f"{100 * (1 - other / lost) if lost else 100:.1f}% (target >= 80%); the catch-all: "
        f"{other:.2f} of {lost:.2f} points"
    )
    print(f"explanations naming a card the mover had not seen as held: {len(violations)} (target 0)")
    for v in violations[:5]:
        print("  " + v)
    for text in shown:
        print()
        print(text)


if __name__ == "__main__":
    main()
