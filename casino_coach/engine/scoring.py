"""Scoring a round (rules.md 1.12) and the game to the target (1.14, §2.4).

``score_round`` turns a played-out round into awards in count-out order (most cards, most spades, Big
Casino, Little Casino, the aces ♠ ♣ ♥ ♦, sweeps, last capture), with the preset's tie, cancelling and
near-target rules; ``score_tally`` does the same from a round's ``Tally`` (the counts and holders that
scoring reads of the piles), so that a round can be scored at any game score without its cards.
``Match`` carries scores from round to round and decides the winner: classic by the higher total at or
past the target, Royal and Dominican by counting out in order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, NamedTuple

from casino_coach.engine.cards import ACES_COUNT_OUT, BIG_CASINO, LITTLE_CASINO, SPADES_MASK
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import RoundState
from casino_coach.errors import GameOverError
from casino_coach.frozen import Frozen

Points = int | float

BREAKDOWN_ITEMS: Final[tuple[str, ...]] = (
    "cards",
    "spades",
    "big_casino",
    "little_casino",
    "aces",
    "sweeps",
    "last_capture",
)
_ACE_ITEMS: Final[tuple[str, ...]] = ("ace_spades", "ace_clubs", "ace_hearts", "ace_diamonds")


class Award(NamedTuple):
    """One scoring item given to one side, in count-out order."""

    item: str  # cards, spades, big_casino, little_casino, ace_spades.., sweeps, last_capture
    side: int
    points: Points


@dataclass(frozen=True)
class RoundScore(Frozen):
    """What a round was worth to each side, and how the game stands after it."""

    awards: tuple[Award, ...]
    card_counts: tuple[int, ...]
    spade_counts: tuple[int, ...]
    sweep_counts: tuple[int, ...]
    points: tuple[Points, ...]  # what each side adds to its game score this round
    breakdown: tuple[dict[str, Points], ...]  # per side, item -> points (plus raw counts)
    winner: int | None = None  # side that won the game with this round, if any
    carry: dict[str, Points] = field(default_factory=dict)  # majority points carried (S10)


def _majority(counts: tuple[int, ...]) -> list[int]:
    best = max(counts)
    return [s for s, n in enumerate(counts) if n == best]


def near_target_items(rules: RuleSet, score: Points) -> tuple[str, ...] | None:
    """The items that alone can win for a side at this score, or None when it plays normally."""
    if rules.near_target_rules == "off":
        return None
    t = rules.target
    table: dict[int, tuple[str, ...]]
    if rules.near_target_rules == "dominican":
        table = {
            t - 3: ("cards",),
            t - 2: ("big_casino",),
            t - 1: (("little_casino",) if rules.near_target_20 == "little_casino" else ("spades",)),
        }
    else:  # soto: starts at 16
        table = {
            t - 5: ("cards", "big_casino"),
            t - 4: ("cards", "spades"),
            t - 3: ("cards",),
            t - 2: ("big_casino",),
            t - 1: ("spades",),
        }
    return table.get(int(score)) if score == int(score) else None


class Tally(NamedTuple):
    """Everything a round's scoring reads of its end (rules.md 1.12): per side the cards and spades
    taken and the sweeps made, the side holding Big Casino, Little Casino and each ace (in count-out
    order ♠ ♣ ♥ ♦; -1 when no side took it), and the side of the last capture (-1: none). Rounds with
    the same tally score alike at any game score, so it is the unit the game-winning model
    (``coach.winning``) counts rounds in."""

    cards: tuple[int, ...]
    spades: tuple[int, ...]
    big: int
    little: int
    aces: tuple[int, ...]
    sweeps: tuple[int, ...]
    last_capturer: int


def tally_of(state: RoundState) -> Tally:
    """The tally of a (played-out) round."""
    piles = state.captured

    def holder(card: int) -> int:
        for s, p in enumerate(piles):
            if p >> card & 1:
                return s
        return -1

    return Tally(
        cards=tuple(p.bit_count() for p in piles),
        spades=tuple((p & SPADES_MASK).bit_count() for p in piles),
        big=holder(BIG_CASINO),
        little=holder(LITTLE_CASINO),
        aces=tuple(holder(a) for a in ACES_COUNT_OUT),
        sweeps=state.sweeps,
        last_capturer=state.last_capturer,
    )


def score_round(
    rules: RuleSet,
    state: RoundState,
    scores: tuple[Points, ...] | None = None,
    carry: dict[str, Points] | None = None,
) -> RoundScore:
    """Score a finished round given the game scores at the start of the count (default 0)."""
    return score_tally(rules, tally_of(state), scores, carry)


def score_tally(
    rules: RuleSet,
    tally: Tally,
    scores: tuple[Points, ...] | None = None,
    carry: dict[str, Points] | None = None,
) -> RoundScore:
    """Score a round from its tally given the game scores at the start of the count (default 0):
    the awards in count-out order, the points each side adds, and the winner of the game if the round
    decides it (1.14, with the count-out order and the near-target rules)."""
    n = len(tally.cards)
    scores = scores if scores is not None else (0,) * n
    carry = dict(carry or {})
    cards = tally.cards
    spades = tally.spades
    near = [near_target_items(rules, s) for s in scores]
    awards: list[Award] = []

    def majority(item: str, counts: tuple[int, ...], base: int) -> list[Award]:
        if base == 0 or max(counts) == 0:
            return []
        top = _majority(counts)
        if len(top) == 1:
            pts: Points = base + carry.pop(item, 0)
            return [Award(item, top[0], pts)]
        if rules.majority_tie == "split":
            share = base / len(top)
            return [Award(item, s, int(share) if share == int(share) else share) for s in top]
        if rules.majority_tie == "carry_over":
            carry[item] = carry.get(item, 0) + base
        return []

    by_item: dict[str, list[Award]] = {
        "cards": majority("cards", cards, rules.points_cards),
        "spades": majority("spades", spades, rules.points_spades),
    }
    by_item["big_casino"] = (
        [Award("big_casino", tally.big, rules.points_big)] if tally.big >= 0 and rules.points_big else []
    )
    by_item["little_casino"] = (
        [Award("little_casino", tally.little, rules.points_little)]
        if tally.little >= 0 and rules.points_little
        else []
    )
    by_item["aces"] = [
        Award(item, s, rules.points_ace)
        for item, s in zip(_ACE_ITEMS, tally.aces, strict=True)
        if s >= 0 and rules.points_ace
    ]
    by_item["sweeps"] = _sweep_awards(rules, tally.sweeps, near)
    for item in rules.count_out_order:
        awards += by_item[item]
    if rules.last_capture_point and tally.last_capturer >= 0:
        awards.append(Award("last_capture", tally.last_capturer, rules.last_capture_point))

    breakdown: list[dict[str, Points]] = [{k: 0 for k in BREAKDOWN_ITEMS} for _ in range(n)]
    for a in awards:
        key = "aces" if a.item.startswith("ace_") else a.item
        breakdown[a.side][key] += a.points
    for s in range(n):
        breakdown[s] |= {"card_count": cards[s], "spade_count": spades[s], "sweep_count": tally.sweeps[s]}

    raw: list[Points] = [0] * n
    for a in awards:
        raw[a.side] += a.points
    added: list[Points] = list(raw)
    for s in range(n):
        if near[s] is not None:
            if rules.near_target_mode == "freeze":
                added[s] = 0
            else:  # cap_at_20: score, but never past target - 1 except by the condition
                added[s] = max(0, min(raw[s], rules.target - 1 - scores[s]))
    winner = _winner(rules, scores, awards, near, added)
    return RoundScore(
        awards=tuple(awards),
        card_counts=cards,
        spade_counts=spades,
        sweep_counts=tally.sweeps,
        points=tuple(added),
        breakdown=tuple(breakdown),
        winner=winner,
        carry=carry,
    )


def _sweep_awards(
    rules: RuleSet,
    sweeps: tuple[int, ...],
    near: list[tuple[str, ...] | None],
) -> list[Award]:
    """S1-S3 and 1.10: sweeps score 1 each when on; opposing sweeps may cancel; a near-target side
    scores none but still cancels."""
    if not rules.sweeps or not rules.points_sweep:
        return []
    net = net_sweeps(rules, sweeps)
    return [
        Award("sweeps", s, net[s] * rules.points_sweep)
        for s in range(len(sweeps))
        if net[s] and near[s] is None
    ]


def net_sweeps(rules: RuleSet, sweeps: tuple[int, ...]) -> list[int]:
    """Sweeps per side after cancelling (S2, S3): with two sides each scores its excess over the
    other; with three, net_vs_max takes off the largest opposing count; never below 0."""
    n = len(sweeps)
    if not rules.sweep_cancellation:
        return list(sweeps)
    if n == 2:
        return [max(0, sweeps[0] - sweeps[1]), max(0, sweeps[1] - sweeps[0])]
    if rules.sweep_cancellation_3p == "net_vs_max":
        return [max(0, sweeps[s] - max(sweeps[o] for o in range(n) if o != s)) for s in range(n)]
    return list(sweeps)


def _winner(
    rules: RuleSet,
    scores: tuple[Points, ...],
    awards: list[Award],
    near: list[tuple[str, ...] | None],
    added: list[Points],
) -> int | None:
    n = len(scores)
    # Near-target conditions (1.14.4): the first met condition in count-out order wins.
    met: int | None = None
    met_index = len(awards)
    for i, a in enumerate(awards):
        cond = near[a.side]
        if cond is not None and a.item in cond:
            met, met_index = a.side, i
            break
    if met is not None and rules.near_target_precedence == "automatic":
        return met
    if rules.count_out:
        running = list(scores)
        for i, a in enumerate(awards):
            if i == met_index:
                return met
            if near[a.side] is not None:
                continue  # its points do not count toward the target (freeze / cap)
            running[a.side] += a.points
            if running[a.side] >= rules.target:
                return a.side
        return met
    totals = [scores[s] + added[s] for s in range(n)]
    best = max(totals)
    if best < rules.target:
        return met
    top = [s for s in range(n) if totals[s] == best]
    if met is not None:
        return met
    return top[0] if len(top) == 1 else None


@dataclass
class Match:
    """The running score of a game to the target, round after round."""

    rules: RuleSet
    nsides: int
    scores: list[Points] = field(default_factory=list)
    carry: dict[str, Points] = field(default_factory=dict)
    rounds: list[RoundScore] = field(default_factory=list)
    winner: int | None = None

    def __post_init__(self) -> None:
        if not self.scores:
            self.scores = [0] * self.nsides

    def add_round(self, state: RoundState) -> RoundScore:
        """Score a played-out round and add it to the game."""
        if self.winner is not None:
            raise GameOverError("the game is already won")
        rs = score_round(self.rules, state, tuple(self.scores), self.carry)
        self.scores = [s + p for s, p in zip(self.scores, rs.points, strict=True)]
        self.carry = rs.carry
        self.rounds.append(rs)
        self.winner = rs.winner
        return rs

    @property
    def over(self) -> bool:
        return self.winner is not None
