"""The drill session (``services.drill``): the positions it gives back are the analysis's mistakes and
blunders, every answer is judged by the search behind the analysis's verdict (so a drill never
disagrees with ``analyze``), bad input is refused without counting, and the score adds up."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from casino_coach.coach.analysis import AnalysisOptions, analyze
from casino_coach.coach.classes import MoveClass, Thresholds
from casino_coach.coach.verdict import analysis_limits
from casino_coach.engine.notation import typed_text
from casino_coach.errors import CoachError
from casino_coach.formats.log import read_log
from casino_coach.render.drill import judgement_words, note_view, position_view
from casino_coach.services.drill import (
    DrillSession,
    DrillSettings,
    NoteKind,
    Position,
    drill_positions,
    drill_settings,
    judge_answer,
    no_positions_words,
    read_checked,
)

ROOT = Path(__file__).resolve().parent.parent
FULL = ROOT / "replays" / "classic-2p-full.json"
VIEWER = ROOT / "replays" / "classic-2p-viewer.json"
SETTINGS = DrillSettings(analysis_limits(8, 0))


@pytest.fixture(scope="module")
def positions() -> list[Position]:
    return drill_positions(read_log(FULL), SETTINGS, str(FULL))


def _session(positions: list[Position]) -> DrillSession:
    s = DrillSession(positions, drill_settings(SETTINGS))
    assert [n.kind for n in s.start()] == [NoteKind.POSITION]
    return s


def test_the_positions_are_the_analysis_mistakes_and_blunders_in_game_order(
    positions: list[Position],
) -> None:
    a = analyze(read_log(FULL), AnalysisOptions(limits=SETTINGS.limits, world=False))
    expected = [
        (m.ply, m.cls)
        for m in a.moves
        if m.rated and not m.forced and m.cls in (MoveClass.MISTAKE, MoveClass.BLUNDER)
    ]
    assert expected  # the bundled game has some, or the test would check nothing
    assert [(p.played.ply, p.played.cls) for p in positions] == expected
    only = drill_positions(read_log(FULL), DrillSettings(SETTINGS.limits, classes=(MoveClass.BLUNDER,)))
    assert [p.played.ply for p in only] == [ply for ply, cls in expected if cls == MoveClass.BLUNDER]


def test_a_player_is_chosen_by_name_or_seat_and_a_viewer_log_holds_the_viewer_only() -> None:
    _, seats = read_checked(FULL, "ben")
    assert seats == frozenset({1})
    assert read_checked(FULL, "1")[1] == frozenset({1})
    assert read_checked(FULL, None)[1] is None
    with pytest.raises(CoachError, match=r"classic-2p-full.json: player 'Zed' is not in this game"):
        read_checked(FULL, "Zed")
    with pytest.raises(CoachError, match="viewer log"):
        read_checked(VIEWER, "Ben")
    viewer = drill_positions(read_log(VIEWER), SETTINGS)
    assert {p.played.seat for p in viewer} <= {0}
    text = no_positions_words(["a.json"], (MoveClass.MISTAKE, MoveClass.BLUNDER), "Ana")
    assert text == "No mistake or blunder by 'Ana' in a.json: nothing to drill."


def test_answering_the_move_played_gives_the_analysis_verdict_exactly(positions: list[Position]) -> None:
    s = _session(positions)
    for p in positions:
        notes = s.handle(typed_text(p.played.played))
        j = notes[0].judgement
        assert notes[0].kind == NoteKind.JUDGEMENT and j is not None
        assert not j.right
        assert (j.verdict.cls, j.verdict.loss, j.verdict.low) == (
            p.played.cls,
            p.played.loss,
            p.played.loss_low,
        )
        assert j.best == p.played.best
    assert s.over and s.score.found == 0 and s.score.answered == len(positions)
    assert s.score.lost == pytest.approx(sum(p.played.loss or 0.0 for p in positions))


def test_every_answer_is_classed_from_the_same_search(positions: list[Position]) -> None:
    # The answer's class is the class of its loss against the best move in the decision's search
    # (SearchResult.loss, Thresholds.classify_interval), and right means best or equal to it.
    s = _session(positions)
    a = s.assessment()
    th = Thresholds()
    for mv in a.result.moves:
        j = judge_answer(positions[0], a, mv.move)
        loss, low, _ = a.result.loss(mv.move, th.noise)
        assert j.verdict.cls == th.classify_interval(loss, low)
        assert j.right == (mv.move == a.result.moves[0].move or mv.move in a.equal)
        assert j.right == (j.verdict.cls == MoveClass.BEST)
        assert j.loss == (0.0 if j.right else j.verdict.loss)


def test_the_best_move_and_a_move_equal_to_it_are_right_and_the_score_adds_up(
    positions: list[Position],
) -> None:
    s = _session(positions)
    # The first position in which some move is as good as the best, to answer with that move.
    index = next(
        i for i in range(len(positions)) if DrillSession(positions[i:], s.settings).assessment().equal
    )
    for _ in range(index):
        s.handle("skip")
    a = s.assessment()
    best, equal = a.result.moves[0].move, a.equal[0]
    j = s.handle(typed_text(equal))[0].judgement
    assert j is not None and j.right and j.loss == 0.0 and j.best == best
    assert "as good as the best" in judgement_words(j)
    b = s.assessment()
    j2 = s.handle(typed_text(b.result.moves[0].move))[0].judgement
    assert j2 is not None and j2.right and judgement_words(j2).startswith("Right: ")
    wrong = next(mv.move for mv in s.assessment().result.moves if mv.move != s.current.played.best)
    j3 = s.handle(typed_text(wrong))[0].judgement
    assert j3 is not None
    assert s.score.found == 2 + (1 if j3.right else 0) and s.score.skipped == index
    assert s.score.lost == pytest.approx(j3.loss)
    notes = s.handle("quit")
    left = len(positions) - index - 3
    assert notes[-1].kind == NoteKind.SCORE
    skipped = f" ({index} skipped)" if index else ""
    assert notes[-1].text.startswith(f"Score: {s.score.found} of {index + 3} found{skipped}; ")
    assert notes[-1].text.endswith(f"lost in all ({left} position{'s' if left != 1 else ''} left).")
    assert s.over and s.handle("1")[0].kind == NoteKind.SCORE


def test_bad_input_is_refused_in_words_and_not_counted(positions: list[Position]) -> None:
    s = _session(positions)
    hand = s.current.obs.hand
    held = {typed_text(m).split()[0] for m in s.legal()}
    absent = next(c for c in ("AC", "AD", "AH", "AS", "KC", "KD") if c not in held)
    cases = {
        "zz 3": "Cannot read 'zz 3': type a move like",
        "qiut": "did you mean 'quit'?",
        absent: "You do not hold",
        "99": "No move 99: type a number from 1 to",
    }
    for line, words in cases.items():
        notes = s.handle(line)
        assert [n.kind for n in notes] == [NoteKind.ERROR], line
        assert words in notes[0].text, (line, notes[0].text)
    assert s.score.answered == 0 and s.index == 0 and s.current.obs.hand == hand
    assert s.handle("")[0].kind == NoteKind.POSITION  # an empty line shows the position again
    assert s.handle("help")[0].kind == NoteKind.HELP
    moves = s.handle("moves")[0]
    assert moves.kind == NoteKind.MOVES and [n for n, _ in moves.moves] == list(range(1, len(s.legal()) + 1))
    # A card with several moves lists them; its number answers.
    card = next(c for c in held if sum(t.split()[0] == c for t in map(typed_text, s.legal())) > 1)
    fits = s.handle(card)[0]
    assert fits.kind == NoteKind.CANDIDATES and len(fits.moves) > 1
    n, move = fits.moves[0]
    j = s.handle(str(n))[0].judgement
    assert j is not None and j.move == move and s.score.answered == 1


def test_an_illegal_move_gets_the_engine_reason(positions: list[Position]) -> None:
    s = _session(positions)
    card = typed_text(s.legal()[0]).split()[0]
    notes = s.handle(f"{card} b13 {card}")  # a build with the card played itself: no legal move
    assert notes[0].kind == NoteKind.ERROR and card[0] in notes[0].text
    assert s.score.answered == 0


def test_completions_offer_commands_and_legal_moves(positions: list[Position]) -> None:
    s = _session(positions)
    assert s.completions("sk") == ["skip"]
    first = typed_text(s.legal()[0])
    assert first in s.completions(first[:2])


def test_the_position_shows_what_the_player_saw_within_80_columns(positions: list[Position]) -> None:
    s = _session(positions)
    console = Console(width=80, record=True, no_color=True, file=io.StringIO())
    console.print(position_view(s.current, 1, len(positions)))
    for note in s.handle(typed_text(positions[0].played.played)):
        console.print(
            note_view(note, (s.current, 2, len(positions), False) if note.kind == NoteKind.POSITION else None)
        )
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80
    text = " ".join(text.split())  # the file's name and the long lines wrap at 80 columns
    p = positions[0]
    assert f"Position 1 of {len(positions)}: ply {p.played.ply}" in text
    assert "Ben (seat 1) to move" in text and "Hand " in text and "Table " in text
    assert "Game score before this round: Ana (seat 0) " in text
    assert f"Played in the game: {p.played.played.describe()} (a {p.played.cls}" in text
    assert "(the move played in the game)" in text and "Best: " in text


def test_the_review_pages_drill_classes_every_move_as_the_terminal_drill(positions: list[Position]) -> None:
    # The page's Drill (report.review.drill_data) judges from the saved analysis, the terminal's from
    # the decision's search: each move the page offers gets the same class, loss and right/wrong.
    # (The page had classed the moves other than the one played with that move's standard error.)
    from casino_coach.report.review import drill_data

    a = analyze(read_log(FULL), AnalysisOptions(limits=SETTINGS.limits, world=False))
    by_ply = {m.ply: m for m in a.moves}
    settings = drill_settings(SETTINGS)
    checked = 0
    for i, p in enumerate(positions):
        m = by_ply[p.played.ply]
        d = drill_data(a, m)
        assert d is not None
        assessment = DrillSession(positions[i:], settings).assessment()
        moves = {alt.move.describe(): alt.move for alt in m.alternatives} | {m.played.describe(): m.played}
        for c in d["choices"]:
            j = judge_answer(p, assessment, moves[c["move"]["text"]])
            assert (c["cls"], c["right"]) == (j.verdict.cls.value, j.right)
            assert c["loss"] == round(j.verdict.loss, 2)
            checked += 1
    assert checked > len(positions)
