"""The re-play of a game log (``log.py``) through the engine, and positions taken from it.

``replay`` re-plays a log and checks what reading it could not: the seat to move, the legality of
every move (with the rule it breaks), the dealing, and each declared round ``result``. Every problem is
a ``LogError`` whose message starts with where it is: ``round 2, deal 3, move 5 (ply 37), seat 1, card
8C: ...`` (round, deal and move count from 1 for people; the ply is the 0-based index of the move
across the whole log, as in ``moves --at N``). ``position_at`` and ``end_position`` give the position
(``position.py``) before a ply or where the log stops.

Viewer logs (``viewer`` = a seat, other hands ``null``) are re-played on the viewer's ``Observation``:
cards of other seats are learned as they are played, and their moves are checked as far as the viewer
can tell (``observation.observe_move``). A log may stop anywhere in its last deal: a game in progress.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from casino_coach.engine.cards import card_name, mask_names
from casino_coach.engine.movegen import Move, apply, check_listable, legal_moves
from casino_coach.engine.observation import (
    Observation,
    as_state,
    first_deal_observation,
    observe,
    observe_deal,
    observe_move,
    own_moves,
)
from casino_coach.engine.reasons import illegal_reason
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import Match, Points, RoundScore
from casino_coach.engine.state import (
    HAND_SIZE,
    Build,
    RoundState,
    deal,
    deals_per_round,
    new_round,
)
from casino_coach.errors import CardError, CoachError, LogError, TooManyMovesError
from casino_coach.formats.log import DealLog, GameLog
from casino_coach.formats.position import Position


@dataclass(frozen=True)
class Ply:
    """One move of a log and the position just before it."""

    index: int  # global 0-based move index (``moves --at N``)
    round: int  # 0-based
    deal: int  # 0-based
    move_index: int  # 0-based, within the deal
    seat: int
    move: Move
    state: RoundState | None  # full state before the move; None when some hand is unknown
    observation: Observation | None  # the mover's view; None when the mover's hand is unknown
    viewer_observation: Observation | None  # the log viewer's view; None for full logs
    scores: tuple[Points, ...]  # game scores per side before this round

    @property
    def where(self) -> str:
        return (
            f"round {self.round + 1}, deal {self.deal + 1}, move {self.move_index + 1} "
            f"(ply {self.index}), seat {self.seat}"
        )


@dataclass(frozen=True)
class RoundReplay:
    """A re-played round: the state at its end (None when hands were unknown), the viewer's view at its
    end, and its score (None for a round in progress)."""

    index: int
    dealer: int
    final: RoundState | None
    final_observation: Observation | None
    score: RoundScore | None
    scores_before: tuple[Points, ...]


@dataclass
class Replay:
    """The result of re-playing a log: every ply, every round, and the game score."""

    log: GameLog
    plies: list[Ply]
    rounds: list[RoundReplay]
    match: Match
    state: RoundState | None = None  # where the log stops (full logs)
    viewer_observation: Observation | None = None  # where the log stops (viewer logs)
    complete: bool = False  # every round played out (the game may still go on)
    after: list[tuple[int, tuple[Build, ...]]] = field(default_factory=list)  # table after each ply
    sweeps: set[int] = field(default_factory=set)  # indices of the plies that swept the table

    @property
    def winner(self) -> int | None:
        return self.match.winner

    def summary_json(self) -> dict[str, Any]:
        """``{"rounds": [{"points", "breakdown", "sweeps"}], "totals", "winner"}`` (replay-format.md),
        over the rounds that were played out."""
        rounds = [
            {
                "points": list(r.score.points),
                "breakdown": [dict(b) for b in r.score.breakdown],
                "sweeps": list(r.score.sweep_counts),
            }
            for r in self.rounds
            if r.score is not None
        ]
        return {"rounds": rounds, "totals": list(self.match.scores), "winner": self.match.winner}


def _viewer_start(log: GameLog, dealer: int, table: int, hand: int) -> Observation:
    n, nsides = log.nplayers, log.nsides
    if table & hand:
        raise CardError(f"seat {log.viewer}: card {mask_names(table & hand)[0]} is dealt twice")
    seat = log.viewer if log.viewer is not None else 0
    return first_deal_observation(seat, n, nsides, dealer, table, hand)


class _FullRound:
    """A round whose every hand is in the log: re-played on the engine's state (and the viewer's view
    of it, when the log has a viewer)."""

    def __init__(self, log: GameLog) -> None:
        self.log = log
        self.state: RoundState | None = None
        self.vobs: Observation | None = None

    def deal(self, dealer: int, di: int, dlog: DealLog, dw: str) -> None:
        hands = tuple(h for h in dlog.hands if h is not None)
        if di == 0:
            assert dlog.table is not None
            self.state = new_round(self.log.nplayers, self.log.nsides, dealer, dlog.table, hands)
        else:
            assert self.state is not None
            if not self.state.needs_deal:
                raise LogError(f"{dw}: dealt before every hand of the last deal was played")
            self.state = deal(self.state, hands)
        self._observe()

    @property
    def view(self) -> RoundState:
        assert self.state is not None
        return self.state

    def mover(self, seat: int) -> Observation | None:
        return observe(self.view, seat)

    def play(self, seat: int, move: Move, mw: str) -> None:
        reason = illegal_reason(self.log.rules, self.view, move)
        if reason:
            raise LogError(f"{mw}: illegal move {_move_words(move)}: {reason}")
        self.state = apply(self.log.rules, self.view, move)
        self._observe()

    def end(self) -> RoundState:
        return self.view

    def _observe(self) -> None:
        if self.log.viewer is not None:
            self.vobs = observe(self.view, self.log.viewer)


class _ViewerRound:
    """A round of a viewer log (other hands ``null``): re-played on the viewer's observation, other
    seats' cards learned as they are played (``observe_move`` checks their moves as far as the viewer
    can tell), and any other hand the log does give held to its cards."""

    def __init__(self, log: GameLog) -> None:
        assert log.viewer is not None
        self.log = log
        self.viewer = log.viewer
        self.state: RoundState | None = None
        self.vobs: Observation | None = None
        self.given: list[int | None] = []  # the other seats' hands the log gives, less what they played

    def deal(self, dealer: int, di: int, dlog: DealLog, dw: str) -> None:
        own = dlog.hands[self.viewer]
        assert own is not None
        if di == 0:
            assert dlog.table is not None
            self.vobs = _viewer_start(self.log, dealer, dlog.table, own)
        else:
            vobs = self.view
            if own & ~vobs.unseen:
                raise CardError(
                    f"seat {self.viewer}: card {mask_names(own & ~vobs.unseen)[0]} is not available to "
                    "deal (already on the table, dealt or played)"
                )
            self.vobs = observe_deal(vobs, own)
        _check_given(dlog.hands, self.view.unseen, self.viewer)
        self.given = list(dlog.hands)

    @property
    def view(self) -> Observation:
        assert self.vobs is not None
        return self.vobs

    def mover(self, seat: int) -> Observation | None:
        return self.view if seat == self.viewer else None

    def play(self, seat: int, move: Move, mw: str) -> None:
        given = self.given[seat]
        if given is not None and not given >> move.card & 1:
            raise LogError(
                f"{mw}: illegal move {_move_words(move)}: {card_name(move.card)} is not in the hand of "
                f"seat {seat}"
            )
        try:
            self.vobs = observe_move(self.log.rules, self.view, move)
        except CoachError as e:
            raise LogError(f"{mw}: illegal move {_move_words(move)}: {e}") from None
        if given is not None:
            self.given[seat] = given & ~(1 << move.card)

    def end(self) -> RoundState:
        return as_state(self.view, (0,) * self.log.nplayers, False)


def replay_log(log: GameLog) -> Replay:
    """Re-play ``log`` through the engine; raise LogError at the first problem, naming where it is."""
    n = log.nplayers
    match = Match(log.rules, log.nsides)
    rep = Replay(log, [], [], match)
    per_round = deals_per_round(n)
    for ri, rlog in enumerate(log.rounds):
        rw = f"round {ri + 1}"
        last_round = ri == len(log.rounds) - 1
        if match.over:
            raise LogError(f"{rw}: the game was already won by side {match.winner} after round {ri}")
        if ri > 0 and rlog.dealer != (log.rounds[ri - 1].dealer + 1) % n:
            raise LogError(
                f"{rw}: the dealer must be seat {(log.rounds[ri - 1].dealer + 1) % n}, the seat after "
                f"the last dealer (rules.md 1.3.1), got {rlog.dealer}"
            )
        if not rlog.deals:
            if not last_round:
                raise LogError(f"{rw}: a round with no deals can only be the last of a log")
            if rlog.result is not None:
                raise LogError(f"{rw}, result: the round was not played out, so it has no result")
            break
        if len(rlog.deals) > per_round:
            raise LogError(
                f"{rw}: {len(rlog.deals)} deals, but a round of {n} players has {per_round} (rules.md 1.3.4)"
            )
        scores_before = tuple(match.scores)
        full = all(h is not None for d in rlog.deals for h in d.hands)
        track: _FullRound | _ViewerRound = _FullRound(log) if full else _ViewerRound(log)
        for di, dlog in enumerate(rlog.deals):
            dw = f"{rw}, deal {di + 1}"
            try:
                track.deal(rlog.dealer, di, dlog, dw)
            except (CardError, CoachError) as e:
                if isinstance(e, LogError):
                    raise
                raise LogError(f"{dw}: {e}") from None
            for mi, (seat, move) in enumerate(dlog.moves):
                _replay_move(
                    rep,
                    track,
                    seat,
                    move,
                    at=(ri, di, mi),
                    scores_before=scores_before,
                    where=f"{dw}, move {mi + 1}",
                )
            if len(dlog.moves) != HAND_SIZE * n and not (last_round and di == len(rlog.deals) - 1):
                raise LogError(
                    f"{dw}: only {len(dlog.moves)} of {HAND_SIZE * n} moves, but only the "
                    "last deal of a log may stop early"
                )
        finished = len(rlog.deals) == per_round and len(rlog.deals[-1].moves) == HAND_SIZE * n
        if not finished and not last_round:
            raise LogError(
                f"{rw}: only {len(rlog.deals)} of {per_round} deals, but only the last "
                "round of a log may stop early"
            )
        score: RoundScore | None = None
        if finished:
            score = match.add_round(track.end())
            if rlog.result is not None and not _same_points(rlog.result, score.points):
                raise LogError(
                    f"{rw}, result: the log declares points {_pts(rlog.result)}, but the "
                    f"round scores {_pts(score.points)} "
                    f"({_breakdown_words(score)})"
                )
        elif rlog.result is not None:
            raise LogError(f"{rw}, result: the round was not played out, so it has no result")
        rep.rounds.append(RoundReplay(ri, rlog.dealer, track.state, track.vobs, score, scores_before))
        rep.state, rep.viewer_observation = track.state, track.vobs
    rep.complete = (
        bool(rep.rounds)
        and all(r.score is not None for r in rep.rounds)
        and len(rep.rounds) == len(log.rounds)
    )
    return rep


def _replay_move(
    rep: Replay,
    track: _FullRound | _ViewerRound,
    seat: int,
    move: Move,
    *,
    at: tuple[int, int, int],
    scores_before: tuple[Points, ...],
    where: str,
) -> None:
    """Check and play one move of the log on ``track``, recording its ply, the table after it and
    whether it swept. ``at``: the round, the deal and the move within the deal."""
    ri, di, mi = at
    n = rep.log.nplayers
    ply = len(rep.plies)
    mw = f"{where} (ply {ply}), seat {seat}, card {card_name(move.card)}"
    if mi >= HAND_SIZE * n:
        raise LogError(
            f"{mw}: a deal has {HAND_SIZE * n} moves ({n} seats x {HAND_SIZE} cards); the next deal "
            "must come first"
        )
    before = track.view
    if seat != before.to_move:
        raise LogError(
            f"{mw}: it is seat {before.to_move}'s turn, not seat {seat}'s "
            "(seats play in turn, rules.md 1.3.6)"
        )
    rep.plies.append(
        Ply(ply, ri, di, mi, seat, move, track.state, track.mover(seat), track.vobs, scores_before)
    )
    track.play(seat, move, mw)
    after = track.view
    rep.after.append((after.loose, after.builds))
    side = seat % rep.log.nsides
    if after.sweeps[side] > before.sweeps[side]:
        rep.sweeps.add(ply)


def _check_given(hands: tuple[int | None, ...], unseen: int, viewer: int | None) -> None:
    """In a viewer log, other seats' hands that are given must be unseen cards, each dealt once."""
    seen = 0
    for s, h in enumerate(hands):
        if h is None or s == viewer:
            continue
        if h & seen:
            raise CardError(f"seat {s}: card {mask_names(h & seen)[0]} is dealt twice")
        if h & ~unseen:
            raise CardError(
                f"seat {s}: card {mask_names(h & ~unseen)[0]} is not available to deal "
                "(already on the table, dealt or played)"
            )
        seen |= h


def _same_points(a: Sequence[Points], b: Sequence[Points]) -> bool:
    return len(a) == len(b) and all(abs(x - y) < 1e-9 for x, y in zip(a, b, strict=True))


def _pts(points: Sequence[Points]) -> str:
    return "[" + ", ".join(str(p) for p in points) + "]"


def _breakdown_words(score: RoundScore) -> str:
    parts = []
    for side, b in enumerate(score.breakdown):
        items = [f"{k} {v}" for k, v in b.items() if not k.endswith("_count") and v]
        parts.append(f"side {side}: " + (", ".join(items) if items else "nothing"))
    return "; ".join(parts)


def _move_words(move: Move) -> str:
    return f"'{move.describe()}'"


def legal_at(rules: RuleSet, ply: Ply) -> list[Move]:
    """The legal moves of the mover at ``ply``; LogError when the mover's hand is unknown (viewer logs),
    TooManyMovesError when the table is too big to list them (``movegen.check_listable``)."""
    view = ply.state if ply.state is not None else ply.observation
    if view is not None:
        try:
            check_listable(view.loose)
        except TooManyMovesError as e:
            raise TooManyMovesError(f"{ply.where}: {e}") from None
    if ply.state is not None:
        return legal_moves(rules, ply.state)
    if ply.observation is not None:
        obs = ply.observation
        return own_moves(rules, obs)
    raise LogError(
        f"{ply.where}: the hand of seat {ply.seat} is not in the log (a viewer log of "
        f"seat {_viewer_of(ply)}), so its legal moves are unknown"
    )


def _viewer_of(ply: Ply) -> str:
    return str(ply.viewer_observation.seat) if ply.viewer_observation is not None else "?"


def position_at(log: GameLog, ply: Ply) -> Position:
    """The position before ``ply`` as the mover sees it; LogError when the mover's hand is unknown."""
    if ply.observation is None:
        legal_at(log.rules, ply)  # raises the explanation
    assert ply.observation is not None
    return Position(log.rules, log.nplayers, ply.observation, ply.scores, log.partnerships)


def end_observation(rep: Replay) -> Observation:
    """The view of the seat to move where a log in progress stops (the position ``suggest`` helps with).

    LogError when the log does not stop mid-deal with a known hand to move: the game is over, the next
    deal or round is not in the log, or (viewer logs) another seat is to move."""
    last = rep.rounds[-1] if rep.rounds else None
    if last is None or last.score is not None:
        what = "the game is over" if rep.match.over else "the next round's deal is not in the log"
        raise LogError(f"the log stops between rounds: {what}")
    if rep.state is not None:
        if rep.state.needs_deal:
            raise LogError("the log stops between deals: the next deal is not in the log")
        return observe(rep.state, rep.state.to_move)
    obs = rep.viewer_observation
    assert obs is not None
    if not any(obs.hand_sizes):
        raise LogError("the log stops between deals: the next deal is not in the log")
    if obs.to_move != obs.seat:
        raise LogError(
            f"the log stops with seat {obs.to_move} to move, whose hand is not in the log "
            f"(a viewer log of seat {obs.seat})"
        )
    return obs


def end_position(rep: Replay) -> Position:
    """``end_observation`` as a ``Position`` with the game scores."""
    log = rep.log
    return Position(log.rules, log.nplayers, end_observation(rep), tuple(rep.match.scores), log.partnerships)


def end_legal(rules: RuleSet, rep: Replay, obs: Observation) -> list[Move]:
    """The legal moves where a log in progress stops (``obs``: its ``end_observation``): the state's
    where every hand is known, as ``legal_at`` takes them at every other ply (building for a partner
    depends on the partner's hand, which the mover's own view does not show), else the view's."""
    if rep.state is None:
        return legal_in(rules, obs)
    check_listable(rep.state.loose)
    return legal_moves(rules, rep.state)


def legal_in(rules: RuleSet, obs: Observation) -> list[Move]:
    """The legal moves of the seat to move, from its own observation (its own hand decides)."""
    if obs.to_move != obs.seat:
        raise LogError(f"seat {obs.to_move} is to move, but this is the view of seat {obs.seat}")
    check_listable(obs.loose)
    return own_moves(rules, obs)
