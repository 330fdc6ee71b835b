"""One headline per judged decision, in a player's words: the move to play and the decisive reason.

A headline names the best move as an instruction ("Take 8♣ with 8♠", "Build 10 with 3♠ on 7♣",
"Trail 5♦") and the reason that carries most of the loss, or the two that carry it between them,
each as one clause from the explanations (``Explanation.gist``, the best move's share first: "you
take Little Casino 2♠ in 75% of the deals instead of 8%"). The explanations themselves, one per
scoring category and adding up to the loss, are the detail below it (``Assessment.detail``), folded
in the HTML page and shown in the terminal with ``--detail``.

The headline says no number of points (the class and the loss are shown beside it) and cites no
document. A best move gets a short one ("Best move."), a forced move says why it is forced, moves
the search cannot tell apart are named as equal, a loss inside the search's noise says so, and a
move that matters only for the game says what it gives up of the chance to win the game.
``coach.assessment.assess`` computes it once for every command.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from casino_coach.coach.classes import MoveClass
from casino_coach.coach.explain import Explanation
from casino_coach.coach.verdict import Verdict
from casino_coach.coach.winning import GameEdge
from casino_coach.engine.cards import card_symbol, mask_symbols
from casino_coach.engine.movegen import BUILD, CAPTURE, Move
from casino_coach.search import SearchResult

# A second reason joins the first in a headline when the first carries less than this share of the
# loss and the second at least ``SECOND_SHARE`` of it: together they carry most of it.
FIRST_SHARE = 0.6
SECOND_SHARE = 0.25


def instruction(move: Move) -> str:
    """A move as an instruction: "Take 3♥ 5♠ with 8♣", "Build 10 with 3♠ on 7♣", "Build two 10s with
    3♠ on 7♣ 10♠", "Trail 7♥", "Trail 7♥, building 10 from 3♣"."""
    card, verb, take = move.words()
    played, cards = card_symbol(card), mask_symbols(take)
    if move.action == CAPTURE:
        return f"Take {cards} with {played}"
    if move.action == BUILD:
        built = verb.strip().removeprefix("builds ").removesuffix(" with")
        return f"Build {built} with {played} on {cards}"
    if take:
        return f"Trail {played},{verb.removeprefix(' trails,')}{cards}"
    return f"Trail {played}"


def reasons(explanations: Sequence[Explanation], loss: float) -> list[str]:
    """The one or two gists that carry most of ``loss`` (``FIRST_SHARE``, ``SECOND_SHARE``), largest
    first; none where no explanation with a gist carries a share of it."""
    told = [e for e in explanations if e.gist and e.points > 0]
    if not told or loss <= 0:
        return []
    first, *rest = told
    out = [first.gist]
    if rest and first.points < FIRST_SHARE * loss and rest[0].points >= SECOND_SHARE * loss:
        out.append(rest[0].gist)
    return out


# A gist about a card: who takes it, the card, and the shares ("you take | the ace A♦ | in every deal
# instead of none"), so that two about the same shares read as one.
_CARD_GIST = re.compile(r"^(.*? takes?) (.*?) (in (?:every|no) deal .*|in \d+% of the deals .*)$")


def _joined(told: Sequence[str]) -> str:
    """One or two gists in a clause: two that differ only in the card are said once ("you take the
    ace A♦ and the ace A♥ in every deal instead of none")."""
    if len(told) == 2:
        a, b = (_CARD_GIST.match(t) for t in told)
        if a and b and a[1] == b[1] and a[3] == b[3]:
            return f"{a[1]} {a[2]} and {b[2]} {a[3]}"
    return " and ".join(told)


def _because(head: str, explanations: Sequence[Explanation], loss: float) -> str:
    """``head``, then the reasons for the loss, or "a little better on several small items"."""
    told = reasons(explanations, loss)
    if not told:
        return f"{head}: a little better on several small items."
    return f"{head}: {_joined(told)}."


def _lower(text: str) -> str:
    return text[:1].lower() + text[1:]


def equal_words(moves: Sequence[Move]) -> str:
    """Moves the search cannot tell apart: "5♦ trails or 3♠ builds 10 with 7♣"."""
    named = [m.describe() for m in moves]
    return named[0] if len(named) == 1 else f"{', '.join(named[:-1])} or {named[-1]}"


# The most instructions a headline joins for the moves equal to the best; past it, how many.
NAMED_EQUAL: Final = 3


def _kind(move: Move) -> tuple[int, int, int]:
    """Moves alike for a player: the same card, action and (for a build) value."""
    return move.card, move.action, move.value if move.action == BUILD else 0


def _ways(move: Move, n: int) -> str:
    """``n`` moves alike (``_kind``) as one instruction: "build 10 with 3♠ in 4 ways"."""
    card = card_symbol(move.card)
    if move.action == BUILD:
        return f"build {move.value} with {card} in {n} ways"
    return f"{'take with' if move.action == CAPTURE else 'play'} {card} in {n} ways"


def _instructions(best: Move, equal: Sequence[Move]) -> str:
    """The best move and those equal to it as one instruction, moves alike counted as ways: "Trail
    5♦ or build 10 with 3♠ in 4 ways", "Build 10 with 3♠ on 7♣ (or 1 other way)"; past NAMED_EQUAL
    instructions, "Trail 5♦ or one of 6 equal moves"."""
    groups: dict[tuple[int, int, int], list[Move]] = {}
    for m in equal:
        groups.setdefault(_kind(m), []).append(m)
    head = instruction(best)
    same = len(groups.pop(_kind(best), []))
    if same:
        head += f" (or {same} other way{'s' if same > 1 else ''})"
    if len(groups) >= NAMED_EQUAL:
        return f"{instruction(best)} or one of {len(equal)} equal moves"
    named = [
        head,
        *(_lower(instruction(g[0])) if len(g) == 1 else _ways(g[0], len(g)) for g in groups.values()),
    ]
    return named[0] if len(named) == 1 else f"{', '.join(named[:-1])} or {named[-1]}"


def move_headline(played: Move, verdict: Verdict, result: SearchResult, equal: Sequence[Move]) -> str:
    """The headline of a move played (``verdict``, from the search ``result``, with the moves
    ``equal`` to the best, ``Assessment.equal``)."""
    best = verdict.best
    if verdict.forced:
        if len(result.moves) == 1:
            return f"Forced: {played.describe()} is the only legal move."
        return "Forced: every move scores the same here."
    game = verdict.game
    if verdict.cls == MoveClass.BEST:
        if game is not None and game.cls != MoveClass.BEST:
            return (
                f"For the game, {_lower(instruction(game.best))}: yours gives up {game.lost:.1%} of the "
                "chance to win the game, for the same points this round."
            )
        others = [m for m in (best, *equal) if m != played]
        if played != best and played not in equal:
            return f"As good as {best.describe()}: the difference is within the search's noise."
        return f"Best move, equal with {equal_words(others)}." if others else "Best move."
    if game is not None and game.cls == MoveClass.BEST and game.ahead > 0:
        return f"Right for the game, though {_lower(instruction(best))} scores more this round."
    head = _instructions(best, equal)
    if not result.exact and verdict.low <= 0.0:
        return (
            f"{_because(head, verdict.explanations, verdict.loss)[:-1]}, though the search cannot "
            "rule out that the two are equal."
        )
    return _because(head, verdict.explanations, verdict.loss)


def decision_headline(result: SearchResult, equal: Sequence[Move], runner_up: Sequence[Explanation]) -> str:
    """The headline of a decision with no move played (``suggest``, the hint): the best move and why
    it beats the next move that is not equal to it (``runner_up``, ``Assessment.runner_up``)."""
    best = result.moves[0]
    if len(result.moves) == 1:
        return f"{instruction(best.move)}: the only legal move."
    if equal:
        return f"{equal_words([best.move, *equal])}: equal."
    second = next((mv for mv in result.moves[1:] if mv.move not in equal), None)
    loss = max(0.0, best.ev - second.ev) if second is not None else 0.0
    if not runner_up:
        return f"{instruction(best.move)}: every other move is about as good."
    return _because(instruction(best.move), runner_up, loss)


def for_game_headline(edge: GameEdge) -> str:
    """The headline of a decision whose move to play is chosen for the game (``choose_for_game``)."""
    return (
        f"For the game, {_lower(instruction(edge.move.move))}: it gives you the best chance to win the game."
    )
