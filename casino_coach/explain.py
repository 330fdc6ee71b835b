"""Explanations of a move's cost in Casino's own terms, from engine facts and card-counting odds.

The search says *how much* a move lost; this module says *why*, naming the cards: a capture or a sweep
that was missed, a build or an extension that was missed, a build of yours the next player can take or
raise, a valuable card (10♦, 2♠, an ace) left where the next player can take it, a sweep handed over,
and the residue lost at the end of the round (rules.md 1.11).

Every factor is measured in points on the scale of the round score:

* what a capture brings at once (``haul_value``): 10♦, 2♠ and each ace at their rule points, a sweep at
  its point when sweeps score (1.10), and each card and spade at its share of the majority points
  (``points_cards / 26`` a card, ``points_spades / 7`` a spade: the last card short of the majority is
  worth the whole 3 points, on average a card is worth about 3/26), nothing once a majority is settled;
* what a build secures for next turn: its cards, times the chance nobody takes or raises it first;
* what the next player can take after the move: the expected value of their best capture, with the
  chance that they hold a card of each rank computed from the unseen pool and their hand size
  (hypergeometric: every unseen card is equally likely to be in that hand — rules.md 4.1's "9% rule").

The factors that favour the best move over the played one are shared out over the loss the search
measured: when they add up to more than the loss they are scaled down to it, and when they add up to
less, the rest is put down to later play (the search's line). So the points of a move's explanations
always add up to its loss.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from math import comb
from typing import NamedTuple

from casino_coach.cards import (
    ACES_MASK,
    BIG_CASINO,
    LITTLE_CASINO,
    RANK_MASK,
        SPADES_MASK,
    card_symbol,
    iter_cards,
    mask_symbols,
)
from casino_coach.movegen import BUILD, CAPTURE, Move, apply, is_legal, legal_moves
from casino_coach.observation import Observation, as_state
from casino_coach.rules import RuleSet
from casino_coach.state import Build, RoundState

# Smallest difference, in points, worth a sentence.
MIN_POINTS = 0.02


class Explanation(NamedTuple):
    """One reason for a loss: a kind (machine-readable), a sentence, and the points it accounts for."""

    kind: str
    text: str
    points: float


# Kinds, in the order they are listed.
KINDS = ("missed_sweep", "missed_capture", "bigger_capture", "missed_build", "missed_extension",
         "sweep_given", "card_exposed", "build_exposed", "raise_handed_over", "residue", "continuation",
         "later_play")


# ---------------------------------------------------------------------------------------------------
# Odds from the unseen pool


def chance_any(pool: int, hand: int, targets: int) -> float:
    """Chance that a hand of ``hand`` cards, dealt at random from the cards of ``pool``, holds at least
    one card of ``targets`` (hypergeometric: 1 - C(N-K, n) / C(N, n))."""
    n_pool = pool.bit_count()
    k = (targets & pool).bit_count()
    n = min(hand, n_pool)
    if n <= 0 or k == 0:
        return 0.0
    return 1.0 - comb(n_pool - k, n) / comb(n_pool, n)


def rank_counts(pool: int) -> tuple[int, ...]:
    """How many cards of each rank (ace .. king) a mask holds."""
    return tuple((pool & RANK_MASK[r]).bit_count() for r in range(13))


def chance_hand(counts: Sequence[int], hand: int, pred: Callable[[tuple[int, ...]], bool]) -> float:
    """Chance that a random hand of ``hand`` cards from a pool with ``counts`` cards per rank has rank
    counts satisfying ``pred`` (exact multivariate hypergeometric, enumerating rank compositions)."""
    total = sum(counts)
    n = min(hand, total)
    if n <= 0:
        return 1.0 if pred(tuple(0 for _ in counts)) else 0.0
    hits = 0
    ncounts = len(counts)
    drawn = [0] * ncounts

    def walk(i: int, left: int, ways: int) -> None:
        nonlocal hits
        if left == 0:
            if pred(tuple(drawn)):
                hits += ways
            return
        if i == ncounts:
            return
        k = counts[i]
        for j in range(min(k, left) + 1):
            drawn[i] = j
            walk(i + 1, left - j, ways * comb(k, j))
        drawn[i] = 0

    walk(0, n, 1)
    return hits / comb(total, n)


# ---------------------------------------------------------------------------------------------------
# What cards are worth


@dataclass(frozen=True)
class Weights:
    """Points per card for a position: the majority shares, zero once a majority is settled."""

    card: float
    spade: float
    rules: RuleSet

    @classmethod
    def of(cls, rules: RuleSet, captured: Sequence[int]) -> Weights:
        # 52 cards / 13 spades: a side past half of them has the majority whatever happens.
        settled_cards = max(p.bit_count() for p in captured) * 2 > 52 if captured else False
        settled_spades = max((p & SPADES_MASK).bit_count() for p in captured) * 2 > 13 if captured else False
        return cls(0.0 if settled_cards else rules.points_cards / 26,
                   0.0 if settled_spades else rules.points_spades / 7, rules)

    def value(self, cards: int, sweep: bool = False) -> float:
        """What taking ``cards`` (with a sweep or not) is worth at once, in points."""
        r = self.rules
        v = cards.bit_count() * self.card + (cards & SPADES_MASK).bit_count() * self.spade
        if cards >> BIG_CASINO & 1:
            v += r.points_big
        if cards >> LITTLE_CASINO & 1:
            v += r.points_little
        v += (cards & ACES_MASK).bit_count() * r.points_ace
        if sweep and r.sweeps:
            v += r.points_sweep
        return v

    def words(self, cards: int, sweep: bool = False) -> str:
        """What ``cards`` are made of in scoring terms: "2 cards, 1 spade and Big Casino 10♦ (2 points)"."""
        r = self.rules
        n = cards.bit_count()
        parts = [f"{n} card{'s' if n != 1 else ''}"]
        s = (cards & SPADES_MASK).bit_count()
        if s:
            parts.append(f"{s} spade{'s' if s != 1 else ''}")
        if cards >> BIG_CASINO & 1 and r.points_big:
            parts.append(f"Big Casino 10♦ ({_pts(r.points_big)})")
        if cards >> LITTLE_CASINO & 1 and r.points_little:
            parts.append(f"Little Casino 2♠ ({_pts(r.points_little)})")
        aces = cards & ACES_MASK
        if aces and r.points_ace:
            k = aces.bit_count()
            parts.append(f"{'the ace' if k == 1 else f'{k} aces'} {mask_symbols(aces)} "
                         f"({_pts(k * r.points_ace)})")
        if sweep and r.sweeps and r.points_sweep:
            parts.append(f"a sweep ({_pts(r.points_sweep)})")
        return _and(parts)


def _and(parts: Sequence[str]) -> str:
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def _pts(p: float) -> str:
    return f"{p:g} point{'s' if p != 1 else ''}"


def _pct(p: float) -> str:
    return f"{round(100 * p)}%"


def valuable(rules: RuleSet, cards: int) -> int:
    """The cards of a mask that score on their own: 10♦, 2♠ and the aces (when they are worth points)."""
    m = 0
    if rules.points_big:
        m |= 1 << BIG_CASINO
    if rules.points_little:
        m |= 1 << LITTLE_CASINO
    if rules.points_ace:
        m |= ACES_MASK
    return cards & m


# ---------------------------------------------------------------------------------------------------
# A move seen from the mover's knowledge


def _known_state(obs: Observation) -> RoundState:
    """The observation as a state: known hands, and the unseen cards standing in for the stock so that
    ``apply`` ends the round only with the true last card."""
    return as_state(obs, obs.known, obs.unseen)


def after(rules: RuleSet, obs: Observation, move: Move) -> RoundState:
    """The table and piles after the mover plays ``move`` (hands other than the mover's are unknown)."""
    return apply(rules, _known_state(obs), move)


def is_sweep(rules: RuleSet, obs: Observation, move: Move) -> bool:
    """A capture that leaves nothing on the table (rules.md 1.10)."""
    if move.action != CAPTURE:
        return False
    s = _known_state(obs)
    return not (s.table & ~move.take)


@dataclass(frozen=True)
class Threat:
    """What the next player can do to the table after a move, with the odds from the unseen pool."""

    seat: int  # the next player (-1: nobody moves before the round ends)
    expected: float  # expected points of their best capture
    # per rank (0..12) able to capture something: (points of the best capture, cards it can take)
    best: dict[int, tuple[float, int]]
    sweep_ranks: int  # mask of rank bits (1 << r) that can take the whole table
    pool: int  # the cards the next player's hand is dealt from
    hand: int  # how many unknown cards the next player holds
    known: int  # cards known to be in their hand
    table: int
    builds: tuple[Build, ...]

    def ranks_taking(self, cards: int) -> int:
        """Rank bits of the cards that can take every card of ``cards`` in one capture."""
        return sum(1 << r for r, (_, can) in self.best.items() if can & cards == cards)

    def chance(self, ranks: int) -> float:
        """Chance that the next player holds a card of one of the ranks (bit r = rank r)."""
        targets = sum(RANK_MASK[r] for r in range(13) if ranks >> r & 1)
        if self.known & targets:
            return 1.0
        return chance_any(self.pool, self.hand, targets)

    def raise_chance(self, rules: RuleSet, build: Build) -> float:
        """Chance the next player can raise the single ``build`` (rules.md 1.7.3): they must hold a card
        x with value(build) + value(x) <= max build and a second card capturing the new value."""
        if build.multiple:
            return 0.0
        counts = rank_counts(self.pool)
        known_counts = rank_counts(self.known)
        rep = [r * 4 for r in range(13)]  # any card of a rank has the rank's values
        bv = [rules.build_value[c] for c in rep]
        caps = [rules.capture_values[c] for c in rep]

        def pred(drawn: tuple[int, ...]) -> bool:
            held = [d + k for d, k in zip(drawn, known_counts, strict=True)]
            for a in range(13):
                if not held[a] or not bv[a]:
                    continue
                v = build.value + bv[a]
                if v > rules.max_build:
                    continue
                for b in range(13):
                    if v in caps[b] and (held[b] >= 2 if b == a else held[b] >= 1):
                        return True
            return False

        return chance_hand(counts, self.hand, pred)


def threat(rules: RuleSet, obs: Observation, move: Move, weights: Weights) -> Threat:
    """The next player's best capture after ``move``, rank by rank, and its expected value."""
    s = after(rules, obs, move)
    n = obs.nplayers
    seat = obs.to_move
    nxt = (seat + 1) % n
    empty = Threat(-1, 0.0, {}, 0, 0, 0, 0, s.table, s.builds)
    if s.is_over or not s.table:
        return empty
    sizes = list(obs.hand_sizes)
    sizes[seat] -= 1
    known = obs.known[nxt]
    others_known = 0
    for k, h in enumerate(obs.known):
        if k != nxt:
            others_known |= h
    pool = obs.unseen & ~others_known & ~known
    if sizes[nxt] > 0:
        hand = sizes[nxt] - known.bit_count()
    elif obs.stock_count:
        hand, known = 4, 0  # the next deal comes first: 4 fresh cards from the stock
    else:
        return empty
    if s.side_of(nxt) == s.side_of(seat):
        return empty
    # The builds of the next player must not tie a one-card hand down (must-hold): for the question
    # "what can this card take" give them to the mover.
    builds = tuple(b._replace(owner=seat) if b.owner == nxt else b for b in s.builds)
    hands = [0] * n
    best: dict[int, tuple[float, int]] = {}
    sweep_ranks = 0
    for r in range(13):
        cards_r = (pool | known) & RANK_MASK[r]
        if not cards_r:
            continue
        u = (cards_r & -cards_r).bit_length() - 1
        hands[nxt] = 1 << u
        hyp = s._replace(hands=tuple(hands), builds=builds, to_move=nxt, stock=s.stock | 1)
        top = 0.0
        can = 0
        for m in legal_moves(rules, hyp, cards=1 << u):
            if m.action != CAPTURE:
                continue
            sweep = not (s.table & ~m.take)
            v = weights.value(m.take, sweep)
            can |= m.take
            if sweep:
                sweep_ranks |= 1 << r
            top = max(top, v)
        if can:
            best[r] = (top, can)
    t = Threat(nxt, 0.0, best, sweep_ranks, pool, hand, known, s.table, s.builds)
    # E[max] = sum over distinct values v_i (descending) of (v_i - v_{i+1}) * P(max >= v_i).
    values = sorted({v for v, _ in best.values()}, reverse=True)
    expected = 0.0
    for i, v in enumerate(values):
        nxt_v = values[i + 1] if i + 1 < len(values) else 0.0
        ranks = sum(1 << r for r, (w, _) in best.items() if w >= v)
        expected += (v - nxt_v) * t.chance(ranks)
    return Threat(nxt, expected, best, sweep_ranks, pool, hand, known, s.table, s.builds)


_RANK_WORDS = ("an ace", "a 2", "a 3", "a 4", "a 5", "a 6", "a 7", "an 8", "a 9", "a 10", "a jack",
               "a queen", "a king")


def _rank_words(ranks: int) -> str:
    """Rank bits in words: "a 9 or a king"."""
    names = [_RANK_WORDS[r] for r in range(13) if ranks >> r & 1]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " or " + names[-1]


def _unseen_of(t: Threat, ranks: int) -> int:
    return sum((t.pool | t.known) & RANK_MASK[r] for r in range(13) if ranks >> r & 1)


# ---------------------------------------------------------------------------------------------------
# Explaining a loss


@dataclass(frozen=True)
class _Factor:
    kind: str
    text: str
    stake: float  # points in favour of the best move


def _build_made(obs: Observation, move: Move) -> tuple[bool, Build | None]:
    """(whether the move adds to an existing build, the build it touches before the move)."""
    for b in obs.builds:
        if b.cards & move.take:
            return True, b
    return False, None


def _secured(rules: RuleSet, obs: Observation, move: Move, w: Weights, t: Threat) -> tuple[float, float]:
    """For a build move: (points the build gathers next turn if it survives, chance it does not)."""
    if move.action != BUILD:
        return 0.0, 0.0
    cards = move.take | 1 << move.card
    rest = obs.hand & ~(1 << move.card)
    holder = 0
    for c in iter_cards(rest):
        if move.value in rules.capture_values[c]:
            holder = 1 << c
            break
    build = Build(cards, move.value, obs.to_move, False)
    for b in after(rules, obs, move).builds:
        if b.cards & cards:
            build = b
    lost = _build_lost_chance(rules, t, build)
    return w.value(cards | holder), lost


def _build_lost_chance(rules: RuleSet, t: Threat, build: Build) -> float:
    if t.seat < 0:
        return 0.0
    take = t.chance(t.ranks_taking(build.cards))
    raise_ = t.raise_chance(rules, build)
    return min(1.0, 1.0 - (1.0 - take) * (1.0 - raise_))


def explain(rules: RuleSet, obs: Observation, played: Move, best: Move, loss: float, *,
            names: Sequence[str] | None = None, best_line: Sequence[Move] = (),
            played_line: Sequence[Move] = (), state: RoundState | None = None,
            ) -> tuple[Explanation, ...]:
    """Why ``played`` lost ``loss`` points against ``best`` for the seat to move in ``obs``.

    ``state`` (the real cards, when known) lets the residue be followed to the end of the round along
    the search's lines. The explanations' points add up to ``loss``; none when the loss is negligible.
    """
    if loss < MIN_POINTS or played == best:
        return ()
    who = list(names) if names else [f"seat {k}" for k in range(obs.nplayers)]
    w = Weights.of(rules, obs.captured)
    t_p = threat(rules, obs, played, w)
    t_b = threat(rules, obs, best, w)
    factors: list[_Factor] = []
    factors += _material_factors(rules, obs, played, best, w, t_p, t_b)
    factors += _exposure_factors(rules, obs, played, w, t_p, t_b, who)
    factors += _residue_factors(rules, obs, played, best, w, best_line, played_line, state, who)
    if not any(f.kind == "residue" for f in factors):
        factors += _continuation_factors(rules, obs, played, best, w, best_line, played_line, who)
    factors = [f for f in factors if f.stake >= MIN_POINTS]
    total = sum(f.stake for f in factors)
    scale = loss / total if total > loss else 1.0
    out = [Explanation(f.kind, f.text, round(f.stake * scale, 2)) for f in factors]
    out.sort(key=lambda e: (-e.points, KINDS.index(e.kind)))
    rest = round(loss - sum(e.points for e in out), 2)
    if rest >= MIN_POINTS or not out:
        outcome = _outcome_words(rules, obs, played, best, best_line, played_line, state)
        line = " → ".join(m.describe() for m in best_line[:4])
        after_best = f"; the search's line after {best.describe()}: {line}" if line else ""
        yours = " → ".join(m.describe() for m in played_line[:4])
        if yours:
            after_best += f"; after yours: {yours}"
        if outcome:
            text = (f"Played out along the search's lines with the real cards, {best.describe()} "
                    f"instead of {played.describe()} changes the round's margin by {outcome}"
                    f"{after_best}")
        else:
            text = (f"{best.describe()} leaves you better placed for the rest of the round than "
                    f"{played.describe()}{after_best}")
        if out:
            text = "The rest is how the round plays on. " + text
        out.append(Explanation("later_play", text, max(rest, 0.0) if out else round(loss, 2)))
    elif rest and out:  # rounding: keep the sum exact
        first = out[0]
        out[0] = first._replace(points=round(first.points + rest, 2))
    return tuple(out)


def _material_factors(rules: RuleSet, obs: Observation, played: Move, best: Move, w: Weights,
                      t_p: Threat, t_b: Threat) -> list[_Factor]:
    """Captures and builds: what each move brings now or secures for next turn."""
    out: list[_Factor] = []
    c = card_symbol(best.card)
    if best.action == CAPTURE:
        b_sweep = is_sweep(rules, obs, best)
        p_sweep = is_sweep(rules, obs, played)
        gain_b = w.value(best.take | 1 << best.card)
        gain_p = w.value(played.take | 1 << played.card) if played.action == CAPTURE else 0.0
        if played.action == BUILD:
            secured, lost = _secured(rules, obs, played, w, t_p)
            gain_p = secured * (1 - lost)
        taken = best.take | 1 << best.card
        if gain_b - gain_p >= MIN_POINTS:
            if played.action == CAPTURE:
                text = (f"Bigger capture missed: {c} could take {mask_symbols(best.take)}, "
                        f"{w.words(taken)}, instead of {played.describe()}")
                kind = "bigger_capture"
            else:
                text = f"Missed capture: {c} could take {mask_symbols(best.take)}, {w.words(taken)}"
                kind = "missed_capture"
            out.append(_Factor(kind, text, gain_b - gain_p))
        if b_sweep and not p_sweep:
            value = rules.points_sweep if rules.sweeps else 0.0
            scored = f"a sweep worth {_pts(rules.points_sweep)}" if rules.sweeps else \
                "a sweep (not scored under these rules, but the next player must trail)"
            out.append(_Factor("missed_sweep",
                               f"Missed sweep: {c} takes everything on the table "
                               f"({mask_symbols(best.take)}), {scored}", value))
    elif best.action == BUILD:
        secured, lost = _secured(rules, obs, best, w, t_b)
        gain_b = secured * (1 - lost)
        gain_p = 0.0
        if played.action == CAPTURE:
            gain_p = w.value(played.take | 1 << played.card)
        elif played.action == BUILD:
            sp, lp = _secured(rules, obs, played, w, t_p)
            gain_p = sp * (1 - lp)
        if gain_b - gain_p >= MIN_POINTS:
            extends, old = _build_made(obs, best)
            holder = [card_symbol(x) for x in iter_cards(obs.hand & ~(1 << best.card))
                      if best.value in rules.capture_values[x]]
            hold = f" for your {holder[0]}" if holder else ""
            loose = best.take & ~(old.cards if old else 0)
            with_loose = f" with {mask_symbols(loose)}" if loose else ""
            if extends and old is not None:
                verb = "raise" if best.value != old.value else "add to"
                kind = "missed_extension"
                text = (f"Missed {'raise' if verb == 'raise' else 'extension'}: {c}{with_loose} could "
                        f"{verb} the {old.value}-build ({mask_symbols(old.cards)})"
                        f"{' to ' + str(best.value) if verb == 'raise' else ''}{hold}, ")
            else:
                kind = "missed_build"
                text = f"Missed build: {c}{with_loose} builds {best.value}{hold}, "
            text += (f"securing {w.words(best.take | 1 << best.card)} for next turn "
                     f"({_pct(1 - lost)} chance it survives)")
            out.append(_Factor(kind, text, gain_b - gain_p))
    return out


def _exposure_factors(rules: RuleSet, obs: Observation, played: Move, w: Weights, t_p: Threat,
                      t_b: Threat, who: list[str]) -> list[_Factor]:
    """What the played move leaves for the next player that the best move does not."""
    stake = t_p.expected - t_b.expected
    if stake < MIN_POINTS or t_p.seat < 0:
        return []
    name = who[t_p.seat]
    items: list[tuple[str, str, float]] = []  # kind, text, weight
    lead = f"after {played.describe()}"
    # A sweep handed over (1.10).
    if t_p.sweep_ranks and not t_b.sweep_ranks:
        p = t_p.chance(t_p.sweep_ranks)
        sw_value = max(v for r, (v, _) in t_p.best.items() if t_p.sweep_ranks >> r & 1)
        unseen = _unseen_of(t_p, t_p.sweep_ranks).bit_count()
        items.append(("sweep_given",
                      f"Sweep given away: {lead} the table ({mask_symbols(t_p.table)}) can be taken "
                      f"all at once with {_rank_words(t_p.sweep_ranks)}; {name} holds one with "
                      f"chance {_pct(p)} ({unseen} unseen)", p * sw_value))
    # Builds of the mover that the next player can take or raise (1.8).
    for b in t_p.builds:
        if b.owner != obs.to_move:
            continue
        ranks = t_p.ranks_taking(b.cards)
        p_take = t_p.chance(ranks)
        p_raise = t_p.raise_chance(rules, b)
        p = min(1.0, 1.0 - (1.0 - p_take) * (1.0 - p_raise))
        old_p = 0.0
        for ob in t_b.builds:
            if ob.cards == b.cards and ob.owner == obs.to_move:
                old_p = _build_lost_chance(rules, t_b, ob)
        if p - old_p < 0.01:
            continue
        unseen = _unseen_of(t_p, ranks).bit_count()
        odds = f"{name} holds {_rank_words(ranks) or 'no card that takes it'}"
        odds += f" with chance {_pct(p_take)} ({unseen} unseen)" if ranks else ""
        if p_raise >= 0.005:
            odds += f", and can raise it with chance {_pct(p_raise)}"
        raised, old = _build_made(obs, played)
        if played.action == BUILD and raised and old is not None and old.value != played.value:
            text = (f"The raise handed the build over: {card_symbol(played.card)} raised the "
                    f"{old.value}-build to {b.value} ({mask_symbols(b.cards)}); {odds}")
            kind = "raise_handed_over"
        else:
            text = f"Build left for the taking: your {b.value}-build ({mask_symbols(b.cards)}); {odds}"
            kind = "build_exposed"
        items.append((kind, text, (p - old_p) * w.value(b.cards)))
    # Valuable loose cards within reach (10♦, 2♠, aces).
    for x in iter_cards(valuable(rules, t_p.table & ~sum((b.cards for b in t_p.builds), 0))):
        ranks = t_p.ranks_taking(1 << x)
        if not ranks:
            continue
        p = t_p.chance(ranks)
        before = t_b.chance(t_b.ranks_taking(1 << x)) if t_b.seat >= 0 and t_b.table >> x & 1 else 0.0
        if p - before < 0.01:
            continue
        unseen = _unseen_of(t_p, ranks)
        shown = f": {mask_symbols(unseen)}" if 0 < unseen.bit_count() <= 4 else ""
        items.append(("card_exposed",
                      f"{card_symbol(x)} left exposed: {name} takes it with {_rank_words(ranks)} "
                      f"({unseen.bit_count()} unseen{shown}); chance {_pct(p)} they hold one",
                      (p - before) * w.value(1 << x)))
    if not items:
        top = max(t_p.best.items(), key=lambda kv: kv[1][0], default=None)
        if top is None:
            return []
        r, (_, can) = top
        p = t_p.chance(1 << r)
        items.append(("card_exposed",
                      f"Cards left within reach: {lead}, {name} can take {mask_symbols(can)} with "
                      f"{_rank_words(1 << r)} (chance {_pct(p)})", 1.0))
    weight = sum(x[2] for x in items) or 1.0
    return [_Factor(k, text, stake * wt / weight) for k, text, wt in items]


def _world(obs: Observation, state: RoundState | None) -> RoundState | None:
    """The real position if known: given, or deduced in the last deal when one other hand holds every
    unseen card."""
    if state is not None:
        return state
    if obs.stock_count:
        return None
    holders = [k for k, n in enumerate(obs.hand_sizes) if n and k != obs.seat]
    if len(holders) != 1 or obs.hand_sizes[holders[0]] != obs.unseen.bit_count():
        return None
    hands = list(obs.known)
    hands[holders[0]] = obs.unseen
    return as_state(obs, tuple(hands), 0)


def _play_out(rules: RuleSet, state: RoundState, first: Move,
              line: Sequence[Move]) -> tuple[RoundState, Move, RoundState] | None:
    """Follow ``first`` and ``line`` to the end of the round: the state before the last move, that
    move, and the finished state; None when the line stops short or leaves the rules."""
    s = state
    for m in (first, *line):
        if s.needs_deal or not is_legal(rules, s, m):
            return None
        before, s = s, apply(rules, s, m)
        if s.is_over:
            return before, m, s
    return None


def _residue(rules: RuleSet, state: RoundState, first: Move, line: Sequence[Move]) -> tuple[int, int] | None:
    """Follow ``first`` and ``line`` to the end of the round: (side taking the residue, residue)."""
    out = _play_out(rules, state, first, line)
    if out is None:
        return None
    before, m, s = out
    side = s.last_capturer
    if side < 0:
        return None
    gained = s.captured[side] & ~before.captured[side]
    if m.action == CAPTURE and before.side_of(before.to_move) == side:
        gained &= ~(m.take | 1 << m.card)
    return side, gained


def _residue_factors(rules: RuleSet, obs: Observation, played: Move, best: Move, w: Weights,
                     best_line: Sequence[Move], played_line: Sequence[Move],
                     state: RoundState | None, who: list[str]) -> list[_Factor]:
    """The residue (rules.md 1.11) goes elsewhere after the played move than after the best one."""
    world = _world(obs, state)
    if world is None or world.stock or not rules.last_capture_takes_table:
        return []
    side = obs.to_move % obs.nsides
    rb = _residue(rules, world, best, best_line)
    rp = _residue(rules, world, played, played_line)
    if rb is None or rp is None or rb[0] != side or rp[0] == side or not rp[1]:
        return []
    taker = [k for k in range(obs.nplayers) if k % obs.nsides == rp[0]]
    name = " and ".join(who[k] for k in taker)
    return [_Factor("residue",
                    f"Residue lost: after {played.describe()} the last capture goes to {name}, who "
                    f"collects {mask_symbols(rp[1])} ({w.words(rp[1])}) at the end of the round",
                    w.value(rp[1]) + rules.last_capture_point)]


_ITEM_WORDS = {"cards": "most cards", "spades": "most spades", "big_casino": "Big Casino 10♦",
               "little_casino": "Little Casino 2♠", "aces": "aces", "sweeps": "sweeps",
               "last_capture": "the last capture"}


def _final(rules: RuleSet, state: RoundState, first: Move, line: Sequence[Move]) -> RoundState | None:
    out = _play_out(rules, state, first, line)
    return out[2] if out is not None else None


def _outcome_words(rules: RuleSet, obs: Observation, played: Move, best: Move,
                   best_line: Sequence[Move], played_line: Sequence[Move],
                   state: RoundState | None) -> str:
    """The scoring items (most cards, 10♦, ...) the mover's side gains by the best move when both
    lines are followed to the end of the round with the real cards: "by most cards (3 points)"."""
    world = _world(obs, state)
    if world is None or world.stock:
        return ""
    fb = _final(rules, world, best, best_line)
    fp = _final(rules, world, played, played_line)
    if fb is None or fp is None:
        return ""
    from casino_coach.scoring import score_round

    side = obs.to_move % obs.nsides
    bb = score_round(rules, fb).breakdown
    bp = score_round(rules, fp).breakdown
    parts = []
    for item, words in _ITEM_WORDS.items():
        d = _margin(bb, side, item) - _margin(bp, side, item)
        if abs(d) >= MIN_POINTS:
            parts.append(f"{words} {d:+g}")
    return _and(parts)


def _margin(breakdown: Sequence[Mapping[str, float | int]], side: int, item: str) -> float:
    """One scoring item as a margin: the side's points minus the mean of the others'."""
    others = [float(breakdown[k][item]) for k in range(len(breakdown)) if k != side]
    return float(breakdown[side][item]) - (sum(others) / len(others) if others else 0.0)


# How many moves of the search's line the continuation factor follows.
CONTINUATION_PLIES = 4


def _line_gains(rules: RuleSet, obs: Observation, first: Move, line: Sequence[Move],
                ) -> tuple[list[int], list[int]] | None:
    """Cards and sweeps each side gains along ``line`` after ``first`` (at most CONTINUATION_PLIES
    moves, within the deal). The line's other moves are the search's most likely continuation: cards
    the observer cannot see are put in the mover's hand as they are played. None if the line does not
    fit the table."""
    s = apply(rules, _known_state(obs), first)
    before_cap, before_sw = s.captured, s.sweeps
    left = sum(obs.hand_sizes) - 1  # moves left in this deal (unknown hands are empty masks here)
    for m in line[:min(CONTINUATION_PLIES, left)]:
        if s.is_over:
            break
        bit = 1 << m.card
        hands = list(s.hands)
        if not hands[s.to_move] & bit:
            if not s.stock & bit:
                return None  # a card the line cannot hold
            hands[s.to_move] |= bit
        s = s._replace(hands=tuple(hands), stock=s.stock & ~bit)
        if m.take & ~s.table:
            return None
        s = apply(rules, s, m)
    gained = [a & ~b for a, b in zip(s.captured, before_cap, strict=True)]
    sweeps = [a - b for a, b in zip(s.sweeps, before_sw, strict=True)]
    return gained, sweeps


def _continuation_factors(rules: RuleSet, obs: Observation, played: Move, best: Move, w: Weights,
                          best_line: Sequence[Move], played_line: Sequence[Move], who: list[str],
                          ) -> list[_Factor]:
    """What the mover's side takes along the search's likely continuation after each move."""
    gb = _line_gains(rules, obs, best, best_line)
    gp = _line_gains(rules, obs, played, played_line)
    if gb is None or gp is None:
        return []
    side = obs.to_move % obs.nsides

    def margin(g: tuple[list[int], list[int]]) -> float:
        vals = [w.value(c) + (rules.points_sweep * n if rules.sweeps else 0)
                for c, n in zip(g[0], g[1], strict=True)]
        others = [v for k, v in enumerate(vals) if k != side]
        return vals[side] - (sum(others) / len(others) if others else 0.0)

    stake = margin(gb) - margin(gp)
    if stake < MIN_POINTS:
        return []
    n = min(CONTINUATION_PLIES, len(best_line))
    mine_b, mine_p = gb[0][side], gp[0][side]
    theirs_b = sum(c for k, c in enumerate(gb[0]) if k != side)
    theirs_p = sum(c for k, c in enumerate(gp[0]) if k != side)
    opp = " and ".join(who[k] for k in range(obs.nplayers) if k % obs.nsides != side) or "the others"

    def took(mask: int) -> str:
        return mask_symbols(mask) if mask else "nothing"

    parts = []
    if mine_b != mine_p:
        parts.append(f"you take {took(mine_b)} instead of {took(mine_p)}")
    if theirs_b != theirs_p:
        parts.append(f"{opp} take{'s' if ' and ' not in opp else ''} {took(theirs_b)} instead of "
                     f"{took(theirs_p)}")
    if not parts:
        return []
    line = " → ".join(m.describe() for m in best_line[:n])
    return [_Factor("continuation",
                    f"In the search's likely continuation ({line}), {_and(parts)}", stake)]
