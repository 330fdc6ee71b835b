"""Which skill of play a missed move shows: the habit behind it, not the scoring item it cost.

A move that was not the best (a *miss*) is put under one skill, from the position before it, the
move played, the best move and the explanations of its cost (``skill_of``: a pure function of the
assessment's data, so the store, ``stats`` and ``drill --skill`` agree). The rules are tried in
this order and the first that fits names the skill (docs/skills.md says the same for players):

1. **answering builds** (``answering-builds``): an opponent's build stood on the table and the best
   move captured it or took it over (its cards are in the best move's take), the move played did
   not touch it.
2. **protecting builds** (``protecting-builds``): a build of the mover's own stood on the table and
   the best move captured it, increased it or built its value again, where the move played did none
   of that (it left the build exposed).
3. **leaving no sweep** (``leaving-no-sweep``, rules that score sweeps): the move played left a table
   that one card can take whole, the next player's sweep, and the best move did not.
4. **keeping aces and Casinos** (``aces-and-casinos``): most of what the move cost lies in the aces
   and the two Casinos (``ace``, ``big_casino``, ``little_casino`` explanations: more than half of
   the points the explanations charge to the move).
5. **choosing what to trail** (``trailing``): the best move trailed (another card, or a trail where
   the move played captured or built).
6. **building** (``building``): the best move built, and the move played did not make that build.
7. **taking pairs and sums** (``pairs-and-sums``): the best move captured, and the move played did
   not or took other cards.

So every miss has exactly one skill (the best move trails, builds or captures); a move as good as the
best has none.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from casino_coach.coach.explain import Explanation
from casino_coach.engine.cards import RANK_MASK, iter_cards
from casino_coach.engine.movegen import BUILD, CAPTURE, TRAIL, Move, apply, legal_moves
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import Build, RoundState, sides_for, table_mask


class Skill(StrEnum):
    """A skill of play, in the order its rule is tried (module docstring)."""

    ANSWERING_BUILDS = "answering-builds"
    PROTECTING_BUILDS = "protecting-builds"
    LEAVING_NO_SWEEP = "leaving-no-sweep"
    ACES_AND_CASINOS = "aces-and-casinos"
    TRAILING = "trailing"
    BUILDING = "building"
    PAIRS_AND_SUMS = "pairs-and-sums"

    @property
    def words(self) -> str:
        """The skill as a player says it: "answering the opponent's builds"."""
        return SKILL_WORDS[self]


SKILL_WORDS: dict[Skill, str] = {
    Skill.ANSWERING_BUILDS: "answering the opponent's builds",
    Skill.PROTECTING_BUILDS: "protecting your builds",
    Skill.LEAVING_NO_SWEEP: "leaving no sweep",
    Skill.ACES_AND_CASINOS: "keeping aces and Casinos",
    Skill.TRAILING: "choosing what to trail",
    Skill.BUILDING: "building",
    Skill.PAIRS_AND_SUMS: "taking pairs and sums",
}
SKILL_NAMES: tuple[str, ...] = tuple(s.value for s in Skill)
# The explanation kinds (coach/explain.py KINDS) that make a miss one of aces and Casinos.
ACE_KINDS = frozenset({"ace", "big_casino", "little_casino"})


def skill_of(
    rules: RuleSet,
    nplayers: int,
    seat: int,
    loose: int,
    builds: Sequence[Build],
    played: Move,
    best: Move | None,
    explanations: Sequence[Explanation] = (),
) -> Skill | None:
    """The skill a miss shows (module docstring), or None for a move as good as the best (or
    without one): ``seat`` moved, out of ``nplayers``, with ``loose`` and ``builds`` on the table,
    played ``played`` where ``best`` was best, and the explanations say what it cost."""
    if best is None or played == best:
        return None
    nsides = sides_for(nplayers, rules.partnerships)
    side = seat % nsides
    theirs = table_mask(0, tuple(b for b in builds if b.owner % nsides != side))
    if theirs & best.take and not theirs & played.take:
        return Skill.ANSWERING_BUILDS
    own = [b for b in builds if b.owner == seat]
    if own and _keeps(best, own) and not _keeps(played, own):
        return Skill.PROTECTING_BUILDS
    if rules.sweeps:
        table = (loose, tuple(builds))
        if _sweepable(rules, nplayers, seat, table, played) and not _sweepable(
            rules, nplayers, seat, table, best
        ):
            return Skill.LEAVING_NO_SWEEP
    charged = [e for e in explanations if e.points > 0]
    total = sum(e.points for e in charged)
    if total > 0 and sum(e.points for e in charged if e.kind in ACE_KINDS) > total / 2:
        return Skill.ACES_AND_CASINOS
    if best.action == TRAIL:
        return Skill.TRAILING
    if best.action == BUILD:
        return Skill.BUILDING
    return Skill.PAIRS_AND_SUMS


def parse_skill(text: str) -> Skill:
    """The skill named ``text`` (its name, as ``Skill`` spells it); ValueError listing the names."""
    try:
        return Skill(text.strip().lower())
    except ValueError:
        raise ValueError(f"unknown skill {text!r}: choose one of {', '.join(SKILL_NAMES)}") from None


def _keeps(move: Move, own: Sequence[Build]) -> bool:
    """Whether ``move`` cashes, increases or doubles one of the mover's own builds ``own``."""
    if move.take & table_mask(0, tuple(own)):
        return True
    return move.action == BUILD and any(b.value == move.value for b in own)


def _sweepable(
    rules: RuleSet, nplayers: int, seat: int, table: tuple[int, tuple[Build, ...]], move: Move
) -> bool:
    """Whether the table that ``move`` leaves can be taken whole by one card of the next player: a
    card of some rank, not on that table, that captures every card on it (``legal_moves``)."""
    loose, builds = table
    nsides = sides_for(nplayers, rules.partnerships)
    hands = [0] * nplayers
    hands[seat] = 1 << move.card
    before = RoundState(
        tuple(hands), loose, builds, (0,) * nsides, (0,) * nsides, seat, -1, 0, True, seat, nsides
    )
    after = apply(rules, before, move)
    if move.action == CAPTURE and not after.table:
        return False  # the mover swept: nothing is left to sweep
    whole = after.table
    if not whole:
        return False
    nxt = (seat + 1) % nplayers
    for rank_mask in RANK_MASK:
        free = rank_mask & ~whole & ~(1 << move.card)
        if not free:
            continue
        probe = next(iter_cards(free))
        hands = [0] * nplayers
        hands[nxt] = 1 << probe
        state = after._replace(hands=tuple(hands), to_move=nxt)
        if any(m.action == CAPTURE and m.take == whole for m in legal_moves(rules, state)):
            return True
    return False


__all__ = ["SKILL_NAMES", "SKILL_WORDS", "Skill", "parse_skill", "skill_of"]
