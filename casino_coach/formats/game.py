"""A live game to the target: the one game loop that self-play, the terminal game and the engine
protocol drive.

``Game`` deals rounds (from a seed, or from explicit shuffles), checks and applies every move, deals the
next hand and starts the next round when it is time (the deal passes one seat on, rules.md 1.3.1),
scores each round into a ``scoring.Match``, and records everything as a ``replay.GameLog``::

    game = Game(RuleSet.from_preset("royal"), ["Ana", "Ben"], seed=7)
    while not game.over:
        game.play(game.legal()[0])
    data = log_to_json(game.to_log())
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence

from casino_coach import __version__
from casino_coach.engine.movegen import Move, apply, is_legal, legal_moves
from casino_coach.engine.observation import Observation, observe
from casino_coach.engine.reasons import illegal_reason
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import Match, Points, RoundScore
from casino_coach.engine.state import (
    RoundState,
    Shuffle,
    check_players,
    deal,
    new_round,
    shuffle_round,
    sides_for,
)
from casino_coach.errors import CoachError, IllegalMoveError
from casino_coach.formats.log import DealLog, GameLog, RoundLog

CREATED_BY = f"casino_coach {__version__}"


class Game:
    """A game of Casino played to the target, move by move.

    ``players`` is a list of 2..4 names (or just the number of players). The pack is shuffled for each
    round by a ``random.Random(seed)`` of the game's own (bots keep their own generators), unless
    ``shuffles`` gives the deals of each round in turn. ``max_rounds`` stops the game after that many
    rounds even without a winner (for one-round experiments). ``dealer`` fixes the first dealer;
    otherwise it follows the ``first_dealer`` option (random from the seed, or seat 0).
    """

    def __init__(
        self,
        rules: RuleSet,
        players: Sequence[str] | int,
        *,
        seed: int | None = None,
        shuffles: Iterable[Shuffle] | None = None,
        dealer: int | None = None,
        max_rounds: int | None = None,
        created_by: str | None = CREATED_BY,
        event: str | None = None,
        date: str | None = None,
    ) -> None:
        names = [f"seat {i}" for i in range(players)] if isinstance(players, int) else list(players)
        check_players(len(names))
        self.rules = rules
        self.players = names
        self.nplayers = len(names)
        self.nsides = sides_for(self.nplayers, rules.partnerships)
        self.seed = seed
        self.created_by = created_by
        self.event = event
        self.date = date
        self.max_rounds = max_rounds
        self._rng = random.Random(seed)
        self._shuffles: Iterator[Shuffle] | None = iter(shuffles) if shuffles is not None else None
        self.match = Match(rules, self.nsides)
        if dealer is None:
            dealer = self._rng.randrange(self.nplayers) if rules.first_dealer == "random" else 0
        elif not 0 <= dealer < self.nplayers:
            raise CoachError(f"dealer must be a seat from 0 to {self.nplayers - 1}, got {dealer}")
        self._rounds: list[RoundLog] = []
        self._deals: list[DealLog] = []
        self._moves: list[tuple[int, Move]] = []
        self._shuffle: Shuffle | None = None
        self._next_deal = 0
        self._legal: list[Move] | None = None
        self._stopped = False
        self.state: RoundState = self._start_round(dealer)
        self.history: list[tuple[int, Move]] = []  # every move of the game, in order

    # --- dealing -----------------------------------------------------------------------------------

    def _take_shuffle(self) -> Shuffle:
        if self._shuffles is not None:
            try:
                return next(self._shuffles)
            except StopIteration:
                raise CoachError("the explicit shuffles ran out before the game ended") from None
        return shuffle_round(self._rng, self.nplayers)

    def _start_round(self, dealer: int) -> RoundState:
        sh = self._take_shuffle()
        self._shuffle = sh
        self._next_deal = 1
        self._deals = []
        self._moves = []
        state = new_round(self.nplayers, self.nsides, dealer, sh.table, sh.deals[0])
        self._deals_open(sh.table, sh.deals[0])
        return state

    def _deals_open(self, table: int | None, hands: tuple[int, ...]) -> None:
        self._deals.append(DealLog(table, tuple(hands), ()))

    def _close_deal(self) -> None:
        last = self._deals[-1]
        self._deals[-1] = DealLog(last.table, last.hands, tuple(self._moves))
        self._moves = []

    # --- queries -----------------------------------------------------------------------------------

    @property
    def to_move(self) -> int:
        return self.state.to_move

    @property
    def over(self) -> bool:
        return self.match.over or self._stopped

    @property
    def winner(self) -> int | None:
        """The winning side (seat % nsides), or None while the game goes on or after ``max_rounds``."""
        return self.match.winner

    @property
    def scores(self) -> list[Points]:
        return list(self.match.scores)

    @property
    def round_index(self) -> int:
        """0-based index of the round being played (or the last one, when the game is over)."""
        return len(self._rounds) - (1 if self.over else 0)

    def side_of(self, seat: int) -> int:
        return seat % self.nsides

    def legal(self) -> list[Move]:
        """The legal moves of the seat to move (sorted); empty when the game is over."""
        if self.over:
            return []
        if self._legal is None:
            self._legal = legal_moves(self.rules, self.state)
        return self._legal

    def observation(self, seat: int | None = None) -> Observation:
        """What ``seat`` (default: the seat to move) can see now."""
        return observe(self.state, self.to_move if seat is None else seat)

    # --- playing -----------------------------------------------------------------------------------

    def play(self, move: Move) -> RoundScore | None:
        """Check and play ``move`` for the seat to move. Deals the next hand or starts the next round
        as needed; returns the round's score when this move ended a round, else None."""
        if self.over:
            raise IllegalMoveError("the game is over")
        if not is_legal(self.rules, self.state, move):
            raise IllegalMoveError(illegal_reason(self.rules, self.state, move))
        seat = self.state.to_move
        self._moves.append((seat, move))
        self.history.append((seat, move))
        self.state = apply(self.rules, self.state, move)
        self._legal = None
        if self.state.is_over:
            self._close_deal()
            score = self.match.add_round(self.state)
            self._rounds.append(RoundLog(self.state.dealer, list(self._deals), score.points))
            self._deals = []
            if self.max_rounds is not None and len(self._rounds) >= self.max_rounds:
                self._stopped = True
            if not self.over:
                self.state = self._start_round((self.state.dealer + 1) % self.nplayers)
            return score
        if self.state.needs_deal:
            self._close_deal()
            assert self._shuffle is not None
            hands = self._shuffle.deals[self._next_deal]
            self._next_deal += 1
            self.state = deal(self.state, hands)
            self._deals_open(None, hands)
        return None

    def round_scores(self) -> list[RoundScore]:
        return list(self.match.rounds)

    def to_log(self, viewer: int | None = None) -> GameLog:
        """The game so far as a ``GameLog`` (a game in progress stops mid-deal). With ``viewer`` the
        other seats' hands are written as unknown (null), as that seat would log the game."""
        rounds = list(self._rounds)
        if not self.over:
            deals = list(self._deals)
            if deals:
                last = deals[-1]
                deals[-1] = DealLog(last.table, last.hands, tuple(self._moves))
            rounds.append(RoundLog(self.state.dealer, deals, None))
        if viewer is not None:
            rounds = [
                RoundLog(
                    r.dealer,
                    [
                        DealLog(
                            d.table, tuple(h if s == viewer else None for s, h in enumerate(d.hands)), d.moves
                        )
                        for d in r.deals
                    ],
                    r.result,
                )
                for r in rounds
            ]
        return GameLog(
            rules=self.rules,
            players=list(self.players),
            viewer=viewer,
            rounds=rounds,
            seed=self.seed,
            created_by=self.created_by,
            event=self.event,
            date=self.date,
            partnerships=self.rules.partnerships,
        )
