"""The words every report shares: the title, a move's class label, what a loss rests on, the search
settings, the luck per deal. The terminal view (``render``), the Markdown, the HTML page and the
JSON-facing code all say these things in these words."""

from __future__ import annotations

from typing import Final

from casino_coach.coach.analysis import GameAnalysis, MoveAnalysis, SeatSummary


def title(a: GameAnalysis) -> str:
    return f"Game analysis: {' vs '.join(a.players)} ({a.rules.describe()})"


def class_label(m: MoveAnalysis) -> str:
    if m.not_judged:
        return "not judged"
    if not m.rated:
        return "not rated"
    if m.forced:
        return "forced"
    return m.cls.value if m.cls is not None else ""


def loss_basis(m: MoveAnalysis) -> str:
    """What a loss rests on: "exact", "1.01 to 3.28 over 56 worlds", "over all 9 worlds the player
    could face", with ", searched shallower to fit the node budget" when it was."""
    if m.exact:
        return "exact"
    worlds = f"{m.samples} world{'s' if m.samples != 1 else ''}"
    if m.loss_high - m.loss_low < 0.005:  # every consistent world was searched
        text = f"over all {worlds} the player could face"
    else:
        text = f"{m.loss_low:.2f} to {m.loss_high:.2f} over {worlds}"
    return text + (", searched shallower to fit the node budget" if m.shallow else "")


UNCERTAIN_WORDS = "the interval spans two classes, so the milder is given"


def loss_words(m: MoveAnalysis) -> str:
    """The loss with what it rests on: "lost 2.15 (1.01 to 3.28 over 56 worlds)", "lost 4.00
    (exact)"; an uncertain class says that it is the milder of the classes its interval spans."""
    if m.loss is None:
        return ""
    text = f"lost {m.loss:.2f} ({loss_basis(m)})"
    return text + (f"; {UNCERTAIN_WORDS}" if m.uncertain else "")


def chance_words(p: float) -> str:
    """A chance in percent, whole: "48%"; "<1%" and ">99%" near the ends, where rounding would say
    "0%" or "100%" of a game still to play."""
    if 0 < p < 0.005:
        return "<1%"
    if 0.995 < p < 1:
        return ">99%"
    return f"{100 * p:.0f}%"


def win_words(m: MoveAnalysis) -> str | None:
    """The mover's side's chance to win the game (``coach.winning``): "chance to win the game: 48%
    before the round, 41% after it with the move played (55% with the best move)"; None without."""
    if m.win is None:
        return None
    side = m.side
    text = f"chance to win the game: {chance_words(m.win.round_start[side])} before the round"
    played = m.win.of(m.played)
    if played is not None:
        text += f", {chance_words(played[side])} after it with the move played"
    best = m.win.of(m.best) if m.best is not None and m.best != m.played else None
    if best is not None:
        text += f" ({chance_words(best[side])} with the best move)"
    return text


# How much more chance of winning the game a move must give than another before the words say the
# game and the round disagree on them: where the search was exact (the last deal of a 2-player round)
# the chances are exact for the table; before, they rest on the leaf's odds and sampled worlds, and a
# smaller gap moves with the seed (seen on the bundled Dominican game: gaps of 2 to 4 points at one
# seed that another seed puts under 2).
GAME_EDGE: Final = 0.02
GAME_EDGE_ESTIMATED: Final = 0.05


def game_verdict_words(m: MoveAnalysis) -> str | None:
    """The game and the round disagree (``MoveAnalysis.win``): the move played lost round points but
    leaves more chance of winning the game than the best move for the round ("right for the game,
    wrong for the round"), or it was right for the round while another of the best moves leaves at
    least GAME_EDGE (GAME_EDGE_ESTIMATED where the search was not exact) more chance of winning the
    game. None when they agree or no chances are known."""
    if m.win is None or m.best is None or m.forced:
        return None
    side = m.side
    played = m.win.of(m.played)
    if played is None:
        return None
    at = ""
    if m.view is not None and len(m.view.scores) == 2:
        at = f"at {m.view.scores[side]:g}-{m.view.scores[1 - side]:g}, "
    edge = GAME_EDGE if m.exact else GAME_EDGE_ESTIMATED
    best = m.win.of(m.best)
    if m.missed and best is not None and played[side] >= best[side] + edge:
        return (
            f"Right for the game, wrong for the round: {at}{m.played.describe()} leaves you "
            f"{chance_words(played[side])} to win the game, {m.best.describe()} "
            f"{chance_words(best[side])}; the {m.loss or 0.0:.2f} round points it gives up matter less"
        )
    top_move, top = max(m.win.after, key=lambda mc: mc[1][side])
    if not m.missed and top_move != m.played and top[side] >= played[side] + edge:
        return (
            f"Right for the round, wrong for the game: {at}{top_move.describe()} would leave you "
            f"{chance_words(top[side])} to win the game, the move played {chance_words(played[side])}"
        )
    return None


def where(m: MoveAnalysis) -> str:
    return f"round {m.round + 1}, deal {m.deal + 1}"


def settings_words(a: GameAnalysis) -> str:
    lim = a.options.limits
    th = a.options.thresholds
    depth = f"{lim.depth} plies deep" if lim.depth else "to the end of the deal"
    if len(a.players) == 2:
        depth += " (the last deal of a round exactly to its end)"
    return (
        f"search: {lim.min_samples} to {lim.samples} sampled worlds per move (more while the loss "
        f"of the move played straddles a class edge), {depth}, seed {lim.seed}; every world "
        "consistent with what the player saw weighs the same (the other players' plays are not "
        "read as clues: a verdict should not rest on a model of how they play); classes by "
        f"loss in expected points: good < {th.inaccuracy:g} ≤ inaccuracy < {th.mistake:g} ≤ "
        f"mistake < {th.blunder:g} ≤ blunder, taken at the low end of the loss's interval of "
        f"{th.noise:g} standard errors"
    )


def luck_words(s: SeatSummary) -> str:
    """The luck of each deal, round by round: "round 1: +0.40 -1.20 ...; round 2: ..."."""
    rounds: dict[int, list[str]] = {}
    for x in s.luck:
        rounds.setdefault(x.round, []).append(f"{x.points:+.2f}")
    return "; ".join(f"round {r + 1}: {' '.join(v)}" for r, v in sorted(rounds.items())) or "none"


def accuracy_words(s: SeatSummary, game: bool = False) -> str:
    """The accuracy in round points ("93.1%"), or with ``game`` from winning chances (where the
    rules have a table)."""
    value = s.game_accuracy if game else s.accuracy
    return "–" if value is None else f"{value:.1f}%"


def mark_label(m: MoveAnalysis) -> str:
    """The class a page shows for ``m``: as ``class_label``, except that *forced* is kept for a move
    that was the only legal one; a forced move among several legal moves (every one worth the same
    in every consistent world) is "all equal"."""
    if m.rated and m.forced and m.legal > 1:
        return "all equal"
    return class_label(m)


def world_worth_showing(m: MoveAnalysis, edge: float) -> bool:
    """Whether the loss on the cards actually held says something beside the expected loss: it is
    known, the move was not forced, and the two differ by ``edge`` points or more (the analysis's
    inaccuracy threshold). A page that showed it on every move said "0.00" almost everywhere."""
    if m.world is None or m.forced or m.loss is None:
        return False
    return abs(m.world.loss - m.loss) >= edge
