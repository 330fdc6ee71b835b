"""Positions (``casino-position`` v1, replay-format.md): one decision as the player to move sees it.
``read_position`` and its converse ``position_to_json``; ``Pieces.observation`` checks that a
position is consistent (cards, counts, builds that can be split, who must hold what) and makes the
mover's ``Observation``. ``read_any`` reads either a log or a position."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from casino_coach.engine.cards import FULL_DECK, iter_cards, mask_names
from casino_coach.engine.movegen import split_ok
from casino_coach.engine.observation import (
    Observation,
)
from casino_coach.engine.rules import MAX_TARGET, RuleSet
from casino_coach.engine.scoring import Points
from casino_coach.engine.state import (
    HAND_SIZE,
    PLAYER_COUNTS,
    Build,
    sides_for,
)
from casino_coach.errors import LogError, shown
from casino_coach.formats.codec import (
    LOG_FORMAT,
    POSITION_FORMAT,
    VERSION,
    check_format,
    dumps,
    load,
    names,
    read_cards,
    read_int,
    read_partnerships,
    read_rules,
)
from casino_coach.formats.log import (
    GameLog,
    log_from_obj,
)

# Bounds of a position's counts beyond what the rest of it checks: a side's sweeps (one per capture at
# most) and a game score (below the largest target, rules.md §2.6; a score NaN or past 64
# bits would break every answer).
MAX_SWEEPS = 52
MAX_SCORE = MAX_TARGET


@dataclass(frozen=True)
class Position:
    """A ``casino-position``: the rules, the number of players, the game scores, and the
    ``Observation`` of the seat to move."""

    rules: RuleSet
    players: int
    observation: Observation
    scores: tuple[Points, ...]
    partnerships: bool = True

    @property
    def to_move(self) -> int:
        return self.observation.to_move

    @property
    def nsides(self) -> int:
        return self.observation.nsides


def read_any(source: bytes | str | Path) -> GameLog | Position:
    """Read a log or a position, whichever its ``format`` says."""
    obj = load(source)
    if check_format(obj, None) == LOG_FORMAT:
        return log_from_obj(obj)
    return _position_from_obj(obj)


def check_scores(rules: RuleSet, scores: Sequence[Points], field: str = "scores") -> None:
    """LogError when a game score says the game is already won: a side at or past the target, but
    for a classic tie for the most there, which another round settles (rules.md 1.14.2)."""
    top = max(scores)
    if top >= rules.target and (rules.count_out or list(scores).count(top) < 2):
        raise LogError(
            f"{field}: side {list(scores).index(top)} has {top:g} of the {rules.target} points the game is "
            "played to: the game is already won, there is no round to play (rules.md 1.14)"
        )


def dealer_of(sizes: Sequence[int], to_move: int) -> int | None:
    """The dealer that the hand sizes and the seat to move imply: the deal is led by the seat after
    the dealer and goes round, so the seats that have played this turn (from the leader to the seat
    before ``to_move``) hold one card fewer than the others. None when the sizes follow no such
    pattern (no deal leaves them: ``Pieces.observation`` refuses them)."""
    n = len(sizes)
    h = sizes[to_move]
    played = 0
    while played < n - 1 and sizes[(to_move - 1 - played) % n] == h - 1:
        played += 1
    if any(sizes[(to_move + k) % n] != h for k in range(n - played)):
        return None
    return (to_move - played - 1) % n


@dataclass(frozen=True)
class Pieces:
    """A position given piece by piece, as the ``casino-position`` document or the typed notation
    lists it: masks for card sets, ``stock`` a count of cards still to be dealt, and None where the
    document leaves a field to its default. ``observation`` checks it and makes the mover's view."""

    nplayers: int
    to_move: int
    hand: int
    loose: int
    builds: tuple[Build, ...] = ()
    hand_sizes: tuple[int, ...] | None = None
    stock: int = 0
    seen: int = 0  # cards gone from play (captured ones may be listed too)
    captured: tuple[int, ...] | None = None  # one pile per side
    sweeps: tuple[int, ...] | None = None
    last_capture: int = -1  # a side, or -1
    scores: tuple[Points, ...] | None = None
    partnerships: bool = True
    dealer: int | None = None

    def observation(self, rules: RuleSet) -> Observation:
        """The ``Observation`` of the seat to move, once the pieces are checked to be consistent;
        LogError naming the field otherwise. Cards not in the hand, on the table, captured or
        ``seen`` are unseen."""
        n, to_move, hand = self.nplayers, self.to_move, self.hand
        if n not in PLAYER_COUNTS:
            raise LogError(f"players: Casino is played by 2, 3 or 4 players, not {n}")
        nsides = sides_for(n, self.partnerships)
        if not 0 <= to_move < n:
            raise LogError(f"to_move: must be a seat from 0 to {n - 1}, got {to_move}")
        if not hand:
            raise LogError("hand: the seat to move must hold at least one card")
        if self.loose & hand:
            raise LogError(f"table: card {mask_names(self.loose & hand)[0]} is also in the hand")
        builds, placed = self._builds(rules, hand | self.loose)
        if self.seen & placed:
            raise LogError(
                f"seen: card {mask_names(self.seen & placed)[0]} is also in the hand or on the table"
            )
        caps = self.captured if self.captured is not None else (0,) * nsides
        if len(caps) != nsides:
            raise LogError(f"captured: expected one pile per side, {nsides} in all, got {len(caps)}")
        for side, pile in enumerate(caps):
            if pile & placed:
                raise LogError(f"captured, side {side}: card {mask_names(pile & placed)[0]} is in two places")
            placed |= pile
        sizes = self._sizes()
        unseen = FULL_DECK & ~(placed | self.seen)
        hidden = sum(sizes) - sizes[to_move] + self.stock
        if hidden > unseen.bit_count():
            raise LogError(
                f"hand_sizes and stock need {hidden} unseen cards, but only "
                f"{unseen.bit_count()} cards are not listed anywhere"
            )
        sweeps = self.sweeps if self.sweeps is not None else (0,) * nsides
        if len(sweeps) != nsides or any(x < 0 for x in sweeps):
            raise LogError(f"sweeps: expected {nsides} counts, one per side, got {list(sweeps)}")
        if not -1 <= self.last_capture < nsides:
            raise LogError(
                f"last_capture: must be null or a side from 0 to {nsides - 1}, got {self.last_capture}"
            )
        if self.scores is not None and len(self.scores) != nsides:
            raise LogError(f"scores: expected one score per side, {nsides} in all, got {len(self.scores)}")
        dealt = self._dealt(sizes)
        for i, b in enumerate(builds):
            # (Building for a partner leaves the card that takes it with the partner.)
            if sizes[b.owner] == 0 and rules.build_for_partner == "never":
                raise LogError(
                    f"table, build {i + 1}: its owner, seat {b.owner}, holds no cards, but the owner of a "
                    "build keeps a card that takes it (rules.md 1.8.2)"
                )
        return Observation(
            seat=to_move,
            hand=hand,
            loose=self.loose,
            builds=tuple(sorted(builds)),
            captured=caps,
            sweeps=sweeps,
            to_move=to_move,
            last_capturer=self.last_capture,
            dealer=self._dealer(dealt, sizes),
            nsides=nsides,
            hand_sizes=sizes,
            stock_count=self.stock,
            unseen=unseen,
            known=tuple(hand if s == to_move else 0 for s in range(n)),
        )

    def _builds(self, rules: RuleSet, placed: int) -> tuple[list[Build], int]:
        """The builds checked (cards in one place, a value the rules allow, cards that split into
        sets worth it, an owner at the table), each marked multiple or single; and every card placed
        so far, theirs added to ``placed``."""
        pv = rules.pair_value
        out: list[Build] = []
        for i, b in enumerate(self.builds):
            bw = f"table, build {i + 1}"
            if b.cards & placed:
                raise LogError(f"{bw}: card {mask_names(b.cards & placed)[0]} is in two places")
            placed |= b.cards
            if b.cards.bit_count() < 2:
                raise LogError(f"{bw}: a build has at least two cards")
            if not 1 <= b.value <= rules.max_build:
                top = rules.max_build
                raise LogError(
                    f"{bw}: value {b.value} is not from 1 to {top} in {rules.preset} (rules.md 1.2)"
                )
            if not split_ok(b.cards, b.value, pv):
                raise LogError(
                    f"{bw}: cards {' '.join(names(b.cards))} do not split into sets worth {b.value}"
                )
            if not 0 <= b.owner < self.nplayers:
                raise LogError(f"{bw}: owner must be a seat from 0 to {self.nplayers - 1}, got {b.owner}")
            multiple = sum(pv[c] for c in iter_cards(b.cards)) != b.value
            out.append(b._replace(multiple=multiple))
        return out, placed

    def _sizes(self) -> tuple[int, ...]:
        """The hand sizes checked against the hand, and the stock against whole deals."""
        n, to_move, held = self.nplayers, self.to_move, self.hand.bit_count()
        sizes = self.hand_sizes if self.hand_sizes is not None else (held,) * n
        if len(sizes) != n or not all(0 <= x <= HAND_SIZE for x in sizes):
            raise LogError(f"hand_sizes: expected {n} numbers from 0 to {HAND_SIZE}, got {list(sizes)}")
        if sizes[to_move] != held:
            raise LogError(f"hand_sizes: seat {to_move} holds {held} cards, not {sizes[to_move]}")
        if self.stock < 0 or self.stock % (HAND_SIZE * n):
            raise LogError(f"stock: {self.stock} is not a whole number of deals of {HAND_SIZE * n} cards")
        return sizes

    def _dealt(self, sizes: tuple[int, ...]) -> int:
        """The seat that dealt, as the hand sizes tell it (each seat plays in turn from the dealer's left)."""
        to_move = self.to_move
        dealt = dealer_of(sizes, to_move)
        if dealt is None:
            raise LogError(
                f"hand_sizes: no deal leaves {list(sizes)} with seat {to_move} to move: each seat plays one "
                f"card in turn from the seat after the dealer, so the seats that played this turn hold one "
                f"card fewer than seat {to_move} and the others as many (rules.md 1.3.6, 1.4)"
            )
        return dealt

    def _dealer(self, dealt: int, sizes: tuple[int, ...]) -> int:
        """The seat that dealt: the one the hand sizes say (``dealt``), or the one given where they
        agree or were left to their default."""
        to_move = self.to_move
        if self.dealer is None:
            return dealt
        if self.hand_sizes is not None and self.dealer != dealt:
            # (Sizes left to their default are a guess: a dealer given with them stands.)
            raise LogError(
                f"dealer: seat {self.dealer} cannot have dealt: with hand_sizes {list(sizes)} and seat "
                f"{to_move} to move, seat {(dealt + 1) % self.nplayers} led this deal, so seat {dealt} "
                "dealt (rules.md 1.3.6)"
            )
        return self.dealer


def read_position(source: bytes | str | Path) -> Position:
    """Read a ``casino-position`` v1 (bytes, JSON text, or a path); LogError saying which field."""
    return position_from_obj(load(source))


def position_from_obj(obj: Any) -> Position:
    """``read_position`` of a decoded JSON value (the engine's ``position`` request)."""
    check_format(obj, POSITION_FORMAT)
    return _position_from_obj(obj)


def _int_list(obj: Mapping[str, Any], key: str, size: int, hi: int) -> list[int] | None:
    v = obj.get(key)
    if v is None:
        return None
    if (
        not isinstance(v, list)
        or len(v) != size
        or not all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= hi for x in v)
    ):
        raise LogError(f"{key}: expected {size} whole numbers from 0 to {hi}, got {shown(v)}")
    return list(v)


def _position_from_obj(obj: Mapping[str, Any]) -> Position:
    rules = read_rules(obj)
    players_raw = obj.get("players")
    if isinstance(players_raw, list) and all(isinstance(p, str) for p in players_raw):
        players_raw = len(players_raw)
    if not isinstance(players_raw, int) or isinstance(players_raw, bool) or players_raw not in PLAYER_COUNTS:
        raise LogError(f"players: expected the number of players, 2, 3 or 4, got {shown(players_raw)}")
    n = players_raw
    partnerships, rules = read_partnerships(obj, rules, n)
    nsides = sides_for(n, partnerships)
    to_move = read_int(obj, "to_move", "position", 0, n - 1)
    if "hand" not in obj:
        raise LogError("position: missing 'hand'")
    hand = read_cards(obj["hand"], "hand")
    loose, builds = _read_table(obj, rules, n)
    sizes = _int_list(obj, "hand_sizes", n, HAND_SIZE)
    # null, as for the other optional fields: the default (the last deal)
    stock = 0 if obj.get("stock") is None else read_int(obj, "stock", "position", 0, 52)
    seen_raw = obj.get("seen")
    seen = read_cards([] if seen_raw is None else seen_raw, "seen")
    captured = _read_captured(obj, nsides)
    sweeps = _int_list(obj, "sweeps", nsides, MAX_SWEEPS)
    last = obj.get("last_capture")
    if last is None:
        last = -1
    elif not isinstance(last, int) or isinstance(last, bool) or not 0 <= last < nsides:
        raise LogError(f"last_capture: must be null or a side from 0 to {nsides - 1}, got {shown(last)}")
    scores = _read_scores(obj, rules, nsides)
    dealer = obj.get("dealer")
    if dealer is not None and (
        not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < n
    ):
        raise LogError(f"dealer: must be a seat from 0 to {n - 1}, got {shown(dealer)}")
    pieces = Pieces(
        n,
        to_move,
        hand,
        loose,
        tuple(builds),
        hand_sizes=None if sizes is None else tuple(sizes),
        stock=stock,
        seen=seen,
        captured=None if captured is None else tuple(captured),
        sweeps=None if sweeps is None else tuple(sweeps),
        last_capture=last,
        scores=scores,
        partnerships=partnerships,
        dealer=dealer,
    )
    obs = pieces.observation(rules)
    return Position(rules, n, obs, scores, partnerships)


def _read_table(obj: Mapping[str, Any], rules: RuleSet, n: int) -> tuple[int, list[Build]]:
    """The table of a position: its loose cards and its builds (a list of cards is loose cards)."""
    if "table" not in obj:
        raise LogError("position: missing 'table'")
    table = obj["table"]
    builds: list[Build] = []
    if isinstance(table, list):
        loose = read_cards(table, "table")
    elif isinstance(table, Mapping):
        loose = read_cards(table.get("loose", []), "table, loose")
        braw = table.get("builds", [])
        if not isinstance(braw, list):
            raise LogError(f"table, builds: expected a list of builds, got {shown(braw)}")
        for i, b in enumerate(braw):
            bw = f"table, build {i + 1}"
            if not isinstance(b, Mapping):
                raise LogError(
                    f'{bw}: expected {{"cards": [...], "value": v, "owner": seat}}, got {shown(b)}'
                )
            cards = read_cards(b.get("cards"), f"{bw}, cards")
            value = read_int(b, "value", bw, 1, 14)
            owner = read_int(b, "owner", bw, 0, n - 1)
            mult = b.get("multiple")
            total = sum(rules.pair_value[c] for c in iter_cards(cards))
            if mult is not None and (not isinstance(mult, bool) or mult != (total != value)):
                raise LogError(
                    f"{bw}: 'multiple' is {shown(mult)}, but cards summing to "
                    f"{total} with value {value} make a "
                    f"{'multiple' if total != value else 'single'} build"
                )
            builds.append(Build(cards, value, owner, total != value))
    else:
        raise LogError(f'table: expected {{"loose": [...], "builds": [...]}}, got {shown(table)}')
    return loose, builds


def _read_captured(obj: Mapping[str, Any], nsides: int) -> list[int] | None:
    """The captured piles, one per side, or None for the default (none)."""
    captured: list[int] | None = None
    craw = obj.get("captured")
    if craw is not None:
        if not isinstance(craw, list) or len(craw) != nsides:
            raise LogError(
                f"captured: expected one list of cards per side, {nsides} in all, got {shown(craw)}"
            )
        captured = [read_cards(p, f"captured, side {s}") for s, p in enumerate(craw)]
    return captured


def _read_scores(obj: Mapping[str, Any], rules: RuleSet, nsides: int) -> tuple[Points, ...]:
    """The game score per side before the round (0 each by default), within the rules' bounds."""
    scores_raw = obj.get("scores")
    scores: tuple[Points, ...]
    if scores_raw is None:
        scores = (0,) * nsides
    else:
        if (
            not isinstance(scores_raw, list)
            or len(scores_raw) != nsides
            or not all(
                isinstance(x, int | float) and not isinstance(x, bool) and 0 <= x <= MAX_SCORE
                for x in scores_raw
            )
        ):
            raise LogError(
                f"scores: expected one number from 0 to {MAX_SCORE} per side, {nsides} in all, "
                f"got {shown(scores_raw)}"
            )
        scores = tuple(scores_raw)
        check_scores(rules, scores)
    return scores


def position_to_obj(pos: Position) -> dict[str, Any]:
    """The JSON object of a position (what ``position_to_json`` writes)."""
    obs = pos.observation
    out: dict[str, Any] = {
        "format": POSITION_FORMAT,
        "version": VERSION,
        "rules": pos.rules.to_dict(),
        "players": pos.players,
        "to_move": obs.to_move,
        "hand": names(obs.hand),
        "table": {
            "loose": names(obs.loose),
            "builds": [
                {"cards": names(b.cards), "value": b.value, "owner": b.owner, "multiple": b.multiple}
                for b in obs.builds
            ],
        },
        "hand_sizes": list(obs.hand_sizes),
        "stock": obs.stock_count,
        "seen": names(FULL_DECK & ~obs.unseen & ~obs.hand & ~obs.table),
        "captured": [names(p) for p in obs.captured],
        "sweeps": list(obs.sweeps),
        "last_capture": obs.last_capturer if obs.last_capturer >= 0 else None,
        "scores": list(pos.scores),
        "dealer": obs.dealer,
    }
    if pos.players == 4:
        out["partnerships"] = pos.partnerships
    return out


def position_to_json(pos: Position) -> bytes:
    """The canonical JSON of a position."""
    return dumps(position_to_obj(pos))
