"""``casino-coach validate / replay / moves / selfplay``: game logs and positions on the command line."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from casino_coach.cli.app import SEED_MAX, app, handle_errors, seed_option
from casino_coach.cli.options import rule_option
from casino_coach.errors import CoachError, LogError, OutputError, TooManyMovesError, UsageError, about
from casino_coach.formats.text import player_name, printable, side_names

if TYPE_CHECKING:
    from casino_coach.engine.movegen import Move
    from casino_coach.formats.log import GameLog
    from casino_coach.formats.position import Position
    from casino_coach.formats.replay import Ply, Replay
    from casino_coach.render.replay import LegalAt

# Games one selfplay run plays (a log each): a folder of 100,000 logs is already more than any use.
MAX_GAMES = 100_000


def _read(path: Path) -> GameLog | Position:
    from casino_coach.formats.position import read_any

    with about(path):
        return read_any(path)


def _replay(path: Path, log: GameLog) -> Replay:
    from casino_coach.formats.replay import replay_log

    with about(path):
        return replay_log(log)


def _print_json(obj: Any) -> None:
    from casino_coach.formats.codec import dumps

    typer.echo(dumps(obj).decode(), nl=False)


@app.command("validate")
@handle_errors
def validate_command(
    file: Path = typer.Argument(..., help="A casino-replay log or a casino-position file."),
) -> None:
    """Check a log or a position: prints OK and what it holds, or the first error (exit 1).

    Example: casino-coach validate replays/royal-2p-full.json
    """
    from casino_coach.formats.position import Position
    from casino_coach.formats.replay import legal_in
    from casino_coach.render.replay import describe_log

    doc = _read(file)
    if isinstance(doc, Position):
        obs = doc.observation
        try:
            n = len(legal_in(doc.rules, obs))
            moves = f"with {n} legal move{'s' if n != 1 else ''}"
        except TooManyMovesError:  # a valid position whose moves are too many to list
            moves = f"with {obs.loose.bit_count()} loose cards on the table, too many to list its legal moves"
        typer.echo(
            f"OK: {printable(str(file))}: casino-position, {doc.rules.describe()}, {doc.players} players, "
            f"seat {obs.to_move} to move {moves}"
        )
        return
    rep = _replay(file, doc)
    typer.echo(f"OK: {printable(str(file))}: casino-replay, {describe_log(doc, rep)}")


@app.command("replay")
@handle_errors
def replay_command(
    file: Path = typer.Argument(..., help="A casino-replay log."),
    json: bool = typer.Option(False, "--json", help="Print the score summary as JSON."),
) -> None:
    """Re-play a game log move by move: the table, each move in words, captures and sweeps, each
    round's score breakdown and the running game score. With --json: {"rounds": [{"points",
    "breakdown", "sweeps"}], "totals", "winner"}.

    Example: casino-coach replay replays/classic-2p-full.json --json
    """
    from rich.console import Console

    from casino_coach.formats.log import GameLog
    from casino_coach.render.replay import replay_view

    doc = _read(file)
    if not isinstance(doc, GameLog):
        raise LogError(f"{file}: a casino-position has no moves to replay (use 'moves' or 'validate')")
    rep = _replay(file, doc)
    if json:
        _print_json(rep.summary_json())
        return
    console = Console()
    for part in replay_view(rep):
        console.print(part)


@app.command("moves")
@handle_errors
def moves_command(
    file: Path = typer.Argument(..., help="A casino-replay log or a casino-position."),
    at: int | None = typer.Option(
        None,
        "--at",
        help="Ply N of a log: the position just before move "
        "N (0-based, counted across the whole log); N = the number of moves "
        "is where a game in progress stops.",
    ),
    json: bool = typer.Option(False, "--json", help='Print {"ply", "seat", "legal"} as JSON.'),
) -> None:
    """List the legal moves at a position, at ply N of a log, or at every move of a log.

    In a viewer log only the plies whose mover's hand is known (the viewer's own) are listed; --at N
    at another seat's move is an error.

    Example: casino-coach moves replays/royal-2p-full.json --at 12 --json
    """
    from rich.console import Console

    from casino_coach.formats.position import Position
    from casino_coach.formats.replay import end_legal, end_observation, legal_at, legal_in
    from casino_coach.render import seat_name
    from casino_coach.render.replay import LegalAt, legal_view

    doc = _read(file)
    with about(file):  # an unknown hand or a table too big to list names the file
        if isinstance(doc, Position):
            if at is not None:
                raise CoachError("--at: a position is a single moment; --at applies to logs only")
            obs = doc.observation
            legal = legal_in(doc.rules, obs)
            if json:
                _print_json(_legal_json(0, obs.to_move, legal))
                return
            title = f"{file}: seat {obs.to_move} to move: {_count(legal)}"
            Console().print(legal_view([LegalAt(title, obs.hand, obs.loose, obs.builds, legal)]))
            return
        rep = _replay(file, doc)
        rules = doc.rules
        names = [player_name(p) for p in doc.players]
        if at is not None:
            total = len(rep.plies)
            if at < 0 or at > total:
                raise CoachError(f"{file}: --at {at}: the log has {total} moves, so N goes from 0 to {total}")
            if at == total:
                try:
                    obs = end_observation(rep)
                except LogError as e:  # about() puts the file's name first
                    raise LogError(f"--at {at} (after the last move): {e}") from None
                legal = end_legal(rules, rep, obs)
                if json:
                    _print_json(_legal_json(at, obs.to_move, legal))
                    return
                title = (
                    f"ply {at}, where the log stops: {seat_name(obs.to_move, names)} to move: {_count(legal)}"
                )
                Console().print(legal_view([LegalAt(title, obs.hand, obs.loose, obs.builds, legal)], names))
                return
            ply = rep.plies[at]
            legal = legal_at(rules, ply)
            if json:
                _print_json(_legal_json(at, ply.seat, legal))
                return
            Console().print(legal_view([_legal_at(ply, names, legal)], names))
            return
        known = [p for p in rep.plies if p.observation is not None or p.state is not None]
        if json:
            _print_json([_legal_json(p.index, p.seat, legal_at(rules, p)) for p in known])
            return
        views = [
            _legal_at(
                p, names, legal_at(rules, p) if p.observation is not None or p.state is not None else None
            )
            for p in rep.plies
        ]
        Console().print(legal_view(views, names))


def _count(legal: list[Move]) -> str:
    return f"{len(legal)} legal move{'s' if len(legal) != 1 else ''}"


def _legal_json(ply: int, seat: int, legal: list[Move]) -> dict[str, Any]:
    from casino_coach.formats.codec import move_to_json

    return {"ply": ply, "seat": seat, "legal": [move_to_json(m) for m in legal]}


def _legal_at(ply: Ply, names: list[str], legal: list[Move] | None) -> LegalAt:
    """What ``moves`` shows of one ply of a log: where, who, the hand and table, the legal moves."""
    from casino_coach.render import seat_name
    from casino_coach.render.replay import LegalAt

    where = f"ply {ply.index} (round {ply.round + 1}, deal {ply.deal + 1}, move {ply.move_index + 1})"
    who = seat_name(ply.seat, names)
    if ply.state is not None:
        hand: int | None = ply.state.hands[ply.seat]
        loose, builds = ply.state.loose, ply.state.builds
    elif ply.observation is not None:
        hand, loose, builds = ply.observation.hand, ply.observation.loose, ply.observation.builds
    else:  # another seat's move in a viewer log: the table is known, the hand is not
        view = ply.viewer_observation
        assert view is not None
        hand, loose, builds = None, view.loose, view.builds
    if legal is None:
        return LegalAt(f"{where}: {who} played {ply.move.describe()}", None, loose, builds, None)
    return LegalAt(f"{where}: {who} to move: {_count(legal)}", hand, loose, builds, legal, ply.move)


@app.command("selfplay")
@handle_errors
def selfplay_command(
    bots: str = typer.Option(
        "greedy,counter",
        "--bots",
        metavar="BOT,BOT,...",
        help="Bots by seat, comma separated (random, greedy, counter, searcher); "
        "repeated round the table if fewer than the players.",
    ),
    preset: str = typer.Option("classic", "--preset", metavar="PRESET", help="classic, royal or dominican."),
    option: list[str] = rule_option(),
    players: int = typer.Option(2, "--players", min=2, max=4, help="2, 3 or 4 players."),
    games: int = typer.Option(1, "--games", min=1, max=MAX_GAMES, help="How many games to play."),
    seed: int = seed_option(0, "Seed of the whole run; game i uses seed*1000+i."),
    out: Path = typer.Option(
        Path("selfplay"),
        "--out",
        "-o",
        metavar="FOLDER",
        help="The folder for the logs, one file per game. It is made if missing (selfplay/ by default), "
        "but the folder it goes in must exist.",
    ),
) -> None:
    """Bots play complete games to the target; each game is written as a casino-replay log with its
    seed and created_by.

    Example: casino-coach selfplay --bots greedy,counter --preset royal --players 2 --games 20
    --seed 7 --out games/
    """
    from casino_coach.bots.arena import play
    from casino_coach.bots.policies import make_policy
    from casino_coach.engine.rules import RuleSet
    from casino_coach.formats.codec import parse_options
    from casino_coach.formats.files import atomic_write_bytes, check_target
    from casino_coach.formats.game import CREATED_BY
    from casino_coach.formats.log import log_to_json

    if seed * 1000 + games - 1 > SEED_MAX:  # game i's seed is written into its log, a 64-bit integer
        raise UsageError(
            f"--seed {seed} with --games {games}: the last game's seed, seed*1000+{games - 1}, would pass "
            f"the largest seed, {SEED_MAX}"
        )
    rules = RuleSet.from_dict({"preset": preset, **parse_options(option)})
    names = [b.strip() for b in bots.split(",")]
    if not any(names):
        raise UsageError("--bots: name at least one bot, like greedy,counter")
    if not all(names):
        raise UsageError(f"--bots {bots}: an empty name between commas")
    if len(names) > players:
        raise UsageError(f"--bots names {len(names)} bots for {players} players: at most one a seat")
    policies = [make_policy(name) for name in names]
    seat_policies = [policies[s % len(policies)] for s in range(players)]
    if out.exists() and not out.is_dir():
        raise OutputError(f"--out {out}: not a folder")
    if not out.exists():
        check_target(out)  # its parent must exist: a mistyped path makes no folders
    created = f"{CREATED_BY} selfplay --bots {','.join(p.name for p in seat_policies)}"
    for i in range(games):
        game_seed = seed * 1000 + i
        game = play(rules, seat_policies, game_seed, rounds=None, bot_seed="selfplay", created_by=created)
        log = game.to_log()
        out.mkdir(exist_ok=True)  # made with the first game, so that a run stopped before leaves none
        path = out / (f"{rules.preset}-{players}p-{'-'.join(names)}-seed{game_seed}.json")
        atomic_write_bytes(path, log_to_json(log))
        sides = side_names(log.players, log.nsides)
        winner = sides[game.winner] if game.winner is not None else "nobody"
        score = "-".join(str(s) for s in game.scores)
        rounds = f"{len(log.rounds)} round{'s' if len(log.rounds) != 1 else ''}"
        typer.echo(f"{path}: {rounds}, {len(game.history)} moves, won by {winner} {score}")
