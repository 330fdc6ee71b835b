"""The words every report shares: the title, a move's class label, what a loss rests on, the search
settings, the luck per deal. The terminal view (``render``), the Markdown, the HTML page and the
JSON-facing code all say these things in these words."""

from __future__ import annotations

from collections.abc import Sequence

from casino_coach.coach.analysis import GameAnalysis, MoveAnalysis, SeatSummary
from casino_coach.coach.budget import ANALYSIS_DEPTH, DEAL_END_CARDS, ROUND_END_CARDS
from casino_coach.coach.classes import GAME_THRESHOLDS, MoveClass
from casino_coach.coach.verdict import GameVerdict, searches_deal_end
from casino_coach.coach.winning import CHANCE_EPSILON, GameEdge, WinChances
from casino_coach.engine.cards import card_symbol, iter_cards, mask_symbols
from casino_coach.engine.movegen import BUILD, CAPTURE, Move
from casino_coach.engine.reasons import article
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import Points, near_target_items
from casino_coach.engine.state import RoundState
from casino_coach.formats.text import player_name
from casino_coach.search.result import Limits, SearchResult


def margin_words(nsides: int, mine: str = "", theirs: str = "", them: str = "") -> str:
    """The scale of every value, said once per report in a player's words: a value is a margin, the
    mover's side's points this round minus the other side's (the mean of the others' with three sides
    or more), so a point that goes to another side instead of the mover's counts 2 (1.5 with three
    sides): "Values are margins: your points this round minus Ben's, so a point that goes to Ben
    instead counts 2." ``mine`` names the points ("your points", "the points of Ben (seat 1)"),
    ``theirs`` what is subtracted ("Ben's", "those of Ana (seat 0)"), ``them`` who else takes a
    point ("Ben"); by default the mover's side and the other side, as a report over every move says
    it."""
    two = nsides == 2
    mine = mine or "the mover's side's points"
    theirs = theirs or ("the other side's" if two else "the mean of the other sides'")
    them = them or ("the other side" if two else "another side")
    return (
        f"Values are margins: {mine} this round minus {theirs}, so a point that goes to {them} "
        f"instead counts {margin_scale(nsides):.3g}."
    )


# ``margin_words`` over games of several player counts (``stats``).
MIXED_MARGIN_WORDS = (
    "Values are margins: the player's side's points in a round minus the other side's (the mean of "
    "the others' with three sides), so a point that goes to another side instead counts 2 with two "
    "sides, 1.5 with three."
)


def analysis_margin_words(a: GameAnalysis) -> str:
    """``margin_words`` for a report over every move of a game: the mover and the opponent (two
    players), the mean of the others (three or four players each for himself), the mover's side and
    the other side (partnerships)."""
    if len(a.players) > a.nsides:  # partnerships
        return margin_words(a.nsides)
    if a.nsides == 2:
        return margin_words(2, "the mover's points", "the opponent's", "the opponent")
    return margin_words(a.nsides, "the mover's points", "the mean of the others'", "another player")


def side_margin_words(sides: Sequence[str], side: int) -> str:
    """What a margin of side ``side`` is, by the sides' names (``side_names``): "Ana's points minus
    Ben's", "Ana's points minus the mean of Ben's and Cy's"."""
    others = [f"{n}'s" for s, n in enumerate(sides) if s != side]
    theirs = others[0] if len(others) == 1 else f"the mean of {', '.join(others[:-1])} and {others[-1]}"
    return f"{sides[side]}'s points minus {theirs}"


def margin_scale(nsides: int) -> float:
    """How much a point moves the margin when it goes to another side instead of the mover's: 1 for
    the mover's side and 1/(n-1) for the mean of the other n-1 sides (2 with two sides, 1.5 with
    three)."""
    return 1 + 1 / (nsides - 1) if nsides > 1 else 1.0


def lost_words(loss: float) -> str:
    """A loss as every command says it: "lost 10.00 of margin"."""
    return f"lost {loss:.2f} of margin"


def title(a: GameAnalysis) -> str:
    return f"Game analysis: {' vs '.join(map(player_name, a.players))} ({a.rules.describe()})"


def class_label(m: MoveAnalysis) -> str:
    if m.not_judged:
        return "not judged"
    if not m.rated:
        return "not rated"
    if m.forced:
        return "forced"
    return m.cls.value if m.cls is not None else ""


def loss_basis(m: MoveAnalysis) -> str:
    """What a loss rests on: "exact", "1.01 to 3.28 over 56 worlds", "over all 9 kinds of deal the player
    could face" (with ", the rest of the round estimated at the end of the deal" before the last
    deal, unless the search went on to the end of the round, and then the interval that estimate's
    margin gives first: "0.00 to 0.34, over all 9 kinds ..."), with ", searched shallower to fit the
    node budget" when it was. Enumerated worlds are counted by class (``search.worlds.world_classes``:
    deals alike but for cards nothing tells apart are one kind), so their count is of kinds, not of
    deals."""
    if m.exact:
        return "exact"
    if m.enumerated:  # every consistent world was searched: no sampling error
        kinds = f"all {m.samples} kinds" if m.samples != 1 else "the one kind"
        text = f"over {kinds} of deal the player could face"
        if m.loss_high - m.loss_low >= 0.005:  # the margin for the estimate (``verdict.cut_margin``)
            text = f"{m.loss_low:.2f} to {m.loss_high:.2f}, {text}"
        if m.view is not None and m.view.stock and not m.round_end:
            # No sampling error, but no exact value either: the search stopped at the end of the
            # deal, where the rest of the round is an estimate (analysis.md, "Values").
            text += ", the rest of the round estimated at the end of the deal"
    else:
        text = f"{m.loss_low:.2f} to {m.loss_high:.2f} over {m.samples} world{'s' if m.samples != 1 else ''}"
    return text + (", searched shallower to fit the node budget" if m.shallow else "")


# How a class is read where the interval spans more than one (``Verdict.uncertain``,
# ``Thresholds.classify_interval``), and the words that say so.
CLASS_READ = "the estimate's class is given, at most one above the low end's"
UNCERTAIN_WORDS = f"the interval spans more than one class: {CLASS_READ}"


def loss_words(m: MoveAnalysis) -> str:
    """The loss with what it rests on: "lost 2.15 of margin (1.01 to 3.28 over 56 worlds)", "lost 4.00
    of margin (exact)"; an uncertain class says how it is read (``UNCERTAIN_WORDS``)."""
    if m.loss is None:
        return ""
    text = f"{lost_words(m.loss)} ({loss_basis(m)})"
    return text + (f"; {UNCERTAIN_WORDS}" if m.uncertain else "")


def chance_words(p: float) -> str:
    """A chance in percent, whole: "48%"; "<1%" and ">99%" near the ends, where rounding would say
    "0%" or "100%" of a game still to play; "0%" and "100%" where the game is decided (within
    ``CHANCE_EPSILON``: a sum of the table's chances can miss 1 in its last bits)."""
    if CHANCE_EPSILON < p < 0.005:
        return "<1%"
    if 0.995 < p < 1 - CHANCE_EPSILON:
        return ">99%"
    return f"{100 * min(1.0, max(0.0, p)):.0f}%"


def win_words(m: MoveAnalysis) -> str | None:
    """The mover's side's chance to win the game (``coach.winning``): "chance to win the game: 48%
    before the round, 41% after it with the move played (55% with the best move)", and once the game
    is close its class for the game (``game_class_words``); None without."""
    if m.win is None:
        return None
    side = m.side
    text = f"chance to win the game: {chance_words(m.win.round_start[side])} before the round"
    played = m.win.of(m.played)
    if played is not None:
        text += f", {chance_words(played[side])} after it with the move played"
    best = m.win.of(m.best) if m.best is not None and m.best != m.played else None
    # The move best for the game, where it is neither (``game_class_words`` names it).
    g = m.game
    top = m.win.of(g.best) if g is not None and g.best not in (m.played, m.best) else None
    if best is not None or top is not None:
        shown = [f"{chance_words(best[side])} with the best move"] if best is not None else []
        if top is not None and g is not None:
            shown.append(f"{chance_words(top[side])} with {g.best.describe()}")
        text += f" ({'; '.join(shown)})"
    game = game_class_words(m.game)
    return text if game is None else f"{text}; {game}"


def game_verdict_words(m: MoveAnalysis) -> str | None:
    """The game and the round disagree on the move ``m`` (``disagreement_words``)."""
    scores = m.view.scores if m.view is not None else None
    return disagreement_words(
        m.game,
        m.win,
        m.side,
        played_move=m.played,
        best_move=m.best,
        loss=m.loss,
        cls=m.cls,
        forced=not m.rated or m.forced,
        scores=scores,
    )


def disagreement_words(
    g: GameVerdict | None,
    win: WinChances | None,
    side: int,
    *,
    played_move: Move,
    best_move: Move | None,
    loss: float | None,
    cls: MoveClass | None,
    forced: bool,
    scores: Sequence[Points] | None,
) -> str | None:
    """The game and the round disagree, by the verdict for the game (``g``, once the game is close;
    the chances ``win`` of the mover's ``side``; the round's verdict: its best move, loss and class):
    the move played lost margin in the round but leaves more chance of winning the game than the best move
    for the round, by at least the *inaccuracy* edge of ``GAME_THRESHOLDS`` with confidence ("right
    for the game, wrong for the round"); a mistake or a blunder for the round that leaves the same
    chance of the game as the round's best ("no matter for the game": the game is as good as won, or
    lost, either way); or it was right for the round while it gave up enough chance of the game to be
    classed below *good* for the game ("right for the round, wrong for the game"). None when they
    agree or the game is not close. ``analyze`` (``game_verdict_words``) and ``suggest --at`` say it
    alike."""
    if g is None or win is None or best_move is None or forced:
        return None
    played = win.of(played_move)
    if played is None:
        return None
    missed = cls not in (None, MoveClass.BEST) and best_move != played_move
    at = ""
    if scores is not None and len(scores) == 2:
        at = f"at {scores[side]:g}-{scores[1 - side]:g}, "
    best = win.of(best_move)
    if missed and best is not None and g.ahead >= GAME_THRESHOLDS.inaccuracy:
        return (
            f"Right for the game, wrong for the round: {at}{played_move.describe()} leaves you "
            f"{chance_words(played[side])} to win the game, {best_move.describe()} "
            f"{chance_words(best[side])}; the {loss or 0.0:.2f} of margin it gives up this round matters less"
        )
    harmful = cls in (MoveClass.MISTAKE, MoveClass.BLUNDER)
    same = best is not None and abs(played[side] - best[side]) <= GAME_THRESHOLDS.best
    if missed and best is not None and harmful and same and g.cls == MoveClass.BEST:
        return (
            f"No matter for the game: {at}{played_move.describe()} leaves you "
            f"{chance_words(played[side])} to win the game, as {best_move.describe()} does; the "
            f"{loss or 0.0:.2f} of margin it gives up this round does not change that"
        )
    top = win.of(g.best)
    if not missed and top is not None and g.cls not in (MoveClass.BEST, MoveClass.GOOD):
        return (
            f"Right for the round, wrong for the game: {at}{g.best.describe()} would leave you "
            f"{chance_words(top[side])} to win the game, the move played {chance_words(played[side])}"
        )
    return None


def game_class_words(g: GameVerdict | None) -> str | None:
    """The class for the game once it is close (``MoveAnalysis.game``, ``Verdict.game``): "for the
    game: a mistake, 7.2% of the chance to win given up (5.1% to 9.3%) against 6♣ captures 6♦ 6♥";
    None where the game is not close or the move was the best for the game."""
    if g is None or g.cls == MoveClass.BEST:
        return None
    label = g.cls.value if g.cls == MoveClass.GOOD else article(g.cls.value)
    interval = "" if g.low == g.high else f" ({chance_gap_words(g.low)} to {chance_gap_words(g.high)})"
    if g.uncertain:
        interval = f"{interval[:-1]}; {UNCERTAIN_WORDS})"
    return (
        f"for the game: {label}, {chance_gap_words(g.lost)} of the chance to win given up{interval} "
        f"against {g.best.describe()}"
    )


def for_game_words(e: GameEdge, result: SearchResult, win: WinChances | None, side: int) -> str:
    """Why ``e``'s move is the move to play for the game rather than the round's best
    (``choose_for_game``: ``e``, over the round's search ``result``, with the chances ``win`` of the
    mover's ``side``), with the round's value beside it: "for the game: 100% to win it, against 98%
    after 9♣ captures 2♠ 4♥ 5♣ 7♠ 9♥, which is worth 8.19 more of this round's margin (a gain of 2.4% over
    the same worlds, 1.9% to 2.9%)". ``suggest`` writes it after "Best: 10♠ captures 10♦,", the hint after
    "Why:"."""
    move, best = e.move.move, result.moves[0]
    mine = win.of(move) if win is not None else None
    theirs = win.of(best.move) if win is not None else None
    chances = (
        f"{chance_words(mine[side])} to win it, against {chance_words(theirs[side])} after "
        f"{best.move.describe()}"
        if mine is not None and theirs is not None
        else f"more chance to win it than {best.move.describe()}"
    )
    by = best.ev - result.value_of(move).ev
    interval = "" if e.low == e.high else f", {chance_gap_words(e.low)} to {chance_gap_words(e.high)}"
    return (
        f"for the game: {chances}, which is worth {by:.2f} more of this round's margin (a gain of "
        f"{chance_gap_words(e.gain)} over the same worlds{interval})"
    )


def chance_gap_words(p: float) -> str:
    """A gap between two chances (given up, or gained), in percent to a tenth (the classes for the
    game part at 2%, 5% and 10%, so whole percents would hide on which side of an edge it lies):
    "1.9%", "<0.1%"."""
    if 0 < p < 0.0005:
        return "<0.1%"
    return f"{100 * p:.1f}%"


def where(m: MoveAnalysis) -> str:
    return f"round {m.round + 1}, deal {m.deal + 1}"


def _shuffled_words(lim: Limits) -> str:
    """How the settings' words say that deals are taken without replacement (``Limits.shuffled``)."""
    if not lim.shuffled:
        return ""
    return ", each at most once where there are at most twice as many"


def settings_words(a: GameAnalysis) -> str:
    lim = a.options.limits
    th = a.options.thresholds
    depth = f"{lim.depth} plies deep" if lim.depth else "to the end of the deal"
    if len(a.players) == 2:
        depth += " (the last deal of a round exactly to its end"
        if lim.depth is not None and lim.depth >= ANALYSIS_DEPTH:
            depth += (
                f", and the deal before it on to the end of the round once at most {ROUND_END_CARDS} "
                "cards are left in the hands"
            )
        depth += ")"
    elif searches_deal_end(lim.depth):
        depth += (
            f" (to the end of the deal once at most {DEAL_END_CARDS} cards are left in the hands, "
            "and the last deal of a round to its end)"
        )
    return (
        f"search: each move judged over {lim.min_samples} to {lim.samples:,} deals of the hidden cards "
        f"(more while the loss of the move played straddles a class edge){_shuffled_words(lim)}, or "
        f"over every deal where they fall into at most {lim.exact_worlds} kinds, {depth}, seed "
        f"{lim.seed}; every deal "
        "consistent with what the player saw weighs the same (the other players' plays are not "
        "read as clues: a verdict should not rest on a model of how they play); classes by "
        f"expected margin lost: good < {th.inaccuracy:g} ≤ inaccuracy < {th.mistake:g} ≤ "
        f"mistake < {th.blunder:g} ≤ blunder, the estimate's class but at most one above that of the "
        f"low end of the loss's interval of {th.noise:g} standard errors; "
        f"{model_words(len(a.players), a.nsides)}"
    )


def model_words(nplayers: int, nsides: int) -> str:
    """The model of play the values assume, said once where they are shown: every deal of the hidden
    cards is searched as if each player saw every hand, so a value is the game's own only over one
    deal of two sides ("exact"); with three or more sides the others play together against the
    mover."""
    text = "each deal is searched as if every player saw every hand"
    if nsides > 2:
        return (
            text + ", and the other players as if they played together against the mover (the worst case "
            "for the mover: where each would play for himself a loss can be smaller)"
        )
    if nplayers > nsides:
        return text + ", partners' hands too"
    return text


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


# The scoring items (``scoring.BREAKDOWN_ITEMS``, the count-out's and the near-target rule's) in words.
ITEM_LABELS = {
    "cards": "most cards",
    "spades": "most spades",
    "big_casino": "Big Casino 10♦",
    "little_casino": "Little Casino 2♠",
    "aces": "aces",
    "sweeps": "sweeps",
    "last_capture": "last capture",
}


def _near_target_sides(rules: RuleSet, scores: Sequence[Points]) -> list[tuple[int, Points, str]]:
    """(side, score, the items that alone can win it the game, in words) for each side whose score
    puts it under the near-21 rule (``scoring.near_target_items``)."""
    out = []
    for side, score in enumerate(scores):
        items = near_target_items(rules, score)
        if items is not None:
            out.append((side, score, " or ".join(ITEM_LABELS.get(i, i) for i in items)))
    return out


def near_target_values_words(
    rules: RuleSet, scores: Sequence[Points] | None, sides: Sequence[str]
) -> str | None:
    """What a round's values mean where a side is at 18-20 before it (rules.md 1.14.4, the Dominican
    near-21 rule): that side's items but its own condition, its sweeps among them, score nothing for it
    this round (or count only up to 20), while the values count every item as a round from 0-0 does;
    the chances to win the game count only what scores. None where no side is under the rule."""
    if scores is None:
        return None
    said = []
    for side, score, what in _near_target_sides(rules, scores):
        who = sides[side]
        its = "your" if who.startswith("you") else "their" if " & " in who else "its"
        rest = (
            f"{its} other items, sweeps too, score nothing"
            if rules.near_target_mode == "freeze"
            else f"{its} other items count only up to {rules.target - 1}, and {its} sweeps not at all"
        )
        said.append(f"{who} at {score:g} can win the game this round only by {what}, and {rest}")
    if not said:
        return None
    return (
        f"Near {rules.target} (rules.md 1.14): "
        + "; ".join(said)
        + ". The round's points here count every item as a round from 0-0 does; the chance to win the "
        "game counts only what scores."
    )


def near_target_notes(rules: RuleSet, before: Sequence[Points], sides: Sequence[str]) -> list[str]:
    """Why a side's round points are not its items' (rules.md 1.14.4, the Dominican near-21 rule): one
    note per side that began the count at 18-20, where the rules say so ("Ana began the count at
    19: only Big Casino 10♦ could win her the game; her other items score nothing this round")."""
    notes = []
    for side, score, what in _near_target_sides(rules, before):
        rest = (
            "the other items score nothing for that side this round"
            if rules.near_target_mode == "freeze"
            else f"the other items count up to {rules.target - 1}"
        )
        notes.append(
            f"{sides[side]} began the count at {score:g}: only {what} could win the game; {rest} "
            f"(the near-{rules.target} rule)"
        )
    return notes


# ---------------------------------------------------------------------------------------------------
# A move told as it is played (``casino-coach play``)


def verb(who: str, word: str) -> str:
    """The verb agreeing with its subject: "take" after "You" (the default name of the person at the
    keyboard) and after a partnership ("Ana & Cy"), "takes" after "Counter"."""
    return word if who == "You" or " & " in who else word + "s"


def says(who: str, word: str) -> str:
    """The subject and its verb: "You take", "Counter takes"."""
    return f"{who} {verb(who, word)}"


def play_words(rules: RuleSet, state: RoundState, move: Move, who: str) -> str:
    """A move in words, saying what it took or what it built (``state`` is the position before)."""
    c = card_symbol(move.card)
    builds = [b for b in state.builds if b.cards & move.take]
    loose = move.take & state.loose
    if move.action == CAPTURE:
        parts = [f"the build of {b.value} ({mask_symbols(b.cards)})" for b in builds]
        if loose:
            parts.insert(0, mask_symbols(loose))
        cleared = not (state.loose & ~loose) and len(builds) == len(state.builds)
        last_card = not state.more and sum(h.bit_count() for h in state.hands) == 1
        # A sweep is named only where sweeps score (rules.md 1.10, option sweeps: not in classic).
        scored = rules.sweeps and rules.points_sweep
        tail = ""
        if cleared and scored and (rules.final_capture_can_sweep or not last_card):
            tail = ": a sweep!"
        elif cleared and not last_card:
            tail = ", clearing the table"
        return f"{says(who, 'play')} {c} and {verb(who, 'take')} {' and '.join(parts)}{tail}"
    if move.action == BUILD:
        kind = "a new build"
        if builds:
            b = builds[0]
            kind = (
                f"raising the build of {b.value}"
                if b.value != move.value
                else f"adding to the build of {b.value}"
            )
        total = sum(rules.pair_value[x] for x in iter_cards(move.take | 1 << move.card))
        single = "single" if total == move.value else "multiple"
        gathered = f"{move.value} from {c} with {mask_symbols(move.take)}"
        return f"{says(who, 'build')} {gathered} ({kind}; now {article(single)} {move.value})"
    if move.take:
        return f"{says(who, 'trail')} {c}, building {move.value} from {mask_symbols(move.take)}"
    return f"{says(who, 'trail')} {c}"
