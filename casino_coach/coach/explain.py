"""Explanations of a move's cost over the deals the mover could face, by scoring category.

The search values every move in every world it draws (a world: one way the cards the mover has not
seen could lie), and follows each move's principal line in each world to where the search stops
(``search.Outcome``): what each side captured on the way, the sweeps, and the value there split by
scoring category (most cards, most spades, Big Casino, Little Casino, each ace, sweeps, the point for
the last capture; ``search.evaluate.CATEGORIES``). The loss of the move played against the best move is
the mean, over the same worlds, of the difference of their values, so it splits exactly into the mean
difference in each category. Each explanation is one category, with its share of the loss and the
share of the worlds in which the named event happens ("Ben takes 10♦ in 62% of the deals you could
face after yours"): statements over what the player could know, never a line played with cards the
player could not see. What no category explains (where a line stops short of the value the search
proved) is one short line, ``other``. The shares add up to the loss.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from casino_coach.engine.cards import (
    BIG_CASINO,
    FULL_DECK,
    LITTLE_CASINO,
    RANK,
    SPADES_MASK,
    card_symbol,
    mask_symbols,
)
from casino_coach.engine.movegen import BUILD, Move
from casino_coach.engine.observation import Observation
from casino_coach.engine.rules import RuleSet
from casino_coach.formats.text import player_name
from casino_coach.search import Outcome, SearchResult

# The longest an explanation's sentence is shown (``errors.printable``): above any the explanations
# write (an ace's sentence with its build runs past the 200 characters of a line of text), so that
# none is cut, and still a bound on text read from an analysis file.
SENTENCE_WIDTH = 1000

# Smallest share of a loss, in points, named at all (smaller ones go to the rest).
MIN_POINTS = 0.05
# Smallest share of a loss, in points, worth a sentence of its own: the categories between
# ``MIN_POINTS`` and this share one line, named with their points, with the rest.
SENTENCE_POINTS = 0.10


class Explanation(NamedTuple):
    """One reason for a loss: a kind (machine-readable), a sentence, and the points it accounts for;
    ``gist``: the reason in a clause for a headline ("you take Little Casino 2♠ in 75% of the deals
    instead of 8%", the best move's share first), empty where the category has none
    (``coach.headline``)."""

    kind: str
    text: str
    points: float
    gist: str = ""


# Kinds: one per scoring category, and ``other`` for what none explains.
KINDS = ("big_casino", "little_casino", "ace", "cards", "spades", "sweeps", "last_capture", "other")

_RANK_WORDS = (
    "an ace",
    "a 2",
    "a 3",
    "a 4",
    "a 5",
    "a 6",
    "a 7",
    "an 8",
    "a 9",
    "a 10",
    "a jack",
    "a queen",
    "a king",
)


class _Pair(NamedTuple):
    """The best move's and the played move's outcome in one world, with its weight."""

    weight: float
    best: Outcome
    played: Outcome


class _Words:
    """How to name the mover's side and the others."""

    def __init__(self, obs: Observation, names: Sequence[str] | None, yours: str) -> None:
        self.yours = yours
        # Names as every renderer shows them (formats.text.player_name): printable and short.
        who = [player_name(n) for n in names] if names else [f"seat {k}" for k in range(obs.nplayers)]
        # Players of the same name (self-play of one bot) are told apart by their seats: "counter or
        # counter takes it" says nothing of who.
        who = [f"{n} (seat {k})" if who.count(n) > 1 else n for k, n in enumerate(who)]
        # So is another player named "You" (``play``'s default name for the person): the sentences
        # call the mover "you", and "You or Greedy 2 takes it ... you take it" would mean two players.
        who = [f"{n} (seat {k})" if n.casefold() == "you" and k != obs.seat else n for k, n in enumerate(who)]
        self.side = obs.seat % obs.nsides
        mates = [who[k] for k in range(obs.nplayers) if k % obs.nsides == self.side and k != obs.seat]
        self.you = "your side" if mates else "you"
        others = [k for k in range(obs.nplayers) if k % obs.nsides != self.side]
        self.others_by_side = {
            s: " and ".join(who[k] for k in others if k % obs.nsides == s)
            for s in range(obs.nsides)
            if s != self.side
        }
        self.they = _either(list(self.others_by_side.values())) or "the others"
        # Who might hold a card: any one of the others, partners too ("Ben or Dee holds a queen"; a
        # side's "Ben and Dee hold a queen" would say both do).
        self.anyone = _either([who[k] for k in others]) or "the others"
        # Whom a lead in cards is measured against: the other side, or the mean of the others.
        self.rivals = self.they if len(self.others_by_side) == 1 else "the others"

    @staticmethod
    def verb(subject: str, verb: str) -> str:
        """The verb agreeing with its subject: "you take", "Ben takes", "Ben and Dee take"."""
        return verb if subject == "you" or " and " in subject else verb + "s"

    def take(self, subject: str) -> str:
        return f"{subject} {self.verb(subject, 'take')}"

    def sweep(self, subject: str) -> str:
        return f"{subject} {self.verb(subject, 'sweep')}"


# How much more often (a share of the worlds) the captures along the lines must favour the move a
# cash card's points favour for those captures to explain them (``_sentence``).
EVENT_SUPPORT = 0.05


def _either(names: list[str]) -> str:
    """A list of names joined by "or": "Ana", "Ana or Ben", "Ana, Ben or Cy"."""
    return " or ".join(names) if len(names) < 3 else f"{', '.join(names[:-1])} or {names[-1]}"


def _share(p: float) -> str:
    """A share of the worlds in words."""
    if p >= 0.995:
        return "in every deal you could face"
    if p <= 0.005:
        return "in none of the deals you could face"
    return f"in {round(100 * p)}% of the deals you could face"


def _some(p: float) -> bool:
    """Whether a share shows as more than 0% (a clause that says "0% after yours, 0% after the best"
    says nothing)."""
    return round(100 * p) > 0


def _mean(pairs: Sequence[_Pair], f: Callable[[_Pair], float]) -> float:
    """The weighted mean of ``f`` over the worlds (a share, for a yes/no ``f``)."""
    total = sum(p.weight for p in pairs)
    return sum(p.weight * f(p) for p in pairs) / total if total else 0.0


def _category(key: str) -> str:
    if key.startswith("ace"):
        return "ace"
    return {"big": "big_casino", "little": "little_casino", "last": "last_capture"}.get(key, key)


def explain_move(
    rules: RuleSet,
    obs: Observation,
    result: SearchResult,
    played: Move,
    loss: float,
    *,
    names: Sequence[str] | None = None,
    yours: str = "yours",
) -> tuple[Explanation, ...]:
    """Why ``played`` lost ``loss`` points against the best move of ``result`` (a search of ``obs``
    made with ``detail=True``): one explanation per scoring category that accounts for at least
    ``MIN_POINTS``, with the shares of worlds in which its events happen; their points add up to
    ``loss`` (rounded to hundredths). None when the loss is negligible or ``played`` is the best.
    ``yours`` is how the sentences call ``played`` ("yours"; "it" for a move not played)."""
    best = result.moves[0].move
    if loss < MIN_POINTS or played == best:
        return ()
    b_out = result.value_of(best).outcomes
    p_out = result.value_of(played).outcomes
    pairs = [
        _Pair(w, b, p)
        for w, b, p in zip(result.weights, b_out, p_out, strict=True)
        if b is not None and p is not None and w > 0
    ]
    if not pairs:
        return (Explanation("other", "No world searched both moves to compare them.", round(loss, 2)),)
    keys = sorted({k for p in pairs for k in (*p.best.parts, *p.played.parts)})
    # Each category's points are its mean as the search takes means (``SearchResult.stats``: with
    # the worlds' control variates, so that they add up to the loss the verdict gives).
    stakes = {
        k: result.stats(
            [
                b.parts.get(k, 0.0) - p.parts.get(k, 0.0) if b is not None and p is not None else math.nan
                for b, p in zip(b_out, p_out, strict=True)
            ]
        )[0]
        for k in keys
    }
    words = _Words(obs, names, yours)
    # Each category's points, largest first, rounded as shown; what they leave of the loss is the
    # rest. The categories worth a sentence (``SENTENCE_POINTS``) get one each; the smaller ones and
    # the rest share one line. Where no category is that small and the rest is crumbs (rounding), it
    # is added to the largest category before its sentence is written, so that the sentence says the
    # points it is given.
    shares = sorted(
        ((key, round(stake, 2)) for key, stake in stakes.items() if abs(stake) >= MIN_POINTS),
        key=lambda x: -x[1],
    )
    rest = round(round(loss, 2) - sum(points for _, points in shares), 2)
    big = [(k, v) for k, v in shares if abs(v) >= SENTENCE_POINTS]
    small = [(k, v) for k, v in shares if abs(v) < SENTENCE_POINTS]
    folded = bool(big) and not small and abs(rest) < MIN_POINTS
    if folded and rest:
        big[0] = (big[0][0], round(big[0][1] + rest, 2))
    items = [
        (
            _category(key),
            *_sentence(
                obs, result, (played, best), key, points, pairs=pairs, w=words, worth=_worth(rules, key)
            ),
            points,
        )
        for key, points in big
    ]
    # Whether the lines reach the mover's next turn: a build comes home no sooner (a search of 4 plies
    # with four players, ``--depth 4``, stops before it, and "comes home in none of the deals" would be
    # false).
    left = sum(obs.hand_sizes)
    next_turn = result.depth is None or result.depth > min(obs.nplayers, left - 1)
    event, event_gist = _build_event(rules, obs, played, best, pairs, words, next_turn=next_turn)
    if event and items and items[0][3] > 0:
        # The build's fate is what the largest category's points come from: its gist leads, unless
        # the category is a scoring card the build brings home, whose gist names the card.
        kind, text, gist, points = items[0]
        card = kind in ("ace", "big_casino", "little_casino") and played.action != BUILD
        items[0] = (kind, f"{text} {event}", gist if card or not event_gist else event_gist, points)
    elif event:
        items.insert(0, ("other", event, event_gist, 0.0))
    out = [Explanation(k, t, p, g) for k, t, g, p in items]
    if not folded:
        # Where the search went on through the last deal from the end of this one (the lines stop at
        # the deal's end), the rest is what the last deal changes.
        out.append(_small_items(obs, small, rest, last_deal=result.round_end and obs.stock_count > 0))
    return tuple(out)


_SMALL_NAMES = {
    "cards": "most cards",
    "spades": "most spades",
    "sweeps": "sweeps",
    "last": "the last capture",
}


def _small_items(
    obs: Observation, small: Sequence[tuple[str, float]], rest: float, *, last_deal: bool = False
) -> Explanation:
    """The one line of the categories too small for a sentence of their own, with the rest (what no
    category explains: where the search's estimate of later play differs, or with ``last_deal`` what
    the round's last deal changes, where the search went on through it): "Small items (+0.14 of the
    margin): most spades 0.07, the last capture 0.06, later play 0.01." Their shares add up."""
    later = "the last deal" if last_deal else "later play"
    named = [f"{_small_name(obs, k)} {v:.2f}" for k, v in small]
    if rest and (small or abs(rest) >= 0.005):
        named.append(f"{later} {rest:.2f}")
    total = round(sum(v for _, v in small) + rest, 2)
    if not small:
        what = (
            f"{later}, which the lines above stop short of"
            if last_deal
            else f"{later} the categories above leave out"
        )
        text = f"The rest ({total:+.2f} of the margin): {what}."
        return Explanation("other", text, total)
    return Explanation("other", f"Small items ({total:+.2f} of the margin): {', '.join(named)}.", total)


def _small_name(obs: Observation, key: str) -> str:
    """A category in a few words: "Little Casino 2♠", "the ace A♦ (not seen yet)", "most spades"."""
    if key not in ("big", "little") and not key.startswith("ace"):
        return _SMALL_NAMES.get(key, key)
    card = BIG_CASINO if key == "big" else LITTLE_CASINO if key == "little" else int(key[3:])
    name = {"big": "Big Casino", "little": "Little Casino"}.get(key, "the ace")
    return f"{name} {card_symbol(card)}" + (" (not seen yet)" if obs.unseen >> card & 1 else "")


def _worth(rules: RuleSet, key: str) -> int | None:
    """What a scoring category is worth in Casino points under ``rules`` (the ``Outcome.parts`` keys:
    "cards", "spades", "big", "little", "ace" + card, "sweeps", "last")."""
    if key.startswith("ace"):
        return rules.points_ace
    return {
        "cards": rules.points_cards,
        "spades": rules.points_spades,
        "big": rules.points_big,
        "little": rules.points_little,
        "sweeps": rules.points_sweep,
        "last": rules.last_capture_point,
    }.get(key)


def _worth_words(key: str, worth: int | None) -> str:
    """A category's worth as a player counts it: "3 points", "1 point", "1 point each" for sweeps."""
    if worth is None:
        return "its points"
    return f"{worth} point{'' if worth == 1 else 's'}" + (" each" if key == "sweeps" else "")


@dataclass(frozen=True)
class _Told:
    """What every category's sentence draws on: the worlds' pairs of lines, the words for the sides,
    the points at stake (``lead``), the search's horizon (``where``), and the two moves named as the
    sentence names them (``yours``, ``theirs``)."""

    obs: Observation
    pairs: Sequence[_Pair]
    w: _Words
    lead: str
    where: str
    yours: str
    theirs: str


def _sentence(
    obs: Observation,
    result: SearchResult,
    moves: tuple[Move, Move],
    key: str,
    stake: float,
    *,
    pairs: Sequence[_Pair],
    w: _Words,
    worth: int | None = None,
) -> tuple[str, str]:
    """One category's sentence: the category's worth in Casino points (``worth``, by the rules) and
    the swing in the margin between the two moves, then what happens in how many of the worlds (the
    best move's share first, then the move played's); and its gist for a headline
    (``Explanation.gist``).
    ``moves``: the move played and the best one."""
    played, best = moves
    lead = f"{_worth_words(key, worth)}, a swing of {abs(stake):.2f} in the margin" + (
        " in favour of " + w.yours if stake < 0 else ""
    )
    t = _Told(
        obs,
        pairs,
        w,
        lead=lead,
        where=_horizon_words(obs, result).capitalize(),
        yours=f"after {w.yours} ({played.describe()})",
        theirs=f"after {best.describe()}",
    )
    if key in ("big", "little") or key.startswith("ace"):
        card = BIG_CASINO if key == "big" else LITTLE_CASINO if key == "little" else int(key[3:])
        name = {"big": "Big Casino", "little": "Little Casino"}.get(key, "The ace")
        return _card_sentence(t, card, name, stake)
    if key in ("cards", "spades"):
        return _majority_sentence(t, key)
    if key == "sweeps":
        return _sweeps_sentence(t)
    if key == "last":
        mine_b = _mean(pairs, lambda p: p.best.parts.get("last", 0.0) > 0)
        mine_p = _mean(pairs, lambda p: p.played.parts.get("last", 0.0) > 0)
        return (
            f"The last capture: {lead}. {w.take(w.you).capitalize()} it {_share(mine_b)} "
            f"{t.theirs}, {_then(mine_p)} {t.yours}."
        ), f"{w.take(w.you)} the last capture {_odds(mine_b, mine_p)}"
    return f"{key}: {lead}.", ""


def _card_sentence(t: _Told, card: int, name: str, stake: float) -> tuple[str, str]:
    """A scoring card's sentence (Big or Little Casino, an ace): who takes it after each move, led
    by the side whose share the move changes most, the best move's share first; and its gist."""
    obs, pairs, w, side = t.obs, t.pairs, t.w, t.w.side
    yours, theirs = t.yours, t.theirs
    seen = "" if not obs.unseen >> card & 1 else " (not seen yet)"
    bit = 1 << card
    mine_b = _mean(pairs, lambda p: bool(p.best.gained[side] & bit))
    mine_p = _mean(pairs, lambda p: bool(p.played.gained[side] & bit))
    them_p = _mean(pairs, lambda p: any(g & bit for s, g in enumerate(p.played.gained) if s != side))
    them_b = _mean(pairs, lambda p: any(g & bit for s, g in enumerate(p.best.gained) if s != side))
    head = f"{name} {card_symbol(card)}{seen}: {t.lead}. {t.where}"
    label = name if name != "The ace" else "the ace"
    mine = f"{w.take(w.you)} it {_share(mine_b)} {theirs}, {_then(mine_p)} {yours}"
    them = f"{w.take(w.they)} it {_share(them_b)} {theirs}, {_then(them_p)} {yours}"
    if abs(mine_b - mine_p) >= abs(them_p - them_b):
        gist = f"{w.take(w.you)} {label} {card_symbol(card)}{seen} {_odds(mine_b, mine_p)}"
        text = f"{head} {mine}" + (
            f"; {w.take(w.they)} it in {_pct(them_b)} after the best, {_pct(them_p)} after {w.yours}"
            if _some(them_p) or _some(them_b)
            else ""
        )
    else:
        gist = f"{w.take(w.they)} {label} {card_symbol(card)}{seen} {_odds(them_b, them_p)}"
        text = f"{head} {them}" + (
            f"; {w.take(w.you)} it in {_pct(mine_b)} after the best, {_pct(mine_p)} after {w.yours}"
            if _some(mine_p) or _some(mine_b)
            else ""
        )
    # Where the captures along the lines do not account for the points (they favour neither move,
    # or the other one), the points are the estimate where the lines stop, of a card still to be
    # taken: say so, or the shares read as if they contradicted the points.
    support = (mine_b - mine_p) + (them_p - them_b)
    settled = all(p.best.end and p.played.end for p in pairs)
    if not settled and (support < EVENT_SUPPORT if stake > 0 else support > -EVENT_SUPPORT):
        open_b = _mean(pairs, lambda p: not any(g & bit for g in p.best.gained))
        open_p = _mean(pairs, lambda p: not any(g & bit for g in p.played.gained))
        text += (
            f"; it is still to be taken {_share(open_b)} after the best, {_then(open_p)} {yours}, "
            "and its points are the search's estimate of who takes it later in the round"
        )
        be = "are" if w.you == "you" else "is"
        gist = f"{w.you} {be} likelier to win {label} {card_symbol(card)}{seen} later"
    return text + ".", gist


def _majority_sentence(t: _Told, key: str) -> tuple[str, str]:
    """Most cards or most spades: how far ahead each move leaves the mover's side; and its gist."""
    obs, pairs, w, side = t.obs, t.pairs, t.w, t.w.side
    mask = SPADES_MASK if key == "spades" else FULL_DECK

    # The piles at the end of the line: what each side had captured before the move, and what
    # it captures along the line.
    def lead_of(o: Outcome) -> float:
        piles = _piles(obs, o, mask)
        mine = piles.pop(side)
        return mine - sum(piles) / len(piles)

    unit = "card" if key == "cards" else "spade"
    if len(w.others_by_side) > 1:
        # With three sides or more: who takes the majority where the lines reach the end of the
        # round; short of it, where the search's estimate comes from, the piles each side holds.
        told = _leaders if all(p.best.end and p.played.end for p in pairs) else _pile_means
        said, gist = told(obs, pairs, w, mask, unit, theirs=t.theirs, yours=t.yours)
        return f"Most {unit}s: {t.lead}. {t.where} {said}.", gist
    be = "are" if w.verb(w.you, "take") == "take" else "is"
    lead_b = _ahead(_mean(pairs, lambda p: lead_of(p.best)), unit, w.rivals)
    lead_p = _ahead(_mean(pairs, lambda p: lead_of(p.played)), unit, w.rivals)
    come = "come" if be == "are" else "comes"
    text = (
        f"Most {unit}s: {t.lead}. {t.where} {w.you} {be} on average {lead_b} {t.theirs}, {lead_p} {t.yours}."
    )
    return text, f"{w.you} {come} out {lead_b} instead of {_ahead_short(lead_p, w.rivals)}"


def _sweeps_sentence(t: _Told) -> tuple[str, str]:
    """Sweeps: who sweeps after each move, led by the side whose sweeps the move changes most, the
    best move's share first; and its gist."""
    pairs, w, side, yours, theirs = t.pairs, t.w, t.w.side, t.yours, t.theirs
    them_b = _mean(pairs, lambda p: any(n > 0 for s, n in enumerate(p.best.sweeps) if s != side))
    them_p = _mean(pairs, lambda p: any(n > 0 for s, n in enumerate(p.played.sweeps) if s != side))
    mine_b = _mean(pairs, lambda p: p.best.sweeps[side] > 0)
    mine_p = _mean(pairs, lambda p: p.played.sweeps[side] > 0)
    # Led by the side whose sweeps the move changes most, as for a scoring card; the other side's
    # only where they sweep at all.
    they_lead = f"{w.sweep(w.they)} {_share(them_b)} {theirs}, {_then(them_p)} {yours}"
    they_also = f"{w.sweep(w.they)} in {_pct(them_b)} after the best, {_pct(them_p)} after {w.yours}"
    you_lead = f"{w.sweep(w.you)} {_share(mine_b)} {theirs}, {_then(mine_p)} {yours}"
    you_also = f"{w.sweep(w.you)} in {_pct(mine_b)} after the best, {_pct(mine_p)} after {w.yours}"
    they_sweep = _some(them_p) or _some(them_b)
    if they_sweep and abs(them_p - them_b) >= abs(mine_b - mine_p):
        first, then = they_lead, (you_also if _some(mine_b) or _some(mine_p) else "")
        gist = f"{w.sweep(w.they)} {_odds(them_b, them_p)}"
    else:
        first, then = you_lead, (they_also if they_sweep else "")
        gist = f"{w.sweep(w.you)} {_odds(mine_b, mine_p)}"
    return f"Sweeps: {t.lead}. {t.where} {first}" + (f"; {then}" if then else "") + ".", gist


def _piles(obs: Observation, o: Outcome, mask: int) -> list[int]:
    """Per side, how many of ``mask``'s cards its pile holds at the end of ``o``'s line."""
    return [((obs.captured[s] | g) & mask).bit_count() for s, g in enumerate(o.gained)]


def _pile_means(
    obs: Observation, pairs: Sequence[_Pair], w: _Words, mask: int, unit: str, *, theirs: str, yours: str
) -> tuple[str, str]:
    """With three sides or more, short of the end of the round: how many of ``mask``'s cards each
    side's pile holds on average after each move (the mover's side first, then the sides whose piles
    read differently after the two moves, at a tenth of a card); and its gist."""
    total = sum(p.weight for p in pairs) or 1.0
    best = [0.0] * obs.nsides
    played = [0.0] * obs.nsides
    for p in pairs:
        for s, (b, q) in enumerate(zip(_piles(obs, p.best, mask), _piles(obs, p.played, mask), strict=True)):
            best[s] += p.weight * b / total
            played[s] += p.weight * q / total
    text = (
        f"the piles hold on average {best[w.side]:.1f} {unit}s for {w.you} {theirs}, "
        f"{played[w.side]:.1f} {yours}"
    )
    others = [
        f"for {who} {best[s]:.1f} and {played[s]:.1f}"
        for s, who in w.others_by_side.items()
        if f"{best[s]:.1f}" != f"{played[s]:.1f}"
    ]
    # The gist: the side whose pile the move changes most ("Ana holds 1.6 cards on average instead of
    # 4.0" says more than "you hold 0.2 instead of 0.0").
    who = {w.side: w.you, **w.others_by_side}
    s = max(who, key=lambda k: (abs(best[k] - played[k]), k == w.side))
    gist = f"{who[s]} {w.verb(who[s], 'hold')} {best[s]:.1f} {unit}s on average instead of {played[s]:.1f}"
    return text + ("; " + ", ".join(others) if others else ""), gist


def _leaders(
    obs: Observation, pairs: Sequence[_Pair], w: _Words, mask: int, unit: str, *, theirs: str, yours: str
) -> tuple[str, str]:
    """With three sides or more, a majority goes to whoever is ahead of every other side, not by the
    mean lead over them (two moves that leave you as far behind on average can differ by whether the
    others are level): who leads in ``mask``'s cards after each move, in what share of the worlds,
    the largest change first, and how often the lead is shared (the best move's share first); and
    the gist of the first."""

    def leader(o: Outcome) -> int:
        counts = _piles(obs, o, mask)
        top = max(counts)
        at_top = [s for s, c in enumerate(counts) if c == top]
        return at_top[0] if len(at_top) == 1 else -1

    names = {w.side: w.you, **w.others_by_side, -1: ""}
    total = sum(p.weight for p in pairs) or 1.0
    leaders = [(p.weight / total, leader(p.best), leader(p.played)) for p in pairs]
    clauses = []
    for s, who in names.items():
        best = sum(wt for wt, b, _ in leaders if b == s)
        played = sum(wt for wt, _, q in leaders if q == s)
        if _some(best) or _some(played):
            subject = f"{who} {w.verb(who, 'lead')} in {unit}s" if who else f"the lead in {unit}s is shared"
            clauses.append((abs(played - best), subject, best, played))
    clauses.sort(key=lambda c: -c[0])
    out = []
    gist = ""
    for i, (_, subject, best, played) in enumerate(clauses):
        if i == 0:
            out.append(f"{subject} {_share(best)} {theirs}, {_then(played)} {yours}")
            gist = f"{subject} {_odds(best, played)}"
        else:
            out.append(f"{subject} in {_pct(best)} after the best, {_pct(played)} after {w.yours}")
    return "; ".join(out), gist


def _pct(p: float) -> str:
    return f"{round(100 * p)}%"


def _odds(best: float, played: float) -> str:
    """Two shares of the worlds for a gist, the best move's first: "in 75% of the deals instead of
    8%", "in every deal instead of 40%", "in no deal instead of 60%"."""
    first = (
        "in every deal"
        if best >= 0.995
        else "in no deal"
        if best <= 0.005
        else f"in {_pct(best)} of the deals"
    )
    second = "all of them" if played >= 0.995 else "none" if played <= 0.005 else _pct(played)
    return f"{first} instead of {second}"


def _ahead_short(lead: str, they: str) -> str:
    """A lead of ``_ahead`` without its rival named again, for a gist's second half: "0.4 cards
    behind", "1.0 spade ahead", "level"."""
    if lead.startswith("level"):
        return "level"
    return lead.removesuffix(f" {they}").removesuffix(" of")


def _then(p: float) -> str:
    """The share of the worlds after a second move, following a ``_share`` clause in its words: "in
    every deal you could face after the best, in none after yours", "in 40% ..., in every one after
    yours" (a "100%" after "every deal" reads as another measure)."""
    if p >= 0.995:
        return "in every one"
    if p <= 0.005:
        return "in none"
    return f"in {_pct(p)}"


def _ahead(x: float, unit: str, they: str) -> str:
    """A mean lead in words: "2.1 cards ahead of Ben", "0.4 spades behind Ben", "level with Ben"."""
    if abs(x) < 0.05:
        return f"level with {they}"
    n = abs(x)
    plural = "" if round(n, 1) == 1 else "s"
    return f"{n:.1f} {unit}{plural} {'ahead of' if x > 0 else 'behind'} {they}"


def _horizon_words(obs: Observation, result: SearchResult) -> str:
    """How far the search's lines go: "by the end of the deal", "by the end of the round", or "over
    the next N plays"."""
    left = sum(obs.hand_sizes)
    if result.depth is None or result.depth >= left:
        return "by the end of the round" if obs.stock_count == 0 else "by the end of the deal"
    return f"over the next {result.depth} plays"


def _build_event(
    rules: RuleSet,
    obs: Observation,
    played: Move,
    best: Move,
    pairs: Sequence[_Pair],
    w: _Words,
    *,
    next_turn: bool = True,
) -> tuple[str, str]:
    """For a build played (or missed): how often the other side takes it, or it comes home (only
    when the lines reach the mover's ``next_turn``); and its gist where the build's fate is common
    enough to lead a headline (``BUILD_GIST``), else an empty one."""
    side = w.side
    if played.action == BUILD:
        cards = played.take | 1 << played.card
        taken = _mean(
            pairs, lambda p: any((g & cards) == cards for s, g in enumerate(p.played.gained) if s != side)
        )
        if taken >= 0.005:
            ranks = sorted({RANK[c] for c in range(52) if played.value in rules.capture_values[c]})
            holds = " or ".join(_RANK_WORDS[r] for r in ranks)
            whose = "your" if w.yours == "yours" else "the"
            gist = (
                f"{w.take(w.anyone)} {whose} build of {played.value} {_odds(taken, 0.0).split(' instead')[0]}"
            )
            return (
                f"{_share(taken).capitalize()}, {w.anyone} {w.verb(w.anyone, 'hold')} {holds} and "
                f"{w.verb(w.anyone, 'take')} your build of "
                f"{played.value} ({mask_symbols(cards)}) after {w.yours}."
            ), gist if taken >= BUILD_GIST else ""
    if best.action == BUILD and next_turn:
        cards = best.take | 1 << best.card
        home = _mean(pairs, lambda p: (p.best.gained[side] & cards) == cards)
        gist = f"the build of {best.value} comes home to {w.you} {_odds(home, 0.0).split(' instead')[0]}"
        return (
            f"After {best.describe()} the build of {best.value} comes home to {w.you} {_share(home)}.",
            gist if home >= BUILD_GIST else "",
        )
    return "", ""


# The share of the worlds in which a build is taken (or comes home) for its fate to lead a headline.
BUILD_GIST = 0.25
