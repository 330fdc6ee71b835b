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
from casino_coach.engine.movegen import (
    Move,
    apply,
    illegal_reason,
    legal_moves,
)
from casino_coach.engine.observation import (
    Observation,
    as_state,
    first_deal_observation,
    observe,
    observe_deal,
    observe_move,
    own_moves,
)
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
from casino_coach.errors import CardError, CoachError, LogError
from casino_coach.formats.log import (
    GameLog,
)
from casino_coach.formats.position import (
    Position,
)


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


def replay(log: GameLog) -> Replay:
    """Re-play ``log`` through the engine; raise LogError at the first problem, naming where it is."""
    rules = log.rules
    n = log.nplayers
    nsides = log.nsides
    match = Match(rules, nsides)
    plies: list[Ply] = []
    rounds: list[RoundReplay] = []
    per_round = deals_per_round(n)
    ply_index = 0
    rep = Replay(log, plies, rounds, match)
    prev_dealer: int | None = None
    for ri, rlog in enumerate(log.rounds):
        rw = f"round {ri + 1}"
        last_round = ri == len(log.rounds) - 1
        if match.over:
            raise LogError(f"{rw}: the game was already won by side {match.winner} after round {ri}")
        if prev_dealer is not None and rlog.dealer != (prev_dealer + 1) % n:
            raise LogError(
                f"{rw}: the dealer must be seat {(prev_dealer + 1) % n}, the seat after "
                f"the last dealer (rules.md 1.3.1), got {rlog.dealer}"
            )
        prev_dealer = rlog.dealer
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
        state: RoundState | None = None
        vobs: Observation | None = None
        full = all(h is not None for d in rlog.deals for h in d.hands)
        known_left: list[int | None] = []  # other seats' hands given in a viewer log
        for di, dlog in enumerate(rlog.deals):
            dw = f"{rw}, deal {di + 1}"
            try:
                if di == 0:
                    assert dlog.table is not None
                    if full:
                        hands = tuple(h for h in dlog.hands if h is not None)
                        state = new_round(n, nsides, rlog.dealer, dlog.table, hands)
                        if log.viewer is not None:
                            vobs = observe(state, log.viewer)
                    else:
                        own = dlog.hands[log.viewer] if log.viewer is not None else None
                        assert own is not None
                        vobs = _viewer_start(log, rlog.dealer, dlog.table, own)
                        _check_given(dlog.hands, vobs.unseen, log.viewer)
                else:
                    if state is not None:
                        if not state.needs_deal:
                            raise LogError(f"{dw}: dealt before every hand of the last deal was played")
                        state = deal(state, tuple(h for h in dlog.hands if h is not None))
                        if log.viewer is not None:
                            vobs = observe(state, log.viewer)
                    else:
                        assert vobs is not None and log.viewer is not None
                        own = dlog.hands[log.viewer]
                        assert own is not None
                        if own & ~vobs.unseen:
                            raise CardError(
                                f"seat {log.viewer}: card {mask_names(own & ~vobs.unseen)[0]} "
                                "is not available to deal (already on the table, dealt "
                                "or played)"
                            )
                        vobs = observe_deal(vobs, own)
                        _check_given(dlog.hands, vobs.unseen, log.viewer)
            except (CardError, CoachError) as e:
                if isinstance(e, LogError):
                    raise
                raise LogError(f"{dw}: {e}") from None
            known_left = list(dlog.hands)
            for mi, (seat, move) in enumerate(dlog.moves):
                mw = f"{dw}, move {mi + 1} (ply {ply_index}), seat {seat}, card {card_name(move.card)}"
                to_move = state.to_move if state is not None else (vobs.to_move if vobs else 0)
                if mi >= HAND_SIZE * n:
                    raise LogError(
                        f"{mw}: a deal has {HAND_SIZE * n} moves ({n} seats x "
                        f"{HAND_SIZE} cards); the next deal must come first"
                    )
                if seat != to_move:
                    raise LogError(
                        f"{mw}: it is seat {to_move}'s turn, not seat {seat}'s "
                        "(seats play in turn, rules.md 1.3.6)"
                    )
                if state is not None:
                    obs_mover: Observation | None = observe(state, seat)
                else:
                    obs_mover = vobs if seat == log.viewer else None
                plies.append(Ply(ply_index, ri, di, mi, seat, move, state, obs_mover, vobs, scores_before))
                if state is not None:
                    reason = illegal_reason(rules, state, move)
                    if reason:
                        raise LogError(f"{mw}: illegal move {_move_words(move)}: {reason}")
                    state = apply(rules, state, move)
                    if vobs is not None:
                        vobs = observe(state, log.viewer) if log.viewer is not None else None
                else:
                    assert vobs is not None
                    given = known_left[seat]
                    if given is not None and not given >> move.card & 1:
                        raise LogError(
                            f"{mw}: illegal move {_move_words(move)}: "
                            f"{card_name(move.card)} is not in the hand of seat {seat}"
                        )
                    try:
                        vobs = observe_move(rules, vobs, move)
                    except CoachError as e:
                        raise LogError(f"{mw}: illegal move {_move_words(move)}: {e}") from None
                    if given is not None:
                        known_left[seat] = given & ~(1 << move.card)
                view = state if state is not None else vobs
                assert view is not None
                rep.after.append((view.loose, view.builds))
                side = seat % nsides
                before = plies[-1].state or plies[-1].viewer_observation
                if before is not None and view.sweeps[side] > before.sweeps[side]:
                    rep.sweeps.add(ply_index)
                ply_index += 1
            played_out = len(dlog.moves) == HAND_SIZE * n
            if not played_out and not (last_round and di == len(rlog.deals) - 1):
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
            end = (
                state
                if state is not None
                else (as_state(vobs, (0,) * n, False) if vobs is not None else None)
            )
            assert end is not None
            score = match.add_round(end)
            if rlog.result is not None and not _same_points(rlog.result, score.points):
                raise LogError(
                    f"{rw}, result: the log declares points {_pts(rlog.result)}, but the "
                    f"round scores {_pts(score.points)} "
                    f"({_breakdown_words(score)})"
                )
        elif rlog.result is not None:
            raise LogError(f"{rw}, result: the round was not played out, so it has no result")
        rounds.append(RoundReplay(ri, rlog.dealer, state, vobs, score, scores_before))
        rep.state, rep.viewer_observation = state, vobs
    rep.complete = (
        bool(rounds) and all(r.score is not None for r in rounds) and len(rounds) == len(log.rounds)
    )
    return rep


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
    """The legal moves of the mover at ``ply``; LogError when the mover's hand is unknown (viewer logs)."""
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


def legal_in(rules: RuleSet, obs: Observation) -> list[Move]:
    """The legal moves of the seat to move, from its own observation (its own hand decides)."""
    if obs.to_move != obs.seat:
        raise LogError(f"seat {obs.to_move} is to move, but this is the view of seat {obs.seat}")
    return own_moves(rules, obs)
