"""Why a move is illegal, in words that name the rule (rules.md §1.8-1.9), and ``play``: a move
applied after it is checked, or refused with that reason.

The move generator (``movegen.py``) decides what is legal; this module only explains a refusal, so
that the generator holds no English.
"""

from __future__ import annotations

from casino_coach.engine.cards import ACES_MASK, RANK, card_symbol, iter_cards, mask_symbols
from casino_coach.engine.movegen import (
    CAPTURE,
    TRAIL,
    LooseTable,
    Move,
    apply,
    is_legal,
    legal_moves,
    needs_both_ace_values,
)
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import Build, RoundState
from casino_coach.errors import IllegalMoveError


def play(rules: RuleSet, state: RoundState, move: Move) -> RoundState:
    """Apply ``move`` after checking it is legal; raise IllegalMoveError with the rule otherwise."""
    if not is_legal(rules, state, move):
        raise IllegalMoveError(illegal_reason(rules, state, move))
    return apply(rules, state, move)


def illegal_reason(rules: RuleSet, state: RoundState, move: Move) -> str:
    """A plain-language reason naming the rule; '' when the move is legal."""
    if is_legal(rules, state, move):
        return ""
    seat = state.to_move
    hand = state.hands[seat]
    c = move.card
    name = card_symbol(c)
    if not hand:
        return "no move can be played now: the next deal comes first"
    if not hand >> c & 1:
        return f"{name} is not in the hand of seat {seat}"
    table = state.table
    if move.take & ~table:
        stray = move.take & ~table
        return f"{mask_symbols(stray)} {'is' if stray.bit_count() == 1 else 'are'} not on the table"
    taken_builds = [b for b in state.builds if b.cards & move.take]
    for b in taken_builds:
        if b.cards & move.take != b.cards:
            return f"a build is taken whole: the build of {b.value} ({mask_symbols(b.cards)}) cannot be split"
    owned = [b for b in state.builds if b.owner == seat]
    if (
        rules.ace_value == "one_or_fourteen"
        and needs_both_ace_values(move, owned)
        and (hand & ~(1 << c) & ACES_MASK).bit_count() < 2
    ):
        return (
            "you would own a build of 1 and a build of 14 with one ace left to take them: an "
            "ace takes one or the other, so each needs its own ace (rules.md 1.8.2)"
        )
    if move.action == TRAIL:
        return _trail_reason(rules, state, move, owned)
    if move.action == CAPTURE:
        return _capture_reason(rules, state, move, taken_builds)
    return _build_reason(rules, state, move, taken_builds, owned)


def _hold_reason(rules: RuleSet, state: RoundState, move: Move, value: int) -> str:
    rest = state.hands[state.to_move] & ~(1 << move.card)
    if not any(value in rules.capture_values[x] for x in iter_cards(rest)):
        what = "an ace" if value in (1, 14) else article(_value_word(value))
        return f"you would be left without {what} for your build of {value} (rules.md 1.8.2)"
    return ""


def article(word: str) -> str:
    """The word with its indefinite article: "an 8", "an 11", "a 7", "a jack", "an inaccuracy"."""
    return ("an " if word[0] in "8aeiou" or word in ("11", "18") else "a ") + word


def _value_word(v: int) -> str:
    return {11: "jack", 12: "queen", 13: "king"}.get(v, str(v))


def _owned_left_reason(rules: RuleSet, state: RoundState, move: Move, owned: list[Build]) -> str:
    for b in owned:
        if not b.cards & move.take:
            r = _hold_reason(rules, state, move, b.value)
            if r:
                return r
    return ""


def _trail_reason(rules: RuleSet, state: RoundState, move: Move, owned: list[Build]) -> str:
    name = card_symbol(move.card)
    if owned and not rules.owner_may_trail:
        return "you own a build, so you may not trail: capture, build, or add to a build (rules.md 1.8.3)"
    pv = rules.pair_value
    if rules.trail_restriction == "equal_loose" and any(
        pv[x] == pv[move.card] for x in iter_cards(state.loose)
    ):
        return (
            f"{name} matches a loose card of the same value, so it may not be trailed: "
            "capture it or build with it (rules.md 1.9, Dominican)"
        )
    if rules.trail_restriction == "any_capture" and any(
        m.action == CAPTURE for m in legal_moves(rules, state, cards=1 << move.card)
    ):
        return f"{name} can capture, so it may not be trailed (trail_restriction any_capture)"
    r = _owned_left_reason(rules, state, move, owned)
    if r:
        return r
    if move.take:
        if not rules.table_only_builds:
            return "a trail cannot gather table cards into a build (rules.md 1.7: table_only_builds)"
        return f"the table cards {mask_symbols(move.take)} cannot form a build of {move.value}"
    if move.value:
        return "a trail has no declared value"
    return f"{name} cannot be trailed here"


def _capture_reason(rules: RuleSet, state: RoundState, move: Move, taken_builds: list[Build]) -> str:
    c = move.card
    name = card_symbol(c)
    if not move.take:
        return "a capture must take at least one table item (rules.md 1.6.1)"
    if move.value:
        return "a capture has no declared value"
    caps = rules.capture_values[c]
    court = rules.build_value[c] == 0
    if court:
        if taken_builds and not rules.court_builds:
            return f"{name} is a court card: it can only pair one loose {_value_word(caps[0])} (1.6.3)"
        loose = move.take & state.loose
        if any(rules.pair_value[x] != caps[0] for x in iter_cards(loose)):
            return (
                f"{name} is a court card: it captures only a court of the same rank, never a "
                "sum (rules.md 1.6.3)"
            )
        if loose.bit_count() > 1 and rules.court_pairing_count == "one":
            return f"{name} pairs only one {_value_word(caps[0])} at a time (court_pairing_count one)"
        return (
            f"{name} cannot capture {mask_symbols(move.take)} under court_pairing_count "
            f"{rules.court_pairing_count}"
        )
    for b in taken_builds:
        if b.value not in caps:
            return (
                f"{article(str(b.value))}-build can only be taken by {article(_value_word(b.value))}"
                f"{' or an ace' if b.value == 14 else ''}, not by {name} (rules.md 1.6.4)"
            )
    loose = move.take & state.loose
    if len(caps) == 2 and loose:
        aces = sum(1 for x in iter_cards(loose) if RANK[x] == 0)
        if aces and aces != loose.bit_count():
            total = sum(rules.build_value[x] for x in iter_cards(loose))
            if total % 14:
                return (
                    "an ace captures as 1 or as 14, one of the two per move: these cards do not "
                    "split into sets of either (rules.md 1.6.2)"
                )
    for w in caps:
        if all(b.value == w for b in taken_builds):
            tbl = LooseTable(rules, loose)  # only the loose cards taken decide the split
            if loose and not tbl.splits(loose, w):
                continue
            if rules.trail_restriction == "equal_loose":
                equal = [x for x in iter_cards(state.loose) if rules.pair_value[x] == w]
                left = [x for x in equal if not move.take >> x & 1]
                if left:
                    return (
                        f"a capture with value {w} must take every loose card worth {w}: "
                        f"{mask_symbols(sum(1 << x for x in left))} would be left "
                        "(rules.md 1.9, Dominican)"
                    )
            r = _owned_left_reason(rules, state, move, [b for b in state.builds if b.owner == state.to_move])
            if r:
                return r
            return f"{name} cannot capture {mask_symbols(move.take)} here"
    val = "/".join(str(w) for w in caps)
    return (
        f"{mask_symbols(loose)} cannot be split into sets each worth {val}, "
        f"so {name} cannot capture them (rules.md 1.6.1)"
    )


def _build_reason(
    rules: RuleSet, state: RoundState, move: Move, taken_builds: list[Build], owned: list[Build]
) -> str:
    c = move.card
    name = card_symbol(c)
    v = move.value
    seat = state.to_move
    if rules.build_value[c] == 0 and not rules.court_builds:
        return f"{name} is a court card: court cards never enter builds (rules.md 1.6.3)"
    if v < 1 or v > rules.max_build:
        return f"a build is worth at most {rules.max_build} in {rules.preset} (rules.md 1.2)"
    if not move.take:
        return "a build needs at least one table card besides the played card (rules.md 1.7.1)"
    if len(taken_builds) > 1 and not rules.merge_builds:
        return "two builds are never merged into one (rules.md 1.7, B10)"
    r = _hold_reason(rules, state, move, v)
    if r:
        return r.replace("your build of", "a build of")
    pv = rules.pair_value
    if (
        rules.trail_restriction == "equal_loose"
        and not rules.equal_loose_build_ok
        and any(pv[x] == pv[c] for x in iter_cards(state.loose))
    ):
        return f"{name} matches a loose card, so it must capture (equal_loose_build_ok false)"
    for b in taken_builds:
        own = b.owner == seat
        partner = not own and b.owner % state.nsides == seat % state.nsides
        if b.value != v:
            if b.multiple:
                return (
                    f"the build of {b.value} is multiple; multiple builds can never be raised "
                    "(rules.md 1.7.3)"
                )
            if own and not rules.raise_own_build:
                return "you may not raise your own build, only an opponent's (rules.md 1.7.3, Dominican)"
            if partner and rules.partner_build_interaction == "none":
                return "you may not add to your partner's build (rules.md 1.13, Dominican)"
            if v != b.value + rules.build_value[c]:
                return (
                    f"raising the build of {b.value} with {name} makes "
                    f"{b.value + rules.build_value[c]}, not {v}: loose table cards can never "
                    "change a build's value (rules.md 1.7.3)"
                )
        elif partner and rules.partner_build_interaction != "free":
            return "you may not add to your partner's build (rules.md 1.13, Dominican)"
    if not rules.allow_duplicate_value_builds and any(
        b.value == v and b not in taken_builds for b in state.builds
    ):
        return f"there is already a build of {v} on the table (allow_duplicate_value_builds false)"
    r = _owned_left_reason(rules, state, move, owned)
    if r:
        return r
    return f"{name} and {mask_symbols(move.take)} cannot be split into sets each worth {v} (rules.md 1.7)"
