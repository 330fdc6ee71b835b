"""The native move generator and ``apply`` (src/engine/movegen.rs) against the Python reference
(casino_coach/engine/movegen.py): the same sorted legal moves and the same next state after every
one of them, on random play, crowded tables and made-up positions, for every preset, every rule
option of rules.md §2 that touches move generation or apply, 2, 3 and 4 players, with and without
partnerships; and on every hand-made position of tests/test_movegen.py.

``scripts/movegen_compare.py`` runs the same comparison over a million positions.
"""

from __future__ import annotations

import inspect
import random
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from casino_coach import core
from casino_coach.engine import movegen
from casino_coach.engine.cards import NUM_CARDS, RANK
from casino_coach.engine.movegen import BUILD, CAPTURE, TRAIL, Move, apply, legal_moves
from casino_coach.engine.notation import parse_hand
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import Build, RoundState, deal, new_round, shuffle_round, sides_for

pytestmark = pytest.mark.skipif(core.NATIVE is None, reason="the native core is not built here")

# Every option of rules.md §2 that legal_moves or apply reads, with its choices.
MOVEGEN_OPTIONS: dict[str, tuple[Any, ...]] = {
    "trail_restriction": ("none", "equal_loose", "any_capture"),
    "equal_loose_capture": ("all", "at_least_one"),
    "equal_loose_build_ok": (True, False),
    "build_as_card_in_sums": (False, True),
    "raise_own_build": (True, False),
    "partner_build_interaction": ("free", "raise_only", "none"),
    "build_for_partner": ("never", "announced", "provable"),
    "table_cards_in_raise": ("never", "with_hand_card"),
    "table_only_builds": (False, True),
    "allow_duplicate_value_builds": (True, False),
    "multi_set_build_creation": (True, False),
    "merge_builds": (False, True),
    "owner_may_trail": (False, True),
    "court_builds": (False, True),
    "ace_singleton_set_in_build": (False, True),
    "court_pairing_count": ("one", "all", "one_or_three"),
    "final_capture_can_sweep": (True, False),
    "last_capture_takes_table": (True, False),
    "residue_if_no_capture": ("set_aside", "dealer"),
    "sweeps": (False, True),
    "partnerships": (True, False),
}
PRESETS: tuple[str, ...] = ("classic", "royal", "dominican")


def rules_from(pick: Callable[[str, Sequence[Any]], Any]) -> RuleSet:
    """A rule set with every move-generation option chosen by ``pick(name, choices)`` (a preset's
    own value as often as not), its card values (face_cards, ace_value) kept consistent."""
    preset = pick("preset", PRESETS)
    options: dict[str, Any] = {}
    for name, choices in MOVEGEN_OPTIONS.items():
        if pick(f"change {name}", (False, True)):
            options[name] = pick(name, choices)
    face = pick("face_cards", ("preset", "pair_only", "numeric"))
    if face != "preset":
        options["face_cards"] = face
    numeric = options.get("face_cards", "pair_only" if preset == "classic" else "numeric") == "numeric"
    if numeric:
        options["court_builds"] = False
        options["ace_value"] = pick("ace_value", ("one", "one_or_fourteen", "hand14_table1"))
    else:
        options["ace_value"] = "one"
    return RuleSet.from_preset(preset, **options)


def random_rules(rng: random.Random) -> RuleSet:
    return rules_from(lambda _name, choices: rng.choice(choices))


@st.composite
def rule_sets(draw: st.DrawFn) -> RuleSet:
    return rules_from(lambda _name, choices: draw(st.sampled_from(choices)))


def native_rules(rules: RuleSet) -> Any:
    assert core.NATIVE is not None
    return core.NATIVE.Rules(rules)


def state_tuple(s: RoundState) -> tuple[Any, ...]:
    """The state as the native core gives it back: builds as plain tuples."""
    return (*s[:2], tuple(tuple(b) for b in s.builds), *s[3:])


def compare(rules: RuleSet, native: Any, s: RoundState) -> list[Move]:
    """Assert that both implementations list the same moves of ``s`` and make the same state after
    each; the Python's moves."""
    assert core.NATIVE is not None
    want = legal_moves(rules, s)
    got = core.NATIVE.successors(native, tuple(s))
    assert [m for m, _ in got] == [tuple(m) for m in want], (rules.to_dict(), s)
    for m, (_, nxt) in zip(want, got, strict=True):
        assert nxt == state_tuple(apply(rules, s, m)), (rules.to_dict(), s, m)
    return want


def compare_cards(rules: RuleSet, native: Any, s: RoundState, cards: int) -> None:
    """The moves of some hand cards only (``legal_moves(..., cards)``)."""
    assert core.NATIVE is not None
    want = [tuple(m) for m in legal_moves(rules, s, cards)]
    assert core.NATIVE.legal_moves(native, tuple(s), cards) == want, (rules.to_dict(), s, cards)


def play_round(
    rules: RuleSet, nplayers: int, rng: random.Random, crowd: int = 0
) -> Iterator[tuple[RoundState, list[Move]]]:
    """Every position of a random round; the caller sends each position's legal moves back. With
    ``crowd`` the play prefers builds and trails while fewer than ``crowd`` cards lie loose, and
    captures from then on, so tables fill up with loose cards and builds."""
    sh = shuffle_round(rng, nplayers)
    nsides = sides_for(nplayers, rules.partnerships)
    s = new_round(nplayers, nsides, rng.randrange(nplayers), sh.table, sh.deals[0])
    i = 1
    while not s.is_over:
        if s.needs_deal:
            s = deal(s, sh.deals[i])
            i += 1
        moves = yield s
        assert moves
        pool = moves
        if crowd:
            if s.loose.bit_count() >= crowd:
                pool = [m for m in moves if m.action == CAPTURE] or moves
            elif rng.random() < 0.6:
                pool = [m for m in moves if m.action == BUILD] or [m for m in moves if m.action != CAPTURE]
            else:
                pool = [m for m in moves if m.action != CAPTURE]
            pool = pool or moves
        s = apply(rules, s, rng.choice(pool))


def compare_round(rules: RuleSet, nplayers: int, rng: random.Random, crowd: int = 0) -> int:
    """Compare every position of one random round; the number of positions."""
    native = native_rules(rules)
    game = play_round(rules, nplayers, rng, crowd)
    n = 0
    try:
        s = next(game)
        while True:
            moves = compare(rules, native, s)
            n += 1
            hand = s.hands[s.to_move]
            if hand.bit_count() > 1 and rng.random() < 0.2:
                compare_cards(rules, native, s, hand & -hand)
            s = game.send(moves)
    except StopIteration:
        return n


def random_position(
    rules: RuleSet, rng: random.Random, nplayers: int, nloose: int, nbuilds: int, hand: int = 0
) -> RoundState:
    """A made-up position: random hands, ``nloose`` loose cards and up to ``nbuilds`` builds of
    random owners whose sets sum to their values (owners need not hold their capture cards, so the
    last resort of a player without a legal move is reached too). ``hand``: the cards of the seat to
    move (1 to 4 at random if 0)."""
    nsides = sides_for(nplayers, rules.partnerships)
    deck = list(range(NUM_CARDS))
    rng.shuffle(deck)
    # A quarter of them are the round's last move: the residue goes to the last capturer, the
    # dealer's side or nobody (rules.md 1.11), and a capture of everything may be a sweep.
    ending = not hand and rng.random() < 0.25
    hands = []
    for seat in range(nplayers):
        k = (hand or rng.randint(1, 4)) if seat == 0 else rng.randint(1, 4) if rng.random() < 0.8 else 0
        if ending:
            k = 1 if seat == 0 else 0
        hands.append(sum(1 << c for c in deck[:k]))
        del deck[:k]
    value = rules.build_value
    builds: list[Build] = []
    for _ in range(nbuilds):
        court = rules.court_builds and rng.random() < 0.2
        v = rng.randint(11, 13) if court else rng.randint(1 if rng.random() < 0.1 else 2, rules.max_build)
        chosen: list[int] = []
        for _set in range(rng.choice((1, 1, 2, 3))):
            want = v
            one: list[int] = []
            for c in deck:
                if c in chosen:
                    continue
                worth = RANK[c] + 1 if court else value[c]
                if 0 < worth <= want and (not court or worth == v):
                    one.append(c)
                    want -= worth
                    if not want:
                        chosen += one
                        break
        if len(chosen) < 2:
            continue
        for c in chosen:
            deck.remove(c)
        cards = sum(1 << c for c in chosen)
        total = sum(rules.pair_value[c] for c in chosen)
        builds.append(Build(cards, v, rng.randrange(nplayers), total != v))
    loose = sum(1 << c for c in deck[:nloose])
    del deck[:nloose]
    captured = [0] * nsides
    stock = 0
    for c in deck:
        if rng.random() < 0.3 and not ending:
            stock |= 1 << c
        else:
            captured[rng.randrange(nsides)] |= 1 << c
    return RoundState(
        hands=tuple(hands),
        loose=loose,
        builds=tuple(sorted(builds)),
        captured=tuple(captured),
        sweeps=tuple(rng.randrange(3) for _ in range(nsides)),
        to_move=0,
        last_capturer=rng.randrange(-1, nsides) if rng.random() < 0.7 else -1,
        stock=stock,
        more=stock != 0,
        dealer=rng.randrange(nplayers),
        nsides=nsides,
    )


# --- random play ---------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(rules=rule_sets(), nplayers=st.sampled_from([2, 3, 4]), seed=st.integers(0, 2**32))
def test_random_rounds_agree(rules: RuleSet, nplayers: int, seed: int) -> None:
    assert compare_round(rules, nplayers, random.Random(seed)) >= 48


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("nplayers,partnerships", [(2, True), (3, True), (4, True), (4, False)])
def test_preset_rounds_agree(preset: str, nplayers: int, partnerships: bool) -> None:
    rules = RuleSet.from_preset(preset, partnerships=partnerships)
    rng = random.Random(f"{preset}{nplayers}{partnerships}")
    for _ in range(10):
        compare_round(rules, nplayers, rng)


@pytest.mark.parametrize("name", sorted(MOVEGEN_OPTIONS))
def test_every_option_agrees(name: str) -> None:
    # Each choice of each option, on the presets it applies to, in a few rounds of 2-4 players.
    rng = random.Random(name)
    for choice in MOVEGEN_OPTIONS[name]:
        for preset in PRESETS:
            if name == "court_builds" and preset != "classic":
                continue
            rules = RuleSet.from_preset(preset, **{name: choice})
            compare_round(rules, rng.choice([2, 3, 4]), rng, crowd=rng.choice([0, 10]))


# --- crowded tables ------------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(rules=rule_sets(), nplayers=st.sampled_from([2, 3, 4]), seed=st.integers(0, 2**32))
def test_crowded_rounds_agree(rules: RuleSet, nplayers: int, seed: int) -> None:
    # Builds and trails first: up to 14 loose cards and several builds.
    compare_round(rules, nplayers, random.Random(seed), crowd=14)


@pytest.mark.parametrize("preset", PRESETS)
def test_sixteen_loose_cards_agree(preset: str) -> None:
    # Tables at movegen.MAX_LISTED_LOOSE, the most the Python lists for people, built and made up.
    rng = random.Random(preset)
    rules = RuleSet.from_preset(preset)
    native = native_rules(rules)
    listed = 0
    for nplayers, nbuilds in ((2, 0), (3, 2), (4, 3)):
        s = random_position(rules, rng, nplayers, movegen.MAX_LISTED_LOOSE, nbuilds, hand=4)
        assert s.loose.bit_count() == movegen.MAX_LISTED_LOOSE
        listed += len(compare(rules, native, s))
    # The worst table of that size: the 16 cards A to 4, whose captures run to tens of thousands.
    hands = (parse_hand("TC 9H 8D KS"), parse_hand("5S"), parse_hand("6S"))
    s = RoundState(hands, (1 << 16) - 1, (), (0, 0, 0), (0, 0, 0), 0, -1, 0, False, 2, 3)
    listed += len(compare(rules, native, s))
    assert listed > 100


@settings(max_examples=400, deadline=None)
@given(
    rules=rule_sets(),
    nplayers=st.sampled_from([2, 3, 4]),
    nloose=st.integers(0, 10),
    nbuilds=st.integers(0, 5),
    seed=st.integers(0, 2**32),
)
def test_made_up_positions_agree(rules: RuleSet, nplayers: int, nloose: int, nbuilds: int, seed: int) -> None:
    # Positions no one played to: builds whose owners lack the capture card (the last resort),
    # builds of 1 and 14 for one ace, duplicate values, several builds of one value to merge.
    rng = random.Random(seed)
    s = random_position(rules, rng, nplayers, nloose, nbuilds)
    native = native_rules(rules)
    compare(rules, native, s)
    hand = s.hands[0]
    compare_cards(rules, native, s, hand & -hand)


# --- the hand-made positions of test_movegen.py --------------------------------------------------


def _movegen_tests() -> list[str]:
    import test_movegen

    return [
        name
        for name, f in inspect.getmembers(test_movegen, inspect.isfunction)
        if name.startswith("test_") and not inspect.signature(f).parameters
    ]


@pytest.mark.parametrize("name", _movegen_tests())
def test_hand_made_positions_agree(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Every position test_movegen.py asks for legal moves (directly, through conftest's helpers or
    # through is_legal and illegal_reason) goes through both implementations.
    import test_movegen

    seen: list[tuple[RuleSet, RoundState, int | None]] = []
    reference = movegen.legal_moves

    def recording(rules: RuleSet, state: RoundState, cards: int | None = None) -> list[Move]:
        seen.append((rules, state, cards))
        return reference(rules, state, cards)

    for module in (movegen, test_movegen, sys.modules.get("conftest")):
        if module is not None and hasattr(module, "legal_moves"):
            monkeypatch.setattr(module, "legal_moves", recording)
    getattr(test_movegen, name)()
    monkeypatch.undo()
    for rules, state, cards in seen:
        native = native_rules(rules)
        if cards is None:
            compare(rules, native, state)
        else:
            compare_cards(rules, native, state, cards)


def test_hand_made_positions_are_many() -> None:
    assert len(_movegen_tests()) >= 20


# --- the bindings ------------------------------------------------------------------------------


def test_bad_values_are_one_line_value_errors() -> None:
    assert core.NATIVE is not None
    rules = RuleSet.from_preset("royal")
    native = native_rules(rules)
    s = random_position(rules, random.Random(1), 2, 4, 1)
    good = tuple(s)
    bad_states: list[Any] = [
        (),
        "state",
        good[:5],
        (good[0], "loose", *good[2:]),
        ((1 << 60, 1), *good[1:]),
        (*good[:5], 7, *good[6:]),
        (*good[:2], ((3, 5, 0),), *good[3:]),
    ]
    for bad in bad_states:
        for call in (
            lambda b: core.NATIVE.legal_moves(native, b),
            lambda b: core.NATIVE.apply(native, b, (0, TRAIL, 0, 0)),
            lambda b: core.NATIVE.successors(native, b),
        ):
            with pytest.raises(ValueError) as info:
                call(bad)
            assert "\n" not in str(info.value)
    card = (s.hands[0] & -s.hands[0]).bit_length() - 1
    bad_moves = [(), (card,), (52, TRAIL, 0, 0), (card, 3, 0, 0), (card, BUILD, 1 << 52, 5), (card, 0, -1, 0)]
    for move in bad_moves:
        with pytest.raises(ValueError) as info:
            core.NATIVE.apply(native, good, move)
        assert "\n" not in str(info.value)
    with pytest.raises(ValueError, match="random rounds of 5 players"):
        core.NATIVE.random_rounds(native, 5, 5, 1, 0)


def test_random_rounds_in_the_core() -> None:
    assert core.NATIVE is not None
    for preset in PRESETS:
        native = native_rules(RuleSet.from_preset(preset))
        for nplayers, nsides in ((2, 2), (3, 3), (4, 2), (4, 4)):
            positions, moves, listed = core.NATIVE.random_rounds(native, nplayers, nsides, 50, 3)
            assert positions == moves == 50 * 48  # one card played a ply
            assert listed > positions
    assert core.NATIVE.MAX_LISTED_LOOSE == movegen.MAX_LISTED_LOOSE
    assert (TRAIL, CAPTURE, BUILD) == (0, 1, 2)


def test_count_legal_moves_counts_the_references_moves() -> None:
    """The engine benchmark's batch (benchmarks/bench_engine.py): every position's moves, each pass."""
    assert core.NATIVE is not None
    for preset in PRESETS:
        rules = RuleSet.from_preset(preset)
        positions = []
        rng = random.Random(5)
        for _ in range(3):
            sh = shuffle_round(rng, 2)
            s = new_round(2, 2, 0, sh.table, sh.deals[0])
            i = 1
            while not s.is_over:
                if s.needs_deal:
                    s = deal(s, sh.deals[i])
                    i += 1
                positions.append(s)
                moves = legal_moves(rules, s)
                s = apply(rules, s, moves[rng.randrange(len(moves))])
        listed = sum(len(legal_moves(rules, s)) for s in positions)
        native = native_rules(rules)
        assert core.NATIVE.count_legal_moves(native, positions, 3) == 3 * listed
        assert core.NATIVE.count_legal_moves(native, positions, 0) == 0
    with pytest.raises(ValueError) as info:
        core.NATIVE.count_legal_moves(native, [(1, 2)], 1)
    assert "\n" not in str(info.value)


class SplitMix64:
    """The generator of the core's random rounds (src/engine/playout.rs), to replay them here."""

    def __init__(self, seed: int) -> None:
        self.state = seed

    def next(self) -> int:
        mask = (1 << 64) - 1
        self.state = (self.state + 0x9E3779B97F4A7C15) & mask
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        return ((self.next() >> 32) * n) >> 32


def python_random_rounds(rules: RuleSet, nplayers: int, nsides: int, rounds: int, seed: int) -> int:
    """The moves listed over the core's random rounds, played by the Python reference."""
    rng = SplitMix64(seed)
    listed = 0
    for _ in range(rounds):
        pack = list(range(NUM_CARDS))
        for i in range(NUM_CARDS - 1, 0, -1):
            j = rng.below(i + 1)
            pack[i], pack[j] = pack[j], pack[i]
        table = sum(1 << c for c in pack[:4])
        # Each deal takes 4 cards a seat: the d-th deal starts 4 * nplayers * d past the table.
        deals = [
            tuple(
                sum(1 << c for c in pack[4 + 4 * (nplayers * d + p) : 8 + 4 * (nplayers * d + p)])
                for p in range(nplayers)
            )
            for d in range(48 // (4 * nplayers))
        ]
        s = new_round(nplayers, nsides, rng.below(nplayers), table, deals[0])
        i = 1
        while not s.is_over:
            if s.needs_deal:
                s = deal(s, deals[i])
                i += 1
            moves = legal_moves(rules, s)
            listed += len(moves)
            s = apply(rules, s, moves[rng.below(len(moves))])
    return listed


def test_core_random_rounds_are_the_pythons() -> None:
    # The same seeded rounds in the core and in the reference list the same number of moves
    # (the core's perft-like pinned counts, src/engine/playout.rs, are these).
    assert core.NATIVE is not None
    variant = RuleSet.from_preset(
        "royal",
        build_as_card_in_sums=True,
        merge_builds=True,
        table_cards_in_raise="with_hand_card",
        partner_build_interaction="raise_only",
        partnerships=False,
    )
    cases = [
        (RuleSet.from_preset("classic"), 2, 2, 25888),
        (RuleSet.from_preset("royal"), 3, 3, 28459),
        (RuleSet.from_preset("dominican"), 4, 2, 20295),
        (variant, 4, 4, 27483),
    ]
    for rules, nplayers, nsides, pinned in cases:
        native = core.NATIVE.random_rounds(native_rules(rules), nplayers, nsides, 100, 2024)
        assert native[2] == python_random_rounds(rules, nplayers, nsides, 100, 2024) == pinned
