"""Known positions from rules.md, with their exact move lists, for each preset."""

from __future__ import annotations

import pytest
from conftest import moves_text, position

from casino_coach.engine.cards import parse_card
from casino_coach.engine.movegen import BUILD, CAPTURE, TRAIL, Move, apply, legal_moves
from casino_coach.engine.notation import parse_hand, parse_move
from casino_coach.engine.reasons import illegal_reason, play
from casino_coach.engine.rules import RuleSet
from casino_coach.errors import IllegalMoveError

CLASSIC = RuleSet.from_preset("classic")
ROYAL = RuleSet.from_preset("royal")
DOMINICAN = RuleSet.from_preset("dominican")


def test_pagat_eight_takes_sets_not_all_six() -> None:
    # rules.md 1.6.1: table A 2 3 5 6 8, an 8 may take 8+(6,2)+(5,3) or 8+(5,2,A) but not all six.
    s = position(CLASSIC, ["8C", "KH"], "AD 2D 3D 5D 6D 8D")
    assert moves_text(CLASSIC, s) == {
        "8C",
        "8C x 8D",
        "8C x 2D 6D",
        "8C x 3D 5D",
        "8C x AD 2D 5D",
        "8C x 2D 6D 8D",
        "8C x 3D 5D 8D",
        "8C x AD 2D 5D 8D",
        "8C x 2D 3D 5D 6D",
        "8C x 2D 3D 5D 6D 8D",
    }
    assert "8C x AD 2D 3D 5D 6D 8D" not in moves_text(CLASSIC, s)


def test_build_three_on_six_holding_nine() -> None:
    s = position(CLASSIC, ["3C 9H", "KH"], "6D")
    assert moves_text(CLASSIC, s) == {"3C", "3C b9 6D", "9H"}


def test_multiple_build_needs_the_second_eight() -> None:
    # rules.md 1.7.1 and B2: one 8 on 3+5 is a multiple 8 only when a second 8 is held.
    two = position(CLASSIC, ["8C 8H", "KH"], "3D 5D")
    assert moves_text(CLASSIC, two, "8C") == {"8C", "8C x 3D 5D", "8C b8 3D 5D"}
    one = position(CLASSIC, ["8C 2H", "KH"], "3D 5D")
    assert moves_text(CLASSIC, one, "8C") == {"8C", "8C x 3D 5D"}


def test_five_card_multiple_build() -> None:
    # pagat: table 3 4 5 7, hand 2 and 7: 2 on 5, gathering 3+4 and 7.
    s = position(CLASSIC, ["2C 7S", "KH"], "3D 4D 5D 7D")
    got = moves_text(CLASSIC, s, "2C")
    assert "2C b7 3D 4D 5D 7D" in got
    assert got == {"2C", "2C b7 5D", "2C b7 5D 7D", "2C b7 3D 4D 5D", "2C b7 3D 4D 5D 7D"}
    off = CLASSIC.replace(multi_set_build_creation=False)
    assert moves_text(off, s, "2C") == {"2C", "2C b7 5D", "2C b7 5D 7D", "2C b7 3D 4D 5D"}


def test_five_on_five_single_ten_or_multiple_five() -> None:
    s = position(CLASSIC, ["5C 5H TS", "KH"], "5D")
    got = moves_text(CLASSIC, s, "5C")
    assert {"5C b10 5D", "5C b5 5D", "5C x 5D"} <= got


def test_court_pairs_one_only() -> None:
    s = position(CLASSIC, ["KC", "2H"], "KD KH 3C 5S")
    assert moves_text(CLASSIC, s) == {"KC", "KC x KD", "KC x KH"}
    allr = CLASSIC.replace(court_pairing_count="all")
    assert moves_text(allr, s) == {"KC", "KC x KD KH"}


def test_court_never_builds_in_classic() -> None:
    s = position(CLASSIC, ["KC KS", "2H"], "KD 3C")
    assert all(m.action != BUILD for m in legal_moves(CLASSIC, s))
    s2 = position(CLASSIC.replace(court_builds=True), ["KC KS", "2H"], "KD 3C")
    assert "KC b13 KD" in moves_text(CLASSIC.replace(court_builds=True), s2)


def test_royal_ace_as_fourteen_or_one() -> None:
    # pagat: an ace captures 8+5+A (8+5+1 = 14) and K+A (13+1 = 14).
    s = position(ROYAL, ["AC", "2H"], "8D 5D AH")
    assert "AC x AH 5D 8D" in moves_text(ROYAL, s)
    assert "AC x AH" in moves_text(ROYAL, s)
    s2 = position(ROYAL, ["AC", "2H"], "KD AH")
    assert moves_text(ROYAL, s2) == {"AC", "AC x AH", "AC x AH KD"}
    # Never a loose ace (as 1) and a 14 in one move.
    s3 = position(ROYAL, ["AC", "2H"], "AH 9D 5D")
    assert moves_text(ROYAL, s3) == {"AC", "AC x AH", "AC x 5D 9D"}


def test_seven_build_and_two_not_taken_by_nine() -> None:
    s = position(CLASSIC, ["9C", "2H"], "2D [3C 4C =7 @1]")
    assert moves_text(CLASSIC, s) == {"9C"}
    c4 = CLASSIC.replace(build_as_card_in_sums=True)
    assert moves_text(c4, s) == {"9C", "9C x 2D 3C 4C"}


def test_build_taken_only_by_its_value() -> None:
    s = position(CLASSIC, ["7C 8S", "2H"], "[3C 4C =7 @1] [5D 3D =8 @1]")
    caps = {m for m in moves_text(CLASSIC, s) if " x " in m}
    assert caps == {"7C x 3C 4C", "8S x 3D 5D"}
    assert "a 7-build can only be taken by a 7" in illegal_reason(CLASSIC, s, parse_move("8S x 3C 4C"))


def test_must_hold_and_owner_may_not_trail() -> None:
    # Seat 0 owns a build of 8 and holds one 8: it may not trail, nor use the 8 elsewhere.
    s = position(CLASSIC, ["8C 3H", "2H"], "5S 3D [6D 2D =8 @0]")
    got = moves_text(CLASSIC, s)
    assert got == {"8C x 2D 6D", "8C x 2D 3D 5S 6D", "3H b8 2D 5S 6D", "3H b8 5S", "3H x 3D"}
    assert "you own a build" in illegal_reason(CLASSIC, s, parse_move("3H"))
    assert "left without an 8" in illegal_reason(CLASSIC, s, parse_move("8C x 3D 5S"))


def test_raise_single_not_multiple() -> None:
    s = position(CLASSIC, ["3C 8S", "2H"], "[2D 3D =5 @1]")
    assert "3C b8 2D 3D" in moves_text(CLASSIC, s)
    m = position(CLASSIC, ["3C 8S", "2H"], "[2D 3D 5H =5 @1]")
    assert "3C b8 2D 3D 5H" not in moves_text(CLASSIC, m)
    assert "multiple builds can never be raised" in illegal_reason(CLASSIC, m, parse_move("3C b8 2D 3D 5H"))


def test_table_cards_never_raise() -> None:
    s = position(CLASSIC, ["2C 9S", "2H"], "2S [2D 3D =5 @1]")
    # 5 + 2 (hand) = 7 only; 2+2 from the table cannot make 9.
    assert "2C b9 2D 2S 3D" not in moves_text(CLASSIC, s)
    assert "loose table cards can never" in illegal_reason(CLASSIC, s, parse_move("2C b9 2D 3D 2S"))
    wh = CLASSIC.replace(table_cards_in_raise="with_hand_card")
    assert "2C b9 2D 2S 3D" in moves_text(wh, s)


def test_dominican_equal_loose_must_take_both_tens() -> None:
    s = position(DOMINICAN, ["TC AS", "2H"], "TD TH 8S 6D")
    got = moves_text(DOMINICAN, s, "TC")
    assert got == {"TC x TD TH"}  # no trail, no single ten
    ace = moves_text(DOMINICAN, s, "AS")
    assert "AS x 6D 8S" in ace
    assert "must take every loose card worth 10" in illegal_reason(DOMINICAN, s, parse_move("TC x TD"))
    assert "may not be trailed" in illegal_reason(DOMINICAN, s, parse_move("TC"))


def test_dominican_no_raise_of_own_build() -> None:
    s = position(DOMINICAN, ["3C 8S 5H", "2H"], "[2D 3D =5 @0]")
    assert "3C b8 2D 3D" not in moves_text(DOMINICAN, s)
    assert "3C b8 2D 3D" in moves_text(ROYAL, position(ROYAL, ["3C 8S 5H", "2H"], "[2D 3D =5 @0]"))


def test_dominican_partner_builds_are_off_limits() -> None:
    s = position(DOMINICAN, ["3C 8S 5H", "2H", "4D", "4S"], "[2D 3D =5 @2]")
    got = moves_text(DOMINICAN, s)
    assert not any(" b" in t and "2D 3D" in t for t in got)
    assert "5H x 2D 3D" in got  # capturing a partner's build is allowed
    free = position(ROYAL, ["3C 8S 5H", "2H", "4D", "4S"], "[2D 3D =5 @2]")
    assert "3C b8 2D 3D" in moves_text(ROYAL, free)


def test_sweep_and_residue() -> None:
    s = position(ROYAL, ["9C 2C", "2H 3S"], "4D 5D")
    after = apply(ROYAL, s, parse_move("9C x 4D 5D"))
    assert after.sweeps == (1, 0) and after.last_capturer == 0
    # Last card of the round: the residue goes to the last capturer, not a sweep.
    end = position(ROYAL, ["2C", ""], "4D 5D", to_move=0)
    end = end._replace(last_capturer=1)
    final = apply(ROYAL, end, parse_move("2C"))
    assert final.is_over and final.captured[1] & parse_hand("4D 5D 2C") == parse_hand("4D 5D 2C")
    assert final.sweeps == (0, 0)


def test_last_card_genuine_sweep_counts() -> None:
    end = position(ROYAL, ["9C", ""], "4D 5D")
    final = apply(ROYAL, end, parse_move("9C x 4D 5D"))
    assert final.sweeps == (1, 0)
    no = ROYAL.replace(final_capture_can_sweep=False)
    assert apply(no, end, parse_move("9C x 4D 5D")).sweeps == (0, 0)


def test_play_rejects_with_reason() -> None:
    s = position(CLASSIC, ["8C", "2H"], "3D 5D")
    with pytest.raises(IllegalMoveError, match="not in the hand"):
        play(CLASSIC, s, Move(parse_card("9C"), TRAIL))
    with pytest.raises(IllegalMoveError, match="not on the table"):
        play(CLASSIC, s, parse_move("8C x 4D 4H"))
    assert play(CLASSIC, s, parse_move("8C x 3D 5D")).captured[0]


def test_moves_are_unique_and_sorted() -> None:
    s = position(ROYAL, ["AC 7S 8D 6H", "2H"], "AD 6C 7C 8H 2S [3D 4D =7 @1]")
    ms = legal_moves(ROYAL, s)
    assert ms == sorted(set(ms))
    assert all(m.action in (TRAIL, CAPTURE, BUILD) for m in ms)
    # Without builds the moves are made in order: an ace's captures as 1 and as 14, builds of
    # several values and sets.
    s = position(ROYAL, ["AC 7S 8D 6H", "2H"], "AD 6C 7C 8H 2S 3D 4D")
    ms = legal_moves(ROYAL, s)
    assert ms == sorted(set(ms)) and len(ms) > 20


def test_unions_of_many_sets_match_a_plain_walk() -> None:
    # Big tables take the memoised branch of _unions; compare it with walking every family of sets.
    import random

    from casino_coach.engine.movegen import _numeral_sums, _unions

    def walk_all(sets: tuple[int, ...]) -> tuple[int, ...]:
        found: set[int] = set()

        def walk(start: int, acc: int) -> None:
            for j in range(start, len(sets)):
                if not sets[j] & acc:
                    found.add(acc | sets[j])
                    walk(j + 1, acc | sets[j])

        walk(0, 0)
        return tuple(sorted(found))

    rng = random.Random(3)
    checked = 0
    for _ in range(300):
        loose = sum(1 << c for c in rng.sample(range(40), rng.randrange(8, 14)))
        sums = _numeral_sums(loose, 14)
        for w in range(1, 15):
            if len(sums[w]) > 8:
                assert _unions(sums[w]) == walk_all(sums[w])
                checked += 1
    assert checked > 100


def test_value_sets_by_every_path_match_a_table_built_from_nothing() -> None:
    # _numeral_sums answers from its cache, extends or filters the last table asked for (after a
    # trail or a capture), extends a cached table one card short, or builds from nothing; every
    # path must give the same sets. Two games interleaved make the last table the other game's.
    import random

    from casino_coach.engine.cards import RANK, cards_of
    from casino_coach.engine.movegen import _numeral_sums, _sums_cache, _sums_table

    rng = random.Random(5)
    _sums_cache.clear()
    for limit, games in ((10, 1), (14, 1), (10, 2), (14, 2)):
        tables = [0] * games
        for i in range(400):
            loose = tables[i % games]
            if loose.bit_count() > 4 and rng.random() < 0.4:  # a capture: some cards leave
                for c in rng.sample(cards_of(loose), rng.randrange(1, 4)):
                    loose ^= 1 << c
            else:  # a trail: one card joins
                loose |= 1 << rng.choice([c for c in range(52) if not loose >> c & 1])
            tables[i % games] = loose
            got = _numeral_sums(loose, limit)
            want = _sums_table([(1 << c, RANK[c] + 1) for c in cards_of(loose)], limit)
            assert [sorted(ms) for ms in got] == [sorted(ms) for ms in want]


def test_one_ace_cannot_cover_a_build_of_one_and_a_build_of_fourteen() -> None:
    # Seat 0 owns a build of 14 and holds A♥ A♦ 5C: building aces (1) with A♦ would leave one ace
    # for both builds, and an ace captures as 1 or as 14, never both in one move.
    s = position(ROYAL, ["AD AH 5C", "2H"], "AC [2D QC =14 @0]")
    assert "AD b1 AC" not in moves_text(ROYAL, s)
    assert "each needs its own ace" in illegal_reason(ROYAL, s, parse_move("AD b1 AC"))
    two = position(ROYAL, ["AD AH AS", "2H"], "AC [2D QC =14 @0]")
    assert "AD b1 AC" in moves_text(ROYAL, two)
    # The position random play reached before the rule: one ace left, builds of 1 and 14.
    last = position(ROYAL, ["AH", "2H"], "7H [AC AS =1 @0] [2D QC =14 @0]")
    assert legal_moves(ROYAL, last)


@pytest.mark.parametrize(
    ("card", "take", "value", "words"),
    [
        ("3H", "2D 3C", 8, "3♥ builds 8 with 2♦ 3♣"),
        # Issue 42: a multiple build read as one of twice the value ("3♠ builds 10 with 7♣ 10♠").
        ("3S", "7C TS", 10, "3♠ builds two 10s with 7♣ 10♠"),
        ("8D", "AC AH TD", 10, "8♦ builds two 10s with A♣ A♥ 10♦"),
        ("4S", "4C 4D", 4, "4♠ builds three 4s with 4♣ 4♦"),
        # An ace counted 14 where the rules let it: still one build.
        ("AS", "KD", 14, "A♠ builds 14 with K♦"),
    ],
)
def test_a_build_says_how_many_sets_it_holds(card: str, take: str, value: int, words: str) -> None:
    assert Move(parse_card(card), BUILD, parse_hand(take), value).describe() == words
