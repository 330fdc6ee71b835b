"""Rich renderables for the search: the ranked moves of ``suggest`` (no logic, no I/O)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from casino_coach.coach.assessment import Assessment, why_not_second
from casino_coach.coach.verdict import Verdict
from casino_coach.coach.winning import WinChances
from casino_coach.engine.movegen import Move
from casino_coach.engine.observation import Observation
from casino_coach.formats.text import player_name
from casino_coach.render import cards_text, move_words, table_text
from casino_coach.report.words import (
    CLASS_READ,
    chance_words,
    for_game_words,
    game_class_words,
    lost_words,
    margin_words,
    model_words,
    near_target_values_words,
)
from casino_coach.search.result import MoveValue, SearchResult
from casino_coach.search.worlds import count_worlds
from casino_coach.services.decision import Suggestion, played_game_words, shown_chances


def verdict_words(v: Verdict, result: SearchResult) -> str:
    """ "mistake, lost 0.62 (0.51 to 0.74)", "best", "forced"."""
    if v.forced:
        return "forced"
    if result.exact:
        interval = " (exact)"
    elif result.enumerated and result.cut_margin:
        interval = f" ({v.low:.2f} to {v.high:.2f}, over all {result.samples} worlds)"
    elif result.enumerated:
        interval = f" (over all {result.samples} worlds)"
    else:
        interval = f" ({v.low:.2f} to {v.high:.2f})"
    text = f"{v.cls.value}, {lost_words(v.loss)}{interval}"
    if v.uncertain and result.enumerated:  # no sampling error: the estimate's margin spans the edge
        text += f"; the interval, the rest of the round estimated, spans more than one class: {CLASS_READ}"
    elif v.uncertain:
        text += f"; not pinned to one class after {result.samples} worlds: {CLASS_READ}"
    return text


def effort_text(result: SearchResult) -> str:
    """How the values were found: exact, over every kind of deal (to the end of the round, or with the
    rest of the round estimated where the search stopped), or over how many worlds; with nodes and
    speed."""
    rate = result.nodes / result.seconds if result.seconds > 0 else 0.0
    if result.exact:
        how = "exact: every world solved to the end of the round"
    elif result.enumerated:
        kinds = f"all {result.samples} kinds" if result.samples != 1 else "the one kind"
        rest = (
            "each to the end of the round"
            if result.round_end
            else "the rest of the round estimated where the search stopped"
        )
        how = f"{kinds} of deal the player could face searched, with no sampling error; {rest}"
    else:
        how = f"{result.samples} world{'s' if result.samples != 1 else ''} searched"
    return f"{how}; {result.nodes:,} nodes in {result.seconds:.2f} s ({rate:,.0f} nodes/s)"


def seat_label(seat: int, names: Sequence[str], you: int | None = None) -> str:
    """``Ana (seat 0)`` in a log; ``you (seat 0)`` for the seat a typed position is about; else ``seat 1``."""
    if names and 0 <= seat < len(names):
        return f"{player_name(names[seat])} (seat {seat})"
    return f"you (seat {seat})" if seat == you else f"seat {seat}"


def _side_label(side: int, obs: Observation, names: Sequence[str], you: int | None) -> str:
    seats = [s for s in range(obs.nplayers) if s % obs.nsides == side]
    return " & ".join(seat_label(s, names, you) for s in seats)


def side_labels(obs: Observation, names: Sequence[str] = (), *, typed: bool = False) -> list[str]:
    """Each side as the values line names it: ``Ana (seat 0)``, partners joined with "&"."""
    you = obs.to_move if typed else None
    return [_side_label(side, obs, names, you) for side in range(obs.nsides)]


def value_basis(obs: Observation, names: Sequence[str] = (), *, typed: bool = False) -> str:
    """What a value is relative to: the mover's side's round points minus the others' (their mean with
    three sides), and for a position not read from a log, where every card not listed is."""
    you = obs.to_move if typed else None
    mine = obs.to_move % obs.nsides
    others = [_side_label(s, obs, names, you) for s in range(obs.nsides) if s != mine]
    label = _side_label(mine, obs, names, you)
    if label.startswith("you"):  # a typed position's player: "your", not "of you (seat 0)"
        label = f"your side ({label})" if " & " in label else "you"
    margin = margin_words(
        obs.nsides,
        "your expected points" if label == "you" else f"the expected points of {label}",
        f"those of {others[0]}" if len(others) == 1 else "the mean of those of " + " and ".join(others),
        others[0] if len(others) == 1 else "one of them",
    )
    text = margin[:-1] + "; they count the cards captured so far and those still to be played"
    if names:
        return text + ", averaged over the cards hidden from the player to move."
    taken = ", ".join(
        f"{_side_label(s, obs, names, you)} {obs.captured[s].bit_count()}" for s in range(obs.nsides)
    )
    unseen = obs.unseen.bit_count()
    in_hands = obs.hidden_count() - obs.stock_count
    rest = unseen - in_hands - obs.stock_count
    where = "not in the hand, on the table, seen or captured"
    text += (
        f" (captured so far: {taken}). The {unseen} cards listed nowhere ({where}) are unseen: "
        f"{in_hands} in the other hands and {obs.stock_count} in the stock, dealt at random in each "
        "world searched"
    )
    if not rest:
        return text + "."
    return text + (
        f"; the other {rest} count as captured earlier by no one known: they score for nobody"
        + (" (--captured gives them to a side)." if typed else ".")
    )


def best_line(
    obs: Observation,
    result: SearchResult,
    names: Sequence[str] = (),
    ply: int | None = None,
    *,
    typed: bool = False,
) -> Table:
    """The best move and the line that follows it, one move a row with who plays it (and the ply
    in a log): shown only when the values are exact over one world, where every card is known to the
    mover (in the last deal of a 2-player round; with more players the cards still out can lie in
    several ways)."""
    you = obs.to_move if typed else None
    best = result.moves[0]
    table = Table(show_edge=False, pad_edge=False, box=None, show_header=False)
    if ply is not None:
        table.add_column(justify="right", style="dim")
    table.add_column()
    table.add_column()
    for i, move in enumerate((best.move, *best.line)):
        seat = (obs.to_move + i) % obs.nplayers
        row: list[str | Text] = [seat_label(seat, names, you), move_words(move)]
        table.add_row(*([f"ply {ply + i}"] if ply is not None else []), *row)
    return table


def suggestion_view(
    obs: Observation,
    result: SearchResult,
    why: str,
    *,
    top: int | None = None,
    ply: int | None = None,
    played: Move | None = None,
    verdict: Verdict | None = None,
    names: Sequence[str] = (),
    typed: bool = False,
    win: WinChances | None = None,
    equal: Sequence[Move] = (),
    game_words: str | None = None,
    near: str | None = None,
    headline: str | None = None,
    detail: bool = True,
) -> Group:
    """The player to move and the position, the ranked moves with value ± standard error (and, with
    ``win``, the mover's side's chance to win the game once the round is over after each), the
    reason (``why``: which move is best, and why), the best line in words (when the values are exact
    over one world: otherwise a line would be played with cards the player cannot see), the verdict on
    the move the log plays here, and what the values mean; once the game is close, the verdict for the
    game on the move played, with ``game_words`` where the game and the round disagree on it;
    ``near``: what the values mean where a side is under the near-21 rule
    (``report.words.near_target_values_words``); ``headline``: the move played's, with its
    explanations below it only with ``detail``."""
    you = obs.to_move if typed else None
    head = Text(
        f"{seat_label(obs.to_move, names, you)} to move"
        + (f" (ply {ply})" if ply is not None else "")
        + ": hand "
    )
    head.append_text(cards_text(obs.hand))
    table_line = Text("Table: ")
    table_line.append_text(table_text(obs.loose, obs.builds, [player_name(n) for n in names] or None))
    side = obs.to_move % obs.nsides
    moves = result.moves if top is None else result.moves[:top]
    parts: list[RenderableType] = [
        head,
        table_line,
        Text(""),
        _moves_table(moves, result, win, side, equal),
    ]
    hidden = len(result.moves) - len(moves)
    if hidden:
        parts.append(Text(f"   … and {hidden} more move{'s' if hidden != 1 else ''}", style="dim"))
    parts += [Text(""), Text(why)]
    if near is not None:
        parts.append(Text(near))
    if result.moves:
        parts += _line_parts(obs, result, names, ply, typed)
    if played is not None and verdict is not None:
        parts += _played_parts(played, verdict, result, game_words, headline, detail)
    basis = f"{value_basis(obs, names, typed=typed)} The search: {model_words(obs.nplayers, obs.nsides)}."
    parts += [Text(effort_text(result), style="dim"), Text(basis, style="dim")]
    if win is not None:
        who = seat_label(obs.to_move, names, you)
        who = who if obs.nsides == obs.nplayers else f"{who}'s side"
        parts.append(
            Text(
                f"game: the chance that {who} wins the game once the round is over after the move "
                f"({chance_words(win.round_start[side])} before this round; the chances after a round "
                "come from rounds of self-play)",
                style="dim",
            )
        )
    return Group(*parts)


def _moves_table(
    moves: Sequence[MoveValue], result: SearchResult, win: WinChances | None, side: int, equal: Sequence[Move]
) -> Table:
    """The ranked moves: value ± standard error ("exact", or "all" where every kind of deal was
    searched: no sampling error, but not the game's value), and with ``win`` the side's chance to win
    the game; the moves ``equal`` to the best share its rank."""
    table = Table(show_edge=False, pad_edge=False, box=None, header_style="bold")
    table.add_column("#", justify="right")
    table.add_column("move")
    table.add_column("value", justify="right")
    table.add_column("±", justify="right")
    if win is not None:
        table.add_column("game", justify="right")
    for i, mv in enumerate(moves, 1):
        error = "all" if result.enumerated and mv.stderr == 0 else f"{mv.stderr:.2f}"
        row: list[str | Text] = [
            "1" if mv.move in equal else str(i),
            move_words(mv.move),
            f"{mv.ev:+.2f}",
            "exact" if result.exact else error,
        ]
        if win is not None:
            after = win.of(mv.move)
            row.append(chance_words(after[side]) if after is not None else "")
        table.add_row(*row)
    return table


def _line_parts(
    obs: Observation, result: SearchResult, names: Sequence[str], ply: int | None, typed: bool
) -> list[RenderableType]:
    """The best line in words where every card is known to the mover and the search went to the end
    of the round (the others playing together against the mover, with three or more sides); else why
    there is none."""
    known = obs.stock_count == 0 and obs.unseen.bit_count() == obs.hidden_count()
    ways = count_worlds(obs) if known else 0
    if ways == 1 and result.depth is None and not result.shallow:
        model = "" if obs.nsides == 2 else ", the others playing together against the mover"
        return [
            Text(""),
            Text(f"Best line (every card is known to the player to move{model}):"),
            best_line(obs, result, names, ply, typed=typed),
        ]
    if ways > 1:
        return [
            Text(
                f"No line of play: the player to move knows the cards still out but not who holds "
                f"which ({ways:,} ways), and a line would show one of them.",
                style="dim",
            )
        ]
    return [
        Text("No line of play: it would be played with cards hidden from the player to move.", style="dim")
    ]


def _played_parts(
    played: Move,
    verdict: Verdict,
    result: SearchResult,
    game_words: str | None,
    headline: str | None = None,
    detail: bool = True,
) -> list[RenderableType]:
    """The verdict on the move the log plays here, its ``headline``, with ``detail`` its
    explanations, and the verdict for the game."""
    parts: list[RenderableType] = [
        Text(""),
        Text(f"Played here: {played.describe()} — {verdict_words(verdict, result)}"),
    ]
    if headline is not None:
        parts.append(Text(headline, style="bold"))
    if detail or headline is None:
        parts += [Text(f"  - {e.text} ({e.points:.2f})") for e in verdict.explanations]
    game = game_class_words(verdict.game)
    if game is not None:
        parts.append(Text(f"  - {game}"))
    if game_words is not None:
        parts.append(Text(f"  - {game_words}"))
    return parts


def best_words(a: Assessment, detail: bool = True) -> str:
    """The "Best:" sentence of a decision's assessment: where a move is better for the game than the
    round's best (``Assessment.for_game``), that move, with its chance to win the game beside the
    round's best and its value (``for_game_words``); else the round's best, and what the runner-up
    loses against it (``why_not_second``, category by category with ``detail``)."""
    if a.for_game is None:
        return why_not_second(a, detail)
    words = for_game_words(a.for_game, a.result, a.chances, a.side)
    return f"Best: {a.for_game.move.move.describe()}, {words}."


def suggestion_render(s: Suggestion, top: int | None = None, detail: bool = False) -> Group:
    """What ``suggest`` shows of a decision's assessment (``services.decision.suggest``):
    ``suggestion_view`` of it, with the ``top`` best moves; its headline (``Assessment.headline``),
    and with ``detail`` the reasons below it."""
    a, q, d = s.assessment, s.query, s.assessment.decision
    why = best_words(a, detail)
    if d.played is None and a.headline is not None:  # else the headline is the move played's
        why = f"{a.headline}\n{why}"
    return suggestion_view(
        d.obs,
        a.result,
        why,
        top=top,
        ply=q.ply,
        played=d.played,
        verdict=a.verdict,
        names=d.names,
        win=shown_chances(a, top),
        equal=a.equal,
        game_words=played_game_words(a),
        headline=a.headline if d.played is not None else None,
        detail=detail,
        typed=q.typed,
        near=near_target_values_words(d.rules, d.scores, side_labels(d.obs, d.names, typed=q.typed)),
    )
