"""Play a whole game between engine processes (one per seat) through the engine protocol.

The driver holds the real game (``casino_coach.formats.game.Game``, dealt from ``--seed``), starts one
``casino-coach engine`` process per seat, tells every engine its own hand and the table at each deal,
asks the engine of the seat to move for its move (``go``), plays it, and reports every move to every
engine. It checks what the engines say against the real game: whose turn it is, and each round's
points. At the end it prints the result (``--json`` for JSON) and can write the game log (``--out``).

    python scripts/engine_match.py --seed 7 --samples 8
    python scripts/engine_match.py --rules royal --players 3 --samples 4 --out match.json
    python scripts/engine_match.py --engine "casino-coach engine --depth 2" --engine "./other-engine"

Exit status 1, with one line on stderr, when an engine answers with an error, plays an illegal move,
disagrees with the real game, or stops.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import time
from typing import IO, Any

import orjson

from casino_coach.engine.cards import mask_names
from casino_coach.engine.rules import RuleSet
from casino_coach.errors import CoachError
from casino_coach.formats.codec import move_from_json, move_to_json
from casino_coach.formats.files import atomic_write_bytes
from casino_coach.formats.game import Game
from casino_coach.formats.log import log_to_json

ENGINE = [sys.executable, "-c", "from casino_coach.cli import main; main()", "engine"]


class MatchError(Exception):
    """An engine misbehaved (the message says which and how)."""


class Engine:
    """One engine process and its line protocol."""

    def __init__(self, seat: int, command: list[str]) -> None:
        self.seat = seat
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        self.requests = 0

    def ask(self, request: dict[str, Any], expect: str) -> dict[str, Any]:
        """Send one request (with an id) and read its answer; MatchError unless its type is ``expect``."""
        self.requests += 1
        rid = f"s{self.seat}-{self.requests}"
        stdin: IO[bytes] | None = self.proc.stdin
        stdout: IO[bytes] | None = self.proc.stdout
        assert stdin is not None and stdout is not None
        try:
            stdin.write(orjson.dumps({"id": rid, **request}) + b"\n")
            stdin.flush()
        except BrokenPipeError:
            raise MatchError(f"engine of seat {self.seat} has stopped") from None
        line = stdout.readline()
        if not line:
            raise MatchError(f"engine of seat {self.seat} has stopped")
        answer: dict[str, Any] = orjson.loads(line)
        if answer.get("id") != rid:
            raise MatchError(f"engine of seat {self.seat} answered {answer.get('id')!r} to {rid!r}")
        if answer.get("type") != expect:
            raise MatchError(
                f"engine of seat {self.seat} answered {request['type']} with "
                f"{answer.get('type')}: {answer.get('error', answer)}"
            )
        return answer

    def close(self) -> None:
        try:
            self.ask({"type": "quit"}, "bye")
        except MatchError:
            pass
        finally:
            if self.proc.stdin:
                self.proc.stdin.close()
            self.proc.wait(timeout=30)


def play_match(
    rules: RuleSet,
    nplayers: int,
    seed: int,
    limits: dict[str, Any],
    max_rounds: int | None = None,
    commands: list[list[str]] | None = None,
) -> dict[str, Any]:
    """Play one game between engines; the result as JSON data (and the game log under "log").
    ``commands`` are the engines' command lines, repeated round the table (default: casino-coach's)."""
    names = [f"engine {s}" for s in range(nplayers)]
    game = Game(rules, names, seed=seed, max_rounds=max_rounds, event="engine match")
    cmds = commands or [ENGINE]
    engines = [Engine(s, cmds[s % len(cmds)]) for s in range(nplayers)]
    t0 = time.perf_counter()
    plies = 0
    try:
        for e in engines:
            e.ask({"type": "hello"}, "hello")
            e.ask({"type": "new_game", "rules": rules.to_dict(), "players": names, "seat": e.seat}, "ready")
        dealt: tuple[int, int] | None = None
        while not game.over:
            st = game.state
            key = (len(game.round_scores()), st.stock)
            if key != dealt:
                dealt = key
                first = not any(st.captured) and st.stock.bit_count() == 52 - 4 - 4 * nplayers
                for e in engines:
                    req: dict[str, Any] = {"type": "deal", "hand": mask_names(st.hands[e.seat])}
                    if first:
                        req |= {"table": mask_names(st.loose), "dealer": st.dealer}
                    ans = e.ask(req, "state")
                    if ans["to_move"] != game.to_move:
                        raise MatchError(
                            f"engine of seat {e.seat} thinks seat {ans['to_move']} is to "
                            f"move, the game says seat {game.to_move}"
                        )
            mover = game.to_move
            best = engines[mover].ask({"type": "go", **limits, "seed": seed + plies}, "best_move")
            seat, move = move_from_json(best["move"], f"engine of seat {mover}'s move")
            if seat not in (None, mover):
                raise MatchError(f"engine of seat {mover} answered a move for seat {seat}")
            try:
                score = game.play(move)
            except CoachError as e:
                raise MatchError(f"engine of seat {mover} played an illegal move: {e}") from None
            plies += 1
            for eng in engines:
                ans = eng.ask({"type": "move", "move": move_to_json(move, mover)}, "state")
                if score is not None and ans.get("round_points") != [_num(p) for p in score.points]:
                    raise MatchError(
                        f"engine of seat {eng.seat} scored the round {ans.get('round_points')},"
                        f" the game says {list(score.points)}"
                    )
                if (
                    score is not None
                    and game.over
                    and ans["winner"] != game.winner
                    and game.winner is not None
                ):
                    raise MatchError(
                        f"engine of seat {eng.seat} says side {ans['winner']} won, the game "
                        f"says side {game.winner}"
                    )
    finally:
        for eng in engines:
            eng.close()
    seconds = time.perf_counter() - t0
    return {
        "rules": rules.to_dict(),
        "players": names,
        "seed": seed,
        "rounds": len(game.round_scores()),
        "round_points": [[_num(p) for p in r.points] for r in game.round_scores()],
        "scores": [_num(p) for p in game.scores],
        "winner": game.winner,
        "plies": plies,
        "seconds": round(seconds, 2),
        "log": orjson.loads(log_to_json(game.to_log())),
    }


def _num(x: float) -> float | int:
    return int(x) if float(x).is_integer() else round(float(x), 4)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--rules",
        default="classic",
        help='a preset name, or a rules object as JSON (\'{"preset": "royal"}\')',
    )
    ap.add_argument("--players", type=int, default=2, help="2, 3 or 4 seats, one engine each")
    ap.add_argument("--seed", type=int, default=1, help="the shuffle seed of the game")
    ap.add_argument("--samples", type=int, default=8, help="samples per decision (go)")
    ap.add_argument("--depth", type=int, default=None, help="plies per sampled world")
    ap.add_argument("--time", type=float, default=None, help="seconds per decision")
    ap.add_argument("--max-rounds", type=int, default=None, help="stop after N rounds")
    ap.add_argument(
        "--engine",
        action="append",
        default=[],
        metavar="COMMAND",
        help="an engine's command line, one per seat in turn (repeated round the table; "
        "default: casino-coach engine)",
    )
    ap.add_argument("--out", help="write the game log (casino-replay) here")
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    args = ap.parse_args(argv)
    try:
        raw = orjson.loads(args.rules) if args.rules.lstrip().startswith("{") else {"preset": args.rules}
        rules = RuleSet.from_dict(raw)
        limits: dict[str, Any] = {"samples": args.samples}
        if args.depth is not None:
            limits["depth"] = args.depth
        if args.time is not None:
            limits["time"] = args.time
        commands = [shlex.split(c) for c in args.engine] or None
        result = play_match(rules, args.players, args.seed, limits, args.max_rounds, commands)
    except (MatchError, CoachError, orjson.JSONDecodeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    log = result.pop("log")
    if args.out:
        atomic_write_bytes(args.out, orjson.dumps(log, option=orjson.OPT_INDENT_2) + b"\n")
    if args.json:
        print(orjson.dumps(result, option=orjson.OPT_INDENT_2).decode())
    else:
        winner = result["winner"]
        print(
            f"{result['rounds']} rounds, {result['plies']} moves in {result['seconds']} s; "
            f"scores {result['scores']}; " + (f"side {winner} wins" if winner is not None else "no winner")
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
